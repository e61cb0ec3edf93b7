//! The `info` lines of a `go`: what the search, the tables and the solver report, built in
//! one place.

use std::time::Duration;

use super::GameSession;
use crate::game::Game;
use crate::search::{Report, score};

/// The fields of one `info` line.
pub(super) struct InfoLine {
    pub(super) depth: u32,
    pub(super) seldepth: usize,
    pub(super) multipv: usize,
    /// `cp 120` or `mate 3`.
    pub(super) score: String,
    /// `""`, `" lowerbound"` or `" upperbound"`.
    pub(super) bound: &'static str,
    pub(super) nodes: u64,
    pub(super) ms: u64,
    pub(super) hashfull: Option<u32>,
    pub(super) tbhits: u64,
    pub(super) pv: String,
}

pub(super) fn info_line(l: &InfoLine) -> String {
    let nps = l.nodes * 1000 / l.ms.max(1);
    let hashfull = l
        .hashfull
        .map(|h| format!(" hashfull {h}"))
        .unwrap_or_default();
    let tbhits = if l.tbhits > 0 {
        format!(" tbhits {}", l.tbhits)
    } else {
        String::new()
    };
    format!(
        "info depth {} seldepth {} multipv {} score {}{} nodes {} nps {}{}{} time {} pv {}",
        l.depth,
        l.seldepth.max(1),
        l.multipv,
        l.score,
        l.bound,
        l.nodes,
        nps,
        hashfull,
        tbhits,
        l.ms,
        l.pv
    )
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
        bound: &'static str,
        pv: &[G::Move],
        work: Work,
    ) -> InfoLine {
        InfoLine {
            depth: pv.len() as u32,
            seldepth: pv.len(),
            multipv: 1,
            score: format!("cp {}", value * 50),
            bound,
            nodes: work.nodes,
            ms: work.time.as_millis() as u64,
            hashfull: work.hashfull,
            tbhits: work.tbhits,
            pv: self.pv_text(pv),
        }
    }

    /// The line of a search's report, `time` into the `go`.
    pub(super) fn report_line(&self, report: &Report<G::Move>, time: Duration) -> InfoLine {
        InfoLine {
            depth: report.depth,
            seldepth: report.seldepth,
            multipv: report.multipv,
            score: self.score_text(report),
            bound: "",
            nodes: report.nodes,
            ms: time.as_millis() as u64,
            hashfull: Some(report.hashfull),
            tbhits: report.tbhits,
            pv: self.pv_text(&report.pv),
        }
    }

    /// `score cp N` or `score mate N` (N = own moves to the end; negative when losing); an
    /// exact value (tables loaded) is `cp` of its margin.
    fn score_text(&self, report: &Report<G::Move>) -> String {
        let s = report.score;
        if let Some(halves) = score::exact_value(s) {
            return format!("cp {}", halves * 50);
        }
        if !score::is_mate(s) {
            return format!("cp {s}");
        }
        let me = self.game.to_move(&self.position);
        let mut pos = self.position.clone();
        let mut own_moves = 0;
        for &mv in &report.pv {
            if self.game.to_move(&pos) == me {
                own_moves += 1;
            }
            self.game.play(&mut pos, mv);
        }
        if self.game.outcome(&pos).is_none() || report.pv.len() as i32 != score::mate_plies(s) {
            // The line does not reach the end: estimate from the distance in plies.
            own_moves = (score::mate_plies(s) + 1) / 2;
        }
        if s > 0 {
            format!("mate {own_moves}")
        } else {
            format!("mate -{own_moves}")
        }
    }
}
