//! `sowfan datagen`: self-play games written as training data; the work is in
//! [`crate::datagen`].

use std::process::ExitCode;

use crate::cli::{Exit, cancel_on_interrupt, exit_status};
pub use crate::datagen::DatagenArgs;
use crate::datagen::datagen;

/// `sowfan datagen`: status 1 with the reason when the settings or the file are unusable,
/// 130 after Ctrl-C (or SIGTERM; a second one ends it at once), with the games finished
/// kept in the file.
pub fn run(args: DatagenArgs) -> ExitCode {
    let stop = cancel_on_interrupt("datagen");
    match datagen(&args, &stop) {
        Ok(summary) => {
            println!("{}", summary.report());
            if summary.interrupted {
                Exit::Interrupted.into()
            } else {
                Exit::Success.into()
            }
        }
        result => exit_status(result.map(|_| ())),
    }
}
