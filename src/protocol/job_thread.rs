//! The running job: a search, perft or bench on its own thread, which tells the event loop
//! when it has ended.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::sync::mpsc::Sender;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::Event;
use crate::search::SearchControl;

/// A search, perft or bench running on its own thread.
pub struct Job {
    pub handle: JoinHandle<()>,
    pub control: Arc<SearchControl>,
    /// `go infinite` / `go ponder`: only `stop` (or `ponderhit`) ends it.
    pub open_ended: bool,
    /// `go ponder` (after `ponderhit` it is an ordinary timed search).
    pub ponder: bool,
    /// The search is about to print its `bestmove` or has: for the client it is over,
    /// though its thread may still be ending.
    pub answered: Arc<AtomicBool>,
}

impl Job {
    /// Run `work` on a thread named `name`, which sends [`Event::JobDone`] when `work` is
    /// done. A search's `work` sets `answered` just before it prints its `bestmove`.
    pub fn spawn(
        name: &str,
        events: Sender<Event>,
        control: Arc<SearchControl>,
        open_ended: bool,
        answered: Arc<AtomicBool>,
        work: impl FnOnce() + Send + 'static,
    ) -> std::io::Result<Job> {
        let handle = std::thread::Builder::new()
            .name(name.to_string())
            .spawn(move || {
                work();
                let _ = events.send(Event::JobDone(std::thread::current().id()));
            })?;
        Ok(Job {
            handle,
            ponder: control.is_pondering(),
            control,
            open_ended,
            answered,
        })
    }

    /// Join the job if its thread ends within `grace`; else give it back, still running.
    pub fn join_within(self, grace: Duration) -> Option<Job> {
        let until = Instant::now() + grace;
        while !self.handle.is_finished() && Instant::now() < until {
            std::thread::sleep(Duration::from_micros(200));
        }
        if self.handle.is_finished() {
            let _ = self.handle.join();
            None
        } else {
            Some(self)
        }
    }
}
