//! The games as the tests make them: each game with its options given as words
//! (`pits=4`, `quiet-limit=off`), a position read from its string, and the legal moves as
//! sorted texts, a position after random turns. Options or position strings a test writes
//! wrongly fail the test at once.

use sowfan::game::prelude::*;
use sowfan::games::afrika::{self, Afrika};
use sowfan::games::anywoli::{self, Anywoli};
use sowfan::games::fanorona::{self, Fanorona, Size};
use sowfan::games::kalah::{self, Kalah};
use sowfan::options::GameOptions;

use super::rng::Rng;

/// Kalah with `options` (`pits=4`, …).
pub fn kalah(options: &[&str]) -> Kalah {
    Kalah::new(GameOptions::parse(kalah::NAME, kalah::OPTIONS, options).expect("Kalah options"))
        .expect("Kalah reads its options")
}

/// Afrika with `options` (`target=33`, …).
pub fn afrika(options: &[&str]) -> Afrika {
    Afrika::new(GameOptions::parse(afrika::NAME, afrika::OPTIONS, options).expect("Afrika options"))
        .expect("Afrika reads its options")
}

/// Anywoli with `options` (`houses=4`, …).
pub fn anywoli(options: &[&str]) -> Anywoli {
    Anywoli::new(
        GameOptions::parse(anywoli::NAME, anywoli::OPTIONS, options).expect("Anywoli options"),
    )
    .expect("Anywoli reads its options")
}

/// Fanorona on the board `size` with `options` (`quiet-limit=off`, …).
pub fn fanorona(size: Size, options: &[&str]) -> Fanorona {
    Fanorona::new(
        size,
        GameOptions::parse(size.game_name(), fanorona::OPTIONS, options).expect("Fanorona options"),
    )
    .expect("Fanorona reads its options")
}

/// Fanorona 9×5 with the default options.
pub fn tsivy() -> Fanorona {
    fanorona(Size::Tsivy, &[])
}

/// The position of the string `text`; a string the game refuses fails the test, naming it.
pub fn at<G: Game>(game: &G, text: &str) -> G::Position {
    game.parse_position(text)
        .unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// The legal moves of `pos` as texts, sorted.
pub fn legal<G: Game>(game: &G, pos: &G::Position) -> Vec<String> {
    let mut moves = Vec::new();
    game.legal_moves(pos, &mut moves);
    let mut texts: Vec<String> = moves.iter().map(|&m| game.format_move(pos, m)).collect();
    texts.sort();
    texts
}

/// The position after a number of random turns drawn from `plies`, or fewer where the game
/// ends first (the caller checks [`Game::outcome`]).
pub fn random_position<G: Game>(
    game: &G,
    rng: &mut Rng,
    plies: std::ops::Range<usize>,
) -> G::Position {
    let mut pos = game.start_position();
    let mut moves = Vec::new();
    let length = plies.start + rng.below(plies.end - plies.start);
    for _ in 0..length {
        game.legal_moves(&pos, &mut moves);
        if moves.is_empty() || game.outcome(&pos).is_some() {
            break;
        }
        let mv = moves[rng.below(moves.len())];
        game.play(&mut pos, mv);
    }
    pos
}
