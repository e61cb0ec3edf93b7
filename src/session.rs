//! A game in play, behind one object-safe trait, so the protocol can switch games at run time
//! (`newgame afrika`) while everything below it stays generic and monomorphised.
//!
//! [`GameSession`] holds the rules (a [`Game`] value), the position the game started from,
//! the moves played and the repetition history; it turns text into moves and results into
//! text. It knows no game's rules.

use std::fmt::Write;
use std::sync::atomic::AtomicBool;

use thiserror::Error;

use crate::game::{BenchSpec, Game, MoveError, Outcome, Player, PositionError};
use crate::perft;
use crate::search::limits::Limits;
use crate::search::score;
use crate::search::tt::TranspositionTable;
use crate::search::{self, Report, SearchControl, SearchSettings};

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

    /// Search the current position. `info` receives each finished `info …` line. A game
    /// that is over answers at once with `0000`. Errors concern `limits.searchmoves`.
    fn search(
        &self,
        limits: &Limits,
        settings: &SearchSettings,
        tt: &TranspositionTable,
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

    /// `score cp N` or `score mate N` (N = own moves to the end; negative when losing).
    fn score_text(&self, report: &Report<G::Move>) -> String {
        let s = report.score;
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

    fn search(
        &self,
        limits: &Limits,
        settings: &SearchSettings,
        tt: &TranspositionTable,
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
            let me = self.game.to_move(&self.position).index();
            let margin = outcome.scores[me] - outcome.scores[1 - me];
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
        let mut report = |r: &Report<G::Move>| {
            let ms = r.time.as_millis() as u64;
            let nps = r.nodes * 1000 / ms.max(1);
            info(format!(
                "info depth {} seldepth {} multipv {} score {} nodes {} nps {} hashfull {} time {} pv {}",
                r.depth,
                r.seldepth,
                r.multipv,
                self.score_text(r),
                r.nodes,
                nps,
                r.hashfull,
                ms,
                self.pv_text(&r.pv)
            ));
        };
        let result = search::search(
            &self.game,
            &self.position,
            &self.history,
            &searchmoves,
            limits,
            settings,
            tt,
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
