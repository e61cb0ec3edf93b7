//! `solve` for games that are won, drawn or lost ([`Game::win_draw_loss`]): the
//! proof-number solver, with its proof file (resume a long proof, save it now and then).

use std::sync::atomic::{AtomicBool, AtomicU64};
use std::time::{Duration, Instant};

use super::solve::{SolveProgress, SolveReport, SolveRequest};
use super::{GameSession, Session};
use crate::game::Game;
use crate::solve::pn::file::{self, ProofIdentity, ProofWork};
use crate::solve::pn::table::PnTable;
use crate::solve::pn::{self, Checkpoints};
use crate::solve::{Progress, table::SolveTable};

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
        tt: &SolveTable,
        stop: &AtomicBool,
        progress: &(dyn Fn(&SolveProgress) + Sync),
    ) -> Result<SolveReport, String> {
        let mut report = SolveReport {
            lower: pn::LOSS,
            upper: pn::WIN,
            best: None,
            pv: Vec::new(),
            moves: Vec::new(),
            nodes: 0,
            tbhits: 0,
            elapsed: Duration::ZERO,
            win_draw_loss: true,
            resumed: None,
            saved: None,
        };
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
        let identity = ProofIdentity {
            spec: self.game.spec(),
            root: self.game.format_position(&self.position),
            root_hash: self.game.hash(&self.position),
        };
        if let Some(path) = &request.proof_file {
            report.resumed = file::load(path, &identity, table).map_err(|e| e.to_string())?;
            if let Some(work) = report.resumed {
                log::info!(
                    "proof file '{}': resumed a proof of {} nodes, {} s",
                    path.display(),
                    work.nodes,
                    work.millis / 1000
                );
            }
        }
        let earlier = report.resumed.unwrap_or_default();
        let save = |table: &PnTable, nodes: u64| -> Result<u64, String> {
            let Some(path) = &request.proof_file else {
                return Ok(0);
            };
            let work = ProofWork {
                nodes: earlier.nodes + nodes,
                millis: earlier.millis + started.elapsed().as_millis() as u64,
            };
            let saving = Instant::now();
            let buckets = file::save(path, &identity, work, table).map_err(|e| e.to_string())?;
            log::info!(
                "proof file '{}': saved {buckets} buckets in {} ms",
                path.display(),
                saving.elapsed().as_millis()
            );
            Ok(buckets)
        };
        let checkpoint = |table: &PnTable, nodes: u64| {
            if let Err(e) = save(table, nodes) {
                log::warn!("checkpoint: {e}");
            }
        };
        let checkpoints = request.proof_file.as_ref().map(|_| Checkpoints {
            every: request.checkpoint,
            save: &checkpoint,
            done: AtomicU64::new(0),
        });
        let settings = self.request_settings(request);
        let mut legal = Vec::new();
        self.game.legal_moves(&self.position, &mut legal);
        if request.all_moves {
            let values = pn::solve_moves(
                &self.game,
                &self.position,
                table,
                &settings,
                stop,
                checkpoints.as_ref(),
            );
            for (mv, value) in values.moves {
                report
                    .moves
                    .push((self.game.format_move(&self.position, mv), value));
            }
            report.nodes += values.nodes;
            report.tbhits += values.tbhits;
        }
        let (nodes, tbhits) = (report.nodes, report.tbhits);
        let on_progress = |p: &Progress| {
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
        report.lower = solution.lower;
        report.upper = solution.upper;
        report.best = solution
            .best
            .map(|mv| self.game.format_move(&self.position, mv));
        report.pv = self.pv_strings(&solution.pv);
        report.nodes += solution.nodes;
        report.tbhits += solution.tbhits;
        report.elapsed = started.elapsed();
        if request.proof_file.is_some() {
            report.saved = Some(save(table, report.nodes));
        }
        Ok(report)
    }
}
