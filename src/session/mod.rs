//! A game in play, behind one object-safe trait, so the protocol can switch games at run time
//! (`newgame afrika`) while everything below it stays generic and monomorphised.
//!
//! [`GameSession`] holds the rules (a [`Game`] value), the position the game started from,
//! the moves played and the repetition history; it turns text into moves and results into
//! text. It knows no game's rules. Its answers are kept by concern: the game and its
//! position (`state`), what answers a `go` (`go`), the endgame tables (`tables`), the exact
//! solver (`solve`) and what a `go` reports while it runs (`info`, values the protocol
//! writes out).

mod go;
mod go_info;
mod go_solve;
mod keep;
mod proof;
mod solve_request;
mod solving;
mod state;
mod table_moves;

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use thiserror::Error;

use crate::cli::CancelToken;
use crate::game::{BenchSpec, EvalTerm, Game, MoveError, Outcome, Player};
use crate::nnue::network::NetworkError;
use crate::perft;
use crate::search::limits::Limits;
use crate::search::tt::TranspositionTable;
use crate::search::{SearchControl, SearchSettings};
use crate::solver::frontier::{self, Frontier, FrontierError};
use crate::solver::tt::SolverTt;
use crate::tables::build::{self, BuildError, BuildOptions, LayerJob, LayerReport};
use crate::tables::format::Header;
use crate::tables::probe_bench::ProbeBench;
use crate::tables::{TableError, Tables};

pub use go::SearchSummary;
pub use go_info::{Info, InfoLine, InfoScore, ScoreBound};
pub use solve_request::SolveRequest;
pub use solving::{SolveProgress, SolveReport, SolvingError};
pub use state::{GameSession, PositionCommandError};
pub use table_moves::TableValue;

/// Why a session could not answer a `go` ([`Session::search`]).
#[derive(Debug, Error)]
pub enum SessionError {
    /// A move of `searchmoves` that is no legal move here.
    #[error("searchmoves: {0}")]
    SearchMove(#[from] MoveError),
    /// The search found no move in a position that is not over: a game's rules disagree
    /// with themselves.
    #[error("no legal move in a position that is not over")]
    NoLegalMove,
    /// `go solve` refused or failed, in the exact solver's own words.
    #[error("{0}")]
    Solve(String),
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

    /// Go on from the current position with `moves`, keeping the history: the same as
    /// `set_position` with the moves so far and these, in time proportional to these alone
    /// (a game walked move by move stays linear in its length). On error nothing changes;
    /// the index in the error counts from the first of `moves`.
    fn play_moves(&mut self, moves: &[&str]) -> Result<(), PositionCommandError>;

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

    /// The current position in the game's compact binary form (see
    /// [`Notation::pack_position`](crate::game::Notation::pack_position)).
    fn packed_position(&self) -> Vec<u8>;

    /// The position string of a packed position (hostile bytes: an error when they are no
    /// position of this game).
    fn unpack_to_fen(&self, bytes: &[u8]) -> Result<String, crate::game::PositionError>;

    /// Nothing forcing pending in the current position (see [`Evaluation::is_quiet`](crate::game::Evaluation::is_quiet)).
    fn is_quiet(&self) -> bool;

    /// The features a view of the game's network has (0: none); see
    /// [`NetworkFeatures::network_inputs`](crate::game::NetworkFeatures::network_inputs).
    fn network_inputs(&self) -> usize;

    /// What a network file must be made for ([`NetworkFeatures::network_id`](crate::game::NetworkFeatures::network_id)).
    fn network_id(&self) -> String;

    /// The network features of a packed position, from P1's view and from P2's (cleared
    /// first), and its output bucket among `buckets`.
    fn packed_features(
        &self,
        bytes: &[u8],
        views: &mut [Vec<u16>; 2],
        buckets: usize,
    ) -> Result<usize, crate::game::PositionError>;

    /// Evaluate with this network file's bytes from now on, or with the hand-written
    /// evaluation (`None`); see [`NetworkFeatures::set_network`](crate::game::NetworkFeatures::set_network).
    fn set_network(&mut self, bytes: Option<&[u8]>) -> Result<(), NetworkError>;

    /// The game's own network, if it has one ([`NetworkFeatures::default_network`](crate::game::NetworkFeatures::default_network)).
    fn default_network(&self) -> Option<&'static [u8]>;

    /// The evaluation's features of the current position, if it is quiet and not over,
    /// scaled by [`Evaluation::eval_scale`](crate::game::Evaluation::eval_scale) (so that the evaluation is their
    /// weighted sum).
    fn eval_sample(&self) -> Option<Vec<f64>>;

    /// Open this game's endgame tables under `dir` for use (see
    /// [`crate::tables::open_for_use`]: `Ok(None)` when the game has none at all,
    /// [`TableError::Absent`] when `dir` holds none of them).
    fn open_tables(&self, dir: &Path) -> Result<Option<Arc<Tables>>, TableError>;

    /// Use these tables from now on (in searches, solves and `d`).
    fn set_tables(&mut self, tables: Option<Arc<Tables>>);

    fn tables(&self) -> Option<&Arc<Tables>>;

    /// A `go` in the current position first tries to prove it with the exact solver (near
    /// loaded tables, or a position the game's solver proves quickly without them): the
    /// search then wants a solver table.
    fn tries_proof(&self) -> bool;

    /// The rules string of this game's tables (`None`: it has none).
    fn table_rules(&self) -> Option<String>;

    /// Is the game won, drawn or lost, not scored ([`ExactValues::win_draw_loss`](crate::game::ExactValues::win_draw_loss))?
    fn win_draw_loss(&self) -> bool;

    /// Whether `value`, the value of the legal move `mv` for the mover as `solve` reports
    /// it, is one a game can end with after that move: a win, draw or loss
    /// ([`crate::solver::pn::WIN`] …) in a won-or-lost game; in a scored one, a margin within
    /// what the position after it has at stake ([`ExactValues::value_range`](crate::game::ExactValues::value_range) around its banked
    /// value) and on its grid ([`ExactValues::value_step`](crate::game::ExactValues::value_step)). False for a move that is not legal.
    /// For numbers read from files (part files, caches).
    fn possible_move_value(&self, mv: &str, value: i32) -> bool;

    /// Whether `value`, the exact value `solve` would give the position `position` (for its
    /// mover), is one a game from there can end with (see [`Session::possible_move_value`]).
    /// False for a position string this game cannot read. For numbers read from files.
    fn possible_value(&self, position: &str, value: i32) -> bool;

    /// The distinct positions `depth` plies from the current one, game ends before that
    /// included, in a fixed order ([`crate::solver::frontier`]): what a proof split by
    /// `--frontier` proves. Refused for a game the solver cannot prove, a position that is
    /// over, a depth out of range or a frontier too large.
    fn frontier(&self, depth: u32, stop: &AtomicBool) -> Result<Frontier, FrontierError>;

    /// The value of every legal move (as `solve` reports it with `all_moves`), minimaxed
    /// from the exact values of the frontier `depth` plies down: `value_of` gives a frontier
    /// position's (for its own mover) from its string.
    fn frontier_move_values(
        &self,
        depth: u32,
        value_of: &dyn Fn(&str) -> Option<i32>,
    ) -> Result<Vec<(String, i32)>, FrontierError>;

    /// The most seeds (stones) in play whose every position tables up to layer `top` hold
    /// ([`crate::tables::in_play_covered`]).
    fn table_in_play(&self, top: u32) -> Option<u32>;

    /// Stones (seeds) on the board now ([`Evaluation::stones_in_play`](crate::game::Evaluation::stones_in_play)).
    fn stones_in_play(&self) -> Option<u32>;

    /// Check a table file of this game's rules through and through (see
    /// [`crate::tables::check_file`]).
    fn check_table_file(&self, path: &Path) -> Result<Header, TableError>;

    /// Build this game's endgame tables (see [`crate::tables::build`]).
    fn build_tables(
        &self,
        options: &BuildOptions,
        stop: &CancelToken,
        report: &mut dyn FnMut(&LayerReport),
    ) -> Result<Vec<LayerReport>, BuildError>;

    /// The layers of this game's tables up to `in_play`, in build order (see
    /// [`crate::tables::build::layer_jobs`]).
    fn table_layer_jobs(&self, in_play: u32) -> Result<Vec<LayerJob>, BuildError>;

    /// The table value of the current position (half-points, the mover's final margin),
    /// when a loaded table covers it.
    fn table_value(&self) -> Option<TableValue>;

    /// Time probes of the loaded tables over a seeded sample of `positions` positions
    /// (see [`crate::tables::probe_bench`]).
    fn bench_table_probes(&self, positions: usize, seed: u64) -> Option<ProbeBench>;

    /// Prove the exact value of the current position. `progress` hears of every improvement
    /// of the bounds; `stop` ends the solve with what is proven.
    fn solve(
        &self,
        request: &SolveRequest,
        tt: &SolverTt,
        stop: &AtomicBool,
        progress: &(dyn Fn(&SolveProgress) + Sync),
    ) -> Result<SolveReport, SolvingError>;

    /// Search the current position. `info` receives the content of each `info` line as it
    /// is ready ([`Info`]; the protocol writes it out). A game that is over answers at once
    /// with `0000`. Errors concern `limits.searchmoves`.
    /// With endgame tables loaded (see [`Session::set_tables`]): a covered position is
    /// answered at once from the tables, and one a few points beyond them is first given to
    /// the exact solver (with `solve_tt`) for part of its time; `go solve`
    /// (`limits.solve`) proves the value whatever it takes.
    fn search(
        &self,
        limits: &Limits,
        settings: &SearchSettings,
        tt: &TranspositionTable,
        solve_tt: Option<&SolverTt>,
        control: &SearchControl,
        info: &mut dyn FnMut(&Info),
    ) -> Result<SearchSummary, SessionError>;
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
        self.replay(fen, moves)
    }

    fn play_moves(&mut self, moves: &[&str]) -> Result<(), PositionCommandError> {
        self.extend(moves)
    }

    fn fen(&self) -> String {
        self.game.format_position(&self.position)
    }

    fn start_fen(&self) -> String {
        self.game.format_position(&self.game.start_position())
    }

    fn display(&self) -> String {
        self.picture()
    }

    fn legal_moves(&self) -> Vec<String> {
        self.legal_move_texts()
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

    fn eval_sample(&self) -> Option<Vec<f64>> {
        self.quiet_features()
    }

    fn open_tables(&self, dir: &Path) -> Result<Option<Arc<Tables>>, TableError> {
        crate::tables::open_for_use(&self.game, dir)
    }

    fn set_tables(&mut self, tables: Option<Arc<Tables>>) {
        self.tables = tables;
    }

    fn tables(&self) -> Option<&Arc<Tables>> {
        self.tables.as_ref()
    }

    fn tries_proof(&self) -> bool {
        self.within_proof_reach()
    }

    fn table_rules(&self) -> Option<String> {
        self.game.table_rules()
    }

    fn win_draw_loss(&self) -> bool {
        self.game.win_draw_loss()
    }

    fn table_in_play(&self, top: u32) -> Option<u32> {
        crate::tables::in_play_covered(&self.game, top)
    }

    fn possible_move_value(&self, mv: &str, value: i32) -> bool {
        let Ok(mv) = self.game.parse_move(&self.position, mv) else {
            return false;
        };
        let mut child = self.position.clone();
        self.game.play(&mut child, mv);
        // The child's value, for its own mover (a won-or-lost game's values are symmetric).
        let value = if self.game.to_move(&child) == self.to_move() {
            i64::from(value)
        } else {
            -i64::from(value)
        };
        frontier::possible_value(&self.game, &child, value)
    }

    fn possible_value(&self, position: &str, value: i32) -> bool {
        self.game
            .parse_position(position)
            .is_ok_and(|pos| frontier::possible_value(&self.game, &pos, i64::from(value)))
    }

    fn frontier(&self, depth: u32, stop: &AtomicBool) -> Result<Frontier, FrontierError> {
        frontier::frontier(&self.game, &self.position, depth, stop)
    }

    fn frontier_move_values(
        &self,
        depth: u32,
        value_of: &dyn Fn(&str) -> Option<i32>,
    ) -> Result<Vec<(String, i32)>, FrontierError> {
        let values = frontier::move_values(&self.game, &self.position, depth, value_of)?;
        Ok(values
            .into_iter()
            .map(|(mv, v)| (self.game.format_move(&self.position, mv), v))
            .collect())
    }

    fn stones_in_play(&self) -> Option<u32> {
        self.game.stones_in_play(&self.position)
    }

    fn packed_position(&self) -> Vec<u8> {
        let mut out = Vec::new();
        self.game.pack_position(&self.position, &mut out);
        out
    }

    fn unpack_to_fen(&self, bytes: &[u8]) -> Result<String, crate::game::PositionError> {
        let pos = self.game.unpack_position(bytes)?;
        Ok(self.game.format_position(&pos))
    }

    fn is_quiet(&self) -> bool {
        self.game.is_quiet(&self.position)
    }

    fn network_inputs(&self) -> usize {
        self.game.network_inputs()
    }

    fn network_id(&self) -> String {
        self.game.network_id()
    }

    fn packed_features(
        &self,
        bytes: &[u8],
        views: &mut [Vec<u16>; 2],
        buckets: usize,
    ) -> Result<usize, crate::game::PositionError> {
        let pos = self.game.unpack_position(bytes)?;
        for (view, out) in [Player::P1, Player::P2].into_iter().zip(views.iter_mut()) {
            out.clear();
            self.game.network_features(&pos, view, out);
        }
        Ok(self.game.network_bucket(&pos, buckets))
    }

    fn set_network(&mut self, bytes: Option<&[u8]>) -> Result<(), NetworkError> {
        self.game.set_network(bytes)
    }

    fn default_network(&self) -> Option<&'static [u8]> {
        self.game.default_network()
    }

    fn check_table_file(&self, path: &Path) -> Result<Header, TableError> {
        crate::tables::check_file(&self.game, path)
    }

    fn build_tables(
        &self,
        options: &BuildOptions,
        stop: &CancelToken,
        report: &mut dyn FnMut(&LayerReport),
    ) -> Result<Vec<LayerReport>, BuildError> {
        build::build(&self.game, options, stop, report)
    }

    fn table_layer_jobs(&self, in_play: u32) -> Result<Vec<LayerJob>, BuildError> {
        build::layer_jobs(&self.game, in_play)
    }

    fn table_value(&self) -> Option<TableValue> {
        self.tablebase_value()
    }

    fn bench_table_probes(&self, positions: usize, seed: u64) -> Option<ProbeBench> {
        let tables = self.tables.as_ref()?;
        crate::tables::probe_bench::bench(&self.game, tables, positions, seed)
    }

    fn solve(
        &self,
        request: &SolveRequest,
        tt: &SolverTt,
        stop: &AtomicBool,
        progress: &(dyn Fn(&SolveProgress) + Sync),
    ) -> Result<SolveReport, SolvingError> {
        self.solve_position(request, tt, stop, progress)
    }

    fn search(
        &self,
        limits: &Limits,
        settings: &SearchSettings,
        tt: &TranspositionTable,
        solve_tt: Option<&SolverTt>,
        control: &SearchControl,
        info: &mut dyn FnMut(&Info),
    ) -> Result<SearchSummary, SessionError> {
        self.go(limits, settings, tt, solve_tt, control, info)
    }
}
