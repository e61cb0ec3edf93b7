//! `sowfan train`: a network fitted to training data; the work is in [`crate::nnue::train`].

use std::process::ExitCode;

use crate::cli::{Exit, cancel_on_interrupt, exit_status};
pub use crate::nnue::train::TrainArgs;
use crate::nnue::train::{TrainError, train};
use crate::registry;

/// `sowfan train`: status 1 with the reason when the data or the settings are unusable, 130
/// after Ctrl-C (the checkpoint of the last whole epoch is kept).
pub fn run(args: TrainArgs) -> ExitCode {
    let stop = cancel_on_interrupt("train");
    match train(&args, &registry::packed_features, &stop) {
        Ok(summary) => {
            println!(
                "{} epochs over {} positions ({} kept for validation) in {:.1} s: {}; network \
                 written to '{}'",
                summary.epochs,
                summary.train_positions,
                summary.validation_positions,
                summary.seconds,
                summary
                    .validation_loss
                    .map_or("no validation games".into(), |loss| format!(
                        "validation loss {loss:.6}{}",
                        summary.unseen_loss.map_or(String::new(), |unseen| format!(
                            " ({unseen:.6} over the {} validation positions that are no \
                             training position)",
                            summary.validation_positions - summary.validation_seen
                        ))
                    )),
                args.output.display()
            );
            Exit::Success.into()
        }
        Err(TrainError::Interrupted(_)) => {
            eprintln!("sowfan: train interrupted: no network written");
            Exit::Interrupted.into()
        }
        Err(error) => exit_status(Err(error)),
    }
}
