//! The exact solver inside `go`: `go solve` (a proof within the `go` limits, the game's
//! history kept), and the first try at a proof of a position a few points beyond the tables.

use std::sync::Mutex;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant};

use thiserror::Error;

use super::go::SearchSummary;
use super::go_info::{Info, InfoLine, InfoScore, ScoreBound, Work};
use super::{GameSession, Session};
use crate::game::Game;
use crate::search::limits::{Limits, TimeBudget};
use crate::search::tt::TranspositionTable;
use crate::search::{self, Report, SearchControl, SearchSettings, score};
use crate::solver::{self, SolveSettings, SolverError, tt::SolverTt};

/// How far beyond the tables (in points at stake) a `go` first tries the exact solver.
const NEAR_TABLES: i32 = 12;
/// The solver's node budget in a depth-limited search (reproducible, unlike a time budget).
const SOLVE_NODES: u64 = 200_000;

/// Why `go solve` has no answer: a game the solver cannot prove, or a fault of this program.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum GoSolveError {
    #[error(transparent)]
    Solver(#[from] SolverError),
    #[error("go solve: no solver table (internal)")]
    NoTable,
    /// The solver's thread panicked.
    #[error("internal error: the solver failed")]
    SolverFailed,
    #[error("no legal move in a position that is not over")]
    NoLegalMove,
}

impl<G: Game> GameSession<G> {
    /// Does a `go` here first try to prove the position ([`GameSession::try_solve`])? With
    /// tables loaded: a few points beyond them; without: up to the game's
    /// [`ExactValues::proof_stake_without_tables`](crate::game::ExactValues::proof_stake_without_tables).
    pub(super) fn within_proof_reach(&self) -> bool {
        // A game in play has a history, which a proof of the position alone ignores: games
        // with a repetition rule are solved only when asked (`go solve`).
        if self.game.repetition_limit().is_some() || solver::supported(&self.game).is_err() {
            return false;
        }
        let reach = match self.tables.as_deref() {
            Some(tables) => Some(2 * (tables.max_layer() as i32 + NEAR_TABLES)),
            None => self.game.proof_stake_without_tables(),
        };
        match (reach, self.game.value_at_stake(&self.position)) {
            (Some(reach), Some(stake)) => stake <= reach,
            _ => false,
        }
    }

    /// A position within the solver's reach ([`GameSession::within_proof_reach`]): try to prove
    /// its value with part of the search's budget (a third of its time, a quarter of its
    /// nodes, or a fixed node count for a search without a deadline: depth searches stay
    /// reproducible, and `infinite` and `ponder` searches start soon).
    pub(super) fn try_solve(
        &self,
        limits: &Limits,
        settings: &SearchSettings,
        solve_tt: Option<&SolverTt>,
        control: &SearchControl,
        info: &mut dyn FnMut(&Info),
    ) -> Option<SearchSummary> {
        let solve_tt = solve_tt?;
        if !self.within_proof_reach() {
            return None;
        }
        let player = self.game.to_move(&self.position);
        let budget = TimeBudget::new(limits, player, settings.move_overhead);
        let open_ended = limits.is_open_ended() || limits.is_unlimited_for(player);
        let deadline = budget
            .hard
            .filter(|_| !open_ended)
            .map(|hard| Instant::now() + hard / 3);
        // With no deadline (a depth search, `infinite`, `ponder`: a ponder hit does not
        // reach a running proof) a fixed node count bounds the proof, which may otherwise
        // take minutes where the search would answer.
        let node_limit = if deadline.is_some() {
            limits.nodes.map(|n| n / 4)
        } else {
            Some(limits.nodes.map_or(SOLVE_NODES, |n| n / 4))
        };
        let settings = SolveSettings {
            threads: settings.threads,
            tables: self.tables.as_deref(),
            guess: None,
            want_pv: true,
            node_limit,
            deadline,
        };
        let solution = solver::solve(
            &self.game,
            &self.position,
            solve_tt,
            &settings,
            control.stop_flag(),
            &|_| {},
        );
        if solution.lower != solution.upper {
            return None;
        }
        let best = solution.best?;
        let pv = if solution.pv.is_empty() {
            vec![best]
        } else {
            solution.pv.clone()
        };
        let work = Work::solver(solve_tt, solution.nodes, solution.tbhits, solution.elapsed);
        info(&Info::Line(self.value_line(
            solution.lower,
            ScoreBound::Exact,
            &pv,
            work,
        )));
        Some(self.proven_summary(solution.lower, best, &pv, solution.nodes))
    }

    /// The answer of a proof that ended with the exact `value`: play `best`, the line `pv`.
    fn proven_summary(
        &self,
        value: i32,
        best: G::Move,
        pv: &[G::Move],
        nodes: u64,
    ) -> SearchSummary {
        SearchSummary {
            bestmove: self.game.format_move(&self.position, best),
            ponder: pv.get(1).map(|&reply| self.reply_text(best, reply)),
            nodes,
            depth: pv.len() as u32,
            score: score::exact(value),
            proven: true,
        }
    }

    /// `go solve`: prove the value, reporting every improvement of the bounds, within the
    /// `go` limits (protocol.md, "Endgame tables and `go solve`"): `nodes`, `movetime` and
    /// the clocks (the time the search would plan for this move, [`TimeBudget`]) end the
    /// proof early; `infinite`, `ponder` and no limit run until proven or `stop`. With
    /// `searchmoves` only those root moves are proven (the value is the best of them). Ended
    /// early, it answers the best bound proven with the move that proved it, or when no
    /// bound is known, a move and score from a one-ply search.
    ///
    /// The proof knows no game history. A root move that ends the game by the history's rule
    /// (a third occurrence) is valued as that end, not proven: the proof covers the other
    /// moves, and the end is played when it is worth more than they are.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn go_solve(
        &self,
        limits: &Limits,
        searchmoves: &[G::Move],
        settings: &SearchSettings,
        tt: &TranspositionTable,
        solve_tt: Option<&SolverTt>,
        control: &SearchControl,
        info: &mut dyn FnMut(&Info),
    ) -> Result<SearchSummary, GoSolveError> {
        let started = Instant::now();
        let mut candidates = Vec::new();
        self.game.legal_moves(&self.position, &mut candidates);
        if !searchmoves.is_empty() {
            candidates.retain(|mv| searchmoves.contains(mv));
        }
        let mut ending: Option<(G::Move, i32)> = None;
        let mut rest = Vec::new();
        for &mv in &candidates {
            let mut child = self.position.clone();
            self.game.play(&mut child, mv);
            match self.history_end_value(&self.position, &child, &self.history) {
                Some(value) if ending.is_none_or(|(_, v)| value > v) => ending = Some((mv, value)),
                Some(_) => {}
                None => rest.push(mv),
            }
        }
        let Some((end_move, end_value)) = ending else {
            return self.go_solve_proof(limits, searchmoves, settings, tt, solve_tt, control, info);
        };
        let proven = if rest.is_empty() {
            None
        } else {
            Some(self.go_solve_proof(limits, &rest, settings, tt, solve_tt, control, info)?)
        };
        match proven {
            Some(summary) if summary.score >= score::exact(end_value) => Ok(summary),
            other => {
                let nodes = other.as_ref().map_or(0, |s| s.nodes);
                let work = Work {
                    nodes,
                    time: started.elapsed(),
                    hashfull: None,
                    tbhits: 0,
                };
                info(&Info::Line(self.value_line(
                    end_value,
                    ScoreBound::Exact,
                    &[end_move],
                    work,
                )));
                Ok(SearchSummary {
                    // Worth more than the others only if they were proven (or there are none).
                    proven: other.as_ref().is_none_or(|s| s.proven),
                    ..self.proven_summary(end_value, end_move, &[end_move], nodes)
                })
            }
        }
    }

    /// [`Self::go_solve`] over `searchmoves` (all when empty), history aside.
    #[allow(clippy::too_many_arguments)]
    fn go_solve_proof(
        &self,
        limits: &Limits,
        searchmoves: &[G::Move],
        settings: &SearchSettings,
        tt: &TranspositionTable,
        solve_tt: Option<&SolverTt>,
        control: &SearchControl,
        info: &mut dyn FnMut(&Info),
    ) -> Result<SearchSummary, GoSolveError> {
        let started = Instant::now();
        solver::supported(&self.game)?;
        let Some(solve_tt) = solve_tt else {
            return Err(GoSolveError::NoTable);
        };
        let mut legal = Vec::new();
        self.game.legal_moves(&self.position, &mut legal);
        let budget = TimeBudget::new(limits, self.to_move(), settings.move_overhead);
        // A proof has no iterations to stop between: the planned time of the move is its
        // limit (`movetime`: all of it, less the overhead).
        let deadline = budget
            .soft
            .or(budget.hard)
            .filter(|_| !limits.is_open_ended())
            // A moment beyond what `Instant` holds is no limit.
            .and_then(|t| started.checked_add(t));
        let solve_settings = SolveSettings {
            threads: settings.threads,
            tables: self.tables.as_deref(),
            guess: None,
            want_pv: true,
            node_limit: limits.nodes,
            deadline,
        };
        // Progress comes from the solver's threads: collect it, print it from here.
        let (tx, rx) = mpsc::channel::<solver::Progress>();
        let tx = Mutex::new(Some(tx));
        let report = |p: &solver::Progress| {
            if let Ok(tx) = tx.lock()
                && let Some(tx) = tx.as_ref()
            {
                let _ = tx.send(*p);
            }
        };
        let run = || {
            let solution = solver::solve_restricted(
                &self.game,
                &self.position,
                searchmoves,
                solve_tt,
                &solve_settings,
                control.stop_flag(),
                &report,
            );
            // The channel ends with the proof: the loop below learns it at once (it waited
            // for its next 20 ms tick, and no `go solve` answered in less).
            if let Ok(mut tx) = tx.lock() {
                tx.take();
            }
            solution
        };
        // A won, drawn or lost game's value always lies between a loss and a win: no news.
        let mut last: Option<solver::Progress> =
            self.game.win_draw_loss().then_some(solver::Progress {
                lower: solver::pn::LOSS,
                upper: solver::pn::WIN,
                best: None,
                nodes: 0,
                tbhits: 0,
                elapsed: Duration::ZERO,
            });
        let mut show = |p: solver::Progress| {
            let best = p.best.and_then(|i| legal.get(i)).copied();
            // A bound is not yet a line: its depth is 0, its line the best move.
            let line = |value: i32, bound: ScoreBound| {
                let work = Work::solver(solve_tt, p.nodes, p.tbhits, p.elapsed);
                Info::Line(InfoLine {
                    depth: 0,
                    seldepth: 0,
                    ..self.value_line(value, bound, best.as_slice(), work)
                })
            };
            // The solver's "nothing proven" stand-ins are never shown.
            if !p.is_exact() {
                if solver::is_known(p.lower) && last.is_none_or(|l| p.lower > l.lower) {
                    info(&line(p.lower, ScoreBound::Lower));
                }
                if solver::is_known(p.upper) && last.is_none_or(|l| p.upper < l.upper) {
                    info(&line(p.upper, ScoreBound::Upper));
                }
            }
            last = Some(p);
        };
        let solution = std::thread::scope(|scope| {
            let spawned = std::thread::Builder::new()
                .name("solve".to_string())
                .spawn_scoped(scope, run);
            let handle = match spawned {
                Ok(handle) => handle,
                Err(e) => {
                    // No thread for the solver: solve here, and tell the bounds afterwards.
                    log::warn!(
                        "go solve: cannot start the solver's thread ({e}); solving on this one"
                    );
                    let solution = run();
                    while let Ok(p) = rx.try_recv() {
                        show(p);
                    }
                    return Ok(solution);
                }
            };
            loop {
                match rx.recv_timeout(Duration::from_millis(20)) {
                    Ok(p) => show(p),
                    Err(RecvTimeoutError::Timeout) if !handle.is_finished() => {}
                    Err(_) => break,
                }
                if handle.is_finished() {
                    while let Ok(p) = rx.try_recv() {
                        show(p);
                    }
                    break;
                }
            }
            handle.join()
        });
        let solution = solution.map_err(|_| GoSolveError::SolverFailed)?;
        // The proof-number solver runs one thread by design (it says so itself).
        if solution.threads < settings.threads && !self.game.win_draw_loss() {
            log::warn!(
                "go solve: {} of {} threads could be started",
                solution.threads,
                settings.threads
            );
        }
        let work = Work::solver(solve_tt, solution.nodes, solution.tbhits, started.elapsed());
        if solution.lower == solution.upper {
            let pv = if solution.pv.is_empty() {
                solution.best.into_iter().collect()
            } else {
                solution.pv.clone()
            };
            info(&Info::Line(self.value_line(
                solution.lower,
                ScoreBound::Exact,
                &pv,
                work,
            )));
            let best = pv
                .first()
                .copied()
                .or_else(|| (searchmoves.first().or(legal.first())).copied());
            let Some(best) = best else {
                return Err(GoSolveError::NoLegalMove);
            };
            return Ok(self.proven_summary(solution.lower, best, &pv, solution.nodes));
        }
        if let Some(best) = solution.best.filter(|_| solver::is_known(solution.lower)) {
            // Ended early with a proven lower bound: the move that proved it.
            info(&Info::Line(InfoLine {
                depth: 0,
                seldepth: 0,
                ..self.value_line(solution.lower, ScoreBound::Lower, &[best], work)
            }));
            return Ok(SearchSummary {
                bestmove: self.game.format_move(&self.position, best),
                ponder: None,
                nodes: solution.nodes,
                depth: 0,
                score: score::exact(solution.lower),
                proven: false,
            });
        }
        // Ended before any bound with a move: a move to play, from a one-ply search (its
        // first iteration always completes, and costs next to nothing).
        if solver::is_known(solution.upper) {
            info(&Info::Line(InfoLine {
                depth: 0,
                seldepth: 0,
                ..self.value_line(solution.upper, ScoreBound::Upper, &[], work)
            }));
        }
        let quick = SearchSettings {
            threads: 1,
            multipv: 1,
            ..*settings
        };
        let mut last_line = None;
        let result = search::search(
            &self.game,
            &self.position,
            &self.history,
            searchmoves,
            &Limits::depth(1),
            &quick,
            tt,
            self.tables.as_deref(),
            &SearchControl::default(),
            &mut |r: &Report<G::Move>| last_line = Some(self.report_line(r, started.elapsed())),
        );
        let Some(best) = result.best else {
            return Err(GoSolveError::NoLegalMove);
        };
        // The first iteration always completes and reports; should it not, the move alone.
        let line = last_line.unwrap_or_else(|| InfoLine {
            depth: 1,
            seldepth: 1,
            multipv: 1,
            score: InfoScore::Cp(0),
            bound: ScoreBound::Exact,
            nodes: 0,
            time: started.elapsed(),
            hashfull: None,
            tbhits: 0,
            pv: self.pv_strings(&[best]),
        });
        info(&Info::Line(InfoLine {
            nodes: solution.nodes + line.nodes,
            ..line
        }));
        Ok(SearchSummary {
            bestmove: self.game.format_move(&self.position, best),
            ponder: None,
            nodes: solution.nodes + result.nodes,
            depth: result.depth,
            score: result.score,
            proven: false,
        })
    }
}
