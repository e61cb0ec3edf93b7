//! The game in play: its rules, the position, the moves that led to it and the repetition
//! history; moves and positions to and from text, and the `d` picture.

use std::fmt::Write;
use std::sync::Arc;

use thiserror::Error;

use super::Session;
use crate::game::{Game, MoveError, Outcome, PositionError};
use crate::tables::Tables;

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

#[derive(Clone)]
pub struct GameSession<G: Game> {
    pub(super) game: G,
    pub(super) start: G::Position,
    pub(super) position: G::Position,
    /// Repetition keys of every position from `start` to `position`.
    pub(super) history: Vec<u64>,
    pub(super) tables: Option<Arc<Tables>>,
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

    pub(super) fn outcome_of(&self, pos: &G::Position, history: &[u64]) -> Option<Outcome> {
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

    /// When the move from `pos` to `child`, after the repetition keys `history` (up to `pos`),
    /// ends the game by the history's rule (a third occurrence) though `child` itself is not
    /// over: that end's value for the mover of `pos`.
    pub(super) fn history_end_value(
        &self,
        pos: &G::Position,
        child: &G::Position,
        history: &[u64],
    ) -> Option<i32> {
        if self.game.outcome(child).is_some() {
            return None;
        }
        let mut after = history.to_vec();
        after.push(self.game.repetition_key(child));
        let outcome = self.outcome_of(child, &after)?;
        let value = self.game.final_value(&outcome, self.game.to_move(child));
        Some(if self.game.to_move(child) == self.game.to_move(pos) {
            value
        } else {
            -value
        })
    }

    /// [`super::Session::set_position`].
    pub(super) fn replay(
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

    /// [`super::Session::play_moves`]: the moves are played on a copy of the position and
    /// their keys pushed onto the history, which is cut back on error.
    pub(super) fn extend(&mut self, moves: &[&str]) -> Result<(), PositionCommandError> {
        let kept = self.history.len();
        let mut position = self.position.clone();
        for (i, &text) in moves.iter().enumerate() {
            let fail = |error: PositionCommandError, history: &mut Vec<u64>| {
                history.truncate(kept);
                Err(error)
            };
            if let Some(outcome) = self.outcome_of(&position, &self.history) {
                let error = PositionCommandError::AfterEnd {
                    index: i + 1,
                    text: text.to_string(),
                    reason: outcome.reason,
                };
                return fail(error, &mut self.history);
            }
            let mv = match self.game.parse_move(&position, text) {
                Ok(mv) => mv,
                Err(error) => {
                    let error = PositionCommandError::BadMove {
                        index: i + 1,
                        text: text.to_string(),
                        error,
                    };
                    return fail(error, &mut self.history);
                }
            };
            self.game.play(&mut position, mv);
            self.history.push(self.game.repetition_key(&position));
        }
        self.position = position;
        Ok(())
    }

    /// [`super::Session::display`].
    pub(super) fn picture(&self) -> String {
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
        if let Some(table) = self.table_value() {
            let layer = &table.layer;
            if table.decisive {
                let result = match table.value.signum() {
                    1 => "win",
                    -1 => "loss",
                    _ => "draw",
                };
                let within = match table.distance {
                    Some(d) if table.value != 0 => format!(
                        ", decided within {d} turn{} (by a capture or the end)",
                        if d == 1 { "" } else { "s" }
                    ),
                    _ => String::new(),
                };
                let _ = writeln!(
                    out,
                    "Tablebase: {result} for the side to move with perfect play{within} \
                     ({layer})"
                );
            } else {
                let _ = writeln!(
                    out,
                    "Tablebase: {} (the final margin for the side to move with perfect play; \
                     {layer})",
                    crate::game::value_text(table.value)
                );
            }
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

    /// [`super::Session::legal_moves`].
    pub(super) fn legal_move_texts(&self) -> Vec<String> {
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

    /// [`super::Session::eval_sample`].
    pub(super) fn quiet_features(&self) -> Option<Vec<f64>> {
        if self.outcome().is_some() || !self.game.is_quiet(&self.position) {
            return None;
        }
        let mut features = vec![0; self.game.eval_terms().len()];
        self.game.eval_features(&self.position, &mut features);
        let (numerator, denominator) = self.game.eval_scale(&self.position);
        let scale = numerator as f64 / denominator as f64;
        Some(features.into_iter().map(|f| f64::from(f) * scale).collect())
    }

    /// Move texts of a line played from the current position.
    pub(super) fn pv_strings(&self, pv: &[G::Move]) -> Vec<String> {
        let mut pos = self.position.clone();
        pv.iter()
            .map(|&mv| {
                let text = self.game.format_move(&pos, mv);
                self.game.play(&mut pos, mv);
                text
            })
            .collect()
    }

    /// The text of `reply` in the position after `first` (the ponder move after a best move).
    pub(super) fn reply_text(&self, first: G::Move, reply: G::Move) -> String {
        let mut after = self.position.clone();
        self.game.play(&mut after, first);
        self.game.format_move(&after, reply)
    }
}
