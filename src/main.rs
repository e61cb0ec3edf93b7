//! The `sowfan` command: the protocol on stdin/stdout, or a tool (perft, bench, match,
//! check, solve, tablebase, tune, analyse, play). Each tool owns its arguments, its run and
//! its exit status (`<tool>::command`); this file sets up logging, parses and dispatches.

use std::io::BufReader;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};

use sowfan::protocol::{self, Output};
use sowfan::registry;
use sowfan::tournament::{self, config};

#[derive(Parser)]
#[command(
    name = "sowfan",
    version,
    about = "A game engine for Kalah, Afrika, Anywoli and Fanorona",
    long_about = "A game engine for Kalah, Afrika, Anywoli and Fanorona.\n\n\
        Without a subcommand, sowfan speaks its UCI/UGI-like protocol on stdin/stdout \
        (see protocol.md): e.g.\n  printf 'newgame kalah\\nposition startpos moves C\\ngo depth 12\\n' | sowfan\n\n\
        Logs go to stderr; set RUST_LOG=debug to see every line in and out."
)]
struct Cli {
    /// Preselect the game and its options, as after `newgame`, e.g. --game "kalah pits=4".
    /// For GUIs and tournament managers that cannot send `newgame`.
    #[arg(long, value_name = "GAME [KEY=VALUE ...]")]
    game: Option<String>,

    /// Endgame table directory, as `setoption name TablebasePath value DIR`.
    #[arg(long, value_name = "DIR")]
    tablebases: Option<PathBuf>,

    #[command(subcommand)]
    command: Option<Tool>,
}

#[derive(Subcommand)]
enum Tool {
    Perft(sowfan::perft::command::PerftArgs),
    Bench(sowfan::bench::command::BenchArgs),
    /// Play engines against each other, refereeing every move with sowfan's rules.
    ///
    /// Each engine runs as a child process speaking the UGI/UCI-like protocol; every
    /// `bestmove` is checked by the rules, and an illegal or malformed move, a crash, a
    /// missing `readyok` or `bestmove`, or a clock overrun loses the game. Games end by the
    /// rules (draw rules included), never by an engine's word. See README.md, "Matches".
    ///
    /// Example:
    ///   sowfan match --engine cmd=sowfan name=d1 depth=1 --engine cmd=sowfan name=d6 depth=6
    ///     --game kalah --games 100 --concurrency 2 --openings plies=4 --records games.jsonl
    #[command(verbatim_doc_comment)]
    Match(MatchArgs),
    /// Check that an engine follows the protocol: one line per check, then a summary.
    ///
    /// Runs a fixed list of checks against the engine (handshake, isready idle and while
    /// searching, setoption, new game, position startpos/fen with moves, an extra move
    /// pending, go depth/nodes/movetime/clocks/infinite + stop, exactly one bestmove per go,
    /// queries, bad lines, an illegal move, quit), refereeing every bestmove and query
    /// answer with sowfan's rules. Exit status: 0 when every check passes (or is skipped
    /// because the game has no such position), 1 when any fails, 2 when the engine cannot
    /// be started or the command line is wrong, 130 after Ctrl-C. See README.md,
    /// "Checking an engine".
    ///
    /// Example:
    ///   sowfan check --engine cmd=./my-engine --game "kalah pits=4"
    #[command(verbatim_doc_comment)]
    Check(CheckArgs),
    Solve(sowfan::solve::command::SolveArgs),
    /// Build, check and list endgame tables.
    #[command(subcommand)]
    Tablebase(sowfan::tablebase::command::TablebaseCommand),
    Tune(sowfan::tune::command::TuneArgs),
    Analyse(sowfan::analysis::AnalyseArgs),
    Play(sowfan::play::PlayArgs),
}

#[derive(clap::Args)]
struct CheckArgs {
    /// The engine, as key=value words (the keys of `sowfan match --engine`; search limits
    /// are ignored): cmd=<command> [arg=<argument>] [dir=<directory>] [proto=ugi|uci]
    /// [setup=newgame|setoption] [option.<Name>=<value> ...] [timemargin=<ms> (default
    /// 100; how late a timed search may answer)].
    #[arg(
        long = "engine",
        num_args = 1..,
        value_name = "KEY=VALUE",
        required = true,
        action = clap::ArgAction::Set
    )]
    engine: Vec<String>,
    /// The game and its options, as after `newgame`, e.g. --game "kalah pits=4".
    #[arg(long, default_value = "kalah", value_name = "GAME [KEY=VALUE ...]")]
    game: String,
    /// Milliseconds the engine has for each answer (handshake, readyok, bestmove beyond the
    /// search's own time, the bestmove after stop).
    #[arg(long, default_value_t = 5000, value_name = "MS")]
    timeout: u64,
    /// Seed of the random play that finds the positions sent.
    #[arg(long, default_value_t = 1, value_name = "S")]
    seed: u64,
}

impl CheckArgs {
    fn into_config(self) -> Result<sowfan::check::CheckConfig, String> {
        let engine =
            config::parse_engine_keys(&self.engine, &[]).map_err(|e| format!("--engine: {e}"))?;
        if self.timeout == 0 {
            return Err("--timeout must be at least 1 ms".to_string());
        }
        Ok(sowfan::check::CheckConfig {
            engine,
            game: self.game,
            timeout: Duration::from_millis(self.timeout),
            seed: self.seed,
        })
    }
}

#[derive(clap::Args)]
struct MatchArgs {
    /// An engine, as key=value words: cmd=<command> (words after the program are its
    /// arguments; arg=<one argument> for one with spaces) [name=<name>] [dir=<directory>]
    /// [proto=ugi|uci] [setup=newgame|setoption] [option.<Name>=<value> ...]
    /// [depth=<n>] [nodes=<n>] [movetime=<ms>] [tc=[moves/]<base>[+<inc>] (seconds)]
    /// [timemargin=<ms> (default 100)] [restart=on|off]. Give it once per engine.
    #[arg(
        long = "engine",
        num_args = 1..,
        value_name = "KEY=VALUE",
        action = clap::ArgAction::Append,
        required = true
    )]
    engine: Vec<String>,
    /// Keys applied to every engine (before each engine's own keys), e.g. --each tc=10+0.1.
    #[arg(long, num_args = 1.., value_name = "KEY=VALUE")]
    each: Vec<String>,
    /// The game and its options, as after `newgame`, e.g. --game "kalah pits=4".
    #[arg(long, value_name = "GAME [KEY=VALUE ...]")]
    game: String,
    /// Games per pairing of engines; each opening is played twice with colours swapped.
    #[arg(long, default_value_t = 2, value_name = "N")]
    games: usize,
    /// Games played at the same time.
    #[arg(long, default_value_t = 1, value_name = "N")]
    concurrency: usize,
    /// Seed for random openings (and order=random); printed when not given.
    #[arg(long, value_name = "S")]
    seed: Option<u64>,
    /// plies=<k>: random openings of k moves from the start (never ending the game);
    /// file=<path> [order=sequential|random]: one opening a line, as a move list from the
    /// start, a position string, or `<position string> moves ...`. Default: the start.
    #[arg(long, num_args = 1.., value_name = "KEY=VALUE")]
    openings: Vec<String>,
    /// elo0=<elo> elo1=<elo> [alpha=0.05] [beta=0.05]: a sequential probability ratio test
    /// on game pairs that stops the match when it decides (two engines only).
    #[arg(long, num_args = 1.., value_name = "KEY=VALUE")]
    sprt: Vec<String>,
    /// Write every game as it ends to FILE, one JSON object a line.
    #[arg(long, value_name = "FILE")]
    records: Option<PathBuf>,
    /// Write every game as it ends to FILE as PGN-like text.
    #[arg(long, value_name = "FILE")]
    pgn: Option<PathBuf>,
    /// Who plays whom when more than two engines are given.
    #[arg(long, value_enum, default_value_t = Tournament::RoundRobin)]
    tournament: Tournament,
    /// Milliseconds an engine has to answer the handshake, `isready`, and `stop`.
    #[arg(long, default_value_t = 5000, value_name = "MS")]
    ready_timeout: u64,
    /// Milliseconds a search without a clock (depth=, nodes=) may take before the engine
    /// is declared hung, loses, and is killed.
    #[arg(long, default_value_t = 60000, value_name = "MS")]
    move_timeout: u64,
    /// Adjudicate a draw after this many moves, opening included (default: never; the
    /// game's own rules end every game).
    #[arg(long, value_name = "N")]
    max_plies: Option<usize>,
    /// No line per finished game, only the summary.
    #[arg(long)]
    quiet: bool,
}

#[derive(Clone, Copy, ValueEnum)]
enum Tournament {
    /// Every engine plays every other.
    RoundRobin,
    /// The first engine plays each of the others.
    Gauntlet,
}

impl MatchArgs {
    /// `engine_groups`: the words of each `--engine`, in order (clap's derive flattens them).
    fn into_config(self, engine_groups: &[Vec<String>]) -> Result<config::MatchConfig, String> {
        let engines = engine_groups
            .iter()
            .enumerate()
            .map(|(i, words)| {
                config::parse_engine(words, &self.each)
                    .map_err(|e| format!("--engine {}: {e}", i + 1))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let openings = if self.openings.is_empty() {
            None
        } else {
            Some(config::parse_openings(&self.openings)?)
        };
        let sprt = if self.sprt.is_empty() {
            None
        } else {
            Some(config::parse_sprt(&self.sprt)?)
        };
        let seed = self.seed.unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos() as u64)
                .unwrap_or(0)
        });
        Ok(config::MatchConfig {
            engines,
            game: self.game,
            games: self.games,
            concurrency: self.concurrency,
            seed,
            openings,
            sprt,
            records: self.records,
            pgn: self.pgn,
            tournament: match self.tournament {
                Tournament::RoundRobin => config::TournamentKind::RoundRobin,
                Tournament::Gauntlet => config::TournamentKind::Gauntlet,
            },
            ready_timeout: Duration::from_millis(self.ready_timeout),
            move_timeout: Duration::from_millis(self.move_timeout),
            max_plies: self.max_plies,
            show_games: !self.quiet,
        })
    }
}

fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn"))
        .target(env_logger::Target::Stderr)
        .init();
    let matches = Cli::command()
        .after_long_help(registry::games_help())
        .get_matches();
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(e) => e.exit(),
    };
    let engine_groups: Vec<Vec<String>> = matches
        .subcommand_matches("match")
        .and_then(|m| m.get_occurrences::<String>("engine"))
        .map(|groups| groups.map(|g| g.cloned().collect()).collect())
        .unwrap_or_default();
    let result = match cli.command {
        None => protocol::run(
            BufReader::new(std::io::stdin()),
            Output::stdout(),
            cli.game.as_deref(),
            cli.tablebases,
        ),
        Some(Tool::Perft(args)) => return sowfan::perft::command::run(args),
        Some(Tool::Bench(args)) => return sowfan::bench::command::run(args),
        Some(Tool::Solve(args)) => return sowfan::solve::command::run(args),
        Some(Tool::Tablebase(command)) => return sowfan::tablebase::command::run(command),
        Some(Tool::Tune(args)) => return sowfan::tune::command::run(args),
        Some(Tool::Analyse(args)) => return sowfan::analysis::command::run(args),
        Some(Tool::Play(args)) => return sowfan::play::command::run(args),
        Some(Tool::Match(args)) => {
            let summary = args.into_config(&engine_groups).and_then(|config| {
                catch_interrupts();
                tournament::run(&config)
            });
            match summary {
                // The shell's convention for a run ended by SIGINT.
                Ok(summary) if summary.interrupted => return ExitCode::from(130),
                Ok(_) => Ok(()),
                Err(e) => Err(e),
            }
        }
        Some(Tool::Check(args)) => {
            let report = args.into_config().and_then(|config| {
                catch_interrupts();
                sowfan::check::run(&config)
            });
            return match report {
                Ok(report) if report.interrupted => ExitCode::from(130),
                Ok(report) if report.all_passed() => ExitCode::SUCCESS,
                Ok(_) => ExitCode::from(1),
                // A configuration error: no engine to check.
                Err(message) => {
                    eprintln!("sowfan check: {message}");
                    ExitCode::from(2)
                }
            };
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("sowfan: {message}");
            ExitCode::FAILURE
        }
    }
}

/// Ctrl-C (or SIGTERM) during a match or a check: the first stops it with a summary of what
/// was finished; a second leaves at once (the engines see their input close and quit).
fn catch_interrupts() {
    let handler = ctrlc::set_handler(|| {
        if tournament::interrupt() {
            std::process::exit(130);
        }
    });
    if let Err(e) = handler {
        log::warn!("Ctrl-C will end the match without a summary: {e}");
    }
}
