//! The exact solver in play: the `solve` API (its request and reports as move texts), `go
//! solve`, and the first try at a proof for a position a few points beyond the tables.

use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Mutex, atomic::AtomicBool};
use std::time::{Duration, Instant};

use super::go::SearchSummary;
use super::info::{Info, InfoLine, ScoreBound, Work};
use super::{GameSession, Session};
use crate::game::Game;
use crate::search::limits::{Limits, TimeBudget};
use crate::search::{SearchControl, SearchSettings, score};
use crate::solve::{self, SolveSettings, table::SolveTable};

/// How far beyond the tables (in points at stake) a `go` first tries the exact solver.
const NEAR_TABLES: i32 = 12;
/// The solver's node budget in a depth-limited search (reproducible, unlike a time budget).
const SOLVE_NODES: u64 = 200_000;

/// What `solve` asks for.
#[derive(Debug, Clone, Copy)]
pub struct SolveRequest {
    pub threads: usize,
    /// Also the exact value of every legal move.
    pub all_moves: bool,
    /// Follow perfect play to the end of the game.
    pub pv: bool,
}

/// Bounds proven so far while solving, as text for the protocol and the command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SolveProgress {
    /// `lower ≤ value ≤ upper`, half-points from the mover's view.
    pub lower: i32,
    pub upper: i32,
    pub best: Option<String>,
    pub nodes: u64,
    pub tbhits: u64,
    pub elapsed: Duration,
}

/// What `solve` found.
#[derive(Debug, Clone)]
pub struct SolveReport {
    /// `lower == upper`: the exact value (half-points from the mover's view).
    pub lower: i32,
    pub upper: i32,
    pub best: Option<String>,
    pub pv: Vec<String>,
    /// With `all_moves`: every legal move and its exact value (`None` if stopped first).
    pub moves: Vec<(String, Option<i32>)>,
    pub nodes: u64,
    pub tbhits: u64,
    pub elapsed: Duration,
}

impl SolveReport {
    pub fn value(&self) -> Option<i32> {
        (self.lower == self.upper).then_some(self.lower)
    }
}

impl Work {
    /// What the solver has done so far, with the fill of its table.
    fn solver(tt: &SolveTable, nodes: u64, tbhits: u64, time: Duration) -> Work {
        Work {
            nodes,
            time,
            hashfull: Some(tt.hashfull()),
            tbhits,
        }
    }
}

impl<G: Game> GameSession<G> {
    /// [`Session::solve`].
    pub(super) fn solve_position(
        &self,
        request: &SolveRequest,
        tt: &SolveTable,
        stop: &AtomicBool,
        progress: &(dyn Fn(&SolveProgress) + Sync),
    ) -> Result<SolveReport, String> {
        solve::supported(&self.game)?;
        if let Some(outcome) = self.outcome() {
            let value = self.game.final_value(&outcome, self.to_move());
            return Ok(SolveReport {
                lower: value,
                upper: value,
                best: None,
                pv: Vec::new(),
                moves: Vec::new(),
                nodes: 0,
                tbhits: 0,
                elapsed: Duration::ZERO,
            });
        }
        let mut legal = Vec::new();
        self.game.legal_moves(&self.position, &mut legal);
        let settings = SolveSettings {
            threads: request.threads,
            tables: self.tables.as_deref(),
            guess: None,
            want_pv: request.pv,
            node_limit: None,
            deadline: None,
        };
        let mut moves = Vec::new();
        if request.all_moves {
            for (mv, value) in solve::solve_moves(&self.game, &self.position, tt, &settings, stop) {
                moves.push((self.game.format_move(&self.position, mv), value));
            }
        }
        let report = |p: &solve::Progress| {
            progress(&SolveProgress {
                lower: p.lower,
                upper: p.upper,
                best: p
                    .best
                    .and_then(|i| legal.get(i))
                    .map(|&mv| self.game.format_move(&self.position, mv)),
                nodes: p.nodes,
                tbhits: p.tbhits,
                elapsed: p.elapsed,
            })
        };
        let solution = solve::solve(&self.game, &self.position, tt, &settings, stop, &report);
        Ok(SolveReport {
            lower: solution.lower,
            upper: solution.upper,
            best: solution
                .best
                .map(|mv| self.game.format_move(&self.position, mv)),
            pv: self.pv_strings(&solution.pv),
            moves,
            nodes: solution.nodes,
            tbhits: solution.tbhits,
            elapsed: solution.elapsed,
        })
    }

    /// Tables loaded and the position a few points beyond them: try to prove its value with
    /// part of the search's budget (a third of its time, a quarter of its nodes, or a fixed
    /// node count for a depth-limited search, so that depth searches stay reproducible).
    pub(super) fn try_solve(
        &self,
        limits: &Limits,
        settings: &SearchSettings,
        solve_tt: Option<&SolveTable>,
        control: &SearchControl,
        info: &mut dyn FnMut(&Info),
    ) -> Option<SearchSummary> {
        let tables = self.tables.as_deref()?;
        let solve_tt = solve_tt?;
        solve::supported(&self.game).ok()?;
        let stake = self.game.value_at_stake(&self.position)?;
        if stake > 2 * (tables.max_layer() as i32 + NEAR_TABLES) {
            return None;
        }
        let player = self.game.to_move(&self.position);
        let budget = TimeBudget::new(limits, player, settings.move_overhead);
        let open_ended = limits.is_open_ended() || limits.is_unlimited_for(player);
        let deadline = budget
            .hard
            .filter(|_| !open_ended)
            .map(|hard| Instant::now() + hard / 3);
        let node_limit = if open_ended || deadline.is_some() {
            limits.nodes.map(|n| n / 4)
        } else {
            Some(limits.nodes.map_or(SOLVE_NODES, |n| n / 4))
        };
        let settings = SolveSettings {
            threads: settings.threads,
            tables: Some(tables),
            guess: None,
            want_pv: true,
            node_limit,
            deadline,
        };
        let solution = solve::solve(
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
        Some(SearchSummary {
            bestmove: self.game.format_move(&self.position, best),
            ponder: pv.get(1).map(|&reply| self.reply_text(best, reply)),
            nodes: solution.nodes,
            depth: pv.len() as u32,
            score: score::exact(solution.lower),
            proven: true,
        })
    }

    /// `go solve`: prove the value, reporting every improvement of the bounds.
    pub(super) fn go_solve(
        &self,
        settings: &SearchSettings,
        solve_tt: Option<&SolveTable>,
        control: &SearchControl,
        info: &mut dyn FnMut(&Info),
    ) -> Result<SearchSummary, String> {
        solve::supported(&self.game)?;
        let Some(solve_tt) = solve_tt else {
            return Err("go solve: no solver table (internal)".to_string());
        };
        let mut legal = Vec::new();
        self.game.legal_moves(&self.position, &mut legal);
        let solve_settings = SolveSettings {
            threads: settings.threads,
            tables: self.tables.as_deref(),
            guess: None,
            want_pv: true,
            node_limit: None,
            deadline: None,
        };
        // Progress comes from the solver's threads: collect it, print it from here.
        let (tx, rx) = mpsc::channel::<solve::Progress>();
        let tx = Mutex::new(tx);
        let report = move |p: &solve::Progress| {
            let _ = tx.lock().map(|tx| tx.send(*p));
        };
        let solution = std::thread::scope(|scope| {
            let handle = scope.spawn(|| {
                solve::solve(
                    &self.game,
                    &self.position,
                    solve_tt,
                    &solve_settings,
                    control.stop_flag(),
                    &report,
                )
            });
            let mut last: Option<solve::Progress> = None;
            loop {
                match rx.recv_timeout(Duration::from_millis(20)) {
                    Ok(p) => {
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
                        if !p.is_exact() {
                            if last.is_none_or(|l| p.lower > l.lower) {
                                info(&line(p.lower, ScoreBound::Lower));
                            }
                            if last.is_none_or(|l| p.upper < l.upper) {
                                info(&line(p.upper, ScoreBound::Upper));
                            }
                        }
                        last = Some(p);
                    }
                    Err(RecvTimeoutError::Timeout) if !handle.is_finished() => {}
                    Err(_) => break,
                }
                if handle.is_finished() {
                    break;
                }
            }
            handle.join()
        });
        let solution = solution.map_err(|_| "internal error: the solver failed".to_string())?;
        let best = solution.best.or_else(|| legal.first().copied());
        let exact = solution.lower == solution.upper;
        let pv = if exact && !solution.pv.is_empty() {
            solution.pv.clone()
        } else {
            best.into_iter().collect()
        };
        let bound = if exact {
            ScoreBound::Exact
        } else {
            ScoreBound::Lower
        };
        let work = Work::solver(solve_tt, solution.nodes, solution.tbhits, solution.elapsed);
        info(&Info::Line(self.value_line(
            solution.lower,
            bound,
            &pv,
            work,
        )));
        let Some(best) = best else {
            return Err("no legal move in a position that is not over".to_string());
        };
        Ok(SearchSummary {
            bestmove: self.game.format_move(&self.position, best),
            ponder: None,
            nodes: solution.nodes,
            depth: pv.len() as u32,
            score: score::exact(solution.lower),
            proven: exact,
        })
    }
}
