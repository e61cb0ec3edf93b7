//! `sowfan check` on the command line: its arguments, their translation into a
//! [`CheckConfig`], and its exit status.

use std::process::ExitCode;
use std::time::Duration;

use crate::check::{self, CheckConfig};
use crate::cli::{Exit, cancel_on_interrupt};
use crate::client::process::Reaper;
use crate::client::spec::{EngineSpecError, parse_engine_keys};

/// An argument of `sowfan check` that is wrong.
#[derive(Debug, thiserror::Error)]
pub enum CheckArgsError {
    #[error("--engine: {0}")]
    Engine(#[from] EngineSpecError),
    #[error("--timeout must be at least 1 ms")]
    NoTimeout,
}

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
#[derive(Debug, Clone, clap::Args)]
#[command(verbatim_doc_comment)]
pub struct CheckArgs {
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
    pub engine: Vec<String>,
    /// The game and its options, as after `newgame`, e.g. --game "kalah pits=4".
    #[arg(long, default_value = "kalah", value_name = "GAME [KEY=VALUE ...]")]
    pub game: String,
    /// Milliseconds the engine has for each answer (handshake, readyok, bestmove beyond the
    /// search's own time, the bestmove after stop).
    #[arg(long, default_value_t = 5000, value_name = "MS")]
    pub timeout: u64,
    /// Seed of the random play that finds the positions sent.
    #[arg(long, default_value_t = 1, value_name = "S")]
    pub seed: u64,
}

impl CheckArgs {
    /// The run these arguments describe; `Err` names the argument that is wrong.
    pub fn into_config(self) -> Result<CheckConfig, CheckArgsError> {
        let engine = parse_engine_keys(&self.engine, &[])?;
        if self.timeout == 0 {
            return Err(CheckArgsError::NoTimeout);
        }
        Ok(CheckConfig {
            engine,
            game: self.game,
            timeout: Duration::from_millis(self.timeout),
            seed: self.seed,
        })
    }
}

/// `sowfan check`: status 0 when every check passed (or was skipped), 1 when one failed,
/// 2 with `sowfan check: <message>` when there is no engine to check (a configuration
/// error), 130 when Ctrl-C stopped it (a second Ctrl-C leaves at once).
pub fn run(args: CheckArgs) -> ExitCode {
    let config = match args.into_config() {
        Ok(config) => config,
        Err(e) => return usage_error(&e),
    };
    let cancel = cancel_on_interrupt("check");
    // Processes the engines start outside their process groups end with the run.
    let _reaper = Reaper::adopt_orphans();
    let report = check::run(&config, &cancel);
    match report {
        Ok(report) if report.interrupted => Exit::Interrupted.into(),
        Ok(report) if report.all_passed() => Exit::Success.into(),
        Ok(_) => Exit::Failure.into(),
        Err(e) => usage_error(&e),
    }
}

/// No engine to check: a configuration error.
fn usage_error(e: &dyn std::fmt::Display) -> ExitCode {
    eprintln!("sowfan check: {e}");
    Exit::Usage.into()
}
