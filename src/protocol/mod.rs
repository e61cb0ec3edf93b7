//! The text protocol: commands in on one thread, a search on another, output flushed by line.
//!
//! `run` reads lines on a reader thread and feeds them, with "search finished" notices, to
//! one event loop ([`server::Server`], the command loop), which drives the engine's
//! resources ([`engine::Engine`]: the game, the hash table, the tables, the evaluation, the
//! jobs) and reads its options by their one declaration ([`engine_options`]). `isready`, `stop`, `ponderhit` and `quit` are served
//! at once, also while a search runs; read-only commands too. Commands that change state
//! wait (in order) until the running search has ended, so a script may pipe
//! `go depth 12` and `position …` back to back.

pub mod engine;
pub mod engine_options;
pub mod info;
pub mod job_thread;
pub mod output;
pub mod request;
pub mod server;

use std::io::BufRead;
use std::sync::mpsc;

use thiserror::Error;

use crate::registry::RegistryError;
use crate::search::tt::HashTableError;

pub use output::Output;
pub use server::Server;

/// Why the protocol could not start.
#[derive(Debug, Error)]
pub enum StartError {
    /// The game preselected (`--game`).
    #[error(transparent)]
    Game(#[from] RegistryError),
    #[error(transparent)]
    HashTable(#[from] HashTableError),
    #[error("cannot start the thread that reads the input: {0}")]
    InputThread(std::io::Error),
}

/// What the event loop reacts to.
pub enum Event {
    Line(String),
    /// End of input: behaves as `quit`, but lets a finite search finish first.
    Eof,
    /// The search (or perft/bench job) thread of this id has printed its result and ended
    /// its work.
    JobDone(std::thread::ThreadId),
    /// A line longer than [`MAX_LINE_BYTES`] was skipped.
    Overlong,
    /// A hash table's pages are in place (a waiting `isready` may be answered).
    HashReady,
}

/// The longest input line read (1 MiB: a position with a move list of 100,000 moves fits);
/// a longer one is skipped to its end and answered with an error, so that no input can
/// make the engine hold unbounded memory.
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// After the end of input, how often the engine looks whether its output is still read.
const READER_POLL: std::time::Duration = std::time::Duration::from_millis(100);

/// Run the protocol until `quit` or the end of input. `game` preselects the game, as
/// `newgame` would (`"kalah pits=4"`); `tablebases` is the `TablebasePath` to start with.
pub fn run(
    input: impl BufRead + Send + 'static,
    output: Output,
    game: Option<&str>,
    tablebases: Option<std::path::PathBuf>,
) -> Result<(), StartError> {
    let (events, inbox) = mpsc::channel();
    let mut server = Server::new(output, events.clone(), game)?;
    if let Some(dir) = tablebases {
        server.set_tablebase_path(dir);
    }
    let mut input = input;
    let reader = std::thread::Builder::new()
        .name("input".to_string())
        .spawn(move || {
            // Bytes, not `lines()`: a line that is not UTF-8 is bad input to answer, not an end.
            let mut line: Vec<u8> = Vec::new();
            let mut overlong = false;
            loop {
                let buffer = match input.fill_buf() {
                    Ok([]) => break,
                    Ok(buffer) => buffer,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(_) => break,
                };
                let (chunk, complete) = match buffer.iter().position(|&b| b == b'\n') {
                    Some(end) => (&buffer[..=end], true),
                    None => (buffer, false),
                };
                if !overlong {
                    if line.len() + chunk.len() > MAX_LINE_BYTES + 1 {
                        overlong = true;
                        line = Vec::new();
                    } else {
                        line.extend_from_slice(chunk);
                    }
                }
                let used = chunk.len();
                input.consume(used);
                if complete {
                    let event = if overlong {
                        Event::Overlong
                    } else {
                        Event::Line(String::from_utf8_lossy(&line).into_owned())
                    };
                    line.clear();
                    overlong = false;
                    if events.send(event).is_err() {
                        return;
                    }
                }
            }
            if overlong {
                let _ = events.send(Event::Overlong);
            } else if !line.is_empty() {
                let _ = events.send(Event::Line(String::from_utf8_lossy(&line).into_owned()));
            }
            let _ = events.send(Event::Eof);
        });
    if let Err(e) = reader {
        return Err(StartError::InputThread(e));
    }
    server.populate_hash_in_background();
    loop {
        // Past the end of input a finite search still runs to its end (protocol.md,
        // "Lines"), unless nobody reads its answer any more: then it is stopped and the
        // engine leaves, instead of running on as an orphan of a GUI that has gone. An
        // `isready` waiting for a new hash table is answered by its deadline at the latest.
        let wake = [
            server.input_ended().then_some(READER_POLL),
            server.ready_wait_left(),
        ]
        .into_iter()
        .flatten()
        .min();
        let event = match wake {
            Some(wait) => match inbox.recv_timeout(wait) {
                Ok(event) => Some(event),
                Err(mpsc::RecvTimeoutError::Timeout) => None,
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            },
            None => match inbox.recv() {
                Ok(event) => Some(event),
                Err(_) => break,
            },
        };
        match event {
            Some(event) => server.handle(event),
            None => server.tick(),
        }
        if server.finished() {
            break;
        }
    }
    server.shutdown();
    Ok(())
}
