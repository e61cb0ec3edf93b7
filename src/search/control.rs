//! The control: the stop and ponder flags the protocol thread sets during a search (when a
//! worker looks at them is `Worker::should_abort`, in `worker.rs`).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex, PoisonError};

use crate::game::Player;

use super::limits::Limits;

/// Flags shared between the protocol thread and a running search. They change only through
/// [`SearchControl::request_stop`] and [`SearchControl::ponderhit`], which also wake whoever
/// waits in [`SearchControl::wait_for_stop`]: a finished `go infinite` answers the moment
/// `stop` arrives instead of at the next poll.
#[derive(Debug, Default)]
pub struct SearchControl {
    /// Set by `stop` (or `quit`): finish now and report the best move found.
    stop: AtomicBool,
    /// True while a `go ponder` search waits for `ponderhit`.
    pondering: AtomicBool,
    /// Held by a waiter from its look at the flags until it sleeps, and by a setter while it
    /// wakes the waiters, so that no change falls between the look and the sleep.
    lock: Mutex<()>,
    changed: Condvar,
}

impl SearchControl {
    pub fn new(pondering: bool) -> SearchControl {
        SearchControl {
            pondering: AtomicBool::new(pondering),
            ..SearchControl::default()
        }
    }

    /// `stop` (or `quit`): end the search now; a pondering search stops pondering too.
    pub fn request_stop(&self) {
        self.pondering.store(false, Ordering::Relaxed);
        self.stop.store(true, Ordering::Relaxed);
        self.wake();
    }

    /// `ponderhit`: the pondering search becomes an ordinary one, timed from now.
    pub fn ponderhit(&self) {
        self.pondering.store(false, Ordering::Relaxed);
        self.wake();
    }

    pub fn is_stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    pub fn is_pondering(&self) -> bool {
        self.pondering.load(Ordering::Relaxed)
    }

    /// The stop flag itself, for the jobs that take one (perft, the solver), which only read
    /// it: setting it goes through [`SearchControl::request_stop`].
    pub fn stop_flag(&self) -> &AtomicBool {
        &self.stop
    }

    /// A search that has its answer waits here before it gives it: `go infinite`, `go` with
    /// no limit for `player` (see [`Limits::is_unlimited_for`]) and `go ponder` answer only
    /// after `stop`, or for `go ponder` with limits after `ponderhit` (protocol.md, `stop`
    /// and `ponderhit`). Returns at once when neither applies.
    pub fn wait_for_stop(&self, limits: &Limits, player: Player) {
        let open_ended = limits.infinite || limits.is_unlimited_for(player);
        // A poisoned lock guards no data (`()`): go on with it.
        let mut guard = self.lock.lock().unwrap_or_else(PoisonError::into_inner);
        while !self.is_stopped() && (open_ended || self.is_pondering()) {
            guard = self
                .changed
                .wait(guard)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }

    /// Wake the waiters after a flag changed (the flag is stored before the lock is taken,
    /// so a waiter either sees it or is already asleep and hears this).
    fn wake(&self) {
        let _guard = self.lock.lock().unwrap_or_else(PoisonError::into_inner);
        self.changed.notify_all();
    }
}
