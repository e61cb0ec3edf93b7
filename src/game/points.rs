//! A game's own points, exact in halves, and how a value in half-points is written.

use std::fmt;

/// A score in a game's own points, held in halves so that a komi such as 2.5 is exact.
/// Displays as `64`, `66.5`, `-0.5`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Points {
    halves: i32,
}

impl Points {
    pub const ZERO: Points = Points { halves: 0 };

    pub fn whole(n: i32) -> Points {
        Points { halves: 2 * n }
    }

    pub fn from_halves(halves: i32) -> Points {
        Points { halves }
    }

    pub fn halves(self) -> i32 {
        self.halves
    }
}

impl std::ops::Add for Points {
    type Output = Points;
    fn add(self, rhs: Points) -> Points {
        Points {
            halves: self.halves + rhs.halves,
        }
    }
}

impl std::ops::Sub for Points {
    type Output = Points;
    fn sub(self, rhs: Points) -> Points {
        Points {
            halves: self.halves - rhs.halves,
        }
    }
}

impl fmt::Display for Points {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sign = if self.halves < 0 { "-" } else { "" };
        let abs = self.halves.unsigned_abs();
        if abs.is_multiple_of(2) {
            write!(f, "{sign}{}", abs / 2)
        } else {
            write!(f, "{sign}{}.5", abs / 2)
        }
    }
}

/// `+8`, `0`, `-2.5`: a value in half-points, signed (a margin, an exact value).
pub fn value_text(halves: i32) -> String {
    let points = Points::from_halves(halves);
    if halves > 0 {
        format!("+{points}")
    } else {
        points.to_string()
    }
}
