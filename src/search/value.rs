//! What a search says a position is worth, in the game's points, from the view of the
//! player to move: a heuristic score `cp N` is N/100 points; an exact value (endgame tables,
//! a proof, or the end of the game) is the final margin; a forced result whose margin the
//! search did not prove (a `mate` score) counts as ±[`DECIDED`] points. Shared by the tools
//! that show values to people (analysis, play).

use crate::game::{Outcome, Player, value_text};
use crate::search::score;

/// A lead of this many points, or a proven win, decides the game; a forced result without
/// a known margin counts as this many points.
pub const DECIDED: f64 = 10.0;

/// What the engine says a position is worth to the player to move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Value {
    /// A heuristic judgement, in hundredths of a point.
    Cp(i32),
    /// The proven final margin, in half-points.
    Exact(i32),
    /// A forced win whose margin is not known.
    Win,
    /// A forced loss whose margin is not known.
    Loss,
}

impl Value {
    /// The value of a search's score (see `search::score`).
    pub fn from_search(score: i32, proven: bool) -> Value {
        if let Some(halves) = score::exact_value(score) {
            Value::Exact(halves)
        } else if score::is_mate(score) {
            if score > 0 { Value::Win } else { Value::Loss }
        } else if proven && score == 0 {
            Value::Exact(0)
        } else {
            Value::Cp(score)
        }
    }

    /// The value of a finished game for the player who would move in it.
    pub fn of_outcome(outcome: &Outcome, mover: Player) -> Value {
        let margin = outcome.margin(mover).halves();
        match outcome.result.winner() {
            None => Value::Exact(0),
            Some(w) if (w == mover && margin > 0) || (w != mover && margin < 0) => {
                Value::Exact(margin)
            }
            // A game not decided by points (e.g. Fanorona): the result only.
            Some(w) if w == mover => Value::Win,
            Some(_) => Value::Loss,
        }
    }

    /// For a game won, drawn or lost, not scored (`decisive`; Fanorona): a proven value is
    /// its result, a win or a loss (±[`DECIDED`] points), not the margin of one point its
    /// exact value stands for, so that throwing a win away is the blunder it is.
    pub fn as_result_if(self, decisive: bool) -> Value {
        match self {
            Value::Exact(halves) if decisive && halves > 0 => Value::Win,
            Value::Exact(halves) if decisive && halves < 0 => Value::Loss,
            other => other,
        }
    }

    /// In points; a forced result without a margin is ±[`DECIDED`].
    pub fn points(self) -> f64 {
        match self {
            Value::Cp(cp) => f64::from(cp) / 100.0,
            Value::Exact(halves) => f64::from(halves) / 2.0,
            Value::Win => DECIDED,
            Value::Loss => -DECIDED,
        }
    }

    /// In points, held within ±[`DECIDED`]: what losses are measured on.
    pub fn in_doubt(self) -> f64 {
        self.points().clamp(-DECIDED, DECIDED)
    }

    /// The same position seen by the other player.
    pub fn flip(self) -> Value {
        match self {
            Value::Cp(cp) => Value::Cp(-cp),
            Value::Exact(halves) => Value::Exact(-halves),
            Value::Win => Value::Loss,
            Value::Loss => Value::Win,
        }
    }

    /// Seen by `viewer` when `mover` is to move.
    pub fn for_player(self, mover: Player, viewer: Player) -> Value {
        if mover == viewer { self } else { self.flip() }
    }

    /// Proven (tables, a proof, the end of the game), not a heuristic judgement.
    pub fn is_proven(self) -> bool {
        !matches!(self, Value::Cp(_))
    }

    /// `cp`, `exact`, `win` or `loss`.
    pub fn kind(self) -> &'static str {
        match self {
            Value::Cp(_) => "cp",
            Value::Exact(_) => "exact",
            Value::Win => "win",
            Value::Loss => "loss",
        }
    }

    /// `+0.45`, `-1.20` (heuristic), `+8*`, `0*`, `-2.5*` (exact), `win*`, `loss*`.
    pub fn text(self) -> String {
        match self {
            Value::Cp(0) => "0.00".to_string(),
            Value::Cp(cp) => format!("{:+.2}", f64::from(cp) / 100.0),
            Value::Exact(halves) => format!("{}*", value_text(halves)),
            Value::Win => "win*".to_string(),
            Value::Loss => "loss*".to_string(),
        }
    }

    /// The game is decided in favour of the player this value is seen by.
    pub fn decided(self) -> bool {
        (self.is_proven() && self.points() > 0.0) || self.points() >= DECIDED
    }

    /// Both proven and `self` strictly better: a win beats any exact value and an exact
    /// value any loss; exact values by their margins.
    pub fn proven_better_than(self, other: Value) -> bool {
        fn rank(v: Value) -> Option<i64> {
            match v {
                Value::Cp(_) => None,
                Value::Exact(h) => Some(i64::from(h)),
                Value::Win => Some(i64::MAX),
                Value::Loss => Some(i64::MIN),
            }
        }
        matches!((rank(self), rank(other)), (Some(a), Some(b)) if a > b)
    }
}
