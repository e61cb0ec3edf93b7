//! `sowfan analyse`: the command line of the game analysis.

use std::process::ExitCode;

use crate::analyse::{self, AnalyseArgs};
use crate::cli::{Exit, cancel_on_interrupt};

/// Status 0 when every game was analysed, 1 when some game could not be read or replayed
/// (each was reported) or the run could not start, 130 after Ctrl-C or SIGTERM (also while
/// it waits for its input).
pub fn run(args: AnalyseArgs) -> ExitCode {
    let cancel = cancel_on_interrupt("analyse");
    match analyse::run(&args, &cancel) {
        Ok(report) if report.interrupted || cancel.is_cancelled() => {
            eprintln!("sowfan analyse: interrupted");
            Exit::Interrupted.into()
        }
        Ok(report) if report.errors > 0 => Exit::Failure.into(),
        Ok(_) => Exit::Success.into(),
        Err(message) => {
            eprintln!("sowfan analyse: {message}");
            Exit::Failure.into()
        }
    }
}
