//! Search scores: heuristic values in hundredths of a seed/stone, and game ends.
//!
//! Three ranges, best for the mover last:
//! - a game end the search scores as a bare result, `±(MATE - ply)` (games won or lost, not
//!   scored, such as Fanorona, searched without tables): shorter wins and longer losses
//!   are preferred; everything with `|score| > MATE_BOUND` is one;
//! - **exact values** (the final margin of a game that ends inside the tree in a game scored
//!   by points, or a table entry): `±(EXACT_BASE + |margin| × PLY_SLOTS + (MAX_PLY − ply))`,
//!   negative for a loss, so that any proven win is above every heuristic value and any
//!   proven loss below, wins and losses are ordered by their **margin first** and, among
//!   equal margins, by **distance** (the quicker win, the slower loss); a draw is 0;
//! - heuristic values, kept within `±(EXACT_BASE − 1)` by [`clamp_eval`].

use crate::game::{GameResult, Outcome, Player};

pub const MATE: i32 = 1_000_000;
pub use crate::game::MAX_PLY;
pub const MATE_BOUND: i32 = MATE - MAX_PLY as i32 - 1;
pub const INFINITE: i32 = MATE + 1;
/// Exact values score above this (wins) or below its negative (losses); heuristic values
/// stay strictly inside.
pub const EXACT_BASE: i32 = 800_000;
/// Distance steps per half-point of margin: one per ply a search can reach.
const PLY_SLOTS: i32 = MAX_PLY as i32 + 1;
/// The largest margin the exact range holds (half-points; 388 points, more than any game
/// here can end with); larger ones are held to it.
pub const MAX_EXACT_HALVES: i32 = (MATE_BOUND - EXACT_BASE) / PLY_SLOTS - 1;

/// The score of a finished game for `to_move`, `ply` moves from the root, as a bare result.
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

/// The score of an exact final value (half-points, from the side to move) reached `ply`
/// plies from the root (0: the value of the root itself).
pub fn exact_at(halves: i32, ply: usize) -> i32 {
    if halves == 0 {
        return 0;
    }
    let magnitude = halves.abs().min(MAX_EXACT_HALVES);
    let slot = MAX_PLY as i32 - (ply.min(MAX_PLY) as i32);
    halves.signum() * (EXACT_BASE + magnitude * PLY_SLOTS + slot)
}

/// The score of an exact final value at the root (tables, the solver).
pub fn exact(halves: i32) -> i32 {
    exact_at(halves, 0)
}

/// A score in the exact range (not a draw): the final value (half-points) and the plies
/// from the root to where it was found (the end of the game, or a table position).
fn exact_parts(score: i32) -> Option<(i32, i32)> {
    let magnitude = score.abs();
    if magnitude <= EXACT_BASE || magnitude > MATE_BOUND {
        return None;
    }
    let above = magnitude - EXACT_BASE;
    let halves = above / PLY_SLOTS;
    let plies = MAX_PLY as i32 - above % PLY_SLOTS;
    Some((score.signum() * halves, plies))
}

/// The exact final value (half-points) of a score in the exact range.
pub fn exact_value(score: i32) -> Option<i32> {
    exact_parts(score).map(|(halves, _)| halves)
}

/// Plies from the root to where the exact value of a score in the exact range was found.
pub fn exact_plies(score: i32) -> Option<i32> {
    exact_parts(score).map(|(_, plies)| plies)
}

/// A proven result: a mate score or an exact value other than a draw.
pub fn is_decided(score: i32) -> bool {
    score.abs() > EXACT_BASE
}

/// Mate scores and exact values are stored relative to the node, not the root: their
/// distance counts from the node.
pub fn to_tt(score: i32, ply: usize) -> i32 {
    if let Some((halves, plies)) = exact_parts(score) {
        exact_at(halves, (plies - ply as i32).max(0) as usize)
    } else if score > MATE_BOUND {
        score + ply as i32
    } else if score < -MATE_BOUND {
        score - ply as i32
    } else {
        score
    }
}

pub fn from_tt(score: i32, ply: usize) -> i32 {
    if let Some((halves, plies)) = exact_parts(score) {
        exact_at(halves, plies as usize + ply)
    } else if score > MATE_BOUND {
        score - ply as i32
    } else if score < -MATE_BOUND {
        score + ply as i32
    } else {
        score
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_values_order_by_margin_then_distance() {
        // A bigger win first, whatever the distance; among equal wins the quicker.
        assert!(exact_at(4, 30) > exact_at(2, 1));
        assert!(exact_at(4, 3) > exact_at(4, 9));
        // A smaller loss first; among equal losses the slower.
        assert!(exact_at(-2, 1) > exact_at(-4, 30));
        assert!(exact_at(-4, 9) > exact_at(-4, 3));
        // Above and below every heuristic value, clear of the mate range.
        assert!(exact_at(1, MAX_PLY) > clamp_eval(i32::MAX));
        assert!(exact_at(-1, MAX_PLY) < clamp_eval(i32::MIN));
        assert!(!is_mate(exact_at(100_000, 0)) && !is_mate(exact_at(-100_000, 0)));
        assert_eq!(exact_value(exact_at(100_000, 0)), Some(MAX_EXACT_HALVES));
        assert_eq!(exact_at(0, 5), 0);
        for (halves, ply) in [(1, 0), (-3, 7), (576, 255), (-576, 256)] {
            let s = exact_at(halves, ply);
            assert_eq!(exact_value(s), Some(halves));
            assert_eq!(exact_plies(s), Some(ply as i32));
            assert!(is_decided(s));
        }
        assert_eq!(exact_value(clamp_eval(i32::MAX)), None);
        assert_eq!(exact_value(MATE - 3), None);
    }

    #[test]
    fn exact_values_survive_the_table_at_another_ply() {
        // Found 9 plies from the root at a node 4 plies deep: 5 from the node.
        let s = exact_at(-6, 9);
        let stored = to_tt(s, 4);
        assert_eq!(exact_plies(stored), Some(5));
        assert_eq!(from_tt(stored, 4), s);
        // Met again at ply 2: 7 plies from the root.
        assert_eq!(exact_plies(from_tt(stored, 2)), Some(7));
        assert_eq!(exact_value(from_tt(stored, 2)), Some(-6));
        assert_eq!(from_tt(to_tt(MATE - 9, 4), 4), MATE - 9);
    }
}
