//! What a `go` reports while it runs, as a value ([`Info`]) that the protocol writes out:
//! the lines of the search, the tables and the solver, built in one place.

use std::cmp::Ordering;
use std::time::Duration;

use super::GameSession;
use crate::game::Game;
use crate::search::{Report, score};

/// What a `go` tells while it runs: the content of one `info` line, for the protocol to
/// write out (protocol.md, "Search output").
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Info {
    /// A line of play with its score and what finding it has cost so far.
    Line(InfoLine),
    /// `go` in a finished game: nothing is searched; its final score and how it ended.
    GameOver {
        score: InfoScore,
        /// `p1win`, `p2win` or `draw`.
        result: &'static str,
        reason: &'static str,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InfoLine {
    /// The iteration (plies), or the length of a proven line; 0 for a bound still being
    /// proven.
    pub depth: u32,
    /// The deepest ply reached.
    pub seldepth: usize,
    /// The line's rank, 1 = best.
    pub multipv: usize,
    pub score: InfoScore,
    pub bound: ScoreBound,
    pub nodes: u64,
    /// Since the `go` began (the solver's: since it began).
    pub time: Duration,
    /// Per mille of the hash table written; `None` when none was used (an answer from the
    /// endgame tables alone).
    pub hashfull: Option<u32>,
    /// Positions answered by the endgame tables.
    pub tbhits: u64,
    /// The line, as move texts.
    pub pv: Vec<String>,
}

/// A score from the side to move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InfoScore {
    /// Hundredths of a point: a heuristic judgement (or, with a [`ScoreBound`] other than
    /// `Exact`, a proven bound on the final margin).
    Cp(i32),
    /// The proven final value, in hundredths of a point, and the result it stands for
    /// (`Greater`: the mover wins): written `cp <n> wdl …`, the `wdl` telling it from a
    /// heuristic `cp`.
    Exact { cp: i32, result: Ordering },
    /// The game ends by force after this many of the mover's own moves; negative when it
    /// loses.
    Mate(i32),
}

impl InfoScore {
    /// A proven final value in half-points (the margin's unit): a win when positive.
    pub fn of_halves(halves: i32) -> InfoScore {
        InfoScore::Exact {
            cp: halves * 50,
            result: halves.cmp(&0),
        }
    }

    /// A proven bound on the final value (half-points), shown as a plain `cp`: the bound
    /// flag says what it is.
    fn bound_of_halves(halves: i32) -> InfoScore {
        InfoScore::Cp(halves * 50)
    }
}

/// Is the score the value, or a proven bound on it (`go solve` while it proves)?
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScoreBound {
    Exact,
    Lower,
    Upper,
}

/// What a table answer or a solve has cost when it reports.
pub(super) struct Work {
    pub(super) nodes: u64,
    pub(super) time: Duration,
    /// The solver's table (`None`: the tables alone answered).
    pub(super) hashfull: Option<u32>,
    pub(super) tbhits: u64,
}

impl<G: Game> GameSession<G> {
    /// The line of an exact value (half-points from the mover's view) or a bound on it, as
    /// the tables and the solver give it: as deep as `pv`, the first line.
    pub(super) fn value_line(
        &self,
        value: i32,
        bound: ScoreBound,
        pv: &[G::Move],
        work: Work,
    ) -> InfoLine {
        InfoLine {
            depth: pv.len() as u32,
            seldepth: pv.len(),
            multipv: 1,
            score: match bound {
                ScoreBound::Exact => InfoScore::of_halves(value),
                _ => InfoScore::bound_of_halves(value),
            },
            bound,
            nodes: work.nodes,
            time: work.time,
            hashfull: work.hashfull,
            tbhits: work.tbhits,
            pv: self.pv_strings(pv),
        }
    }

    /// The line of a search's report, `time` into the `go`.
    pub(super) fn report_line(&self, report: &Report<G::Move>, time: Duration) -> InfoLine {
        InfoLine {
            depth: report.depth,
            seldepth: report.seldepth,
            multipv: report.multipv,
            score: self.score_of(report),
            bound: ScoreBound::Exact,
            nodes: report.nodes,
            time,
            hashfull: Some(report.hashfull),
            tbhits: report.tbhits,
            pv: self.pv_strings(&report.pv),
        }
    }

    /// A heuristic score as it is; a proven exact value (the search rests on no heuristic
    /// leaf) as its margin; a mate score, or an exact value that is only a bound (a forced
    /// result whose margin other lines, still heuristic, might improve), as a mate in own
    /// moves to the end of the game (or to the table position that decides it).
    fn score_of(&self, report: &Report<G::Move>) -> InfoScore {
        let s = report.score;
        let plies = match score::exact_value(s) {
            Some(halves) if report.proven => return InfoScore::of_halves(halves),
            Some(_) => score::exact_plies(s).unwrap_or(0),
            None if score::is_mate(s) => score::mate_plies(s),
            // A proven draw is an exact value too.
            None if report.proven && s == 0 => return InfoScore::of_halves(0),
            None => return InfoScore::Cp(s),
        };
        let me = self.game.to_move(&self.position);
        let mut pos = self.position.clone();
        let mut own_moves = 0;
        for &mv in &report.pv {
            if self.game.to_move(&pos) == me {
                own_moves += 1;
            }
            self.game.play(&mut pos, mv);
        }
        if self.game.outcome(&pos).is_none() || report.pv.len() as i32 != plies {
            // The line does not reach the end: estimate from the distance in plies.
            own_moves = (plies + 1) / 2;
        }
        // A search reports from a position with a move to make: at least one own move to the
        // end, so the sign always shows.
        let own_moves = own_moves.max(1);
        InfoScore::Mate(if s > 0 { own_moves } else { -own_moves })
    }
}
