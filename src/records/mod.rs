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

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::cli::AppendError;
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
    /// The slice of a match cut for several machines that played it (`2/4`, `sowfan match
    /// --slice`); absent in a match played whole.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient"
    )]
    pub slice: Option<String>,
    /// The sliced match's `--seed` (absent in a match played whole).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient"
    )]
    pub seed: Option<u64>,
    /// The sliced match's `--games` (absent in a match played whole).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient"
    )]
    pub match_games: Option<usize>,
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
    /// The match's `--max-plies`, the length at which its games were drawn (`null`: none).
    /// Always written; `None` when read from a record of a runner that did not write it.
    #[serde(default, deserialize_with = "jsonl::max_plies")]
    pub max_plies: Option<Option<usize>>,
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

/// Why the records or PGN file of a match cannot be opened or written.
#[derive(Debug, Error)]
pub enum RecordFileError {
    /// `cli::open_for_appending` could not open it (its message names the file).
    #[error(transparent)]
    Open(#[from] AppendError),
    /// A match that goes on reads its file first: a device or a pipe cannot be.
    #[error("'{0}' is not a regular file")]
    NotRegular(String),
    #[error("--records and --pgn name the same file: give each its own")]
    SameFile,
    #[error("'{0}' is in use: another match writes to it; wait for it to end or give another file")]
    InUse(String),
    #[error("cannot lock '{shown}': {source}")]
    Lock {
        shown: String,
        source: std::io::Error,
    },
    #[error("cannot empty '{shown}': {source}")]
    Empty {
        shown: String,
        source: std::io::Error,
    },
    #[error("cannot write the PGN file: {0}")]
    WritePgn(#[source] std::io::Error),
    #[error("cannot write the records file: {0}")]
    WriteRecords(#[source] std::io::Error),
    /// A record serde cannot write as JSON.
    #[error(transparent)]
    Json(#[from] serde_json::Error),
}

/// Where records go; each game is flushed as soon as it is written.
pub struct RecordWriter {
    jsonl: Option<BufWriter<File>>,
    pgn: Option<BufWriter<File>>,
}

impl RecordWriter {
    /// Files written from the start (`append` false) or added to (`append` true, for a
    /// match that goes on: `sowfan match --resume`); created when missing. A
    /// regular file is locked for as long as the writer lives, so that a second match given
    /// the same file is refused before it changes a byte of it; two paths naming one file
    /// are refused.
    pub fn open(
        jsonl: Option<&Path>,
        pgn: Option<&Path>,
        append: bool,
    ) -> Result<RecordWriter, RecordFileError> {
        let jsonl = jsonl
            .map(|path| open_for_writing(path, append))
            .transpose()?;
        let pgn = pgn.map(|path| open_for_writing(path, append)).transpose()?;
        // Compared once open, so that every spelling (a link, a dangling one now created,
        // `./`) is caught; nothing is locked or emptied yet.
        if let (Some((records, _, _)), Some((pgn, _, _))) = (&jsonl, &pgn)
            && same_open_file(records, pgn)
        {
            return Err(RecordFileError::SameFile);
        }
        Ok(RecordWriter {
            jsonl: jsonl.map(|file| lock(file, append)).transpose()?,
            pgn: pgn.map(|file| lock(file, append)).transpose()?,
        })
    }

    /// Add `record` to both files. `Err` says what failed and whether the game is in the
    /// records file all the same (only the PGN failed): a game that is not there must not
    /// be counted, since a resumed match would not find it.
    pub fn write(&mut self, record: &GameRecord) -> Result<(), WriteFailure> {
        if let Some(out) = self.jsonl.as_mut() {
            let line = jsonl::line(record).map_err(|e| WriteFailure {
                error: e.into(),
                recorded: false,
            })?;
            writeln!(out, "{line}")
                .and_then(|_| out.flush())
                .map_err(|e| WriteFailure {
                    error: RecordFileError::WriteRecords(e),
                    recorded: false,
                })?;
        }
        if let Some(out) = self.pgn.as_mut() {
            write!(out, "{}", pgn::pgn_text(record))
                .and_then(|_| out.flush())
                .map_err(|e| WriteFailure {
                    error: RecordFileError::WritePgn(e),
                    recorded: true,
                })?;
        }
        Ok(())
    }

    /// The PGN file written anew with `records`, the games a resumed match found in its
    /// records file: the PGN then holds the games the records hold, whatever became of it
    /// since (deleted, cut off, of another run).
    pub fn rewrite_pgn<'r>(
        &mut self,
        records: impl IntoIterator<Item = &'r GameRecord>,
    ) -> Result<(), RecordFileError> {
        let Some(out) = self.pgn.as_mut() else {
            return Ok(());
        };
        let cannot = RecordFileError::WritePgn;
        out.flush().map_err(cannot)?;
        // Opened to add to its end, and a regular file (a match that goes on refuses any
        // other): emptied, the next write lands at 0.
        out.get_ref().set_len(0).map_err(cannot)?;
        for record in records {
            write!(out, "{}", pgn::pgn_text(record)).map_err(cannot)?;
        }
        out.flush().map_err(cannot)
    }
}

/// A game that [`RecordWriter::write`] could not write whole.
#[derive(Debug)]
pub struct WriteFailure {
    pub error: RecordFileError,
    /// The game is in the records file (only the PGN failed).
    pub recorded: bool,
}

/// `path` opened for writing, with whether it is a regular file and how to name it. Anything
/// else (a terminal, a pipe, `/dev/null`) is written as it is, but not added to: a match
/// that goes on reads the file first.
fn open_for_writing(path: &Path, append: bool) -> Result<(File, bool, String), RecordFileError> {
    let shown = path.display().to_string();
    let regular = std::fs::metadata(path).map_or(true, |meta| meta.is_file());
    if !regular && append {
        return Err(RecordFileError::NotRegular(shown));
    }
    let file = crate::cli::open_for_appending(path)?;
    Ok((file, regular, shown))
}

fn same_open_file(a: &File, b: &File) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (a.metadata(), b.metadata()) {
        (Ok(x), Ok(y)) => (x.dev(), x.ino()) == (y.dev(), y.ino()),
        _ => false,
    }
}

/// A regular file locked (see [`RecordWriter::open`]) and emptied once the lock is held,
/// unless `append`.
fn lock(
    (file, regular, shown): (File, bool, String),
    append: bool,
) -> Result<BufWriter<File>, RecordFileError> {
    if regular {
        file.try_lock().map_err(|e| match e {
            std::fs::TryLockError::WouldBlock => RecordFileError::InUse(shown.clone()),
            std::fs::TryLockError::Error(source) => RecordFileError::Lock {
                shown: shown.clone(),
                source,
            },
        })?;
        if !append {
            file.set_len(0)
                .map_err(|source| RecordFileError::Empty { shown, source })?;
        }
    }
    Ok(BufWriter::new(file))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("sowfan-records-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("scratch directory");
        dir.join(name)
    }

    #[test]
    fn a_file_in_use_or_named_twice_is_refused_and_kept() {
        let records = scratch("in-use.jsonl");
        std::fs::write(&records, "{\"number\":1}\n").expect("scratch file");
        let first = RecordWriter::open(Some(&records), None, true).expect("the first match");
        // A second match, fresh or resumed, is refused before it empties the file.
        for append in [false, true] {
            let error = RecordWriter::open(Some(&records), None, append)
                .err()
                .expect("in use")
                .to_string();
            assert!(error.contains("is in use"), "{error}");
        }
        assert_eq!(
            std::fs::read_to_string(&records).expect("read"),
            "{\"number\":1}\n"
        );
        drop(first);
        // Once the first has ended, a fresh match empties it.
        drop(RecordWriter::open(Some(&records), None, false).expect("free again"));
        assert_eq!(std::fs::read_to_string(&records).expect("read"), "");
        // The same file as records and PGN, spelt two ways.
        let other_spelling = records
            .parent()
            .expect("dir")
            .join(".")
            .join("in-use.jsonl");
        let error = RecordWriter::open(Some(&records), Some(&other_spelling), false)
            .err()
            .expect("the same file twice")
            .to_string();
        assert!(error.contains("name the same file"), "{error}");
        // A dangling link to the records file, as PGN.
        let link = records.with_file_name("pgn-link");
        let fresh = records.with_file_name("not-yet.jsonl");
        let _ = std::fs::remove_file(&link);
        let _ = std::fs::remove_file(&fresh);
        std::os::unix::fs::symlink(&fresh, &link).expect("a link");
        let error = RecordWriter::open(Some(&fresh), Some(&link), false)
            .err()
            .expect("the same file through a link")
            .to_string();
        assert!(error.contains("name the same file"), "{error}");
        // A FIFO nobody reads is refused at once.
        let fifo = records.with_file_name("fifo");
        let _ = std::fs::remove_file(&fifo);
        let name = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).expect("path");
        // SAFETY: a valid NUL-terminated path.
        if unsafe { libc::mkfifo(name.as_ptr(), 0o600) } == 0 {
            let error = RecordWriter::open(Some(&fifo), None, false)
                .err()
                .expect("a FIFO without a reader")
                .to_string();
            assert!(error.contains("nothing reads"), "{error}");
        }
        // A device is written, not added to.
        assert!(RecordWriter::open(None, Some(Path::new("/dev/null")), false).is_ok());
        let error = RecordWriter::open(Some(Path::new("/dev/null")), None, true)
            .err()
            .expect("a device to go on from")
            .to_string();
        assert!(error.contains("not a regular file"), "{error}");
    }
}
