//! `sowfan match` on the command line: its arguments, their translation into a
//! [`MatchConfig`], and its exit status.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use crate::cli::{Exit, cancel_on_interrupt, exit_status};
use crate::client::process::Reaper;
use crate::client::spec::parse_engine;

use crate::r#match;
use crate::r#match::config::{self, MatchConfig, TournamentKind};
use crate::r#match::report::ReportState;

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
#[derive(Debug, Clone, clap::Args)]
#[command(verbatim_doc_comment)]
pub struct MatchOptions {
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
    pub engine: Vec<String>,
    /// Keys applied to every engine (before each engine's own keys), e.g. --each tc=10+0.1.
    #[arg(long, num_args = 1.., value_name = "KEY=VALUE")]
    pub each: Vec<String>,
    /// The game and its options, as after `newgame`, e.g. --game "kalah pits=4".
    #[arg(long, value_name = "GAME [KEY=VALUE ...]")]
    pub game: String,
    /// Games per pairing of engines; each opening is played twice with colours swapped.
    #[arg(long, default_value_t = 2, value_name = "N")]
    pub games: usize,
    /// Games played at the same time.
    #[arg(long, default_value_t = 1, value_name = "N")]
    pub concurrency: usize,
    /// Seed for random openings (and order=random); printed when not given.
    #[arg(long, value_name = "S")]
    pub seed: Option<u64>,
    /// plies=<k> [balanced=<points>] [probe-nodes=<n>]: random openings of k moves from the
    /// start (never ending the game), with balanced= only those a search of probe-nodes
    /// (10000) nodes scores within ±points for the side to move; file=<path> [order=sequential|random]: one opening a line, as a move list from the
    /// start, a position string, or `<position string> moves ...`. Default: the start.
    #[arg(long, num_args = 1.., value_name = "KEY=VALUE")]
    pub openings: Vec<String>,
    /// elo0=<elo> elo1=<elo> [alpha=0.05] [beta=0.05]: a sequential probability ratio test
    /// on game pairs that stops the match when it decides (two engines only).
    #[arg(long, num_args = 1.., value_name = "KEY=VALUE")]
    pub sprt: Vec<String>,
    /// Write every game as it ends to FILE, one JSON object a line.
    #[arg(long, value_name = "FILE")]
    pub records: Option<PathBuf>,
    /// Write every game as it ends to FILE as PGN-like text.
    #[arg(long, value_name = "FILE")]
    pub pgn: Option<PathBuf>,
    /// Go on with a match that stopped: the games already in --records count as played
    /// (in the score and the SPRT), and the rest of the schedule is played and appended to
    /// the file (and to --pgn). Give the command line of the run that wrote the file, with
    /// its --seed (printed on its first line): every record is checked against it. A missing
    /// file starts the match from the beginning.
    #[arg(long, requires = "records")]
    pub resume: bool,
    /// Play only slice I of K of the match, for a match cut over K machines: the rounds r
    /// (openings, from 0) with r mod K = I-1, with the openings and colours the whole match
    /// gives them. Needs --seed (every slice draws the same openings) and --records; the
    /// slice plays its whole share (the SPRT is decided by --report over every slice).
    /// With --resume, goes on with the slice.
    #[arg(long, value_name = "I/K", requires = "records")]
    pub slice: Option<String>,
    /// Play nothing: read the --records files of the slices of a match (--slice) and print
    /// its summary over the games in, checked against this command line (the slices' one
    /// without --slice and --records). Files still being written are read to their last
    /// whole line. Exit status 0 when the SPRT has decided or every game is in, 3 while
    /// games are still to come.
    #[arg(
        long,
        num_args = 1..,
        value_name = "FILE",
        conflicts_with_all = ["records", "pgn", "resume", "slice"]
    )]
    pub report: Vec<PathBuf>,
    /// Who plays whom when more than two engines are given.
    #[arg(long, value_enum, default_value_t = TournamentKind::RoundRobin)]
    pub tournament: TournamentKind,
    /// Milliseconds an engine has to answer the handshake, `isready`, and `stop`.
    #[arg(long, default_value_t = 5000, value_name = "MS")]
    pub ready_timeout: u64,
    /// Milliseconds a search without a clock (depth=, nodes=) may take before the engine
    /// is declared hung, loses, and is killed.
    #[arg(long, default_value_t = 60000, value_name = "MS")]
    pub move_timeout: u64,
    /// Adjudicate a draw after this many moves, opening included (default: never; the
    /// game's own rules end every game).
    #[arg(long, value_name = "N")]
    pub max_plies: Option<usize>,
    /// No line per finished game, only the summary.
    #[arg(long)]
    pub quiet: bool,
}

/// `sowfan match`'s arguments: the [`MatchOptions`] clap derives, and the words of each
/// `--engine` apart. The derive gives every word of every `--engine` in one list (a list per
/// occurrence, `Vec<Vec<String>>`, needs clap's unstable-v5 feature), so the groups are
/// read from the parsed command line here.
#[derive(Debug, Clone)]
pub struct MatchArgs {
    /// The words of each `--engine`, in order.
    pub engines: Vec<Vec<String>>,
    pub options: MatchOptions,
}

impl clap::FromArgMatches for MatchArgs {
    fn from_arg_matches(matches: &clap::ArgMatches) -> Result<Self, clap::Error> {
        Ok(MatchArgs {
            engines: engine_groups(matches),
            options: MatchOptions::from_arg_matches(matches)?,
        })
    }

    fn update_from_arg_matches(&mut self, matches: &clap::ArgMatches) -> Result<(), clap::Error> {
        self.options.update_from_arg_matches(matches)?;
        self.engines = engine_groups(matches);
        Ok(())
    }
}

impl clap::Args for MatchArgs {
    fn group_id() -> Option<clap::Id> {
        MatchOptions::group_id()
    }

    fn augment_args(command: clap::Command) -> clap::Command {
        MatchOptions::augment_args(command)
    }

    fn augment_args_for_update(command: clap::Command) -> clap::Command {
        MatchOptions::augment_args_for_update(command)
    }
}

/// The words of each `--engine` occurrence, in order.
fn engine_groups(matches: &clap::ArgMatches) -> Vec<Vec<String>> {
    matches
        .get_occurrences::<String>("engine")
        .map(|groups| groups.map(|words| words.cloned().collect()).collect())
        .unwrap_or_default()
}

impl MatchArgs {
    /// The match these arguments describe; `Err` names the argument that is wrong. A seed
    /// not given is taken from the clock (the match prints it).
    pub fn into_config(self) -> Result<MatchConfig, String> {
        let MatchArgs {
            engines,
            options: args,
        } = self;
        let engines = engines
            .iter()
            .enumerate()
            .map(|(i, words)| {
                parse_engine(words, &args.each).map_err(|e| format!("--engine {}: {e}", i + 1))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let openings = if args.openings.is_empty() {
            None
        } else {
            Some(config::parse_openings(&args.openings)?)
        };
        let sprt = if args.sprt.is_empty() {
            None
        } else {
            Some(config::parse_sprt(&args.sprt).map_err(|e| e.to_string())?)
        };
        let slice = args
            .slice
            .as_deref()
            .map(config::Slice::parse)
            .transpose()
            .map_err(|e| format!("--slice: {e}"))?;
        if (slice.is_some() || !args.report.is_empty()) && args.seed.is_none() {
            return Err(format!(
                "{} needs --seed: every slice of a match must draw the same openings, which \
                 a seed of the clock would not give; give every slice and the report the \
                 same --seed (any number)",
                if slice.is_some() {
                    "--slice"
                } else {
                    "--report"
                }
            ));
        }
        let seed = args.seed.unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos() as u64)
                .unwrap_or(0)
        });
        Ok(MatchConfig {
            engines,
            game: args.game,
            games: args.games,
            concurrency: args.concurrency,
            seed,
            openings,
            sprt,
            records: args.records,
            pgn: args.pgn,
            resume: args.resume,
            tournament: args.tournament,
            ready_timeout: Duration::from_millis(args.ready_timeout),
            move_timeout: Duration::from_millis(args.move_timeout),
            max_plies: args.max_plies,
            show_games: !args.quiet,
            slice,
            report: args.report,
        })
    }
}

/// `sowfan match`: status 130 when Ctrl-C stopped it (after the summary of the finished
/// games, the shell's convention for a run ended by SIGINT), 1 with `sowfan: <message>`
/// on an error, 0 otherwise. A second Ctrl-C leaves at once (the engines see their input
/// close and quit). With `--report`: 0 when the match is decided or complete, 3 while
/// games are still to come, 1 on an error.
pub fn run(args: MatchArgs) -> ExitCode {
    if !args.options.report.is_empty() {
        let report = args.into_config().and_then(|config| {
            let cancel = cancel_on_interrupt("match");
            r#match::report::run(&config, &cancel).map_err(|e| e.to_string())
        });
        return match report {
            Ok(report) if report.state == ReportState::Running => Exit::Running.into(),
            other => exit_status(other.map(drop)),
        };
    }
    let summary = args.into_config().and_then(|config| {
        let cancel = cancel_on_interrupt("match");
        // Processes the engines start outside their process groups end with the run.
        let _reaper = Reaper::adopt_orphans();
        r#match::run(&config, &cancel).map_err(|e| e.to_string())
    });
    match summary {
        Ok(summary) if summary.interrupted => Exit::Interrupted.into(),
        other => exit_status(other.map(drop)),
    }
}
