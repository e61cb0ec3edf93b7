//! `sowfan match --resume`: a match that stopped (Ctrl-C, a closed terminal, a machine that
//! went away) goes on from its records file. The games the file holds count as played, in
//! the statistics and the SPRT as in a match never stopped; the rest of the schedule is
//! played and appended to the same file.
//!
//! The file must be this match's: every record's number must be in the schedule, and its
//! game, its engines' names and limits and its opening must be those the schedule gives
//! that number, which holds when the command line is the same (`--game`, the engines' names
//! and limits in order, `--openings`, `--seed`). A record cut off at the file's end (the
//! runner was killed as it wrote) is removed and its game played again; any other line that
//! is not such a record is an error, and the file is left as it was.

use std::fs::{File, OpenOptions};
use std::io::{self, BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use crate::game::GameResult;
use crate::records::jsonl::{RECORD_START, record_line};
use crate::records::lines::{BoundedLines, LineError, ends_in_newline};
use crate::records::{GameRecord, RecordError};

use thiserror::Error;

use super::config::{Slice, SliceError};
use super::referee::Termination;

/// Why the records files of a match cannot be read as its own; `what` is the option that
/// reads them (`--resume`, `--report`).
#[derive(Debug, Error)]
pub enum RecordsReadError {
    #[error("{what}: cannot read '{}': {source}", path.display())]
    Read {
        what: &'static str,
        path: PathBuf,
        source: io::Error,
    },
    #[error(
        "{what}: cannot read '{}': there is no such file (a slice not started yet: leave its \
         file out)",
        path.display()
    )]
    NoFile { what: &'static str, path: PathBuf },
    /// Opening a FIFO would wait for a writer for ever.
    #[error("{what}: '{}' is not a regular file", path.display())]
    NotRegular { what: &'static str, path: PathBuf },
    #[error(
        "{what}: '{}' ends in a line without a newline that is not the start of a record \
         ('{RECORD_START}…'): not a records file cut off by a stopped match; the file is left \
         as it was",
        path.display()
    )]
    NotCutOff { what: &'static str, path: PathBuf },
    #[error("{what}: '{}' line {line}: {source}", path.display())]
    Line {
        what: &'static str,
        path: PathBuf,
        line: usize,
        /// Boxed: a record of another match says much, and every read's result would be
        /// as large.
        source: Box<RecordLineError>,
    },
    #[error("--resume: cannot remove the cut-off record of '{}': {source}", path.display())]
    RemoveCutOff { path: PathBuf, source: io::Error },
}

/// Why one line of a records file is not a record of this match.
#[derive(Debug, Error)]
pub enum RecordLineError {
    /// Too long, or not text.
    #[error(transparent)]
    Text(#[from] LineError),
    #[error("{} (a record is a line of JSON, '{{…}}')", RecordError::NotARecord)]
    NotARecord,
    #[error("not a match record: {0}")]
    Record(RecordError),
    /// A missing, zero or unreadable `number` (a negative, fractional or huge one, a string).
    #[error("the record has no game number (a whole number from 1)")]
    NoNumber,
    #[error(
        "game {number} is not in this match's schedule of {games} games (is --games smaller \
         than the run's that wrote it?)"
    )]
    NotScheduled { number: usize, games: usize },
    #[error(transparent)]
    Mismatch(#[from] RecordMismatch),
    #[error(
        "game {number} is of slice {slice}, this is slice {mine}: each slice goes on from its \
         own records"
    )]
    OtherSlice {
        number: usize,
        slice: Slice,
        mine: Slice,
    },
    #[error("game {number} was already recorded on line {at}")]
    Again { number: usize, at: usize },
    #[error(
        "game {number} is also recorded in '{}' line {at}: a game in two files (the same slice \
         given twice, or a slice run twice); give each slice's file once",
        other.display()
    )]
    InTwoFiles {
        number: usize,
        other: PathBuf,
        at: usize,
    },
    #[error("game {0} has no result (p1win, p2win or draw)")]
    NoResult(usize),
    #[error("game {0} has no termination the runner writes")]
    NoTermination(usize),
    /// `--report`: a file holds a slice another file holds.
    #[error(
        "the file holds slice {slice}, as '{}' does: the same slice given twice (or a slice \
         run twice); give each slice's file once",
        other.display()
    )]
    SliceTwice { slice: Slice, other: PathBuf },
    /// `--report`: a file holds games of two slices.
    #[error(
        "game {number} is of slice {slice}, the file's earlier records are of slice {mine}: one \
         file holds one slice"
    )]
    MixedSlices {
        number: usize,
        slice: Slice,
        mine: Slice,
    },
}

impl From<RecordError> for RecordLineError {
    fn from(error: RecordError) -> RecordLineError {
        match error {
            RecordError::NotARecord => RecordLineError::NotARecord,
            error => RecordLineError::Record(error),
        }
    }
}

/// What a scheduled game's record must say: the game, who played it with which limits, and
/// from where it started.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    pub game: String,
    pub p1: String,
    pub p2: String,
    pub p1_limits: String,
    pub p2_limits: String,
    pub fen: String,
    pub opening_moves: Vec<String>,
    /// `--max-plies`: a game drawn at that length is another game than one played on.
    pub max_plies: Option<usize>,
    /// In a match cut in slices, what the record says of the match beyond the game.
    pub sliced: Option<Sliced>,
}

/// What a sliced match's every record says besides its game: the slice that plays it and
/// the match's seed and length, so that a report can tell another match's slice.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sliced {
    /// The slice the schedule gives the game.
    pub slice: Slice,
    pub seed: u64,
    /// `--games`.
    pub games: usize,
}

/// Where a game's record was seen: the file (an index into the files read) and its line.
pub type Seen = Option<(usize, usize)>;

/// How records files are read: by `--resume` (`what` "--resume"; a record cut off at the
/// end is removed) or by `--report` ("--report"; every file read as it is, a cut-off last
/// line taken as a record still being written).
pub struct Reader<'a> {
    pub what: &'static str,
    /// The identity of every game of the match, by index.
    pub schedule: &'a [Identity],
    /// `--resume --slice`: the one slice whose games the file may hold.
    pub only: Option<Slice>,
    /// The files read, by index, for messages about a game seen in two of them.
    pub files: &'a [&'a Path],
}

/// A game of the schedule that an earlier run finished.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Finished {
    /// Its index in the schedule (its number less one).
    pub index: usize,
    pub result: GameResult,
    pub termination: Termination,
}

/// The games the records file at `path` holds, checked against `schedule` (the identity of
/// every game of this match, by index). A missing file holds none. When every complete line
/// is a record of this match, a record cut off at the file's end is removed from the file
/// (and its game is not among those returned); `Err` says which line is wrong and why.
pub fn read(path: &Path, schedule: &[Identity]) -> Result<Vec<Finished>, RecordsReadError> {
    Ok(read_records(path, schedule, None)?
        .into_iter()
        .map(|(game, _)| game)
        .collect())
}

/// [`read`], with each game's record (in the file's order); with `only`, a record of a game
/// of another slice is refused.
pub fn read_records(
    path: &Path,
    schedule: &[Identity],
    only: Option<Slice>,
) -> Result<Vec<(Finished, GameRecord)>, RecordsReadError> {
    let shown = path.display();
    match std::fs::metadata(path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        _ => {}
    }
    let files = [path];
    let reader = Reader {
        what: "--resume",
        schedule,
        only,
        files: &files,
    };
    let mut seen = vec![None; schedule.len()];
    let mut finished = Vec::new();
    let cut_at = reader.scan(0, &mut seen, |game, record| {
        finished.push((game, record));
        Ok(())
    })?;
    if let Some(length) = cut_at {
        OpenOptions::new()
            .write(true)
            .open(path)
            .and_then(|file| file.set_len(length))
            .map_err(|source| RecordsReadError::RemoveCutOff {
                path: path.to_path_buf(),
                source,
            })?;
        eprintln!(
            "sowfan match: '{shown}' ended in a record cut off as it was written: removed, \
             its game is played again"
        );
    }
    Ok(finished)
}

impl Reader<'_> {
    /// The complete lines of file `file` (its index in `files`): every record is checked and
    /// given to `each` with its game (whose `Err` is the line's); `seen` holds where each game's record was seen so far
    /// (in any file). `Ok` holds the length of the file's complete lines when its last line
    /// has no newline and begins as a record does (cut off, or being written); nothing is
    /// changed in the file.
    pub fn scan(
        &self,
        file: usize,
        seen: &mut [Seen],
        mut each: impl FnMut(Finished, GameRecord) -> Result<(), RecordLineError>,
    ) -> Result<Option<u64>, RecordsReadError> {
        let what = self.what;
        let path = self.files[file];
        let (file_handle, cut_at) = open_complete(path, what)?;
        // Only the complete lines are read: a cut-off record is never looked at.
        let complete = file_handle.take(cut_at.unwrap_or(u64::MAX));
        let mut lines = BoundedLines::new(BufReader::new(complete));
        while let Some(read) = lines.next_line() {
            let (number, text) = read.map_err(|source| cannot_read(what, path, source))?;
            text.map_err(RecordLineError::from)
                .and_then(|text| self.check_line(&text, seen, file, number))
                .and_then(|game| match game {
                    Some((game, record)) => each(game, record),
                    None => Ok(()),
                })
                .map_err(|source| bad_line(what, path, number, source))?;
        }
        Ok(cut_at)
    }

    /// The first record of file `file`, unchecked but for being a record (`None`: the file
    /// holds none yet).
    pub fn first_record(&self, file: usize) -> Result<Option<GameRecord>, RecordsReadError> {
        let what = self.what;
        let path = self.files[file];
        let (file_handle, cut_at) = open_complete(path, what)?;
        let complete = file_handle.take(cut_at.unwrap_or(u64::MAX));
        let mut lines = BoundedLines::new(BufReader::new(complete));
        while let Some(read) = lines.next_line() {
            let (number, text) = read.map_err(|source| cannot_read(what, path, source))?;
            let record = text
                .map_err(RecordLineError::from)
                .and_then(|text| match record_line(&text) {
                    None => Ok(None),
                    Some(record) => record.map(Some).map_err(RecordLineError::from),
                })
                .map_err(|source| bad_line(what, path, number, source))?;
            if record.is_some() {
                return Ok(record);
            }
        }
        Ok(None)
    }
}

/// `path` opened for reading, with the length of its complete lines when its last line has
/// no newline; `Err` when it is no regular file, cannot be read, or ends in a line without
/// a newline that no record begins like.
fn open_complete(path: &Path, what: &'static str) -> Result<(File, Option<u64>), RecordsReadError> {
    let cannot = |source| cannot_read(what, path, source);
    // Opening a FIFO would wait for a writer for ever.
    let meta = std::fs::metadata(path).map_err(|e| {
        if e.kind() == io::ErrorKind::NotFound {
            RecordsReadError::NoFile {
                what,
                path: path.to_path_buf(),
            }
        } else {
            cannot(e)
        }
    })?;
    if !meta.is_file() {
        return Err(RecordsReadError::NotRegular {
            what,
            path: path.to_path_buf(),
        });
    }
    let mut file = File::open(path).map_err(cannot)?;
    let cut_at = partial_tail(&mut file).map_err(cannot)?;
    if let Some(at) = cut_at
        && !begins_a_record(&mut file, at).map_err(cannot)?
    {
        return Err(RecordsReadError::NotCutOff {
            what,
            path: path.to_path_buf(),
        });
    }
    file.seek(SeekFrom::Start(0)).map_err(cannot)?;
    Ok((file, cut_at))
}

/// Line `line` of `path` is not a record of this match.
fn bad_line(
    what: &'static str,
    path: &Path,
    line: usize,
    source: RecordLineError,
) -> RecordsReadError {
    RecordsReadError::Line {
        what,
        path: path.to_path_buf(),
        line,
        source: Box::new(source),
    }
}

fn cannot_read(what: &'static str, path: &Path, source: io::Error) -> RecordsReadError {
    RecordsReadError::Read {
        what,
        path: path.to_path_buf(),
        source,
    }
}

impl Reader<'_> {
    /// One line of file `file`: a record of the schedule not seen before (`Ok(Some)`), a
    /// blank line or a comment (`Ok(None)`), or what is wrong with it. `seen` holds where
    /// each game's record was seen so far.
    fn check_line(
        &self,
        text: &str,
        seen: &mut [Seen],
        file: usize,
        line: usize,
    ) -> Result<Option<(Finished, GameRecord)>, RecordLineError> {
        let schedule = self.schedule;
        let Some(record) = record_line(text) else {
            return Ok(None);
        };
        let record = record?;
        let number = record.number;
        if number == 0 {
            // A missing, zero or unreadable `number` all read as 0.
            return Err(RecordLineError::NoNumber);
        }
        let Some(expected) = number.checked_sub(1).and_then(|i| schedule.get(i)) else {
            return Err(RecordLineError::NotScheduled {
                number,
                games: schedule.len(),
            });
        };
        check_identity(&record, expected)?;
        if let (Some(mine), Some(sliced)) = (self.only, expected.sliced)
            && sliced.slice != mine
        {
            return Err(RecordLineError::OtherSlice {
                number,
                slice: sliced.slice,
                mine,
            });
        }
        let index = number - 1;
        match seen[index] {
            Some((first, at)) if first == file => {
                return Err(RecordLineError::Again { number, at });
            }
            Some((other, at)) => {
                return Err(RecordLineError::InTwoFiles {
                    number,
                    other: self.files[other].to_path_buf(),
                    at,
                });
            }
            None => {}
        }
        let result = record
            .result
            .as_deref()
            .and_then(GameResult::parse)
            .ok_or(RecordLineError::NoResult(number))?;
        let termination = record
            .termination
            .as_deref()
            .and_then(Termination::parse)
            .ok_or(RecordLineError::NoTermination(number))?;
        seen[index] = Some((file, line));
        Ok(Some((
            Finished {
                index,
                result,
                termination,
            },
            record,
        )))
    }
}

/// How a record differs from the game of this match it claims to be: each variant names
/// the part of the command line that makes the difference.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum RecordMismatch {
    #[error("game {number} is of '{had}', this match plays '{has}' (--game)")]
    Game {
        number: usize,
        had: String,
        has: String,
    },
    #[error(
        "game {number} was {had_p1} against {had_p2}, this match's is {p1} against {p2} (the \
         engines' names, in the same order)"
    )]
    Players {
        number: usize,
        had_p1: String,
        had_p2: String,
        p1: String,
        p2: String,
    },
    #[error("game {number} gave {name} '{had}', this match gives it '{has}' (the engines' limits)")]
    Limits {
        number: usize,
        name: String,
        had: String,
        has: String,
    },
    #[error(
        "game {number} was played with {}, this match has {}: its games would be scored \
         under two limits; give the same --max-plies",
        max_plies(*had),
        max_plies(*has)
    )]
    MaxPlies {
        number: usize,
        had: Option<usize>,
        has: Option<usize>,
    },
    #[error(
        "game {number} started from another opening than this match's game {number} (the \
         same --openings and --seed: the seed is on the first line a match prints; balanced \
         openings are chosen by a search of the sowfan that runs the match, so resume with \
         the same build)"
    )]
    Opening { number: usize },
    #[error(
        "game {number} was played by a match without --slice (the record says no slice), \
         this is a match cut in {count} slices: its records are another match's"
    )]
    NoSlice { number: usize, count: usize },
    #[error("game {number}: slice {error}")]
    BadSlice { number: usize, error: SliceError },
    #[error(
        "game {number} was played by slice {had} of a match cut in slices (--slice): go on \
         with that slice with --slice {had}, or read every slice's records with --report"
    )]
    Sliced { number: usize, had: Slice },
    #[error(
        "game {number} is of a match cut in {} slices (slice {had}), this one is cut in \
         {count}: every slice of a match has the same K",
        had.count
    )]
    SliceCount {
        number: usize,
        had: Slice,
        count: usize,
    },
    #[error(
        "game {number} was played with --seed {had}, this match has --seed {has}: the slices \
         of a match share one seed (and so their openings)"
    )]
    Seed { number: usize, had: u64, has: u64 },
    #[error("game {number} of slice {had} has no seed: not a record the runner writes")]
    NoSeed { number: usize, had: Slice },
    #[error(
        "game {number} is of a match of {} --games, this one has {has}: the slices of a \
         match share every argument but --slice and --records",
        had.map_or_else(|| "no".to_string(), |g| g.to_string())
    )]
    Games {
        number: usize,
        had: Option<usize>,
        has: usize,
    },
    #[error(
        "game {number} says slice {had}, but the schedule gives it to slice {schedule}: not a \
         record of this match's slices"
    )]
    OtherSlice {
        number: usize,
        had: Slice,
        schedule: Slice,
    },
}

/// `--max-plies N`, or that there was none.
fn max_plies(max: Option<usize>) -> String {
    match max {
        Some(max) => format!("--max-plies {max}"),
        None => "no --max-plies".to_string(),
    }
}

/// Whether `record` is the game `expected` describes; `Err` names the first difference and
/// the part of the command line that makes it.
fn check_identity(record: &GameRecord, expected: &Identity) -> Result<(), RecordMismatch> {
    let number = record.number;
    check_slice(record, expected.sliced)?;
    if record.game != expected.game {
        return Err(RecordMismatch::Game {
            number,
            had: record.game.clone(),
            has: expected.game.clone(),
        });
    }
    let p1 = record.p1.as_deref().unwrap_or("?");
    let p2 = record.p2.as_deref().unwrap_or("?");
    if (p1, p2) != (expected.p1.as_str(), expected.p2.as_str()) {
        return Err(RecordMismatch::Players {
            number,
            had_p1: p1.to_string(),
            had_p2: p2.to_string(),
            p1: expected.p1.clone(),
            p2: expected.p2.clone(),
        });
    }
    for (name, had, has) in [
        (p1, &record.p1_limits, &expected.p1_limits),
        (p2, &record.p2_limits, &expected.p2_limits),
    ] {
        if had != has {
            return Err(RecordMismatch::Limits {
                number,
                name: name.to_string(),
                had: had.to_string(),
                has: has.to_string(),
            });
        }
    }
    if let Some(had) = record.max_plies
        && had != expected.max_plies
    {
        return Err(RecordMismatch::MaxPlies {
            number,
            had,
            has: expected.max_plies,
        });
    }
    let fen = record.opening.fen.as_deref().unwrap_or(&expected.fen);
    if fen != expected.fen || record.opening.moves != expected.opening_moves {
        return Err(RecordMismatch::Opening { number });
    }
    Ok(())
}

/// Whether `record` was written by the slice of this match that `expected` names (`None`:
/// by a match played whole, as this one is); `Err` says what differs.
fn check_slice(record: &GameRecord, expected: Option<Sliced>) -> Result<(), RecordMismatch> {
    let number = record.number;
    let Some(had) = record.slice.as_deref() else {
        return match expected {
            None => Ok(()),
            Some(sliced) => Err(RecordMismatch::NoSlice {
                number,
                count: sliced.slice.count,
            }),
        };
    };
    let had = Slice::parse(had).map_err(|error| RecordMismatch::BadSlice { number, error })?;
    let Some(expected) = expected else {
        return Err(RecordMismatch::Sliced { number, had });
    };
    if had.count != expected.slice.count {
        return Err(RecordMismatch::SliceCount {
            number,
            had,
            count: expected.slice.count,
        });
    }
    match record.seed {
        Some(seed) if seed == expected.seed => {}
        Some(seed) => {
            return Err(RecordMismatch::Seed {
                number,
                had: seed,
                has: expected.seed,
            });
        }
        None => return Err(RecordMismatch::NoSeed { number, had }),
    }
    if record.match_games != Some(expected.games) {
        return Err(RecordMismatch::Games {
            number,
            had: record.match_games,
            has: expected.games,
        });
    }
    if had != expected.slice {
        return Err(RecordMismatch::OtherSlice {
            number,
            had,
            schedule: expected.slice,
        });
    }
    Ok(())
}

/// Whether the bytes from `at` to the file's end could be a record cut off as it was
/// written: they begin as every record the match writes begins (or are a beginning of
/// that).
fn begins_a_record(file: &mut File, at: u64) -> io::Result<bool> {
    let mut start = [0u8; RECORD_START.len()];
    file.seek(SeekFrom::Start(at))?;
    let mut read = 0;
    while read < start.len() {
        match file.read(&mut start[read..])? {
            0 => break,
            n => read += n,
        }
    }
    Ok(read > 0 && RECORD_START.as_bytes()[..read] == start[..read])
}

/// The length of the file without its last line when that line has no newline (a record
/// cut off as it was written); `None` when the file ends in a newline or is empty. The file
/// is read from anywhere.
fn partial_tail(file: &mut File) -> io::Result<Option<u64>> {
    if ends_in_newline(file)? {
        return Ok(None);
    }
    let length = file.metadata()?.len();
    // Back from the end, a block at a time, to the last newline.
    const BLOCK: u64 = 64 * 1024;
    let mut end = length;
    let mut buffer = vec![0u8; BLOCK as usize];
    while end > 0 {
        let start = end.saturating_sub(BLOCK);
        let block = &mut buffer[..(end - start) as usize];
        file.seek(SeekFrom::Start(start))?;
        file.read_exact(block)?;
        if let Some(at) = block.iter().rposition(|&b| b == b'\n') {
            return Ok(Some(start + at as u64 + 1));
        }
        end = start;
    }
    Ok(Some(0))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn identity(p1: &str, p2: &str, moves: &[&str]) -> Identity {
        Identity {
            game: "kalah pits=4".to_string(),
            p1: p1.to_string(),
            p2: p2.to_string(),
            p1_limits: "depth=2".to_string(),
            p2_limits: "depth=2".to_string(),
            fen: "start".to_string(),
            opening_moves: moves.iter().map(|m| m.to_string()).collect(),
            max_plies: None,
            sliced: None,
        }
    }

    fn line(number: usize, who: &Identity, result: &str) -> String {
        format!(
            r#"{{"number":{number},"game":"{}","p1":"{}","p2":"{}","p1_limits":"{}","p2_limits":"{}","opening":{{"fen":"{}","moves":{:?}}},"max_plies":null,"moves":[],"result":"{result}","termination":"rules"}}"#,
            who.game, who.p1, who.p2, who.p1_limits, who.p2_limits, who.fen, who.opening_moves
        )
    }

    fn scratch(name: &str, text: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("sowfan-resume-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("scratch directory");
        let path = dir.join(name);
        std::fs::write(&path, text).expect("scratch file");
        path
    }

    #[test]
    fn finished_games_are_read_and_a_cut_off_record_is_removed() {
        let schedule = [
            identity("a", "b", &["A"]),
            identity("b", "a", &["A"]),
            identity("a", "b", &["B"]),
        ];
        let whole = format!(
            "{}\n\n{}\n",
            line(3, &schedule[2], "draw"),
            line(1, &schedule[0], "p2win")
        );
        let cut = &line(2, &schedule[1], "p1win")[..40];
        let path = scratch("cut.jsonl", &format!("{whole}{cut}"));
        let games = read(&path, &schedule).expect("a file of this match");
        assert_eq!(
            games,
            vec![
                Finished {
                    index: 2,
                    result: GameResult::Draw,
                    termination: Termination::Rules
                },
                Finished {
                    index: 0,
                    result: GameResult::P2Win,
                    termination: Termination::Rules
                }
            ]
        );
        assert_eq!(std::fs::read_to_string(&path).expect("read"), whole);
        // Read again: the same games, the file unchanged.
        assert_eq!(read(&path, &schedule).expect("again").len(), 2);
        assert_eq!(std::fs::read_to_string(&path).expect("read"), whole);
        // A record of a runner that did not write max_plies does not say: taken as it is.
        let older = line(1, &schedule[0], "draw").replace("\"max_plies\":null,", "");
        let path = scratch("older.jsonl", &format!("{older}\n"));
        assert_eq!(read(&path, &schedule).expect("an older record").len(), 1);
        let missing = path.with_file_name("never-written.jsonl");
        assert_eq!(
            read(&missing, &schedule).map_err(|e| e.to_string()),
            Ok(Vec::new())
        );
    }

    #[test]
    fn records_of_another_match_are_refused_and_the_file_kept() {
        let schedule = [identity("a", "b", &["A"]), identity("b", "a", &["A"])];
        let cases = [
            (
                line(3, &schedule[0], "draw"),
                "not in this match's schedule of 2",
            ),
            (line(0, &schedule[0], "draw"), "has no game number"),
            (line(1, &schedule[1], "draw"), "was b against a"),
            (line(1, &identity("a", "b", &["B"]), "draw"), "--seed"),
            (
                line(1, &identity("a", "b", &["B"]), "draw"),
                "resume with the same build",
            ),
            (
                line(1, &schedule[0], "draw").replace("kalah pits=4", "kalah"),
                "(--game)",
            ),
            (
                line(1, &schedule[0], "draw").replacen("depth=2", "depth=3", 1),
                "gave a 'depth=3'",
            ),
            (line(1, &schedule[0], "won"), "has no result"),
            (
                line(1, &schedule[0], "draw").replace("rules", "resigned"),
                "no termination",
            ),
            (
                format!(
                    "{}\n{}",
                    line(1, &schedule[0], "draw"),
                    line(1, &schedule[0], "draw")
                ),
                "already recorded on line 1",
            ),
            ("garbage".to_string(), "not a match record"),
            (
                line(1, &schedule[0], "draw").replace("\"max_plies\":null", "\"max_plies\":10"),
                "was played with --max-plies 10, this match has no --max-plies",
            ),
            (
                line(1, &schedule[0], "draw").replace("\"max_plies\":null", "\"max_plies\":\"x\""),
                "max_plies is not a whole number",
            ),
        ];
        for (i, (text, expected)) in cases.iter().enumerate() {
            // Without a final newline the last line would count as cut off.
            let text = format!("{text}\n");
            let path = scratch(&format!("bad-{i}.jsonl"), &text);
            let error = read(&path, &schedule).expect_err(expected).to_string();
            assert!(error.contains(expected), "{text}: {error}");
            assert_eq!(std::fs::read_to_string(&path).expect("read"), text);
        }
        // A last line without a newline that no record begins like is not cut off: it is
        // refused, and the file kept (a file of notes, JSON of another kind, junk after
        // the records).
        let whole = format!("{}\n", line(1, &schedule[0], "draw"));
        for tail in [
            "hello world, my notes",
            "[{\"number\":1}]",
            "{\"game\":\"kalah\"}",
            "\u{fffd}x",
        ] {
            for text in [tail.to_string(), format!("{whole}{tail}")] {
                let path = scratch("foreign-tail.jsonl", &text);
                let error = read(&path, &schedule).expect_err(tail).to_string();
                assert!(error.contains("not the start of a record"), "{error}");
                assert_eq!(std::fs::read_to_string(&path).expect("read"), text);
            }
        }
        // A FIFO is refused at once (opening it would wait for a writer for ever).
        let fifo = scratch("fifo.jsonl", "").with_file_name("a-fifo");
        let _ = std::fs::remove_file(&fifo);
        let name = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).expect("path");
        // SAFETY: a valid NUL-terminated path.
        if unsafe { libc::mkfifo(name.as_ptr(), 0o600) } == 0 {
            let error = read(&fifo, &schedule).expect_err("a FIFO").to_string();
            assert!(error.contains("not a regular file"), "{error}");
        }
        // A cut-off last line is not removed when an earlier line is wrong.
        let text = format!("garbage\n{}", &line(1, &schedule[0], "draw")[..30]);
        let path = scratch("bad-then-cut.jsonl", &text);
        assert!(read(&path, &schedule).is_err());
        assert_eq!(std::fs::read_to_string(&path).expect("read"), text);
    }

    #[test]
    fn a_slices_records_name_their_slice_seed_and_length() {
        let sliced = |index, count, seed, games| {
            let mut who = identity("a", "b", &["A"]);
            who.sliced = Some(Sliced {
                slice: Slice { index, count },
                seed,
                games,
            });
            who
        };
        let tagged = |who: &Identity, slice: &str, seed: u64, games: usize| {
            line(1, who, "draw").replacen(
                "{\"number\":1,",
                &format!(
                    "{{\"number\":1,\"slice\":\"{slice}\",\"seed\":{seed},\"match_games\":{games},"
                ),
                1,
            )
        };
        let expected = sliced(1, 4, 7, 16);
        let good = tagged(&expected, "1/4", 7, 16);
        let path = scratch("slice-good.jsonl", &format!("{good}\n"));
        assert_eq!(
            read(&path, std::slice::from_ref(&expected))
                .map(|g| g.len())
                .map_err(|e| e.to_string()),
            Ok(1)
        );
        let plain = identity("a", "b", &["A"]);
        for (text, schedule, wanted) in [
            (good.clone(), plain.clone(), "was played by slice 1/4"),
            (line(1, &plain, "draw"), expected.clone(), "without --slice"),
            (
                tagged(&expected, "1/3", 7, 16),
                expected.clone(),
                "cut in 3 slices",
            ),
            (
                tagged(&expected, "1/4", 8, 16),
                expected.clone(),
                "--seed 8",
            ),
            (
                tagged(&expected, "1/4", 7, 20),
                expected.clone(),
                "20 --games",
            ),
            (
                tagged(&expected, "2/4", 7, 16),
                expected.clone(),
                "gives it to slice 1/4",
            ),
            (
                tagged(&expected, "5/4", 7, 16),
                expected.clone(),
                "out of range",
            ),
            (
                good.replace("\"seed\":7,", ""),
                expected.clone(),
                "has no seed",
            ),
        ] {
            let text = format!("{text}\n");
            let path = scratch("slice-bad.jsonl", &text);
            let error = read(&path, &[schedule]).expect_err(wanted).to_string();
            assert!(error.contains(wanted), "{text}: {error}");
            assert_eq!(std::fs::read_to_string(&path).expect("read"), text);
        }
        // Resuming slice 2/4: a game of slice 1/4 is another slice's.
        let error = read_records(&path, &[expected], Some(Slice { index: 2, count: 4 }))
            .expect_err("another slice")
            .to_string();
        assert!(
            error.contains("is of slice 1/4, this is slice 2/4"),
            "{error}"
        );
    }
}
