//! What a search says a position is worth, in the game's points, from the view of the
//! player to move: a heuristic score `cp N` is N/100 points; an exact value (endgame tables,
//! a proof, or a search whose every line reached the end of the game) is the final margin;
//! a forced result whose margin the search bounded but did not prove (its best line ends the
//! game, other lines were cut at a heuristic leaf) is a bound on the margin; in games won
//! or lost, not scored, a forced result counts as ±[`DECIDED`] points. Shared by the tools
//! that show values to people (analysis, play).

use crate::game::{Outcome, Player, value_text};
use crate::search::score;

/// A lead of this many points, or a proven win, decides the game; a forced result without
/// a margin (a game won or lost, not scored) counts as this many points.
pub const DECIDED: f64 = 10.0;

/// What the engine says a position is worth to the player to move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Value {
    /// A heuristic judgement, in hundredths of a point.
    Cp(i32),
    /// The proven final margin, in half-points.
    Exact(i32),
    /// A forced result with a bound on its margin, in half-points: positive, a win by at
    /// least this much; negative, a loss by at least this much (never 0).
    Bound(i32),
    /// A forced win in a game not scored by points.
    Win,
    /// A forced loss in a game not scored by points.
    Loss,
}

impl Value {
    /// The value of a search's score (see `search::score`); `proven`: the score rests on no
    /// heuristic leaf.
    pub fn from_search(score: i32, proven: bool) -> Value {
        if let Some(halves) = score::exact_value(score) {
            if proven {
                Value::Exact(halves)
            } else {
                Value::Bound(halves)
            }
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
            Value::Exact(halves) | Value::Bound(halves) if decisive && halves > 0 => Value::Win,
            Value::Exact(halves) | Value::Bound(halves) if decisive && halves < 0 => Value::Loss,
            other => other,
        }
    }

    /// In points: a bound as its bound; a forced result without a margin is ±[`DECIDED`].
    pub fn points(self) -> f64 {
        match self {
            Value::Cp(cp) => f64::from(cp) / 100.0,
            Value::Exact(halves) | Value::Bound(halves) => f64::from(halves) / 2.0,
            Value::Win => DECIDED,
            Value::Loss => -DECIDED,
        }
    }

    /// In points, held within ±[`DECIDED`]: what a heuristic judgement is compared on.
    pub fn in_doubt(self) -> f64 {
        self.points().clamp(-DECIDED, DECIDED)
    }

    /// What is proven of the final margin, in points: `(lowest, highest)`, either side
    /// open for a bound (infinite); `None` for a heuristic judgement.
    pub fn proven_range(self) -> Option<(f64, f64)> {
        let points = self.points();
        match self {
            Value::Cp(_) => None,
            Value::Bound(halves) if halves > 0 => Some((points, f64::INFINITY)),
            Value::Bound(_) => Some((f64::NEG_INFINITY, points)),
            Value::Exact(_) | Value::Win | Value::Loss => Some((points, points)),
        }
    }

    /// The result the value says, for the mover: `Greater` a win, `Equal` a draw, `Less` a
    /// loss (a heuristic judgement: which side it favours).
    pub fn result(self) -> std::cmp::Ordering {
        self.points().total_cmp(&0.0)
    }

    /// The same position seen by the other player.
    pub fn flip(self) -> Value {
        match self {
            Value::Cp(cp) => Value::Cp(-cp),
            Value::Exact(halves) => Value::Exact(-halves),
            Value::Bound(halves) => Value::Bound(-halves),
            Value::Win => Value::Loss,
            Value::Loss => Value::Win,
        }
    }

    /// Seen by `viewer` when `mover` is to move.
    pub fn for_player(self, mover: Player, viewer: Player) -> Value {
        if mover == viewer { self } else { self.flip() }
    }

    /// Proven (tables, a proof, the end of the game), not a heuristic judgement: the
    /// result is certain (and for an exact value, the margin).
    pub fn is_proven(self) -> bool {
        !matches!(self, Value::Cp(_))
    }

    /// `cp`, `exact`, `bound`, `win` or `loss`.
    pub fn kind(self) -> &'static str {
        match self {
            Value::Cp(_) => "cp",
            Value::Exact(_) => "exact",
            Value::Bound(_) => "bound",
            Value::Win => "win",
            Value::Loss => "loss",
        }
    }

    /// `+0.45`, `-1.20` (heuristic), `+8*`, `0*`, `-2.5*` (exact), `>=+3*`, `<=-0.5*`
    /// (bounds), `win*`, `loss*`.
    pub fn text(self) -> String {
        match self {
            Value::Cp(0) => "0.00".to_string(),
            Value::Cp(cp) => format!("{:+.2}", f64::from(cp) / 100.0),
            Value::Exact(halves) => format!("{}*", value_text(halves)),
            Value::Bound(halves) if halves > 0 => format!(">={}*", value_text(halves)),
            Value::Bound(halves) => format!("<={}*", value_text(halves)),
            Value::Win => "win*".to_string(),
            Value::Loss => "loss*".to_string(),
        }
    }

    /// The game is decided in favour of the player this value is seen by.
    pub fn decided(self) -> bool {
        (self.is_proven() && self.points() > 0.0) || self.points() >= DECIDED
    }

    /// Both proven and `self` strictly better whatever their bounds leave open: a win
    /// beats any exact value and an exact value any loss; exact values by their margins.
    pub fn proven_better_than(self, other: Value) -> bool {
        if !self.is_proven() || !other.is_proven() {
            return false;
        }
        match (self, other) {
            (Value::Win, other) => other != Value::Win,
            (this, Value::Loss) => this != Value::Loss,
            (Value::Loss, _) | (_, Value::Win) => false,
            _ => match (self.proven_range(), other.proven_range()) {
                (Some((low, _)), Some((_, high))) => low > high,
                _ => false,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_from_unproven_exact_scores() {
        let win = score::exact_at(6, 9);
        assert_eq!(Value::from_search(win, true), Value::Exact(6));
        assert_eq!(Value::from_search(win, false), Value::Bound(6));
        assert_eq!(Value::from_search(-win, false), Value::Bound(-6));
        assert_eq!(Value::Bound(6).text(), ">=+3*");
        assert_eq!(Value::Bound(-1).text(), "<=-0.5*");
        assert_eq!(Value::Bound(6).proven_range(), Some((3.0, f64::INFINITY)));
        assert!(Value::Bound(6).decided() && Value::Bound(-6).flip().decided());
        assert!(Value::Bound(8).proven_better_than(Value::Exact(6)));
        assert!(!Value::Exact(8).proven_better_than(Value::Bound(6)));
        assert!(Value::Exact(8).proven_better_than(Value::Bound(-2)));
        assert_eq!(Value::Bound(3).as_result_if(true), Value::Win);
    }
}
