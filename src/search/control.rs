//! The control: the stop and ponder flags the protocol thread sets during a search, and
//! when a worker looks at them (and at its limits) to end its search.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex, PoisonError};
use std::time::Instant;

use crate::game::{Game, Player};

use super::limits::Limits;
use super::thread::Worker;

/// A worker adds its nodes to the shared count (and looks at the other threads) every this
/// many nodes: often enough for `info nodes` and the node limit with several threads, rarely
/// enough that the threads do not contend for the shared counter at every node.
const FLUSH_INTERVAL: u64 = 1024;
/// The main thread looks at the clock every this many nodes, not only at each flush: a node
/// can take a page fault (a table whose pages are still arriving), and [`FLUSH_INTERVAL`]
/// such nodes took 2-4 times a move's time (40-90 ms when told to move at once).
const DEADLINE_INTERVAL: u64 = 64;

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

impl<G: Game> Worker<'_, '_, G> {
    /// Is this thread still pondering? At `ponderhit` its clock starts from that moment.
    pub(super) fn pondering(&mut self) -> bool {
        if self.was_pondering && !self.shared.control.is_pondering() {
            // ponderhit: our clock starts now.
            self.was_pondering = false;
            self.start = Instant::now();
        }
        self.was_pondering
    }

    /// Does this thread's search end here: `stop`, the node limit, the clock, or the work
    /// under way done by another thread (the root move it helps with, or the iteration)?
    /// Depth 1 never ends early ([`Worker::can_abort`]).
    pub(super) fn should_abort(&mut self) -> bool {
        if !self.can_abort {
            return false;
        }
        // `stop` is read at every node (a read-mostly flag): a node can be slow (a page of a
        // fresh hash table faulted in), and `stop` must answer within milliseconds.
        if self.shared.control.is_stopped() {
            return true;
        }
        if let Some(limit) = self.shared.node_limit
            && self.total_nodes() >= limit
        {
            self.shared.done.store(true, Ordering::Relaxed);
            return true;
        }
        if self.unflushed < FLUSH_INTERVAL {
            // Between flushes only the clock (see DEADLINE_INTERVAL).
            return self.unflushed.is_multiple_of(DEADLINE_INTERVAL) && self.past_deadline();
        }
        self.flush_nodes();
        if self.shared.control.is_stopped() || self.shared.done.load(Ordering::Relaxed) {
            return true;
        }
        if let Some(index) = self.helping_root
            && self
                .root_split
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .done[usize::from(index)]
                >= self.iteration
        {
            self.root_move_taken = true;
            return true;
        }
        if self.follows_others {
            let deepest = self.shared.deepest.load(Ordering::Relaxed);
            if deepest >= self.iteration {
                self.superseded = true;
                return true;
            }
            // Reported here, where the flush already looks at the other threads, so that
            // a helper's depth is shown within FLUSH_INTERVAL nodes of its completion.
            if deepest > self.reported && self.info.is_some() {
                self.report_helper();
            }
        }
        self.past_deadline()
    }

    /// The main thread past the hard limit: the search is over for every thread.
    fn past_deadline(&mut self) -> bool {
        if self.is_main
            && !self.pondering()
            && let Some(hard) = self.shared.budget.hard
            && self.start.elapsed() >= hard
        {
            self.shared.done.store(true, Ordering::Relaxed);
            return true;
        }
        false
    }
}
