//! The positions to judge: every position before a move of recorded games (or listed
//! position strings), in input order, distinct, with the stones in play asked for and a
//! choice (a position with one legal move says nothing of the engine).

use std::collections::HashSet;
use std::fmt;
use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use thiserror::Error;

use crate::records::RecordError;
use crate::records::jsonl::read_record;
use crate::records::lines::{BoundedLines, LineError};
use crate::registry::{self, RegistryError};
use crate::session::{PositionCommandError, Session};

/// `MIN-MAX` (or one number) stones in play, both ends included.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StoneRange {
    pub min: u32,
    pub max: u32,
}

impl StoneRange {
    pub fn contains(&self, stones: u32) -> bool {
        (self.min..=self.max).contains(&stones)
    }
}

impl fmt::Display for StoneRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}", self.min, self.max)
    }
}

/// Why `--stones` is not a range (the text as given, then why).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum StoneRangeError {
    #[error("'{0}': give MIN-MAX stones in play (e.g. 25-48) or one number")]
    NotANumber(String),
    #[error("'{0}': the smaller number comes first")]
    Reversed(String),
}

impl FromStr for StoneRange {
    type Err = StoneRangeError;

    fn from_str(text: &str) -> Result<StoneRange, StoneRangeError> {
        let number = |t: &str| {
            t.trim()
                .parse::<u32>()
                .map_err(|_| StoneRangeError::NotANumber(text.to_string()))
        };
        let (min, max) = match text.split_once('-') {
            Some((a, b)) => (number(a)?, number(b)?),
            None => {
                let n = number(text)?;
                (n, n)
            }
        };
        if min > max {
            return Err(StoneRangeError::Reversed(text.to_string()));
        }
        Ok(StoneRange { min, max })
    }
}

/// Which positions to take.
pub struct Selection {
    pub stones: Option<StoneRange>,
    /// At most this many.
    pub limit: usize,
}

/// One position picked: its string and its stones in play.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Position {
    pub fen: String,
    pub stones: Option<u32>,
}

/// The positions picked, all of one game.
pub struct Picked {
    /// The game spec (as after `newgame`).
    pub spec: String,
    /// Distinct, in input order.
    pub positions: Vec<Position>,
    /// Games and position lines read.
    pub games: usize,
    pub lines: usize,
}

/// Why the input gives no positions to judge.
#[derive(Debug, Error)]
pub enum PositionsError {
    #[error("cannot read '{}': {error}", path.display())]
    Read {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error("positions of two games: '{first}' and '{second}'; judge one game at a time")]
    TwoGames { first: String, second: String },
}

/// Why one line of the input gives no positions: it is skipped with a warning.
#[derive(Debug, Error)]
enum LineProblem {
    #[error(transparent)]
    Unreadable(#[from] LineError),
    #[error(transparent)]
    Record(#[from] RecordError),
    #[error(transparent)]
    Game(#[from] RegistryError),
    #[error("the opening: {0}")]
    Opening(PositionCommandError),
    #[error("move '{mv}': {error}")]
    Move {
        mv: String,
        error: PositionCommandError,
    },
    /// A position string the game refuses.
    #[error("{0}")]
    Position(PositionCommandError),
    #[error("the game is over there")]
    Over,
}

/// Why a line gave no position: the run cannot go on (positions of two games), or the
/// line alone is skipped.
enum Problem {
    Mixed(PositionsError),
    Line(LineProblem),
}

impl<E: Into<LineProblem>> From<E> for Problem {
    fn from(why: E) -> Problem {
        Problem::Line(why.into())
    }
}

/// The input's lines that could not be used are skipped with a warning (at most this many
/// warnings are printed).
const MAX_WARNINGS: usize = 10;

/// Read `path`: JSON records (a line starting with `{`) or position strings (optionally
/// after `fen `) of `default_game`.
pub fn read(
    path: &Path,
    default_game: &dyn Session,
    selection: &Selection,
) -> Result<Picked, PositionsError> {
    let unreadable = |error| PositionsError::Read {
        path: path.to_path_buf(),
        error,
    };
    let file = File::open(path).map_err(unreadable)?;
    let mut picked = Picked {
        spec: String::new(),
        positions: Vec::new(),
        games: 0,
        lines: 0,
    };
    let mut seen: HashSet<String> = HashSet::new();
    let mut warnings = 0;
    let mut warn = |number: usize, why: LineProblem| {
        warnings += 1;
        if warnings <= MAX_WARNINGS {
            eprintln!("sowfan accuracy: {}: line {number}: {why}", path.display());
        }
    };
    for line in BoundedLines::new(BufReader::new(file)) {
        let (number, text) = line.map_err(unreadable)?;
        let text = match text {
            Ok(text) => text,
            Err(e) => {
                warn(number, e.into());
                continue;
            }
        };
        let text = text.trim();
        if text.is_empty() || text.starts_with('#') {
            continue;
        }
        let walked = if text.starts_with('{') {
            picked.games += 1;
            walk_record(text, &mut |session| {
                take(&mut picked, &mut seen, selection, session)
            })
        } else {
            picked.lines += 1;
            let fen = text.strip_prefix("fen ").unwrap_or(text).trim();
            let mut session = default_game.clone_box();
            match session.set_position(Some(fen), &[]) {
                Ok(()) if session.outcome().is_some() => Err(Problem::Line(LineProblem::Over)),
                Ok(()) => take(&mut picked, &mut seen, selection, session.as_ref()),
                Err(e) => Err(Problem::Line(LineProblem::Position(e))),
            }
        };
        match walked {
            Ok(()) => {}
            Err(Problem::Mixed(why)) => return Err(why),
            Err(Problem::Line(why)) => warn(number, why),
        }
        if picked.positions.len() >= selection.limit {
            break;
        }
    }
    if warnings > MAX_WARNINGS {
        eprintln!(
            "sowfan accuracy: {}: {} more lines skipped",
            path.display(),
            warnings - MAX_WARNINGS
        );
    }
    Ok(picked)
}

/// In the range of stones, and with a choice to judge (two legal moves or more).
fn in_range(session: &dyn Session, selection: &Selection) -> bool {
    if session.legal_moves().len() < 2 {
        return false;
    }
    match (selection.stones, session.stones_in_play()) {
        (None, _) => true,
        (Some(range), Some(stones)) => range.contains(stones),
        (Some(_), None) => false,
    }
}

/// Keep the session's position if it is in range (all of one game; distinct; up to the
/// limit).
fn take(
    picked: &mut Picked,
    seen: &mut HashSet<String>,
    selection: &Selection,
    session: &dyn Session,
) -> Result<(), Problem> {
    if !in_range(session, selection) {
        return Ok(());
    }
    let spec = session.spec();
    if picked.spec.is_empty() {
        picked.spec = spec;
    } else if picked.spec != spec {
        return Err(Problem::Mixed(PositionsError::TwoGames {
            first: picked.spec.clone(),
            second: spec,
        }));
    }
    let fen = session.fen();
    if picked.positions.len() < selection.limit && seen.insert(fen.clone()) {
        picked.positions.push(Position {
            fen,
            stones: session.stones_in_play(),
        });
    }
    Ok(())
}

/// Every position of one record before each move, to `keep`.
fn walk_record(
    text: &str,
    keep: &mut dyn FnMut(&dyn Session) -> Result<(), Problem>,
) -> Result<(), Problem> {
    let record = read_record(text)?;
    let mut session = registry::create_from_spec(&record.game)?;
    let opening: Vec<&str> = record.opening.moves.iter().map(String::as_str).collect();
    session
        .set_position(record.opening.fen.as_deref(), &opening)
        .map_err(|e| Problem::Line(LineProblem::Opening(e)))?;
    for mv in &record.moves {
        if session.outcome().is_some() {
            break;
        }
        keep(session.as_ref())?;
        session.play_moves(&[mv.mv.as_str()]).map_err(|error| {
            Problem::Line(LineProblem::Move {
                mv: mv.mv.clone(),
                error,
            })
        })?;
    }
    Ok(())
}
