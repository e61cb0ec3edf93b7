//! What a `go` asks for, and the time budget it turns into.

use std::time::Duration;

use crate::game::Player;

/// The limits of one search, as given by `go`. Missing limits mean "no limit".
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Limits {
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
    /// Milliseconds for this move.
    pub movetime: Option<u64>,
    pub infinite: bool,
    pub ponder: bool,
    /// Remaining clock time in ms, indexed by `Player::index` (may be negative).
    pub time: [Option<i64>; 2],
    pub inc: [Option<i64>; 2],
    pub movestogo: Option<u32>,
    /// Only these root moves (move texts) are searched.
    pub searchmoves: Vec<String>,
}

impl Limits {
    pub fn depth(depth: u32) -> Limits {
        Limits {
            depth: Some(depth),
            ..Limits::default()
        }
    }

    /// A search that only ends on `stop` (or at a proven result, then waits for `stop`).
    pub fn is_open_ended(&self) -> bool {
        self.infinite || self.ponder
    }

    /// No limit at all: `go` alone. Treated like `infinite`.
    pub fn is_unlimited(&self) -> bool {
        self.depth.is_none()
            && self.nodes.is_none()
            && self.movetime.is_none()
            && self.time == [None, None]
    }
}

/// Soft and hard deadlines for one move.
#[derive(Debug, Clone, Copy)]
pub struct TimeBudget {
    /// Do not start another iteration after this much of it is used (see `search`).
    pub soft: Option<Duration>,
    /// Abort the search at this point.
    pub hard: Option<Duration>,
}

impl TimeBudget {
    /// The budget of `player` to move under `limits`, keeping `overhead_ms` for the
    /// communication delay of the GUI or match runner.
    pub fn new(limits: &Limits, player: Player, overhead_ms: u64) -> TimeBudget {
        if let Some(movetime) = limits.movetime {
            // A fixed time per move is used in full: no early stop between iterations.
            let t = Duration::from_millis(movetime.saturating_sub(overhead_ms).max(1));
            return TimeBudget {
                soft: None,
                hard: Some(t),
            };
        }
        let Some(left) = limits.time[player.index()] else {
            return TimeBudget {
                soft: None,
                hard: None,
            };
        };
        let inc = limits.inc[player.index()].unwrap_or(0).max(0);
        let available = (left - overhead_ms as i64).max(1);
        // Mancala and Fanorona games are shorter than chess games: plan for 25 more moves.
        let moves_to_go = limits.movestogo.unwrap_or(25).clamp(1, 50) as i64;
        let soft = available / moves_to_go + inc * 3 / 4;
        let hard = (soft * 4).min(available * 3 / 4).max(1);
        TimeBudget {
            soft: Some(Duration::from_millis(soft.min(hard) as u64)),
            hard: Some(Duration::from_millis(hard as u64)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn movetime_keeps_overhead() {
        let l = Limits {
            movetime: Some(1000),
            ..Limits::default()
        };
        let b = TimeBudget::new(&l, Player::P1, 30);
        assert_eq!(b.hard, Some(Duration::from_millis(970)));
    }

    #[test]
    fn clock_budget_is_a_fraction_of_the_time_left() {
        let l = Limits {
            time: [Some(60_000), Some(1_000)],
            inc: [Some(1000), None],
            ..Limits::default()
        };
        let b = TimeBudget::new(&l, Player::P1, 0);
        let soft = b.soft.unwrap().as_millis();
        assert!(soft > 2000 && soft < 5000, "{soft}");
        assert!(b.hard.unwrap() >= b.soft.unwrap());
        // Negative remaining time: a tiny budget, not a crash.
        let l = Limits {
            time: [Some(-500), None],
            ..Limits::default()
        };
        let b = TimeBudget::new(&l, Player::P1, 30);
        assert!(b.hard.unwrap() <= Duration::from_millis(1));
        // Only the other player's clock: no time limit for us.
        let l = Limits {
            time: [None, Some(5000)],
            ..Limits::default()
        };
        assert!(TimeBudget::new(&l, Player::P1, 0).hard.is_none());
    }
}
