//! `sowfan accuracy`: the command line of the accuracy measurement against perfect play.

use std::process::ExitCode;

use crate::accuracy::{self, AccuracyArgs, totals};
use crate::cli::{Exit, cancel_on_interrupt};

/// Status 0 when every engine was judged, 1 on an error, 130 after Ctrl-C or SIGTERM (the
/// cache keeps the proofs made).
pub fn run(args: AccuracyArgs) -> ExitCode {
    let cancel = cancel_on_interrupt("accuracy");
    match accuracy::run(&args, &cancel) {
        Ok(report) => {
            if !report.engines.is_empty() {
                print!("{}", totals::table(&report.engines));
            }
            eprintln!(
                "sowfan accuracy: {} positions, {} left out (not proven)",
                report.positions, report.unsolved
            );
            if report.interrupted {
                eprintln!("sowfan accuracy: interrupted");
                Exit::Interrupted.into()
            } else {
                Exit::Success.into()
            }
        }
        Err(message) => {
            eprintln!("sowfan accuracy: {message}");
            Exit::Failure.into()
        }
    }
}
