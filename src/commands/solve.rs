//! `sowfan solve`: the exact value of a position, on the command line; the work is in
//! [`crate::solve`].

use std::process::ExitCode;

use crate::cli::{Exit, cancel_on_interrupt, exit_status};
pub use crate::solve::SolveArgs;
use crate::solve::{Solved, solve_position};

/// `sowfan solve`: Ctrl-C stops the proof with the bounds proven so far (status 130); status
/// 1 on an error.
pub fn run(args: SolveArgs) -> ExitCode {
    let stop = cancel_on_interrupt("solve");
    match solve_position(&args, &stop) {
        Ok(Solved::Complete) => Exit::Success.into(),
        Ok(Solved::Interrupted) => Exit::Interrupted.into(),
        Err(message) => exit_status(Err(message)),
    }
}
