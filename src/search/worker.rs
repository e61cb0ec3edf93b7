//! A worker, one a thread: the `Worker` its parts (`root.rs`, `negamax.rs`, `movepick.rs`)
//! extend, the data they share (the threads' `Shared` counters, the root split, the deepest
//! helper result, a ply's `Frame`, the root moves), its node counters, and when it looks at
//! the control's flags and its limits to end its search. A leaf under those parts: it
//! imports none of them, so the search's files form no circle.

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use crate::game::Game;
use crate::nnue::accumulator::Accumulator;
use crate::tables::Tables;

use super::Report;
use super::control::SearchControl;
use super::limits::TimeBudget;
use super::score::INFINITE;
use super::tt::TranspositionTable;

/// A worker adds its nodes to the shared count (and looks at the other threads) every this
/// many nodes: often enough for `info nodes` and the node limit with several threads, rarely
/// enough that the threads do not contend for the shared counter at every node.
const FLUSH_INTERVAL: u64 = 1024;
/// The main thread looks at the clock every this many nodes, not only at each flush: a node
/// can take a page fault (a table whose pages are still arriving), and [`FLUSH_INTERVAL`]
/// such nodes took 2-4 times a move's time (40-90 ms when told to move at once).
const DEADLINE_INTERVAL: u64 = 64;

/// What the threads of one search share: the control, the counters, the budget.
pub(super) struct Shared<'a> {
    pub(super) control: &'a SearchControl,
    /// Set by the main thread to end the helpers (time up, limits reached).
    pub(super) done: AtomicBool,
    pub(super) nodes: AtomicU64,
    pub(super) tbhits: AtomicU64,
    /// The deepest iteration any thread has completed. A thread whose current iteration is
    /// no deeper leaves it for the next one (see [`Worker::follows_others`]).
    pub(super) deepest: AtomicU32,
    /// How many threads search each depth now.
    pub(super) searching: Vec<AtomicU32>,
    pub(super) threads: usize,
    pub(super) node_limit: Option<u64>,
    pub(super) budget: TimeBudget,
}

/// Where `info` reports go (the caller's writer).
pub(super) type InfoSink<'i, M> = &'i mut (dyn FnMut(&Report<M>) + 'i);

/// One thread's search: its position in the iterations, its own counters, its path's
/// stacks (keys, frames, accumulators, lines) and its history tables.
pub(super) struct Worker<'a, 'i, G: Game> {
    pub(super) game: &'a G,
    /// Where the reporting thread (the main one) sends its `info` reports; `None` for the
    /// helpers.
    pub(super) info: Option<InfoSink<'i, G::Move>>,
    /// The deepest iteration reported so far (its own or a helper's), and its first move.
    pub(super) reported: u32,
    pub(super) reported_move: Option<G::Move>,
    /// 0 for the main thread, 1.. for the helpers.
    pub(super) id: usize,
    /// Where helpers leave their deepest completed iteration.
    pub(super) helper_best: &'a Mutex<Option<HelperBest<G::Move>>>,
    /// The root moves the threads split ([`RootSplit`]); used when `splits_root`.
    pub(super) root_split: &'a Mutex<RootSplit<G::Move>>,
    pub(super) splits_root: bool,
    /// The root move (legal-move index) this thread searches although another thread
    /// claimed it: left as soon as that thread completes it.
    pub(super) helping_root: Option<u16>,
    /// The search under `helping_root` was left because its owner completed it.
    pub(super) root_move_taken: bool,
    pub(super) tt: &'a TranspositionTable,
    /// Endgame tables: a covered position is an exact leaf.
    pub(super) tables: Option<&'a Tables>,
    /// A game end scores its exact final value
    /// ([`score::exact_at`](super::score::exact_at)), not a bare result: in games scored by
    /// points, or with tables.
    pub(super) exact_ends: bool,
    /// What a draw scores for each player to move ([`SearchSettings::contempt`]).
    pub(super) draw_score: [i32; 2],
    pub(super) shared: &'a Shared<'a>,
    pub(super) is_main: bool,
    pub(super) start: Instant,
    pub(super) was_pondering: bool,
    pub(super) nodes: u64,
    pub(super) unflushed: u64,
    pub(super) tbhits: u64,
    pub(super) seldepth: usize,
    /// Set when a value below the current node rests on a heuristic leaf.
    pub(super) unresolved: bool,
    pub(super) aborted: bool,
    /// Depth 1 always completes, so there is always a move to play.
    pub(super) can_abort: bool,
    /// With helpers and a single line (`multipv` 1): an iteration another thread has
    /// already completed (or passed) is left at once for a deeper one, so the search is as
    /// deep as its deepest thread and no thread repeats a depth already done. The main
    /// thread takes over the helper's result for the depths it leaves.
    pub(super) follows_others: bool,
    /// The depth of the iteration under way.
    pub(super) iteration: u32,
    /// The iteration under way was left because another thread completed its depth
    /// (a partial abort: the search goes on).
    pub(super) superseded: bool,
    pub(super) has_repetition_rule: bool,
    /// Repetition keys: the game's history, then the current search path.
    pub(super) keys: Vec<u64>,
    /// Where in `keys` the last pass (null move) on the current path is: a repetition
    /// is looked for after it only, as a line through a pass is no real line.
    pub(super) null_floor: usize,
    /// Null moves are tried only from this ply on (raised while a null move's fail-high is
    /// verified, so that the verification does not rest on passes itself).
    pub(super) null_min_ply: usize,
    pub(super) frames: Vec<Frame<G::Move>>,
    /// The evaluation keeps an accumulator ([`NetworkFeatures::accumulates`](crate::game::NetworkFeatures::accumulates)): one a ply, the root's
    /// at 0, each child's updated from its parent's as the move is played (so going back
    /// up needs no undo).
    pub(super) accumulates: bool,
    pub(super) accumulators: Vec<Accumulator>,
    /// Cut-off statistics by player and `Game::history_key`.
    pub(super) history: Vec<i32>,
    pub(super) pv: Vec<Vec<G::Move>>,
    pub(super) root_moves: Vec<RootMove<G::Move>>,
}

/// The deepest iteration a helper thread completed: the main thread reports it, and plays
/// its move when it is deeper than any iteration the main thread completed.
pub(super) struct HelperBest<M> {
    pub(super) depth: u32,
    pub(super) seldepth: usize,
    pub(super) score: i32,
    pub(super) proven: bool,
    pub(super) pv: Vec<M>,
}

impl<M: Clone> HelperBest<M> {
    /// Its `info` line, with the search's counters as they are now.
    pub(super) fn report(
        &self,
        nodes: u64,
        time: Duration,
        hashfull: u32,
        tbhits: u64,
    ) -> Report<M> {
        Report {
            depth: self.depth,
            seldepth: self.seldepth.max(1),
            multipv: 1,
            score: self.score,
            nodes,
            time,
            hashfull,
            tbhits,
            pv: self.pv.clone(),
            proven: self.proven,
        }
    }
}

/// The root moves of the iteration under way, shared when the threads split them (one
/// line, several threads): every thread searches the first move, then each claims the next
/// move no thread has claimed, and searches the others' unfinished moves at the end (left
/// as soon as their owner completes them). Each entry holds the iteration it was last set
/// in, so nothing is reset between iterations.
pub(super) struct RootSplit<M> {
    /// By the move's index in the legal-move list: the iteration that claimed it.
    pub(super) claimed: Vec<u32>,
    /// By the same index: the iteration that completed it.
    pub(super) done: Vec<u32>,
    /// The best exact score any thread found in iteration `best_depth`, with its line.
    pub(super) best_depth: u32,
    pub(super) best_score: i32,
    pub(super) best_index: u16,
    pub(super) best_pv: Vec<M>,
    /// The deepest iteration in which a root move's value rested on a heuristic leaf.
    pub(super) unresolved: u32,
}

impl<M> RootSplit<M> {
    pub(super) fn new(moves: usize) -> Self {
        RootSplit {
            claimed: vec![0; moves],
            done: vec![0; moves],
            best_depth: 0,
            best_score: -INFINITE,
            best_index: 0,
            best_pv: Vec::new(),
            unresolved: 0,
        }
    }

    /// The best score found so far in iteration `depth`.
    pub(super) fn best_at(&self, depth: u32) -> i32 {
        if self.best_depth == depth {
            self.best_score
        } else {
            -INFINITE
        }
    }
}

/// What the search keeps for each ply of the current path.
pub(super) struct Frame<M> {
    pub(super) moves: Vec<M>,
    /// (ordering key, index in `moves`); the key's high half is the game's hint.
    pub(super) order: Vec<(i64, u16)>,
    pub(super) killer: Option<M>,
    /// The move played at this ply is a pass (null move): the next ply may not pass.
    pub(super) passed: bool,
}

/// A root move with its score and line in the iteration under way.
#[derive(Clone)]
pub(super) struct RootMove<M> {
    pub(super) mv: M,
    /// Index in the root's legal-move list (what the transposition table stores).
    pub(super) index: u16,
    pub(super) score: i32,
    pub(super) previous_score: i32,
    pub(super) pv: Vec<M>,
}

/// A completed iteration: its depth, and whether its value is the game's (no heuristic leaf).
#[derive(Clone, Copy)]
pub(super) struct IterationOutcome {
    pub(super) depth: u32,
    pub(super) proven: bool,
}

impl<G: Game> Worker<'_, '_, G> {
    #[inline]
    pub(super) fn count_node(&mut self) {
        self.nodes += 1;
        self.unflushed += 1;
    }

    pub(super) fn flush_nodes(&mut self) {
        self.shared
            .nodes
            .fetch_add(self.unflushed, Ordering::Relaxed);
        self.shared.tbhits.fetch_add(self.tbhits, Ordering::Relaxed);
        self.unflushed = 0;
        self.tbhits = 0;
    }

    pub(super) fn total_nodes(&self) -> u64 {
        self.shared.nodes.load(Ordering::Relaxed) + self.unflushed
    }

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

    /// The reporting thread, in the middle of an iteration deeper than a helper's new
    /// result, reports that result now: a timed search shows each depth as soon as any
    /// thread completes it, not when the reporting thread's own deeper iteration ends.
    pub(super) fn report_helper(&mut self) {
        let Some(info) = self.info.take() else {
            return;
        };
        let report = {
            let best = self
                .helper_best
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            best.as_ref()
                .filter(|h| h.depth > self.reported && !h.pv.is_empty())
                .map(|h| {
                    h.report(
                        self.total_nodes(),
                        self.start.elapsed(),
                        self.tt.hashfull(),
                        self.shared.tbhits.load(Ordering::Relaxed) + self.tbhits,
                    )
                })
        };
        if let Some(report) = report {
            info(&report);
            self.reported = report.depth;
            self.reported_move = report.pv.first().copied();
        }
        self.info = Some(info);
    }
}
