//! How positions and moves are written and read: position strings, move texts, the board
//! drawn for people, and positions packed for training data.

use thiserror::Error;

use super::Rules;

/// A position string that does not describe a position of this game.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{0}")]
pub struct PositionError(pub String);

impl PositionError {
    pub fn new(message: impl Into<String>) -> PositionError {
        PositionError(message.into())
    }
}

/// A move text that is not a legal move in the position.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum MoveError {
    /// Not a move of this game at all (wrong shape).
    #[error("'{text}' is not a move: {why}")]
    Malformed { text: String, why: String },
    /// A move of this game, but not legal here.
    #[error("'{text}' is illegal here: {why}")]
    Illegal { text: String, why: String },
}

impl MoveError {
    pub fn malformed(text: &str, why: impl Into<String>) -> MoveError {
        MoveError::Malformed {
            text: text.to_string(),
            why: why.into(),
        }
    }

    pub fn illegal(text: &str, why: impl Into<String>) -> MoveError {
        MoveError::Illegal {
            text: text.to_string(),
            why: why.into(),
        }
    }
}

/// Positions and moves as text (the protocol's position strings and moves, `d`'s picture)
/// and as packed bytes (training data). Every tool that talks to people or files needs it,
/// so every game implements it.
pub trait Notation: Rules {
    fn parse_position(&self, text: &str) -> Result<Self::Position, PositionError>;

    fn format_position(&self, pos: &Self::Position) -> String;

    /// Parse a move text and check it is legal in `pos`, explaining what is wrong if not.
    fn parse_move(&self, pos: &Self::Position, text: &str) -> Result<Self::Move, MoveError>;

    fn format_move(&self, pos: &Self::Position, mv: Self::Move) -> String;

    /// A picture of the board for `d` (several lines, no trailing newline needed).
    fn render(&self, pos: &Self::Position) -> String;

    /// `pos` in a compact binary form, appended to `out` (at most 65,535 bytes), read back
    /// by [`Notation::unpack_position`]. The default is the position string's bytes; a game may
    /// store less (Fanorona: its two bitboards and counters, 20 bytes).
    fn pack_position(&self, pos: &Self::Position, out: &mut Vec<u8>) {
        out.extend_from_slice(self.format_position(pos).as_bytes());
    }

    /// The position that [`Notation::pack_position`] wrote. The bytes come from a file, so
    /// they are hostile input: anything that is not a position of this game is an error.
    fn unpack_position(&self, bytes: &[u8]) -> Result<Self::Position, PositionError> {
        let text = std::str::from_utf8(bytes)
            .map_err(|_| PositionError::new("a packed position that is not UTF-8 text"))?;
        self.parse_position(text)
    }
}
