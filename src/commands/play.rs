//! `sowfan play`: the command line of the terminal game.

use std::io::IsTerminal;
use std::process::ExitCode;

use crate::cli::exit_status;
use crate::play::{self, PlayArgs, Style};

/// Play on stdin/stdout; a transcript echoes each input line when stdin is not a terminal.
/// Status 1 with the reason when the game cannot start or the output is gone.
pub fn run(args: PlayArgs) -> ExitCode {
    let stdin = std::io::stdin();
    let echo = !stdin.is_terminal();
    exit_status(play::play(
        &args,
        &mut stdin.lock(),
        &mut std::io::stdout().lock(),
        Style::from_environment(),
        echo,
    ))
}
