//! The `sowfan` command: the protocol on stdin/stdout, or a tool (perft, bench, match, check,
//! solve, tablebase, analyse, play).
//! Each tool lives in its own module; this file only parses the command line and dispatches.

use std::io::BufReader;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};

use std::sync::atomic::{AtomicBool, Ordering};

use sowfan::protocol::{self, Output};
use sowfan::registry;
use sowfan::tablebase::command as tablebase_command;
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
    /// Count move sequences of DEPTH moves (split by first move), with the speed.
    ///
    /// Example: sowfan perft 11 kalah   or   sowfan perft 6 kalah pits=4 seeds=3
    Perft {
        /// Number of moves (an extra move counts as a move).
        depth: u32,
        /// Game name (default kalah) followed by key=value options.
        #[arg(value_name = "GAME [KEY=VALUE ...]")]
        game: Vec<String>,
        /// Start from this position string instead of the start position.
        #[arg(long)]
        fen: Option<String>,
        /// Play these moves (space-separated, one argument) before counting.
        #[arg(long)]
        moves: Option<String>,
    },
    /// Search a fixed set of positions of every game to a fixed depth; prints the node
    /// total (the same for a given build) and nodes per second.
    Bench {
        /// Override every game's bench depth.
        depth: Option<u32>,
    },
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
    Tablebase(TablebaseCli),
    /// Fit a game's evaluation weights to recorded games (Texel's method): the logistic
    /// loss of the static evaluation against the results of quiet positions.
    ///
    /// Example: sowfan tune kalah --records games.jsonl --iterations 2000
    #[command(verbatim_doc_comment)]
    Tune(TuneCli),
    /// Analyse games: each move against the engine's best, its loss and mark (?!, ?, ??,
    /// !), each player's average loss, the decisive mistake, and an evaluation chart.
    ///
    /// Reads `sowfan match --records` JSON Lines, `--pgn` games, game-record fixtures
    /// (docs/afrika.md) and plain lines (`<game> [options]: <moves>`, `fen <position> moves
    /// <moves>`), several games per input, from FILE or stdin (`-`). Prints aligned text or
    /// JSON Lines (one object a move, one a game) as each move is done. See README.md,
    /// "Analysing games".
    ///
    /// Example:
    ///   sowfan analyse games.jsonl --depth 10 --threads 2 --format jsonl --chart game.svg
    ///   echo 'kalah: C f a E' | sowfan analyse
    #[command(verbatim_doc_comment)]
    Analyse(AnalyseCli),
    /// Play a game against the engine in the terminal (also through a pipe).
    ///
    /// After each move: the board, the scores, whose turn it is and the legal moves. Type a
    /// move, or undo, hint, fen, moves, board, new, help, quit. See README.md, "Playing".
    ///
    /// Example: sowfan play kalah pits=4 --engine p2 --movetime 500
    #[command(verbatim_doc_comment)]
    Play(PlayCli),
}

#[derive(Clone, Copy, ValueEnum)]
enum FormatCli {
    /// Aligned columns for people.
    Text,
    /// One JSON object a move and one a game.
    Jsonl,
}

#[derive(clap::Args)]
struct AnalyseCli {
    /// The games: a file, or - (the default) for standard input.
    #[arg(value_name = "FILE|-")]
    input: Option<PathBuf>,
    /// The game of plain lines that name none (default kalah), e.g. --game "kalah pits=4".
    #[arg(long, value_name = "GAME [KEY=VALUE ...]")]
    game: Option<String>,
    /// Search each position to this depth (the default: 10).
    #[arg(long, value_name = "N", conflicts_with_all = ["movetime", "nodes"])]
    depth: Option<u32>,
    /// Search each position for this many milliseconds.
    #[arg(long, value_name = "MS", conflicts_with = "nodes")]
    movetime: Option<u64>,
    /// Search each position for this many nodes.
    #[arg(long, value_name = "N")]
    nodes: Option<u64>,
    /// Positions analysed at the same time (each search uses one thread, so the output
    /// does not depend on this).
    #[arg(long, default_value_t = 1, value_name = "T")]
    threads: usize,
    /// Transposition table of each search, in MiB.
    #[arg(long, default_value_t = 16, value_name = "MB")]
    hash: usize,
    /// Endgame table directory: covered positions get exact values.
    #[arg(long, value_name = "DIR")]
    tablebases: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = FormatCli::Text)]
    format: FormatCli,
    /// Draw each game's evaluation chart as SVG to FILE (FILE-<game number>.svg when the
    /// input holds several games).
    #[arg(long, value_name = "FILE.svg")]
    chart: Option<PathBuf>,
}

#[derive(Clone, Copy, ValueEnum)]
enum EngineSideCli {
    P1,
    P2,
    Both,
    None,
}

#[derive(clap::Args)]
struct PlayCli {
    /// Game name (default kalah) followed by key=value options.
    #[arg(value_name = "GAME [KEY=VALUE ...]")]
    game: Vec<String>,
    /// The side(s) the engine plays.
    #[arg(long, value_enum, default_value_t = EngineSideCli::P2)]
    engine: EngineSideCli,
    /// The engine's time per move in milliseconds (default 1000).
    #[arg(long, value_name = "MS", conflicts_with = "depth")]
    movetime: Option<u64>,
    /// The engine searches to this depth instead.
    #[arg(long, value_name = "N")]
    depth: Option<u32>,
    /// Endgame table directory.
    #[arg(long, value_name = "DIR")]
    tablebases: Option<PathBuf>,
    /// Transposition table size in MiB.
    #[arg(long, default_value_t = 64, value_name = "MB")]
    hash: usize,
    /// Start from this position string.
    #[arg(long)]
    fen: Option<String>,
}

#[derive(clap::Args)]
struct TuneCli {
    /// The game (and options), as after `newgame`.
    #[arg(value_name = "GAME [KEY=VALUE ...]", required = true)]
    game: Vec<String>,
    /// Match records (`sowfan match --records`), one or more.
    #[arg(long, num_args = 1.., value_name = "FILE", required = true)]
    records: Vec<PathBuf>,
    /// Full-batch Adam steps.
    #[arg(long, default_value_t = 2000, value_name = "N")]
    iterations: usize,
    /// Adam's step size, in hundredths of a point.
    #[arg(long, default_value_t = 1.0, value_name = "R")]
    rate: f64,
    /// Seed of the random subset (--max-positions).
    #[arg(long, default_value_t = 1, value_name = "S")]
    seed: u64,
    /// Leave out this many plies from the start of each game.
    #[arg(long, default_value_t = 8, value_name = "K")]
    skip_plies: usize,
    /// Use at most this many positions (a seeded random subset).
    #[arg(long, value_name = "N")]
    max_positions: Option<usize>,
    /// Write the tuned WEIGHTS constant to this file instead of stdout.
    #[arg(long, value_name = "FILE")]
    output: Option<PathBuf>,
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

#[derive(Subcommand)]
enum TablebaseCli {
    /// Build the tables of a game up to --seeds seeds (stones) in play, resuming at the
    /// first missing layer.
    ///
    /// Example: sowfan tablebase build kalah --seeds 20 --dir tables --threads 2
    #[command(verbatim_doc_comment)]
    Build {
        /// Game name followed by key=value options (only options that change values matter).
        #[arg(value_name = "GAME [KEY=VALUE ...]", required = true)]
        game: Vec<String>,
        /// Build every layer up to this many seeds (stones) in play.
        #[arg(long, value_name = "N")]
        seeds: u32,
        /// The table directory.
        #[arg(long, value_name = "DIR")]
        dir: PathBuf,
        #[arg(long, default_value_t = 1, value_name = "T")]
        threads: usize,
        /// I/K: build only slice I (from 1) of K of the top layer (the layers below must
        /// exist); `sowfan tablebase merge` assembles the slices.
        #[arg(long, value_name = "I/K")]
        shard: Option<String>,
    },
    /// Check every table file under DIR: header, size, checksum.
    Verify {
        #[arg(long, value_name = "DIR")]
        dir: PathBuf,
    },
    /// List what DIR holds: rule sets, layers, entries, sizes.
    Info {
        #[arg(long, value_name = "DIR")]
        dir: PathBuf,
    },
    /// Assemble the shards of layers into whole layer files, verifying every slice.
    Merge {
        #[arg(long, value_name = "DIR")]
        dir: PathBuf,
    },
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

/// The games and their options, from the registry, for `--help`.
fn games_help() -> String {
    let mut text = String::from("Games (name and options, as after `newgame` or in --game):\n");
    for entry in registry::GAMES {
        text.push_str(&format!("  {:<15} {}\n", entry.name, entry.summary));
        for option in entry.options {
            text.push_str(&format!(
                "  {:<15}   {}={} (default {}): {}\n",
                "",
                option.name,
                option.accepted(),
                option.default,
                option.help
            ));
        }
    }
    text
}

fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn"))
        .target(env_logger::Target::Stderr)
        .init();
    let matches = Cli::command().after_long_help(games_help()).get_matches();
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
        Some(Tool::Perft {
            depth,
            game,
            fen,
            moves,
        }) => perft(depth, &game, fen.as_deref(), moves.as_deref()),
        Some(Tool::Bench { depth }) => {
            let out = Output::stdout();
            let control = sowfan::search::SearchControl::default();
            sowfan::bench::run(depth, &control, &mut |line| out.line(line));
            Ok(())
        }
        Some(Tool::Solve(args)) => return sowfan::solve::command::run(args),
        Some(Tool::Tablebase(command)) => {
            let stop = catch_stop();
            let command = match command {
                TablebaseCli::Build {
                    game,
                    seeds,
                    dir,
                    threads,
                    shard,
                } => tablebase_command::Command::Build {
                    game,
                    seeds,
                    dir,
                    threads,
                    shard,
                },
                TablebaseCli::Verify { dir } => tablebase_command::Command::Verify { dir },
                TablebaseCli::Info { dir } => tablebase_command::Command::Info { dir },
                TablebaseCli::Merge { dir } => tablebase_command::Command::Merge { dir },
            };
            tablebase_command::run(command, stop)
        }
        Some(Tool::Tune(args)) => sowfan::tune::command::run(&sowfan::tune::command::TuneArgs {
            game: args.game.join(" "),
            records: args.records,
            iterations: args.iterations,
            rate: args.rate,
            seed: args.seed,
            skip_plies: args.skip_plies,
            max_positions: args.max_positions,
            output: args.output,
        }),
        Some(Tool::Analyse(args)) => {
            let stop = catch_stop();
            let args = sowfan::analysis::AnalyseArgs {
                input: args.input,
                game: args.game,
                depth: args.depth,
                nodes: args.nodes,
                movetime: args.movetime,
                threads: args.threads,
                hash_mb: args.hash,
                tablebases: args.tablebases,
                format: match args.format {
                    FormatCli::Text => sowfan::analysis::OutputFormat::Text,
                    FormatCli::Jsonl => sowfan::analysis::OutputFormat::Jsonl,
                },
                chart: args.chart,
            };
            return match sowfan::analysis::run(&args, stop) {
                Ok(report) if report.interrupted => {
                    eprintln!("sowfan analyse: interrupted");
                    ExitCode::from(130)
                }
                // Some game could not be read or replayed (each was reported).
                Ok(report) if report.errors > 0 => ExitCode::from(1),
                Ok(_) => ExitCode::SUCCESS,
                Err(message) => {
                    eprintln!("sowfan analyse: {message}");
                    ExitCode::FAILURE
                }
            };
        }
        Some(Tool::Play(args)) => {
            use std::io::IsTerminal;
            let args = sowfan::play::PlayArgs {
                game: args.game,
                engine: match args.engine {
                    EngineSideCli::P1 => sowfan::play::EngineSide::P1,
                    EngineSideCli::P2 => sowfan::play::EngineSide::P2,
                    EngineSideCli::Both => sowfan::play::EngineSide::Both,
                    EngineSideCli::None => sowfan::play::EngineSide::None,
                },
                movetime: args.movetime,
                depth: args.depth,
                tablebases: args.tablebases,
                hash_mb: args.hash,
                fen: args.fen,
            };
            let stdin = std::io::stdin();
            let echo = !stdin.is_terminal();
            sowfan::play::run(
                &args,
                &mut stdin.lock(),
                &mut std::io::stdout().lock(),
                sowfan::play::Style::from_environment(),
                echo,
            )
        }
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

/// Ctrl-C (or SIGTERM) for a long tool: raises the returned flag (the tool stops cleanly
/// and says what it kept); a second one leaves at once.
fn catch_stop() -> &'static AtomicBool {
    static STOP: AtomicBool = AtomicBool::new(false);
    let handler = ctrlc::set_handler(|| {
        if STOP.swap(true, Ordering::Relaxed) {
            std::process::exit(130);
        }
    });
    if let Err(e) = handler {
        log::warn!("Ctrl-C will end the program at once: {e}");
    }
    &STOP
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

fn perft(
    depth: u32,
    game: &[String],
    fen: Option<&str>,
    moves: Option<&str>,
) -> Result<(), String> {
    let (name, options) = match game.split_first() {
        Some((name, options)) => (name.as_str(), options),
        None => ("kalah", &[][..]),
    };
    let options: Vec<&str> = options.iter().map(String::as_str).collect();
    let mut session = registry::create(name, &options).map_err(|e| e.to_string())?;
    let moves: Vec<&str> = moves
        .map(|m| m.split_whitespace().collect())
        .unwrap_or_default();
    session
        .set_position(fen, &moves)
        .map_err(|e| e.to_string())?;
    let out = Output::stdout();
    let start = Instant::now();
    let mut total = 0u64;
    let never = std::sync::atomic::AtomicBool::new(false);
    session.divide(depth, &never, &mut |mv, count| {
        out.line(&format!("{mv}: {count}"));
        total += count;
    });
    if depth == 0 {
        total = 1;
    }
    let elapsed = start.elapsed();
    out.line(&format!("Nodes searched: {total}"));
    out.line(&format!("Time: {} ms", elapsed.as_millis()));
    out.line(&format!(
        "Nodes/second: {}",
        (total as f64 / elapsed.as_secs_f64().max(1e-9)) as u64
    ));
    Ok(())
}
