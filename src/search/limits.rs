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
    /// `go solve`: prove the exact value instead of searching heuristically.
    pub solve: bool,
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
        !self.solve
            && self.depth.is_none()
            && self.nodes.is_none()
            && self.movetime.is_none()
            && self.time == [None, None]
    }

    /// No limit for `player` to move: nothing but, at most, the opponent's clock (which does
    /// not limit this search). Treated like `infinite`.
    pub fn is_unlimited_for(&self, player: Player) -> bool {
        !self.solve
            && self.depth.is_none()
            && self.nodes.is_none()
            && self.movetime.is_none()
            && self.time[player.index()].is_none()
    }

    /// `go solve` with no node or time limit for `player`: only a proof or `stop` ends it,
    /// so like `infinite` it is stopped at the end of input (protocol.md, "Lines").
    /// `depth` does not limit a proof, which has no horizon.
    pub fn is_endless_solve(&self, player: Player) -> bool {
        self.solve
            && self.nodes.is_none()
            && self.movetime.is_none()
            && self.time[player.index()].is_none()
    }
}

impl Limits {
    /// The same limits for `player` with `spent` already used of its time (movetime and its
    /// own clock); depth and node limits are unchanged.
    pub fn minus_elapsed(&self, player: Player, spent: Duration) -> Limits {
        let ms = u64::try_from(spent.as_millis()).unwrap_or(u64::MAX);
        let mut limits = self.clone();
        if let Some(t) = limits.movetime.as_mut() {
            *t = t.saturating_sub(ms);
        }
        if let Some(t) = limits.time[player.index()].as_mut() {
            *t = t.saturating_sub(i64::try_from(ms).unwrap_or(i64::MAX));
        }
        limits
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
        let clock = TimeBudget::of_clock(limits, player, overhead_ms);
        let Some(movetime) = limits.movetime else {
            return clock;
        };
        // A fixed time per move is used in full (no early stop between iterations), but
        // never past the clock's own limit when a clock is given too: whichever comes
        // first, as in Stockfish (`go wtime 100 movetime 2000` thought 2 s).
        let t = Duration::from_millis(movetime.saturating_sub(overhead_ms));
        TimeBudget {
            soft: clock.soft.filter(|&soft| soft < t),
            hard: Some(clock.hard.map_or(t, |hard| hard.min(t))),
        }
    }

    /// The budget of the clock alone (`wtime`/`btime`, `winc`/`binc`, `movestogo`).
    fn of_clock(limits: &Limits, player: Player, overhead_ms: u64) -> TimeBudget {
        let Some(left) = limits.time[player.index()] else {
            return TimeBudget {
                soft: None,
                hard: None,
            };
        };
        // Every number here came from a client: saturating arithmetic only. No time left
        // (or less than the overhead) means "move now": the first iteration, nothing more.
        let overhead = i64::try_from(overhead_ms).unwrap_or(i64::MAX);
        let available = left.saturating_sub(overhead).max(0);
        if available == 0 {
            return TimeBudget {
                soft: Some(Duration::ZERO),
                hard: Some(Duration::ZERO),
            };
        }
        // An increment only arrives after the move: it cannot buy more than the time left.
        let inc = limits.inc[player.index()].unwrap_or(0).clamp(0, available);
        // Mancala and Fanorona games are shorter than chess games: plan for 25 more moves.
        let moves_to_go = i64::from(limits.movestogo.unwrap_or(25).clamp(1, 50));
        let soft = (available / moves_to_go).saturating_add(inc / 4 * 3);
        let hard = soft.saturating_mul(4).min(available / 4 * 3).max(1);
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
    fn movetime_with_a_clock_stops_at_whichever_comes_first() {
        let short_clock = Limits {
            movetime: Some(2000),
            time: [Some(100), Some(100)],
            ..Limits::default()
        };
        let clock_alone = TimeBudget::new(
            &Limits {
                movetime: None,
                ..short_clock.clone()
            },
            Player::P1,
            30,
        );
        let b = TimeBudget::new(&short_clock, Player::P1, 30);
        assert_eq!((b.soft, b.hard), (clock_alone.soft, clock_alone.hard));
        assert!(b.hard < Some(Duration::from_millis(100)));
        // A long clock leaves the movetime whole, used in full.
        let long_clock = Limits {
            movetime: Some(1000),
            time: [Some(600_000), None],
            ..Limits::default()
        };
        let b = TimeBudget::new(&long_clock, Player::P1, 30);
        assert_eq!((b.soft, b.hard), (None, Some(Duration::from_millis(970))));
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
        assert_eq!(b.hard, Some(Duration::ZERO));
        // Only the other player's clock: no time limit for us.
        let l = Limits {
            time: [None, Some(5000)],
            ..Limits::default()
        };
        assert!(TimeBudget::new(&l, Player::P1, 0).hard.is_none());
    }

    /// The budget for `player` (P1) with one field of `go` set to `value`.
    fn budget_with(field: &str, value: i64) -> TimeBudget {
        let mut l = Limits {
            time: [Some(10_000), Some(10_000)],
            ..Limits::default()
        };
        match field {
            "time" => l.time[0] = Some(value),
            "inc" => l.inc[0] = Some(value),
            "movestogo" => l.movestogo = Some(value.clamp(1, u32::MAX as i64) as u32),
            "movetime" => {
                l.time = [None, None];
                l.movetime = Some(value.max(0) as u64);
            }
            _ => unreachable!(),
        }
        TimeBudget::new(&l, Player::P1, 30)
    }

    #[test]
    fn budgets_at_the_extremes_never_wrap() {
        let extremes = [0, 1, -1, i64::MIN, i64::MAX, i64::MIN + 1, i64::MAX - 1];
        for field in ["time", "inc", "movestogo", "movetime"] {
            for &v in &extremes {
                let b = budget_with(field, v);
                let hard = b.hard.unwrap();
                let soft = b.soft.unwrap_or(hard);
                assert!(soft <= hard, "{field} {v}: {b:?}");
                // With 10 s on the clock, no increment or movestogo buys more than 7.5 s.
                if field != "movetime" && field != "time" {
                    assert!(hard <= Duration::from_millis(7_500), "{field} {v}: {b:?}");
                }
            }
        }
        // Negative or zero time left: move now.
        for v in [i64::MIN, -9_223_372_036_854_775_779, -1, 0, 1, 30] {
            assert_eq!(budget_with("time", v).hard, Some(Duration::ZERO), "{v}");
        }
        // A huge time left is a long but finite budget.
        let b = budget_with("time", i64::MAX);
        assert!(b.hard.unwrap() > Duration::from_secs(1_000_000));
        // A huge increment is capped by the time left: 1 s left, the plan stays under 1 s.
        let l = Limits {
            time: [Some(1000), None],
            inc: [Some(i64::MAX), None],
            ..Limits::default()
        };
        let b = TimeBudget::new(&l, Player::P1, 30);
        let hard = b.hard.unwrap();
        assert!(
            hard >= Duration::from_millis(500) && hard < Duration::from_millis(1000),
            "{b:?}"
        );
        // movetime at the extremes: 0 and 1 are "move now"; u64::MAX is simply long.
        let l = Limits {
            movetime: Some(u64::MAX),
            ..Limits::default()
        };
        assert!(TimeBudget::new(&l, Player::P1, 30).hard.unwrap() > Duration::from_secs(1 << 40));
        for ms in [0, 1] {
            let l = Limits {
                movetime: Some(ms),
                ..Limits::default()
            };
            assert_eq!(
                TimeBudget::new(&l, Player::P1, 30).hard,
                Some(Duration::ZERO)
            );
        }
    }
}
