//! Protocol output: whole lines, flushed at once, shared by the command loop and the search
//! thread. A closed pipe is remembered (and ends the engine) instead of panicking.

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use super::info::info_text;
use crate::session::Info;
use crate::text::one_line;

#[derive(Clone)]
pub struct Output {
    sink: Arc<Mutex<Box<dyn Write + Send>>>,
    closed: Arc<AtomicBool>,
    /// Set by `quit`: nothing more is written.
    muted: Arc<AtomicBool>,
    /// The descriptor behind the sink, when it is one (stdout): whether anyone still reads
    /// it can be asked without writing (see [`Output::reader_gone`]).
    fd: Option<i32>,
}

impl Output {
    pub fn new(sink: Box<dyn Write + Send>) -> Output {
        Output {
            sink: Arc::new(Mutex::new(sink)),
            closed: Arc::new(AtomicBool::new(false)),
            muted: Arc::new(AtomicBool::new(false)),
            fd: None,
        }
    }

    pub fn stdout() -> Output {
        Output {
            fd: Some(1),
            ..Output::new(Box::new(std::io::stdout()))
        }
    }

    /// Has the reader of a pipe on stdout gone (the GUI has exited)? Asked without writing,
    /// for a search that would otherwise print nothing for a long time; a terminal or a file
    /// never reads as gone. Remembered like a failed write.
    pub fn reader_gone(&self) -> bool {
        if self.is_closed() {
            return true;
        }
        #[cfg(unix)]
        if let Some(fd) = self.fd {
            let mut poll = libc::pollfd {
                fd,
                events: 0,
                revents: 0,
            };
            // SAFETY: one valid pollfd; a zero timeout only looks. POLLERR on a pipe's write
            // end means its read end is closed.
            let ready = unsafe { libc::poll(&mut poll, 1, 0) };
            if ready > 0 && poll.revents & (libc::POLLERR | libc::POLLHUP) != 0 {
                self.closed.store(true, Ordering::Relaxed);
                return true;
            }
        }
        false
    }

    /// Write one or more lines (a trailing newline is added) and flush.
    pub fn line(&self, text: &str) {
        if self.muted.load(Ordering::Relaxed) {
            return;
        }
        log::debug!("> {text}");
        // A poisoned lock only means another writer panicked mid-line; keep writing.
        let mut sink = self.sink.lock().unwrap_or_else(|e| e.into_inner());
        let result = writeln!(sink, "{text}").and_then(|_| sink.flush());
        if result.is_err() {
            self.closed.store(true, Ordering::Relaxed);
        }
    }

    /// A search's `info` line.
    pub fn info(&self, info: &Info) {
        self.line(&info_text(info));
    }

    /// `info string <text>`, on one line whatever `text` holds (it may carry text from a
    /// file or a path: see [`one_line`]).
    pub fn info_string(&self, text: &str) {
        self.line(&format!("info string {}", one_line(text)));
    }

    /// `info string error: <text>`, on one line as [`Output::info_string`].
    pub fn error(&self, text: &str) {
        self.line(&format!("info string error: {}", one_line(text)));
    }

    /// Write nothing more (every clone included).
    pub fn mute(&self) {
        self.muted.store(true, Ordering::Relaxed);
    }

    pub fn is_closed(&self) -> bool {
        self.closed.load(Ordering::Relaxed)
    }
}

/// An in-memory sink for tests: everything written, as text.
#[derive(Clone, Default)]
pub struct Captured(Arc<Mutex<Vec<u8>>>);

impl Captured {
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap_or_else(|e| e.into_inner())).into_owned()
    }
}

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
