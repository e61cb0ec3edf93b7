//! Search scores: heuristic values in hundredths of a seed/stone, and game ends.
//!
//! A game end seen by the search scores `±(MATE - ply)`, so shorter wins and longer losses
//! are preferred; everything with `|score| > MATE_BOUND` is a proven game end.

use crate::game::{GameResult, Outcome, Player};

pub const MATE: i32 = 1_000_000;
pub use crate::game::MAX_PLY;
pub const MATE_BOUND: i32 = MATE - MAX_PLY as i32 - 1;
pub const INFINITE: i32 = MATE + 1;
/// Exact values (with endgame tables loaded: table positions and game ends) score in a band
/// below the mate scores and above every heuristic value: a proven result ordered by its
/// margin, `EXACT_BASE + |margin in half-points|`, negative for a loss; a draw is 0.
pub const EXACT_BASE: i32 = 800_000;
const EXACT_SPAN: i32 = 100_000;

/// The score of a finished game for `to_move`, `ply` moves from the root.
pub fn terminal(outcome: &Outcome, to_move: Player, ply: usize) -> i32 {
    match outcome.result {
        GameResult::Draw => 0,
        result if result.winner() == Some(to_move) => MATE - ply as i32,
        _ => -(MATE - ply as i32),
    }
}

pub fn is_mate(score: i32) -> bool {
    score.abs() > MATE_BOUND
}

/// Plies from the root to the game end of a mate score.
pub fn mate_plies(score: i32) -> i32 {
    MATE - score.abs()
}

/// Heuristic evaluations are kept clear of the exact and mate ranges.
pub fn clamp_eval(eval: i32) -> i32 {
    eval.clamp(-EXACT_BASE + 1, EXACT_BASE - 1)
}

/// The score of an exact final value (half-points, from the side to move).
pub fn exact(halves: i32) -> i32 {
    let magnitude = halves.unsigned_abs().min((EXACT_SPAN - 1) as u32) as i32;
    match halves.signum() {
        1 => EXACT_BASE + magnitude,
        -1 => -(EXACT_BASE + magnitude),
        _ => 0,
    }
}

/// The exact final value (half-points) of a score in the exact band.
pub fn exact_value(score: i32) -> Option<i32> {
    let magnitude = score.abs();
    (magnitude > EXACT_BASE && magnitude < EXACT_BASE + EXACT_SPAN)
        .then(|| score.signum() * (magnitude - EXACT_BASE))
}

/// Mate scores are stored relative to the node, not the root.
pub fn to_tt(score: i32, ply: usize) -> i32 {
    if score > MATE_BOUND {
        score + ply as i32
    } else if score < -MATE_BOUND {
        score - ply as i32
    } else {
        score
    }
}

pub fn from_tt(score: i32, ply: usize) -> i32 {
    if score > MATE_BOUND {
        score - ply as i32
    } else if score < -MATE_BOUND {
        score + ply as i32
    } else {
        score
    }
}
