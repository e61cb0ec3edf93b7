//! Perft: the number of move sequences of a given length, the standard check of a rules core.
//!
//! Every move is a whole turn as the protocol sees it (an extra move is its own move).
//! Sequences stop at a finished game; history rules (repetition) are not applied, as in chess
//! perft with the fifty-move rule.

use std::sync::atomic::{AtomicBool, Ordering};

use crate::game::Game;

/// Counts leaves `depth` moves below `pos`.
pub fn perft<G: Game>(game: &G, pos: &G::Position, depth: u32) -> u64 {
    let mut buffers: Vec<Vec<G::Move>> = (0..=depth).map(|_| Vec::new()).collect();
    count(game, pos, depth, &mut buffers, &AtomicBool::new(false)).unwrap_or(0)
}

/// Perft split by root move, in move-generation order: `each` receives every root move's
/// count as soon as it is known. Returns false when `stop` was raised before the end (the
/// moves reported so far are complete; the rest are missing).
pub fn divide<G: Game>(
    game: &G,
    pos: &G::Position,
    depth: u32,
    stop: &AtomicBool,
    mut each: impl FnMut(G::Move, u64),
) -> bool {
    let mut moves = Vec::new();
    game.legal_moves(pos, &mut moves);
    if depth == 0 {
        return true;
    }
    let mut buffers: Vec<Vec<G::Move>> = (0..depth).map(|_| Vec::new()).collect();
    for mv in moves {
        let mut child = pos.clone();
        game.play(&mut child, mv);
        match count(game, &child, depth - 1, &mut buffers, stop) {
            Some(n) => each(mv, n),
            None => return false,
        }
    }
    true
}

/// `None` when stopped. The flag is read only at nodes three or more plies above the leaves:
/// a fraction of the nodes, yet often enough to stop within microseconds.
fn count<G: Game>(
    game: &G,
    pos: &G::Position,
    depth: u32,
    buffers: &mut [Vec<G::Move>],
    stop: &AtomicBool,
) -> Option<u64> {
    if depth == 0 {
        return Some(1);
    }
    let (moves, rest) = buffers
        .split_first_mut()
        .expect("one move buffer per remaining depth");
    if depth == 1 {
        return Some(game.count_legal_moves(pos, moves) as u64);
    }
    if depth >= 3 && stop.load(Ordering::Relaxed) {
        return None;
    }
    game.legal_moves(pos, moves);
    let mut total = 0;
    for &mv in moves.iter() {
        let mut child = pos.clone();
        game.play(&mut child, mv);
        total += count(game, &child, depth - 1, rest, stop)?;
    }
    Some(total)
}
