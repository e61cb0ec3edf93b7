//! Perft: the number of move sequences of a given length, the standard check of a rules core.
//!
//! Every move is a whole turn as the protocol sees it (an extra move is its own move).
//! Sequences stop at a finished game; history rules (repetition) are not applied, as in chess
//! perft with the fifty-move rule.

use crate::game::Game;

/// Counts leaves `depth` moves below `pos`.
pub fn perft<G: Game>(game: &G, pos: &G::Position, depth: u32) -> u64 {
    let mut buffers: Vec<Vec<G::Move>> = (0..=depth).map(|_| Vec::new()).collect();
    count(game, pos, depth, &mut buffers)
}

/// Perft split by root move, in move-generation order.
pub fn divide<G: Game>(game: &G, pos: &G::Position, depth: u32) -> Vec<(G::Move, u64)> {
    let mut moves = Vec::new();
    game.legal_moves(pos, &mut moves);
    if depth == 0 {
        return Vec::new();
    }
    let mut buffers: Vec<Vec<G::Move>> = (0..depth).map(|_| Vec::new()).collect();
    moves
        .into_iter()
        .map(|mv| {
            let mut child = pos.clone();
            game.play(&mut child, mv);
            (mv, count(game, &child, depth - 1, &mut buffers))
        })
        .collect()
}

fn count<G: Game>(game: &G, pos: &G::Position, depth: u32, buffers: &mut [Vec<G::Move>]) -> u64 {
    if depth == 0 {
        return 1;
    }
    let (moves, rest) = buffers
        .split_first_mut()
        .expect("one move buffer per remaining depth");
    if depth == 1 {
        return game.count_legal_moves(pos, moves) as u64;
    }
    game.legal_moves(pos, moves);
    let mut total = 0;
    for &mv in moves.iter() {
        let mut child = pos.clone();
        game.play(&mut child, mv);
        total += count(game, &child, depth - 1, rest);
    }
    total
}
