//! The `go` policy: what answers a `go` — the end of the game, `go solve`, the endgame
//! tables, a first try of the exact solver near them, else the search — and when the answer
//! may be given.

use std::cmp::Ordering;
use std::time::Instant;

use super::go_info::{Info, InfoScore};
use super::{GameSession, Session, SessionError};
use crate::game::Game;
use crate::search::limits::Limits;
use crate::search::tt::TranspositionTable;
use crate::search::{self, Report, SearchControl, SearchSettings};
use crate::solver::tt::SolverTt;

/// What the protocol needs from a search.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchSummary {
    /// The move to play, or `0000` when the game is over.
    pub bestmove: String,
    pub ponder: Option<String>,
    pub nodes: u64,
    pub depth: u32,
    /// The search score from the side to move (see `search::score`); 0 for a finished game.
    pub score: i32,
    /// The score is the game's value: every line below it reached the end of the game.
    pub proven: bool,
}

impl<G: Game> GameSession<G> {
    /// [`Session::search`].
    pub(super) fn go(
        &self,
        limits: &Limits,
        settings: &SearchSettings,
        tt: &TranspositionTable,
        solve_tt: Option<&SolverTt>,
        control: &SearchControl,
        info: &mut dyn FnMut(&Info),
    ) -> Result<SearchSummary, SessionError> {
        let mut searchmoves = Vec::new();
        for text in &limits.searchmoves {
            let mv = self.game.parse_move(&self.position, text)?;
            searchmoves.push(mv);
        }
        if let Some(outcome) = self.outcome() {
            // The game's final value from the side to move, in the usual hundredths of a
            // point, with the result: the margin in a game scored by points, one point in a
            // game won or lost (Fanorona), as every proven value is reported.
            let mover = self.game.to_move(&self.position);
            let value = self.game.final_value(&outcome, mover);
            let result = match outcome.result.winner() {
                Some(winner) if winner == mover => Ordering::Greater,
                Some(_) => Ordering::Less,
                None => Ordering::Equal,
            };
            info(&Info::GameOver {
                score: InfoScore::Exact {
                    cp: value * 50,
                    result,
                },
                result: outcome.result.as_str(),
                reason: outcome.reason,
            });
            return Ok(SearchSummary {
                bestmove: "0000".to_string(),
                ponder: None,
                nodes: 0,
                depth: 0,
                score: 0,
                proven: true,
            });
        }
        self.check_tables_at_root();
        if limits.solve {
            return self
                .go_solve(limits, &searchmoves, settings, tt, solve_tt, control, info)
                .map_err(|e| SessionError::Solve(e.to_string()));
        }
        let started = Instant::now();
        if let Some(summary) = self.table_answer(&searchmoves, settings, info) {
            control.wait_for_stop(limits, self.to_move());
            return Ok(summary);
        }
        if searchmoves.is_empty()
            && let Some(summary) = self.try_solve(limits, settings, solve_tt, control, info)
        {
            control.wait_for_stop(limits, self.to_move());
            return Ok(summary);
        }
        // What the solver tried counts against the search's time.
        let limits = &limits.minus_elapsed(self.to_move(), started.elapsed());
        let mut report = |r: &Report<G::Move>| {
            info(&Info::Line(self.report_line(r, started.elapsed())));
        };
        let result = search::search(
            &self.game,
            &self.position,
            &self.history,
            &searchmoves,
            limits,
            settings,
            tt,
            self.tables.as_deref(),
            control,
            &mut report,
        );
        let Some(best) = result.best else {
            return Err(SessionError::NoLegalMove);
        };
        Ok(SearchSummary {
            bestmove: self.game.format_move(&self.position, best),
            ponder: result.ponder.map(|reply| self.reply_text(best, reply)),
            nodes: result.nodes,
            depth: result.depth,
            score: result.score,
            proven: result.proven,
        })
    }
}
