//! A game in play, behind one object-safe trait, so the protocol can switch games at run time
//! (`newgame afrika`) while everything below it stays generic and monomorphised.
//!
//! [`GameSession`] holds the rules (a [`Game`] value), the position the game started from,
//! the moves played and the repetition history; it turns text into moves and results into
//! text. It knows no game's rules.

use std::fmt::Write;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use thiserror::Error;

use crate::game::{BenchSpec, EvalTerm, Game, MoveError, Outcome, Player, PositionError};
use crate::perft;
use crate::search::limits::{Limits, TimeBudget};
use crate::search::score;
use crate::search::tt::TranspositionTable;
use crate::search::{self, Report, SearchControl, SearchSettings};
use crate::solve::{self, SolveSettings, table::SolveTable};
use crate::tablebase::build::{self, BuildError, BuildOptions, LayerReport};
use crate::tablebase::{TableError, Tables};

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PositionCommandError {
    #[error("bad position string: {0}")]
    BadPosition(#[from] PositionError),
    #[error("move {index} '{text}' rejected: {error}")]
    BadMove {
        /// 1-based index in the move list.
        index: usize,
        text: String,
        error: MoveError,
    },
    #[error("move {index} '{text}' rejected: the game is already over ({reason})")]
    AfterEnd {
        index: usize,
        text: String,
        reason: &'static str,
    },
}

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

/// How far beyond the tables (in points at stake) a `go` first tries the exact solver.
const NEAR_TABLES: i32 = 12;
/// The solver's node budget in a depth-limited search (reproducible, unlike a time budget).
const SOLVE_NODES: u64 = 200_000;

/// The fields of one `info` line.
struct InfoLine {
    depth: u32,
    seldepth: usize,
    multipv: usize,
    /// `cp 120` or `mate 3`.
    score: String,
    /// `""`, `" lowerbound"` or `" upperbound"`.
    bound: &'static str,
    nodes: u64,
    ms: u64,
    hashfull: Option<u32>,
    tbhits: u64,
    pv: String,
}

fn info_line(l: &InfoLine) -> String {
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

/// A game being played, whatever the game.
pub trait Session: Send {
    /// The game and its non-default options, as after `newgame`.
    fn spec(&self) -> String;

    fn clone_box(&self) -> Box<dyn Session>;

    /// Start from `fen` (or the start position) and play `moves`. On error nothing changes.
    fn set_position(
        &mut self,
        fen: Option<&str>,
        moves: &[&str],
    ) -> Result<(), PositionCommandError>;

    /// The current position string.
    fn fen(&self) -> String;

    /// The start position string of this game.
    fn start_fen(&self) -> String;

    /// The `d` picture: board, `Fen:` and `Score:` lines and the state of the game.
    fn display(&self) -> String;

    /// Legal moves of the current position, as move texts.
    fn legal_moves(&self) -> Vec<String>;

    fn to_move(&self) -> Player;

    /// How the game ended, including by the repetition rule; `None` while it goes on.
    fn outcome(&self) -> Option<Outcome>;

    /// Perft split by root move: `each` receives (move text, count) as each root move is
    /// counted. False when `stop` ended it early (the moves reported are complete).
    fn divide(&self, depth: u32, stop: &AtomicBool, each: &mut dyn FnMut(&str, u64)) -> bool;

    /// What `bench` searches for this game.
    fn bench(&self) -> BenchSpec;

    /// The evaluation's terms (weights), for tuning.
    fn eval_terms(&self) -> &'static [EvalTerm];

    /// The evaluation's features of the current position, if it is quiet and not over.
    fn eval_sample(&self) -> Option<Vec<i32>>;

    /// Open this game's endgame tables under `dir` (`Ok(None)`: none there).
    fn open_tables(&self, dir: &Path) -> Result<Option<Tables>, TableError>;

    /// Use these tables from now on (in searches, solves and `d`).
    fn set_tables(&mut self, tables: Option<Arc<Tables>>);

    fn tables(&self) -> Option<&Arc<Tables>>;

    /// The rules string of this game's tables (`None`: it has none).
    fn table_rules(&self) -> Option<String>;

    /// Build this game's endgame tables (see [`crate::tablebase::build`]).
    fn build_tables(
        &self,
        options: &BuildOptions,
        stop: &AtomicBool,
        report: &mut dyn FnMut(&LayerReport),
    ) -> Result<Vec<LayerReport>, BuildError>;

    /// The table value of the current position (half-points, the mover's final margin),
    /// and its layer, when a loaded table covers it.
    fn table_value(&self) -> Option<(i32, u32)>;

    /// Prove the exact value of the current position. `progress` hears of every improvement
    /// of the bounds; `stop` ends the solve with what is proven.
    fn solve(
        &self,
        request: &SolveRequest,
        tt: &SolveTable,
        stop: &AtomicBool,
        progress: &(dyn Fn(&SolveProgress) + Sync),
    ) -> Result<SolveReport, String>;

    /// Search the current position. `info` receives each finished `info …` line. A game
    /// that is over answers at once with `0000`. Errors concern `limits.searchmoves`.
    /// With endgame tables loaded (see [`Session::set_tables`]): a covered position is
    /// answered at once from the tables, and one a few points beyond them is first given to
    /// the exact solver (with `solve_tt`) for part of its time; `go solve`
    /// (`limits.solve`) proves the value whatever it takes.
    fn search(
        &self,
        limits: &Limits,
        settings: &SearchSettings,
        tt: &TranspositionTable,
        solve_tt: Option<&SolveTable>,
        control: &SearchControl,
        info: &mut dyn FnMut(String),
    ) -> Result<SearchSummary, String>;
}

#[derive(Clone)]
pub struct GameSession<G: Game> {
    game: G,
    start: G::Position,
    position: G::Position,
    /// Repetition keys of every position from `start` to `position`.
    history: Vec<u64>,
    tables: Option<Arc<Tables>>,
}

impl<G: Game> GameSession<G> {
    pub fn new(game: G) -> GameSession<G> {
        let start = game.start_position();
        let history = vec![game.repetition_key(&start)];
        GameSession {
            position: start.clone(),
            start,
            history,
            game,
            tables: None,
        }
    }

    pub fn game(&self) -> &G {
        &self.game
    }

    pub fn position(&self) -> &G::Position {
        &self.position
    }

    fn outcome_of(&self, pos: &G::Position, history: &[u64]) -> Option<Outcome> {
        if let Some(outcome) = self.game.outcome(pos) {
            return Some(outcome);
        }
        let limit = self.game.repetition_limit()?;
        let (&key, earlier) = history.split_last()?;
        let window = self.game.reversible_plies(pos).min(earlier.len());
        let seen = earlier[earlier.len() - window..]
            .iter()
            .filter(|&&k| k == key)
            .count();
        (seen + 1 >= limit as usize).then(|| self.game.repetition_outcome(pos))
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

    /// The exact value of `pos` for its mover (half-points) from the tables or the end of
    /// the game, if known.
    fn known_value(&self, pos: &G::Position) -> Option<i32> {
        if let Some(outcome) = self.game.outcome(pos) {
            return Some(self.game.final_value(&outcome, self.game.to_move(pos)));
        }
        let rest = self.tables.as_ref()?.probe(&self.game, pos)?;
        Some(self.game.banked_value(pos) + rest)
    }

    /// A covered position: every move's exact value from the tables, the best line followed
    /// to the end of the game. `None` when the tables do not cover it.
    fn table_answer(
        &self,
        searchmoves: &[G::Move],
        settings: &SearchSettings,
        info: &mut dyn FnMut(String),
    ) -> Option<SearchSummary> {
        let started = Instant::now();
        self.known_value(&self.position)?;
        let mover = self.game.to_move(&self.position);
        let mut legal = Vec::new();
        self.game.legal_moves(&self.position, &mut legal);
        let mut probes = 1u64;
        let mut valued: Vec<(G::Move, i32)> = Vec::new();
        for &mv in &legal {
            if !searchmoves.is_empty() && !searchmoves.contains(&mv) {
                continue;
            }
            let mut child = self.position.clone();
            self.game.play(&mut child, mv);
            let value = self.known_value(&child)?;
            probes += 1;
            let same = self.game.to_move(&child) == mover;
            valued.push((mv, if same { value } else { -value }));
        }
        // Best first; ties keep the generation order.
        valued.sort_by_key(|&(_, v)| std::cmp::Reverse(v));
        let lines = settings.multipv.clamp(1, valued.len().max(1));
        for (k, &(mv, value)) in valued.iter().take(lines).enumerate() {
            let mut pv = vec![mv];
            let mut pos = self.position.clone();
            self.game.play(&mut pos, mv);
            probes += self.follow_tables(&mut pos, &mut pv);
            info(info_line(&InfoLine {
                depth: pv.len() as u32,
                seldepth: pv.len(),
                multipv: k + 1,
                score: format!("cp {}", value * 50),
                bound: "",
                nodes: probes,
                ms: started.elapsed().as_millis() as u64,
                hashfull: None,
                tbhits: probes,
                pv: self.pv_text(&pv),
            }));
        }
        let &(best, value) = valued.first()?;
        Some(SearchSummary {
            bestmove: self.game.format_move(&self.position, best),
            ponder: None,
            nodes: probes,
            depth: 1,
            score: score::exact(value),
            proven: true,
        })
    }

    /// Play best moves by the tables from `pos` to the end of the game, adding them to `pv`;
    /// the number of probes.
    fn follow_tables(&self, pos: &mut G::Position, pv: &mut Vec<G::Move>) -> u64 {
        let mut probes = 0;
        let mut moves = Vec::new();
        while self.game.outcome(pos).is_none() && pv.len() < 1000 {
            let mover = self.game.to_move(pos);
            self.game.legal_moves(pos, &mut moves);
            let mut best: Option<(G::Move, i32)> = None;
            for &mv in &moves {
                let mut child = pos.clone();
                self.game.play(&mut child, mv);
                let Some(v) = self.known_value(&child) else {
                    return probes;
                };
                probes += 1;
                let v = if self.game.to_move(&child) == mover {
                    v
                } else {
                    -v
                };
                if best.is_none_or(|(_, b)| v > b) {
                    best = Some((mv, v));
                }
            }
            let Some((mv, _)) = best else { break };
            self.game.play(pos, mv);
            pv.push(mv);
        }
        probes
    }

    /// Tables loaded and the position a few points beyond them: try to prove its value with
    /// part of the search's budget (a third of its time, a quarter of its nodes, or a fixed
    /// node count for a depth-limited search, so that depth searches stay reproducible).
    fn try_solve(
        &self,
        limits: &Limits,
        settings: &SearchSettings,
        solve_tt: Option<&SolveTable>,
        control: &SearchControl,
        info: &mut dyn FnMut(String),
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
        info(info_line(&InfoLine {
            depth: pv.len() as u32,
            seldepth: pv.len(),
            multipv: 1,
            score: format!("cp {}", solution.lower * 50),
            bound: "",
            nodes: solution.nodes,
            ms: solution.elapsed.as_millis() as u64,
            hashfull: Some(solve_tt.hashfull()),
            tbhits: solution.tbhits,
            pv: self.pv_text(&pv),
        }));
        let ponder = pv.get(1).map(|&reply| {
            let mut after = self.position.clone();
            self.game.play(&mut after, best);
            self.game.format_move(&after, reply)
        });
        Some(SearchSummary {
            bestmove: self.game.format_move(&self.position, best),
            ponder,
            nodes: solution.nodes,
            depth: pv.len() as u32,
            score: score::exact(solution.lower),
            proven: true,
        })
    }

    /// `go solve`: prove the value, reporting every improvement of the bounds.
    fn go_solve(
        &self,
        settings: &SearchSettings,
        solve_tt: Option<&SolveTable>,
        control: &SearchControl,
        info: &mut dyn FnMut(String),
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
        let (tx, rx) = std::sync::mpsc::channel::<solve::Progress>();
        let tx = std::sync::Mutex::new(tx);
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
                match rx.recv_timeout(std::time::Duration::from_millis(20)) {
                    Ok(p) => {
                        let best = p.best.and_then(|i| legal.get(i)).copied();
                        let pv = best.map(|mv| self.pv_text(&[mv])).unwrap_or_default();
                        let line = |value: i32, bound: &'static str| {
                            info_line(&InfoLine {
                                depth: 0,
                                seldepth: 0,
                                multipv: 1,
                                score: format!("cp {}", value * 50),
                                bound,
                                nodes: p.nodes,
                                ms: p.elapsed.as_millis() as u64,
                                hashfull: Some(solve_tt.hashfull()),
                                tbhits: p.tbhits,
                                pv: pv.clone(),
                            })
                        };
                        if !p.is_exact() {
                            if last.is_none_or(|l| p.lower > l.lower) {
                                info(line(p.lower, " lowerbound"));
                            }
                            if last.is_none_or(|l| p.upper < l.upper) {
                                info(line(p.upper, " upperbound"));
                            }
                        }
                        last = Some(p);
                    }
                    Err(std::sync::mpsc::RecvTimeoutError::Timeout) if !handle.is_finished() => {}
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
        let (value, bound) = if exact {
            (solution.lower, "")
        } else {
            (solution.lower, " lowerbound")
        };
        info(info_line(&InfoLine {
            depth: pv.len() as u32,
            seldepth: pv.len(),
            multipv: 1,
            score: format!("cp {}", value * 50),
            bound,
            nodes: solution.nodes,
            ms: solution.elapsed.as_millis() as u64,
            hashfull: Some(solve_tt.hashfull()),
            tbhits: solution.tbhits,
            pv: self.pv_text(&pv),
        }));
        let Some(best) = best else {
            return Err("no legal move in a position that is not over".to_string());
        };
        Ok(SearchSummary {
            bestmove: self.game.format_move(&self.position, best),
            ponder: None,
            nodes: solution.nodes,
            depth: pv.len() as u32,
            score: score::exact(value),
            proven: exact,
        })
    }

    /// Move texts of a line played from the current position.
    fn pv_strings(&self, pv: &[G::Move]) -> Vec<String> {
        let mut pos = self.position.clone();
        pv.iter()
            .map(|&mv| {
                let text = self.game.format_move(&pos, mv);
                self.game.play(&mut pos, mv);
                text
            })
            .collect()
    }

    fn pv_text(&self, pv: &[G::Move]) -> String {
        let mut pos = self.position.clone();
        let mut text = String::new();
        for &mv in pv {
            if !text.is_empty() {
                text.push(' ');
            }
            text.push_str(&self.game.format_move(&pos, mv));
            self.game.play(&mut pos, mv);
        }
        text
    }
}

impl<G: Game> Session for GameSession<G> {
    fn spec(&self) -> String {
        self.game.spec()
    }

    fn clone_box(&self) -> Box<dyn Session> {
        Box::new(self.clone())
    }

    fn set_position(
        &mut self,
        fen: Option<&str>,
        moves: &[&str],
    ) -> Result<(), PositionCommandError> {
        let start = match fen {
            Some(text) => self.game.parse_position(text)?,
            None => self.game.start_position(),
        };
        let mut position = start.clone();
        let mut history = vec![self.game.repetition_key(&position)];
        for (i, &text) in moves.iter().enumerate() {
            if let Some(outcome) = self.outcome_of(&position, &history) {
                return Err(PositionCommandError::AfterEnd {
                    index: i + 1,
                    text: text.to_string(),
                    reason: outcome.reason,
                });
            }
            let mv = self.game.parse_move(&position, text).map_err(|error| {
                PositionCommandError::BadMove {
                    index: i + 1,
                    text: text.to_string(),
                    error,
                }
            })?;
            self.game.play(&mut position, mv);
            history.push(self.game.repetition_key(&position));
        }
        self.start = start;
        self.position = position;
        self.history = history;
        Ok(())
    }

    fn fen(&self) -> String {
        self.game.format_position(&self.position)
    }

    fn start_fen(&self) -> String {
        self.game.format_position(&self.game.start_position())
    }

    fn display(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "Game: {}", self.game.spec());
        for line in self.game.render(&self.position).lines() {
            let _ = writeln!(out, "{}", line.trim_end());
        }
        let _ = writeln!(out, "Fen: {}", self.fen());
        let outcome = self.outcome();
        let scores = match &outcome {
            Some(o) => o.scores,
            None => self.game.scores(&self.position),
        };
        let _ = writeln!(out, "Score: p1 {} p2 {}", scores[0], scores[1]);
        if let Some((value, layer)) = self.table_value() {
            let _ = writeln!(
                out,
                "Tablebase: {} (the final margin for the side to move with perfect play; \
                 {layer} in play)",
                crate::game::value_text(value)
            );
        }
        match outcome {
            Some(o) => {
                let _ = write!(out, "Result: {} ({})", o.result.as_str(), o.reason);
            }
            None => {
                let _ = write!(out, "To move: {}", self.game.to_move(&self.position).name());
            }
        }
        out
    }

    fn legal_moves(&self) -> Vec<String> {
        if self.outcome().is_some() {
            return Vec::new();
        }
        let mut moves = Vec::new();
        self.game.legal_moves(&self.position, &mut moves);
        moves
            .iter()
            .map(|&mv| self.game.format_move(&self.position, mv))
            .collect()
    }

    fn to_move(&self) -> Player {
        self.game.to_move(&self.position)
    }

    fn outcome(&self) -> Option<Outcome> {
        self.outcome_of(&self.position, &self.history)
    }

    fn divide(&self, depth: u32, stop: &AtomicBool, each: &mut dyn FnMut(&str, u64)) -> bool {
        perft::divide(&self.game, &self.position, depth, stop, |mv, n| {
            each(&self.game.format_move(&self.position, mv), n)
        })
    }

    fn bench(&self) -> BenchSpec {
        self.game.bench()
    }

    fn eval_terms(&self) -> &'static [EvalTerm] {
        self.game.eval_terms()
    }

    fn eval_sample(&self) -> Option<Vec<i32>> {
        if self.outcome().is_some() || !self.game.is_quiet(&self.position) {
            return None;
        }
        let mut features = vec![0; self.game.eval_terms().len()];
        self.game.eval_features(&self.position, &mut features);
        Some(features)
    }

    fn open_tables(&self, dir: &Path) -> Result<Option<Tables>, TableError> {
        Tables::open(&self.game, dir)
    }

    fn set_tables(&mut self, tables: Option<Arc<Tables>>) {
        self.tables = tables;
    }

    fn tables(&self) -> Option<&Arc<Tables>> {
        self.tables.as_ref()
    }

    fn table_rules(&self) -> Option<String> {
        self.game.table_rules()
    }

    fn build_tables(
        &self,
        options: &BuildOptions,
        stop: &AtomicBool,
        report: &mut dyn FnMut(&LayerReport),
    ) -> Result<Vec<LayerReport>, BuildError> {
        build::build(&self.game, options, stop, report)
    }

    fn table_value(&self) -> Option<(i32, u32)> {
        let tables = self.tables.as_ref()?;
        if self.outcome().is_some() {
            return None;
        }
        let rest = tables.probe(&self.game, &self.position)?;
        let (layer, _) = self.game.table_index(&self.position, tables.max_layer())?;
        Some((self.game.banked_value(&self.position) + rest, layer))
    }

    fn solve(
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

    fn search(
        &self,
        limits: &Limits,
        settings: &SearchSettings,
        tt: &TranspositionTable,
        solve_tt: Option<&SolveTable>,
        control: &SearchControl,
        info: &mut dyn FnMut(String),
    ) -> Result<SearchSummary, String> {
        let mut searchmoves = Vec::new();
        for text in &limits.searchmoves {
            let mv = self
                .game
                .parse_move(&self.position, text)
                .map_err(|e| format!("searchmoves: {e}"))?;
            searchmoves.push(mv);
        }
        if let Some(outcome) = self.outcome() {
            // The final margin, from the side to move, in the usual hundredths of a point.
            let margin = outcome.margin(self.game.to_move(&self.position));
            let score = format!("cp {}", margin.halves() * 50);
            info(format!(
                "info depth 0 score {score} nodes 0 time 0 string game over: {} ({})",
                outcome.result.as_str(),
                outcome.reason
            ));
            return Ok(SearchSummary {
                bestmove: "0000".to_string(),
                ponder: None,
                nodes: 0,
                depth: 0,
                score: 0,
                proven: true,
            });
        }
        if limits.solve {
            return self.go_solve(settings, solve_tt, control, info);
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
            let ms = started.elapsed().as_millis() as u64;
            info(info_line(&InfoLine {
                depth: r.depth,
                seldepth: r.seldepth,
                multipv: r.multipv,
                score: self.score_text(r),
                bound: "",
                nodes: r.nodes,
                ms,
                hashfull: Some(r.hashfull),
                tbhits: r.tbhits,
                pv: self.pv_text(&r.pv),
            }));
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
            return Err("no legal move in a position that is not over".to_string());
        };
        let ponder = result.ponder.map(|reply| {
            let mut after = self.position.clone();
            self.game.play(&mut after, best);
            self.game.format_move(&after, reply)
        });
        Ok(SearchSummary {
            bestmove: self.game.format_move(&self.position, best),
            ponder,
            nodes: result.nodes,
            depth: result.depth,
            score: result.score,
            proven: result.proven,
        })
    }
}
