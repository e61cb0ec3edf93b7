//! The contract between a game's rules and everything generic: search, perft, protocol.
//!
//! A game is a value (it carries its options, e.g. Kalah's pit count); positions and moves
//! are plain data. Nothing outside `src/games/` knows any rule: the search only asks for
//! legal moves, plays them on a copy, and asks whose turn it is and whether the game is over.
//!
//! The contract is in parts, one trait a file, so that each part can be read (and a game
//! written) on its own:
//!
//! - [`Rules`] (rules.rs): the position, the moves, the end of the game, the scores, the hash,
//!   repetition, the bench positions. Required.
//! - [`Notation`] (notation.rs): position strings, move texts, the board drawn for people,
//!   packed positions. Required: it is how a tool names what it plays.
//! - Opt-in capabilities, each with defaults that are always correct (only slower or
//!   weaker): [`Evaluation`] (evaluation.rs: the static evaluation, its terms for the tuner,
//!   the horizon), [`NetworkFeatures`] (network_features.rs: what a learned evaluation
//!   reads of a position, and how its accumulator is kept; the network is `crate::nnue`),
//!   [`SearchHints`] (search_hints.rs: move ordering, pruning), [`ExactValues`]
//!   (exact_values.rs: banked values, bounds, keys for the solver), [`TableIndexing`]
//!   (table_indexing.rs: endgame-table layers and indexes).
//!
//! [`Game`] is all of them together, and every type that has all of them is a `Game`: the
//! generic tools ask for `G: Game` alone. A new game implements `Rules` and `Notation` and
//! writes an empty `impl` for each capability it does not have (`impl Evaluation for X {}`,
//! …): it can then be played, perft-counted, matched and analysed, judged by its score
//! margin. Each capability is then filled in where it pays.

mod evaluation;
mod exact_values;
mod network_features;
mod notation;
mod outcome;
mod points;
mod rules;
mod search_hints;
mod table_indexing;

pub(crate) use evaluation::eval_weights;
pub use evaluation::{EvalTerm, Evaluation, Horizon, QUIESCENCE_PLIES};
pub use exact_values::ExactValues;
pub use network_features::NetworkFeatures;
pub use notation::{MoveError, Notation, PositionError};
pub use outcome::{GameResult, Outcome, Player};
pub use points::{Points, value_text};
pub use rules::{BenchSpec, MAX_PLY, Rules};
pub use search_hints::{HISTORY_KEYS, SearchHints};
pub use table_indexing::{MAX_TABLE_DISTANCE, TableIndexing, TableValues};

/// A whole game: its rules, its notation and every capability the generic tools may ask for
/// (most of them with defaults). Implemented for every type that has all the parts; a game
/// never implements it by hand.
pub trait Game:
    Rules + Notation + Evaluation + NetworkFeatures + SearchHints + ExactValues + TableIndexing
{
}

impl<G> Game for G where
    G: Rules + Notation + Evaluation + NetworkFeatures + SearchHints + ExactValues + TableIndexing
{
}

/// Every part of the contract in scope at once, for code that calls a concrete game's methods
/// (`kalah.legal_moves(…)` needs [`Rules`] in scope; generic code bound by `G: Game` does not):
/// `use crate::game::prelude::*;`. The parts come in unnamed, so that they clash with nothing.
pub mod prelude {
    pub use crate::game::Game;
    pub use crate::game::{
        Evaluation as _, ExactValues as _, NetworkFeatures as _, Notation as _, Rules as _,
        SearchHints as _, TableIndexing as _,
    };
}
