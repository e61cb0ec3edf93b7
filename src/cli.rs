//! What every command-line tool shares: how Ctrl-C reaches it (a cancellation token), how a
//! failure becomes an exit status, and how a game is named on a command line. Each tool's
//! own arguments and exit-status rules live in that tool's `command` module.

use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// A request to stop, shared by whoever asks (Ctrl-C, a test) and whatever must end (a
/// solve, a table build, a match's waits). Cloning shares the same request.
#[derive(Debug, Clone, Default)]
pub struct CancelToken(Arc<AtomicBool>);

impl CancelToken {
    pub fn new() -> CancelToken {
        CancelToken::default()
    }

    /// Ask to stop; true when it had already been asked.
    pub fn cancel(&self) -> bool {
        self.0.swap(true, Ordering::Relaxed)
    }

    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }

    /// The flag itself, for the library's loops that poll an `&AtomicBool`.
    pub fn flag(&self) -> &AtomicBool {
        &self.0
    }
}

/// Ctrl-C (or SIGTERM) for a long tool: the first cancels the returned token (the tool
/// stops cleanly and says what it kept); a second leaves at once with status 130, the
/// shell's convention for a run ended by SIGINT. `what` names what would be lost if the
/// handler cannot be installed.
pub fn cancel_on_interrupt(what: &str) -> CancelToken {
    let token = CancelToken::new();
    let handler_token = token.clone();
    let handler = ctrlc::set_handler(move || {
        if handler_token.cancel() {
            std::process::exit(130);
        }
    });
    if let Err(e) = handler {
        log::warn!("Ctrl-C will end the program at once ({what}): {e}");
    }
    token
}

/// The exit status of a tool whose only failure is an error message: printed as
/// `sowfan: <message>` on stderr, status 1.
pub fn exit_status(result: Result<(), String>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("sowfan: {message}");
            ExitCode::FAILURE
        }
    }
}

/// `["kalah", "pits=4"]` → `("kalah", ["pits=4"])`; no words: Kalah with its defaults.
pub fn game_words(words: &[String]) -> (&str, Vec<&str>) {
    match words.split_first() {
        Some((name, options)) => (name.as_str(), options.iter().map(String::as_str).collect()),
        None => ("kalah", Vec::new()),
    }
}
