//! Iterative-deepening principal-variation search over any [`Game`](crate::game::Game).
//!
//! Negamax with alpha-beta and a shared transposition table. The search knows no rules: a
//! move that leaves the same player to move (an extra move) keeps the score's sign and the
//! window as they are; only a change of player negates them. Scores are exact when the game
//! ends inside the tree (its final margin, `score::exact_at`, in games scored by points; a
//! bare result, `score::terminal`, in games won or lost), and the search tracks whether a
//! result rests on any heuristic leaf: a root result that does not is *proven* and ends the
//! search early.
//!
//! Several threads share the table; the first thread reports and decides. With one line
//! (`multipv` 1) the threads work on one depth and split its root moves after the first
//! (`RootSplit`), or, in a game whose first root move holds nearly all the work
//! ([`Game::threads_split_root_moves`](crate::game::SearchHints::threads_split_root_moves)), spread
//! over the next depths (at most half of them on any one depth). Either way an iteration
//! another thread has completed is left at once for a deeper one, and the first thread
//! reports a helper's deeper result as soon as it exists (from inside its own iteration) and
//! plays it unless it completes a deeper one itself: the search is as deep as its deepest
//! thread, so `info depth` may step by more than one.
//!
//! The parts, as Stockfish splits its search: `thread.rs` starts the workers (one a thread);
//! `worker.rs` holds the worker and what its parts share (the counters, the root split, the
//! deepest helper result, a ply's frame, the root moves) and when a worker looks at the stop
//! and ponder flags and its limits; `root.rs` is a worker's iterative deepening (the depths
//! the helpers choose) and its search of the root moves;
//! `negamax.rs` the node search and the quiescence search; `movepick.rs` the move order
//! (table move, killer, hint, history) and the history tables; `params.rs` every pruning and
//! reduction constant, with why it has its value; `control.rs` the stop and ponder flags;
//! `limits.rs` what `go` asks for and the time it turns into.

pub mod limits;
pub mod score;
pub mod tt;
pub mod value;

mod control;
mod movepick;
mod negamax;
mod params;
mod root;
mod thread;
mod worker;

use std::time::Duration;

pub use control::SearchControl;
pub use thread::search;

/// The deepest iteration the search will start.
pub const MAX_DEPTH: u32 = 200;

/// The largest contempt, in evaluation units: five points, far from any decided score.
pub const MAX_CONTEMPT: i32 = 500;

/// Engine settings that shape a search (from `setoption`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SearchSettings {
    pub threads: usize,
    pub multipv: usize,
    /// Milliseconds kept back from every time budget for communication delays.
    pub move_overhead: u64,
    /// What a draw is worth to the side the search is for, below zero (in evaluation
    /// units, 100 = one point): with a positive contempt the engine prefers a playable
    /// position a little worse than level to a draw by repetition or by the rules. Only in
    /// games scored as won, drawn or lost, and without tables (elsewhere an end's value is
    /// exact).
    pub contempt: i32,
}

/// The time kept back from each move for the pipe and the GUI, in milliseconds, unless
/// `Move Overhead` says otherwise (the option's declared default).
pub const DEFAULT_MOVE_OVERHEAD_MS: u64 = 30;

impl Default for SearchSettings {
    fn default() -> Self {
        SearchSettings {
            threads: 1,
            multipv: 1,
            move_overhead: DEFAULT_MOVE_OVERHEAD_MS,
            contempt: 0,
        }
    }
}

/// What a search found.
#[derive(Debug, Clone)]
pub struct SearchResult<M> {
    /// `None` only when the root has no legal move.
    pub best: Option<M>,
    /// The expected reply (second move of the principal variation).
    pub ponder: Option<M>,
    pub score: i32,
    pub depth: u32,
    pub nodes: u64,
    pub tbhits: u64,
    /// The score is the game's value (no heuristic leaf below it).
    pub proven: bool,
}

/// One `info` line's content, before it is written out.
#[derive(Debug, Clone)]
pub struct Report<M> {
    pub depth: u32,
    pub seldepth: usize,
    pub multipv: usize,
    pub score: i32,
    pub nodes: u64,
    pub time: Duration,
    pub hashfull: u32,
    pub tbhits: u64,
    pub pv: Vec<M>,
    /// The iteration rests on no heuristic leaf (or found a mate): an exact value is the
    /// game's value, not only a bound on it (see [`SearchResult::proven`]).
    pub proven: bool,
}
