//! Games played to their end, three ways: through the protocol by a running engine, on a
//! [`Session`] (the protocol's view of a game, history rules included), and on a [`Game`]
//! (the rules alone). Each loop is here once; what a test checks or how it picks its moves
//! is the closure it passes.

use sowfan::game::prelude::*;
use sowfan::session::Session;

use super::Engine;

/// A game through the protocol, from the start position of `engine`'s current game: before
/// every turn the moves so far are sent as `position startpos moves …`, and the game is over
/// when `query gameover` answers `true`. `turn` is given the engine (to ask for a move, and
/// anything else) and the moves so far, and returns the next move. `Err` with the moves when
/// `max_turns` have been played without an end.
pub fn protocol_game(
    engine: &mut Engine,
    max_turns: usize,
    mut turn: impl FnMut(&mut Engine, &[String]) -> String,
) -> Result<Vec<String>, Vec<String>> {
    let mut moves: Vec<String> = Vec::new();
    loop {
        engine.send(&format!("position startpos moves {}", moves.join(" ")));
        if engine.query("gameover") == "true" {
            return Ok(moves);
        }
        if moves.len() >= max_turns {
            return Err(moves);
        }
        let mv = turn(engine, &moves);
        moves.push(mv);
    }
}

/// A game on `session` from its start position. `turn` is called at every position reached,
/// the last included, with the session, the moves so far and the legal moves (none once the
/// game is over), and returns the move to play or `None` to end there. Each move is played
/// as `position startpos moves …` plays it, from the start with every move so far, so that
/// rules that need the history (repetition) apply. Returns the moves.
pub fn session_game(
    session: &mut dyn Session,
    mut turn: impl FnMut(&dyn Session, &[String], &[String]) -> Option<String>,
) -> Vec<String> {
    let mut moves: Vec<String> = Vec::new();
    loop {
        let legal = session.legal_moves();
        let Some(mv) = turn(&*session, &moves, &legal) else {
            return moves;
        };
        moves.push(mv);
        let texts: Vec<&str> = moves.iter().map(String::as_str).collect();
        session
            .set_position(None, &texts)
            .unwrap_or_else(|e| panic!("after {}: {e}", moves.join(" ")));
    }
}

/// `game` played from `pos`. `turn` is called at every position reached, the last included,
/// with the number of moves played so far, the position and its legal moves (none once the
/// game is over), and returns the move to play or `None` to end there. Returns the position
/// reached.
pub fn play_out<G: Game>(
    game: &G,
    mut pos: G::Position,
    mut turn: impl FnMut(usize, &G::Position, &[G::Move]) -> Option<G::Move>,
) -> G::Position {
    let mut moves = Vec::new();
    for ply in 0.. {
        game.legal_moves(&pos, &mut moves);
        let Some(mv) = turn(ply, &pos, &moves) else {
            break;
        };
        game.play(&mut pos, mv);
    }
    pos
}
