//! What a solve asks for, apart from the solve itself ([`super::solving`]) and the keeping
//! of its proof file ([`super::keep`]), which both read it.

use std::path::PathBuf;
use std::time::{Duration, Instant};

/// What `solve` asks for.
#[derive(Debug, Clone)]
pub struct SolveRequest {
    pub threads: usize,
    /// Also the exact value of every legal move.
    pub all_moves: bool,
    /// Follow perfect play to the end of the game.
    pub pv: bool,
    /// Continue the proof saved in this file ([`crate::solver::save`]): its table and what it
    /// proved of the root. It must be of the same game, position and table size.
    pub resume: Option<PathBuf>,
    /// No file at `resume` starts a new proof (`--proof-file`) instead of being an error.
    pub resume_optional: bool,
    /// Save the proof in this file every `checkpoint`, when stopped and when done.
    pub save: Option<PathBuf>,
    /// How often to save the proof file while the proof runs.
    pub checkpoint: Duration,
    /// A part of a proof split by first move: prove the values of these root moves only
    /// (not the root's value, nor any other move's).
    pub part: Option<Vec<String>>,
    /// Give up at this moment with what is proven (a move not proven by then has no value).
    pub deadline: Option<Instant>,
    /// Give up after this many nodes (of each proof: a move's, the root's) with what is
    /// proven.
    pub node_limit: Option<u64>,
}
