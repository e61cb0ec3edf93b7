//! `solve` for games that are won, drawn or lost ([`ExactValues::win_draw_loss`](crate::game::ExactValues::win_draw_loss)): the
//! proof-number solver, with its proof file (resume a long proof, save it now and then).

use std::sync::atomic::{AtomicBool, AtomicU64};
use std::time::Instant;

use super::keep::Keeper;
use super::solve_request::SolveRequest;
use super::solving::{SolveProgress, SolveReport, SolvingError};
use super::{GameSession, Session};
use crate::game::Game;
use crate::solver::pn::tt::PnTt;
use crate::solver::pn::{self, Checkpoints};
use crate::solver::{Progress, tt::SolverTt};

impl<G: Game> GameSession<G> {
    /// Has the current position occurred before since the last irreversible move? Its
    /// proven value is that of the position without those occurrences.
    fn repeats_history(&self) -> bool {
        let Some((&key, earlier)) = self.history.split_last() else {
            return false;
        };
        let window = self
            .game
            .reversible_plies(&self.position)
            .min(earlier.len());
        earlier[earlier.len() - window..].contains(&key)
    }

    /// [`super::Session::solve`] of a win/draw/loss game.
    pub(super) fn solve_win_draw_loss(
        &self,
        request: &SolveRequest,
        tt: &SolverTt,
        stop: &AtomicBool,
        progress: &(dyn Fn(&SolveProgress) + Sync),
    ) -> Result<SolveReport, SolvingError> {
        let mut report = SolveReport::unproven(pn::LOSS, pn::WIN, true);
        if let Some(outcome) = self.outcome() {
            let value = self.game.final_value(&outcome, self.to_move()).signum() * pn::WIN;
            (report.lower, report.upper) = (value, value);
            return Ok(report);
        }
        let table = tt.pn()?;
        if self.game.repetition_limit().is_some() && self.repeats_history() {
            log::warn!(
                "solve: this position has occurred before since the last capture or other \
                 irreversible move; the value proven is that of the position as if it had not"
            );
        }
        let started = Instant::now();
        let mut legal = Vec::new();
        self.game.legal_moves(&self.position, &mut legal);
        let wanted = self.wanted_moves(request, &legal)?;
        let keeper = Keeper::open(request, self.proof_identity(), legal.len(), table)
            .map_err(|e| SolvingError::ProofFile(e.into()))?;
        report.resumed = keeper.resumed.then_some(keeper.earlier);
        let checkpoint = |table: &PnTt, nodes: u64| keeper.checkpoint(table, nodes);
        // The proof-number solver saves between two of its nodes, on its own thread.
        let checkpoints = request.save.as_ref().map(|_| Checkpoints {
            every: request.checkpoint,
            save: &checkpoint,
            done: AtomicU64::new(0),
        });
        let settings = self.request_settings(request);
        let (moves, nodes, tbhits) = self.prove_moves(&legal, &wanted, &keeper, |mv| {
            pn::solve_moves(
                &self.game,
                &self.position,
                &[mv],
                table,
                &settings,
                stop,
                checkpoints.as_ref(),
            )
        });
        (report.moves, report.nodes, report.tbhits) = (moves, nodes, tbhits);
        if request.part.is_none() {
            let on_progress = |p: &Progress| {
                keeper.proven_bounds(p.lower, p.upper);
                progress(&self.progress_text(p, &legal, (nodes, tbhits), started));
            };
            let solution = pn::solve_restricted(
                &self.game,
                &self.position,
                &[],
                table,
                &settings,
                stop,
                &on_progress,
                checkpoints.as_ref(),
            );
            self.take_solution(&mut report, &keeper, &solution);
        }
        report.elapsed = started.elapsed();
        if request.save.is_some() {
            report.saved = Some(
                keeper
                    .save(table, report.nodes)
                    .map_err(|e| SolvingError::ProofFile(e.into())),
            );
        }
        Ok(report)
    }
}
