//! Opt-in: the hand-written evaluation, its terms for the tuner, and what the search does at
//! its horizon.

use super::Rules;

/// One term of a game's evaluation, which is the sum of weight × feature over its terms
/// (see [`Evaluation::eval_terms`]): the weight's name, its value, what it measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EvalTerm {
    pub name: &'static str,
    pub value: i32,
    /// This weight sets the unit (100 = one point) and is not tuned.
    pub unit: bool,
    pub meaning: &'static str,
}

/// A game's evaluation weights from one list: the typed `Weights` struct (a `const` the
/// compiler folds), its values `WEIGHTS`, the same as `TERMS` for the tuner and the docs,
/// and `Weights::score`, the sum of weight × feature with the features in the list's order.
///
/// ```ignore
/// eval_weights! {
///     /// A seed of store difference: the unit.
///     store = 100, unit = true, "a seed of store difference";
///     /// A seed of row difference.
///     row_seed = 25, unit = false, "a seed of row difference";
/// }
/// ```
macro_rules! eval_weights {
    ($( $(#[$doc:meta])* $field:ident = $value:expr, unit = $unit:expr, $meaning:literal; )+) => {
        /// The weights of the evaluation, in hundredths of a point (docs/strength.md lists
        /// them with how they were chosen).
        #[derive(Debug, Clone, Copy)]
        pub struct Weights {
            $( $(#[$doc])* pub $field: i32, )+
        }

        pub const WEIGHTS: Weights = Weights { $( $field: $value, )+ };

        /// [`WEIGHTS`] as the evaluation's terms, in the order of the features.
        pub static TERMS: [$crate::game::EvalTerm; [$(stringify!($field)),+].len()] = [
            $( $crate::game::EvalTerm {
                name: stringify!($field),
                value: WEIGHTS.$field,
                unit: $unit,
                meaning: $meaning,
            }, )+
        ];

        impl Weights {
            /// Σ weight × feature, the features in the order of the weights.
            #[inline]
            pub fn score(&self, features: &[i32; [$(stringify!($field)),+].len()]) -> i32 {
                let [$($field),+] = *features;
                0 $( + self.$field * $field )+
            }
        }
    };
}
pub(crate) use eval_weights;

/// See [`Evaluation::horizon`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Horizon {
    /// Nothing forcing is pending: the evaluation holds.
    Quiet,
    /// Every legal move is forcing and one must be played: search them before evaluating.
    Forced,
    /// Some moves are forcing ([`SearchHints::is_forcing`](super::SearchHints::is_forcing)) and the mover may decline them: search
    /// those before evaluating.
    Optional,
}

/// The deepest a quiescence search goes past the horizon (forced turns in a row) before
/// it evaluates anyway.
pub const QUIESCENCE_PLIES: usize = 12;

/// How good a position is without searching it, and whether it is quiet enough to judge.
/// Every default is safe: a game that implements none of it is judged by its score margin
/// ([`Evaluation::evaluate`]), with no quiescence search and nothing to tune.
pub trait Evaluation: Rules {
    /// Static evaluation from the point of view of the player to move; 100 = one seed or
    /// stone. Never a mate-range value. The default is the mover's lead in the current
    /// scores ([`Rules::scores`]), so that a game with rules alone can be searched.
    fn evaluate(&self, pos: &Self::Position) -> i32 {
        let scores = self.scores(pos);
        let mover = self.to_move(pos).index();
        // 100 a point, and a point is two halves.
        (scores[mover] - scores[1 - mover]).halves() * 50
    }

    /// The evaluation's terms, in the order of [`Evaluation::eval_features`]: `evaluate` is
    /// `Σ term.value × feature` (clamped; a test checks it for every game). Empty: the
    /// evaluation is not open to tuning.
    fn eval_terms(&self) -> &'static [EvalTerm] {
        &[]
    }

    /// The features of `pos` from the mover's view, one per term, written to `features`
    /// (as long as [`Evaluation::eval_terms`]).
    fn eval_features(&self, _pos: &Self::Position, _features: &mut [i32]) {}

    /// The factor `(numerator, denominator)` by which `evaluate` scales `Σ term.value ×
    /// feature` in `pos` (rounded toward zero): e.g. an evaluation drawn toward the draw
    /// that a rule's counter brings nearer. The tuner scales the features by it. Default: 1.
    fn eval_scale(&self, _pos: &Self::Position) -> (i64, i64) {
        (1, 1)
    }

    /// The stones (seeds) still on the board of `pos`, for tools that sort positions by
    /// the phase of the game (e.g. `sowfan accuracy`'s range of stones in play). `None`:
    /// the game does not say.
    fn stones_in_play(&self, _pos: &Self::Position) -> Option<u32> {
        None
    }

    /// Is `pos` quiet: nothing forcing pending (no capture, no extra move at hand)? Tuning
    /// learns from quiet positions only, where the static evaluation is meant to hold.
    fn is_quiet(&self, _pos: &Self::Position) -> bool {
        true
    }

    /// What the search does with `pos` at its horizon (no depth left) before it trusts the
    /// evaluation (a quiescence search, at most [`QUIESCENCE_PLIES`] plies past the
    /// horizon; the evaluation is the mover's floor, "stand pat"). [`Horizon::Quiet`] (the
    /// default): evaluate. [`Horizon::Forced`]: every legal move is forcing (a compulsory
    /// capture): search them all. [`Horizon::Optional`]: the mover may play a forcing move
    /// ([`SearchHints::is_forcing`](super::SearchHints::is_forcing)) or not: search those only.
    fn horizon(&self, _pos: &Self::Position) -> Horizon {
        Horizon::Quiet
    }

    /// [`Evaluation::evaluate`] and [`Evaluation::horizon`] of one position, as the search asks for both
    /// at every leaf: a game whose two share work (Fanorona: the captures at hand) answers
    /// both in one pass.
    fn evaluate_at_horizon(&self, pos: &Self::Position) -> (i32, Horizon) {
        (self.evaluate(pos), self.horizon(pos))
    }
}
