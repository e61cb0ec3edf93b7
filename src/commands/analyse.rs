//! `sowfan analyse`: the command line of the game analysis.

use std::process::ExitCode;

use crate::analyse::{self, AnalyseArgs};
use crate::cli::cancel_on_interrupt;

/// Status 0 when every game was analysed, 1 when some game could not be read or replayed
/// (each was reported) or the run could not start, 130 after Ctrl-C or SIGTERM (also while
/// it waits for its input).
pub fn run(args: AnalyseArgs) -> ExitCode {
    let cancel = cancel_on_interrupt("analyse");
    match analyse::run(&args, &cancel) {
        Ok(report) if report.interrupted || cancel.is_cancelled() => {
            eprintln!("sowfan analyse: interrupted");
            ExitCode::from(130)
        }
        Ok(report) if report.errors > 0 => ExitCode::from(1),
        Ok(_) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("sowfan analyse: {message}");
            ExitCode::FAILURE
        }
    }
}
