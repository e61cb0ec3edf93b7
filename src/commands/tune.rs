//! `sowfan tune`: fit a game's evaluation weights to the results of recorded games; the work
//! is in [`crate::tune::run`].

use std::process::ExitCode;

use crate::cli::{Exit, cancel_on_interrupt, exit_status};
pub use crate::tune::run::TuneArgs;
use crate::tune::run::{TuneError, tune};

/// `sowfan tune`: status 1 with the reason when the records or the game are unusable, 130
/// after Ctrl-C (or SIGTERM; a second one ends it at once).
pub fn run(args: TuneArgs) -> ExitCode {
    let stop = cancel_on_interrupt("tune");
    match tune(&args, &stop) {
        Err(TuneError::Interrupted(_)) => {
            eprintln!("sowfan: tune interrupted: no weights written");
            Exit::Interrupted.into()
        }
        result => exit_status(result),
    }
}
