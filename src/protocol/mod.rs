//! The text protocol: commands in on one thread, a search on another, output flushed by line.
//!
//! `run` reads lines on a reader thread and feeds them, with "search finished" notices, to
//! one event loop ([`engine::Engine`]). `isready`, `stop`, `ponderhit` and `quit` are served
//! at once, also while a search runs; read-only commands too. Commands that change state
//! wait (in order) until the running search has ended, so a script may pipe
//! `go depth 12` and `position …` back to back.

pub mod command;
pub mod engine;
pub mod output;

use std::io::BufRead;
use std::sync::mpsc;

pub use engine::Engine;
pub use output::Output;

/// What the event loop reacts to.
pub enum Event {
    Line(String),
    /// End of input: behaves as `quit`, but lets a finite search finish first.
    Eof,
    /// The search (or perft/bench job) thread has printed its result.
    JobDone,
}

/// Run the protocol until `quit` or the end of input. `game` preselects the game, as
/// `newgame` would (`"kalah pits=4"`).
pub fn run(
    input: impl BufRead + Send + 'static,
    output: Output,
    game: Option<&str>,
) -> Result<(), String> {
    let (events, inbox) = mpsc::channel();
    let mut engine = Engine::new(output, events.clone(), game)?;
    let mut input = input;
    std::thread::spawn(move || {
        // Bytes, not `lines()`: a line that is not UTF-8 is bad input to answer, not an end.
        let mut buffer = Vec::new();
        loop {
            buffer.clear();
            match input.read_until(b'\n', &mut buffer) {
                Ok(0) => break,
                Ok(_) => {
                    let line = String::from_utf8_lossy(&buffer).into_owned();
                    if events.send(Event::Line(line)).is_err() {
                        return;
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(_) => break,
            }
        }
        let _ = events.send(Event::Eof);
    });
    while let Ok(event) = inbox.recv() {
        engine.handle(event);
        if engine.finished() {
            break;
        }
    }
    engine.shutdown();
    Ok(())
}
