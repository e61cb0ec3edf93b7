//! The rules: what every tool needs to play, perft, match and analyse a game.

use std::fmt;

use super::{GameResult, Outcome, Player, Points};

/// The longest line, in plies, that any search follows from its root: deeper positions are
/// judged, not searched. Games whose rules count plies (a quiet-move limit) compare with it.
pub const MAX_PLY: usize = 256;

/// What `bench` searches for a game: position strings (the start position is always
/// included first) and the depth to search each to.
#[derive(Debug, Clone)]
pub struct BenchSpec {
    pub depth: u32,
    pub positions: &'static [&'static str],
}

/// The rules of one game, with its options applied.
///
/// Contract used by the search and the protocol:
/// - `legal_moves` is empty exactly when `outcome` is `Some` (history rules aside).
/// - `play` is only called with a move from `legal_moves` of the same position.
/// - Move generation is deterministic: the same position always yields the same moves in
///   the same order (the transposition table stores a move as its index in that list).
/// - Hot paths (`legal_moves`, `play`, `evaluate`, `hash`) must not allocate once the
///   caller's move buffer has grown to size.
pub trait Rules: Clone + Send + Sync + 'static {
    /// Cheap to copy: the search plays moves on copies (copy-make).
    type Position: Clone + Send + Sync + fmt::Debug + 'static;
    type Move: Copy + Eq + Send + Sync + fmt::Debug + 'static;

    /// The game's name and non-default options as written after `newgame`.
    fn spec(&self) -> String;

    fn start_position(&self) -> Self::Position;

    fn to_move(&self, pos: &Self::Position) -> Player;

    /// All legal moves (whole turns), appended to `moves` after clearing it.
    fn legal_moves(&self, pos: &Self::Position, moves: &mut Vec<Self::Move>);

    fn play(&self, pos: &mut Self::Position, mv: Self::Move);

    /// How many moves `legal_moves` would give: what perft counts on its last ply. A game
    /// may count without building the moves; `scratch` is a buffer it may use.
    fn count_legal_moves(&self, pos: &Self::Position, scratch: &mut Vec<Self::Move>) -> usize {
        self.legal_moves(pos, scratch);
        scratch.len()
    }

    /// `Some` when the position alone ends the game (repetition is judged separately).
    fn outcome(&self, pos: &Self::Position) -> Option<Outcome>;

    /// Current scores (stores, captured stones, …) indexed by `Player::index`, for display.
    fn scores(&self, pos: &Self::Position) -> [Points; 2];

    /// Hash of everything that can influence the rest of the game (transposition table).
    fn hash(&self, pos: &Self::Position) -> u64;

    /// A position occurring for the `n`-th time ends the game (`None`: no such rule).
    fn repetition_limit(&self) -> Option<u32> {
        None
    }

    /// What identifies a position for the repetition rule (default: the hash).
    fn repetition_key(&self, pos: &Self::Position) -> u64 {
        self.hash(pos)
    }

    /// How many earlier positions can possibly equal this one (the moves since the last
    /// irreversible one); bounds the repetition scan.
    fn reversible_plies(&self, _pos: &Self::Position) -> usize {
        usize::MAX
    }

    /// The outcome when the repetition rule ends the game in `pos`.
    fn repetition_outcome(&self, pos: &Self::Position) -> Outcome {
        Outcome {
            result: GameResult::Draw,
            scores: self.scores(pos),
            reason: "repetition",
        }
    }

    fn bench(&self) -> BenchSpec;
}
