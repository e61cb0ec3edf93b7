//! Match records: the games `sowfan match` writes as each ends, one self-contained JSON
//! object a line (JSON Lines, [`jsonl`]) and the same games as PGN-like text ([`pgn`]), so
//! that a stopped match keeps its games; `sowfan analyse` and `sowfan tune` read the JSON
//! Lines back, line by line with a bound on a line's length ([`lines`]).
//!
//! The types here are the one schema of a record, written and read through serde. Reading
//! is tolerant, as for records written by hand or by older versions: only `game` and
//! `moves` are required, a move may be a plain string, and fields nobody reads back may be
//! missing or of another type (see [`jsonl::read_record`]).

pub mod jsonl;
pub mod lines;
pub mod pgn;

use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::Path;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use jsonl::lenient;

/// One move as played: who, what, how long, and what the engine said about it. Read from
/// `{"move": …}` (or `{"mv": …}`), or from a plain string: the move alone.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MoveRecord {
    #[serde(rename = "move", alias = "mv")]
    pub mv: String,
    /// `p1` or `p2`.
    #[serde(default, deserialize_with = "lenient")]
    pub by: String,
    /// Thinking time: from sending `go` to receiving `bestmove`.
    #[serde(default, deserialize_with = "lenient")]
    pub ms: u64,
    /// The mover's clock after the move (increment included), under `tc=` only.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient"
    )]
    pub clock_ms: Option<i64>,
    /// The last `info … depth` before `bestmove`.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient"
    )]
    pub depth: Option<u32>,
    /// The last `info … score`, as the engine wrote it (`cp 35`, `mate 3`).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient"
    )]
    pub score: Option<String>,
}

/// Where a game started. A record without one started from the game's start position.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct OpeningRecord {
    /// `startpos`, `random`, or `file line N`.
    #[serde(default, deserialize_with = "lenient")]
    pub source: String,
    /// The position string the game started from (the game's start position unless the
    /// opening gave one). Always written; `None` when read: the game's start position.
    #[serde(default, deserialize_with = "jsonl::opening_fen")]
    pub fen: Option<String>,
    /// Opening moves from `fen`, played by the runner, not by the engines.
    #[serde(default, deserialize_with = "jsonl::opening_moves")]
    pub moves: Vec<String>,
}

/// Everything about one finished game. The fields in `Option`s are always written; a
/// record read may lack them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameRecord {
    /// Number in the schedule, from 1.
    #[serde(default, deserialize_with = "lenient")]
    pub number: usize,
    /// Opening pair number, from 1: games of the same round and pairing share the opening.
    #[serde(default, deserialize_with = "lenient")]
    pub round: usize,
    /// The game and its non-default options, as after `newgame`.
    #[serde(deserialize_with = "jsonl::game")]
    pub game: String,
    #[serde(default, deserialize_with = "jsonl::p1")]
    pub p1: Option<String>,
    #[serde(default, deserialize_with = "jsonl::p2")]
    pub p2: Option<String>,
    /// The search limits each engine was given (`depth=6`, `tc=10+0.1`).
    #[serde(default, deserialize_with = "lenient")]
    pub p1_limits: String,
    #[serde(default, deserialize_with = "lenient")]
    pub p2_limits: String,
    #[serde(default, deserialize_with = "jsonl::opening")]
    pub opening: OpeningRecord,
    /// The moves the engines played, after the opening's.
    #[serde(default, deserialize_with = "jsonl::moves")]
    pub moves: Vec<MoveRecord>,
    /// `p1win`, `p2win` or `draw`.
    #[serde(default, deserialize_with = "jsonl::result")]
    pub result: Option<String>,
    /// The same in PGN style: `1-0`, `0-1`, `1/2-1/2` (P1 first).
    #[serde(default, deserialize_with = "lenient")]
    pub score: String,
    /// `rules`, `illegal-move`, `malformed-move`, `time-forfeit`, `crash`, `unresponsive`,
    /// `adjudication`.
    #[serde(default, deserialize_with = "jsonl::termination")]
    pub termination: Option<String>,
    #[serde(default, deserialize_with = "jsonl::reason")]
    pub reason: Option<String>,
    /// The final game points of P1 and P2 by the rules (stores, captures), when the rules
    /// ended the game.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient"
    )]
    pub points: Option<[String; 2]>,
    #[serde(default, deserialize_with = "lenient")]
    pub final_fen: String,
    /// Wall time of the whole game.
    #[serde(default, deserialize_with = "lenient")]
    pub duration_ms: u64,
}

impl GameRecord {
    /// Every move from the opening's position: the opening's, then those played.
    pub fn all_moves(&self) -> impl Iterator<Item = &str> {
        self.opening
            .moves
            .iter()
            .map(String::as_str)
            .chain(self.moves.iter().map(|m| m.mv.as_str()))
    }
}

/// Why a line is not a match record.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum RecordError {
    #[error("not a JSON game record: {0}")]
    Json(String),
    /// A JSON object, but a field is missing or not of its type (the message names it).
    #[error("{0}")]
    Field(String),
    /// Not a JSON object at all (a line of a records file that is not blank or a comment).
    #[error("not a match record")]
    NotARecord,
}

/// Where records go; each game is flushed as soon as it is written.
pub struct RecordWriter {
    jsonl: Option<BufWriter<File>>,
    pgn: Option<BufWriter<File>>,
}

impl RecordWriter {
    /// Files written from the start (`append` false) or added to (`append` true, for a
    /// match that goes on: [`crate::tournament`]'s `--resume`); created when missing.
    pub fn open(
        jsonl: Option<&Path>,
        pgn: Option<&Path>,
        append: bool,
    ) -> Result<RecordWriter, String> {
        let open = |path: &Path| {
            OpenOptions::new()
                .create(true)
                .write(true)
                .append(append)
                .truncate(!append)
                .open(path)
                .map(BufWriter::new)
                .map_err(|e| format!("cannot create '{}': {e}", path.display()))
        };
        Ok(RecordWriter {
            jsonl: jsonl.map(open).transpose()?,
            pgn: pgn.map(open).transpose()?,
        })
    }

    pub fn write(&mut self, record: &GameRecord) -> Result<(), String> {
        if let Some(out) = self.jsonl.as_mut() {
            let line = jsonl::line(record)?;
            writeln!(out, "{line}")
                .and_then(|_| out.flush())
                .map_err(|e| format!("cannot write the records file: {e}"))?;
        }
        if let Some(out) = self.pgn.as_mut() {
            write!(out, "{}", pgn::pgn_text(record))
                .and_then(|_| out.flush())
                .map_err(|e| format!("cannot write the PGN file: {e}"))?;
        }
        Ok(())
    }
}
