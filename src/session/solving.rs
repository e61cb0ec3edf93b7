//! The exact solver in play: the `solve` API (its request and reports as move texts); `go
//! solve` and the solver's first try inside `go` are in `go_solve.rs`.

use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use thiserror::Error;

use super::go_info::Work;
use super::keep::{Keeper, SharedKeepError};
use super::solve_request::SolveRequest;
use super::{GameSession, Session};
use crate::game::Game;
use crate::solver::save::{ProofIdentity, ProofWork};
use crate::solver::{self, SolveSettings, SolverError, tt::SolverTt};

/// The bounds of a report when nothing is proven of the root (a part of a split proof
/// proves only its moves): beyond any value, shown as `unknown`.
const UNKNOWN_BOUND: i32 = 1 << 24;

/// Why a `solve` request could not run, or its proof file not be kept.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SolvingError {
    #[error(transparent)]
    Solver(#[from] SolverError),
    /// A move of the request's part that the position does not have.
    #[error("'{0}' is not a legal move of this position")]
    IllegalPartMove(String),
    /// The proof file could not be resumed or saved.
    #[error(transparent)]
    ProofFile(SharedKeepError),
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
    /// The game is won, drawn or lost ([`ExactValues::win_draw_loss`](crate::game::ExactValues::win_draw_loss)): the values are +2 (win), 0
    /// (draw) and −2 (loss), best said in words.
    pub win_draw_loss: bool,
    /// The earlier work of the proof file it resumed (with the root's bounds it had proven).
    pub resumed: Option<ProofWork>,
    /// The proof file saved at the end: the table buckets written, or why it failed.
    pub saved: Option<Result<u64, SolvingError>>,
}

impl SolveReport {
    /// A report of nothing proven yet: the value within `lower..=upper`.
    pub(super) fn unproven(lower: i32, upper: i32, win_draw_loss: bool) -> SolveReport {
        SolveReport {
            lower,
            upper,
            best: None,
            pv: Vec::new(),
            moves: Vec::new(),
            nodes: 0,
            tbhits: 0,
            elapsed: Duration::ZERO,
            win_draw_loss,
            resumed: None,
            saved: None,
        }
    }

    pub fn value(&self) -> Option<i32> {
        (self.lower == self.upper).then_some(self.lower)
    }
}

impl Work {
    /// What the solver has done so far, with the fill of its table.
    pub(super) fn solver(tt: &SolverTt, nodes: u64, tbhits: u64, time: Duration) -> Work {
        Work {
            nodes,
            time,
            hashfull: Some(tt.hashfull()),
            tbhits,
        }
    }
}

impl<G: Game> GameSession<G> {
    /// A solver's progress as text: its best move (an index in `legal`) named, the work
    /// done before it (`earlier`: nodes, tbhits) added, the time since `started`.
    pub(super) fn progress_text(
        &self,
        p: &solver::Progress,
        legal: &[G::Move],
        earlier: (u64, u64),
        started: Instant,
    ) -> SolveProgress {
        SolveProgress {
            lower: p.lower,
            upper: p.upper,
            best: p
                .best
                .and_then(|i| legal.get(i))
                .map(|&mv| self.game.format_move(&self.position, mv)),
            nodes: earlier.0 + p.nodes,
            tbhits: earlier.1 + p.tbhits,
            elapsed: started.elapsed(),
        }
    }

    /// The solver's settings for a `solve` request: its threads, line and deadline, the
    /// loaded tables.
    pub(super) fn request_settings(&self, request: &SolveRequest) -> SolveSettings<'_> {
        SolveSettings {
            threads: request.threads,
            tables: self.tables.as_deref(),
            guess: None,
            want_pv: request.pv,
            node_limit: request.node_limit,
            deadline: request.deadline,
        }
    }

    /// What a proof file of the current position is a proof of.
    pub(super) fn proof_identity(&self) -> ProofIdentity {
        ProofIdentity {
            spec: self.game.spec(),
            root: self.game.format_position(&self.position),
            root_hash: self.game.hash(&self.position),
        }
    }

    /// The indices in `legal` of the root moves whose values `request` asks for: the
    /// part's, every move with `all_moves`, none else. A part's move must be legal.
    pub(super) fn wanted_moves(
        &self,
        request: &SolveRequest,
        legal: &[G::Move],
    ) -> Result<Vec<usize>, SolvingError> {
        let Some(part) = &request.part else {
            return Ok(if request.all_moves {
                (0..legal.len()).collect()
            } else {
                Vec::new()
            });
        };
        let mut wanted = Vec::with_capacity(part.len());
        for text in part {
            let index = self
                .game
                .parse_move(&self.position, text)
                .ok()
                .and_then(|mv| legal.iter().position(|&m| m == mv))
                .ok_or_else(|| SolvingError::IllegalPartMove(text.clone()))?;
            if !wanted.contains(&index) {
                wanted.push(index);
            }
        }
        wanted.sort_unstable();
        Ok(wanted)
    }

    /// The values of the root moves `wanted` (indices in `legal`), each proven by
    /// `solve_one` unless the kept proof knows it already; each new value is kept.
    /// Returns the moves as text with their values, and the nodes and tbhits spent.
    pub(super) fn prove_moves(
        &self,
        legal: &[G::Move],
        wanted: &[usize],
        keeper: &Keeper,
        mut solve_one: impl FnMut(G::Move) -> solver::MoveValues<G::Move>,
    ) -> (Vec<(String, Option<i32>)>, u64, u64) {
        let (mut nodes, mut tbhits) = (0, 0);
        let mut moves = Vec::with_capacity(wanted.len());
        for &index in wanted {
            let mv = legal[index];
            let value = match keeper.known_move(index) {
                Some(value) => Some(value),
                None => {
                    let values = solve_one(mv);
                    nodes += values.nodes;
                    tbhits += values.tbhits;
                    keeper.count(nodes);
                    let value = values.moves.first().and_then(|&(_, v)| v);
                    if let Some(v) = value {
                        keeper.proven_move(index, legal.len(), v);
                    }
                    value
                }
            };
            moves.push((self.game.format_move(&self.position, mv), value));
        }
        (moves, nodes, tbhits)
    }

    /// The root's solution into `report` (its work added to the moves'), its bounds kept.
    pub(super) fn take_solution(
        &self,
        report: &mut SolveReport,
        keeper: &Keeper,
        solution: &solver::Solution<G::Move>,
    ) {
        keeper.proven_bounds(solution.lower, solution.upper);
        report.lower = solution.lower;
        report.upper = solution.upper;
        report.best = solution
            .best
            .map(|mv| self.game.format_move(&self.position, mv));
        report.pv = self.pv_strings(&solution.pv);
        report.nodes += solution.nodes;
        report.tbhits += solution.tbhits;
    }

    /// [`Session::solve`].
    pub(super) fn solve_position(
        &self,
        request: &SolveRequest,
        tt: &SolverTt,
        stop: &AtomicBool,
        progress: &(dyn Fn(&SolveProgress) + Sync),
    ) -> Result<SolveReport, SolvingError> {
        self.check_tables_at_root();
        if self.game.win_draw_loss() {
            return self.solve_win_draw_loss(request, tt, stop, progress);
        }
        solver::supported(&self.game)?;
        let mut report = SolveReport::unproven(-UNKNOWN_BOUND, UNKNOWN_BOUND, false);
        if let Some(outcome) = self.outcome() {
            let value = self.game.final_value(&outcome, self.to_move());
            (report.lower, report.upper) = (value, value);
            return Ok(report);
        }
        let started = Instant::now();
        let mut legal = Vec::new();
        self.game.legal_moves(&self.position, &mut legal);
        let wanted = self.wanted_moves(request, &legal)?;
        let keeper = Keeper::open(request, self.proof_identity(), legal.len(), tt)
            .map_err(|e| SolvingError::ProofFile(e.into()))?;
        report.resumed = keeper.resumed.then_some(keeper.earlier);
        let settings = self.request_settings(request);
        keeper.with_checkpoints(tt, stop, || {
            // The moves' proofs are work done too: counted in the report's nodes and time.
            let (moves, nodes, tbhits) = self.prove_moves(&legal, &wanted, &keeper, |mv| {
                solver::solve_moves(&self.game, &self.position, &[mv], tt, &settings, stop)
            });
            (report.moves, report.nodes, report.tbhits) = (moves, nodes, tbhits);
            if request.part.is_some() {
                return;
            }
            let on_progress = |p: &solver::Progress| {
                keeper.count(nodes + p.nodes);
                keeper.proven_bounds(p.lower, p.upper);
                progress(&self.progress_text(p, &legal, (nodes, tbhits), started));
            };
            let solution = solver::solve(
                &self.game,
                &self.position,
                tt,
                &settings,
                stop,
                &on_progress,
            );
            self.take_solution(&mut report, &keeper, &solution);
        });
        report.elapsed = started.elapsed();
        if request.save.is_some() {
            report.saved = Some(
                keeper
                    .save(tt, report.nodes)
                    .map_err(|e| SolvingError::ProofFile(e.into())),
            );
        }
        Ok(report)
    }
}
