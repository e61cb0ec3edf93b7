//! The exact value of every legal move of each position, proven by the solver, and the
//! cache file that keeps them: one JSON line a position,
//! `{"game":"kalah","fen":"…","half_points":{"A":8,"B":-2,…}}` (each move's value for the
//! mover, in half-points). Lines are added as proofs end, so a stopped run loses at most
//! the position it was proving; a damaged line (a run killed mid-write) is skipped.

use std::collections::{BTreeMap, HashMap};
use std::fs::{File, OpenOptions};
use std::io::{BufReader, Write};
use std::path::{Path, PathBuf};

use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::cli::CancelToken;
use crate::cli::progress_bar;
use crate::records::lines::{BoundedLines, ends_in_newline};
use crate::session::SolvingError;
use crate::session::{PositionCommandError, Session, SolveRequest};
use crate::solver::tt::SolverTt;

use super::positions::Position;

/// One cache line.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct CacheLine {
    game: String,
    fen: String,
    half_points: BTreeMap<String, i32>,
}

/// Why the exact values could not be had: the cache file, or a proof.
#[derive(Debug, Error)]
pub enum ExactError {
    #[error("cannot read '{}': {error}", path.display())]
    Read {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error("cannot write '{}': {error}", path.display())]
    Write {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error("position '{fen}': {error}")]
    Position {
        fen: String,
        error: PositionCommandError,
    },
    /// A cache line that cannot be written as JSON.
    #[error(transparent)]
    Line(#[from] serde_json::Error),
    /// The solver failed.
    #[error(transparent)]
    Solve(#[from] SolvingError),
}

/// Why a cache line's values cannot be the exact values of its position.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
enum DamagedValues {
    #[error("'{0}' is not a legal move there")]
    NotLegal(String),
    #[error("the legal move '{0}' has no value")]
    NoValue(String),
    #[error("move '{mv}' has the value {value}, which no game from there can end with")]
    Impossible { mv: String, value: i32 },
}

/// A solved position: every legal move with its exact value (half-points, the mover's).
#[derive(Debug, Clone)]
pub struct Solved {
    pub position: Position,
    pub moves: Vec<(String, i32)>,
}

impl Solved {
    /// The value of the position: its best move's.
    pub fn best(&self) -> i32 {
        self.moves.iter().map(|&(_, v)| v).max().unwrap_or(0)
    }

    /// The worst move's value.
    pub fn worst(&self) -> i32 {
        self.moves.iter().map(|&(_, v)| v).min().unwrap_or(0)
    }
}

/// The proven values, from the cache and new proofs.
pub struct ExactValues {
    spec: String,
    known: HashMap<String, BTreeMap<String, i32>>,
    cache: Option<(PathBuf, File)>,
}

impl ExactValues {
    /// Read the cache (if it exists) for `spec`'s positions, and open it for adding.
    pub fn open(path: Option<&Path>, spec: &str) -> Result<ExactValues, ExactError> {
        let mut known = HashMap::new();
        let Some(path) = path else {
            return Ok(ExactValues {
                spec: spec.to_string(),
                known,
                cache: None,
            });
        };
        let unreadable = |error| ExactError::Read {
            path: path.to_path_buf(),
            error,
        };
        let unwritable = |error| ExactError::Write {
            path: path.to_path_buf(),
            error,
        };
        let mut damaged = 0usize;
        if path.exists() {
            let file = File::open(path).map_err(unreadable)?;
            for line in BoundedLines::new(BufReader::new(file)) {
                let (_, text) = line.map_err(unreadable)?;
                let parsed = text
                    .ok()
                    .and_then(|t| serde_json::from_str::<CacheLine>(&t).ok());
                match parsed {
                    Some(entry) if entry.game == spec && !entry.half_points.is_empty() => {
                        known.insert(entry.fen, entry.half_points);
                    }
                    Some(_) => {}
                    None => damaged += 1,
                }
            }
        }
        if damaged > 0 {
            eprintln!(
                "sowfan accuracy: '{}': {damaged} damaged lines skipped",
                path.display()
            );
        }
        let mut file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(unwritable)?;
        // A line cut off as it was written (a run killed mid-write) is ended here, so that
        // the next proof is a line of its own, not glued to it and lost with it.
        let ended = File::open(path).and_then(|mut file| ends_in_newline(&mut file));
        if !ended.map_err(unreadable)? {
            file.write_all(b"\n").map_err(unwritable)?;
        }
        Ok(ExactValues {
            spec: spec.to_string(),
            known,
            cache: Some((path.to_path_buf(), file)),
        })
    }

    /// Every position's move values: from the cache, or proven now (at most `limit` each:
    /// a position not proven by then is left out, with a warning). Stops early when
    /// `stop` is set.
    pub fn solve_all(
        &mut self,
        session: &mut dyn Session,
        positions: &[Position],
        tt: &SolverTt,
        threads: usize,
        limit: Duration,
        stop: &CancelToken,
    ) -> Result<Vec<Solved>, ExactError> {
        // A cache line is a file's word: checked against its position before use; a damaged
        // one is dropped, and its position proven again with the others.
        for position in positions {
            let fen = &position.fen;
            if let Some(values) = self.known.get(fen) {
                session
                    .set_position(Some(fen), &[])
                    .map_err(|error| ExactError::Position {
                        fen: fen.clone(),
                        error,
                    })?;
                if let Err(why) = check_values(session, values) {
                    eprintln!(
                        "sowfan accuracy: warning: a damaged line of the cache skipped (it is \
                         proven again): {fen}: {why}"
                    );
                    self.known.remove(fen);
                }
            }
        }
        let todo = positions
            .iter()
            .filter(|p| !self.known.contains_key(&p.fen))
            .count();
        let bar = progress_bar(
            todo as u64,
            "solving {bar:30} {pos}/{len} positions, {elapsed_precise} (eta {eta})",
        );
        let mut solved = Vec::new();
        let mut given_up = 0usize;
        for position in positions {
            let fen = &position.fen;
            if stop.is_cancelled() {
                break;
            }
            if !self.known.contains_key(fen) {
                session
                    .set_position(Some(fen), &[])
                    .map_err(|error| ExactError::Position {
                        fen: fen.clone(),
                        error,
                    })?;
                match prove(session, tt, threads, limit, stop)? {
                    Some(values) => {
                        self.add(fen, values)?;
                    }
                    None => {
                        if !stop.is_cancelled() {
                            given_up += 1;
                            bar.suspend(|| {
                                eprintln!(
                                    "sowfan accuracy: not proven within {} s, left out: {fen}",
                                    limit.as_secs()
                                )
                            });
                        }
                    }
                }
                bar.inc(1);
            }
            if let Some(values) = self.known.get(fen) {
                solved.push(Solved {
                    position: position.clone(),
                    moves: values.iter().map(|(m, &v)| (m.clone(), v)).collect(),
                });
            }
        }
        bar.finish_and_clear();
        if given_up > 0 {
            eprintln!("sowfan accuracy: {given_up} positions left out (not proven in time)");
        }
        Ok(solved)
    }

    fn add(&mut self, fen: &str, values: BTreeMap<String, i32>) -> Result<(), ExactError> {
        if let Some((path, file)) = &mut self.cache {
            let line = CacheLine {
                game: self.spec.clone(),
                fen: fen.to_string(),
                half_points: values.clone(),
            };
            let text = serde_json::to_string(&line)?;
            writeln!(file, "{text}")
                .and_then(|()| file.flush())
                .map_err(|error| ExactError::Write {
                    path: path.clone(),
                    error,
                })?;
        }
        self.known.insert(fen.to_string(), values);
        Ok(())
    }
}

/// Whether `values` can be the exact values of the session's position: every legal move and
/// nothing else, each value one a game can end with after its move
/// ([`Session::possible_move_value`]).
fn check_values(
    session: &dyn Session,
    values: &BTreeMap<String, i32>,
) -> Result<(), DamagedValues> {
    let legal = session.legal_moves();
    if let Some(mv) = values.keys().find(|mv| !legal.contains(mv)) {
        return Err(DamagedValues::NotLegal(mv.clone()));
    }
    if let Some(mv) = legal.iter().find(|mv| !values.contains_key(*mv)) {
        return Err(DamagedValues::NoValue(mv.clone()));
    }
    match values
        .iter()
        .find(|&(mv, &v)| !session.possible_move_value(mv, v))
    {
        Some((mv, &value)) => Err(DamagedValues::Impossible {
            mv: mv.clone(),
            value,
        }),
        None => Ok(()),
    }
}

/// Every legal move's exact value in the session's position, or `None` when not proven
/// within `limit` (or stopped).
fn prove(
    session: &dyn Session,
    tt: &SolverTt,
    threads: usize,
    limit: Duration,
    stop: &CancelToken,
) -> Result<Option<BTreeMap<String, i32>>, ExactError> {
    let request = SolveRequest {
        threads,
        all_moves: true,
        pv: false,
        resume: None,
        resume_optional: false,
        save: None,
        checkpoint: Duration::from_secs(600),
        part: None,
        deadline: Some(Instant::now() + limit),
        node_limit: None,
    };
    let report = session
        .solve(&request, tt, stop.flag(), &|_| {})
        .map_err(ExactError::Solve)?;
    // Every move proven, or the position is left out.
    let values: Option<BTreeMap<String, i32>> = report
        .moves
        .into_iter()
        .map(|(mv, value)| value.map(|v| (mv, v)))
        .collect();
    Ok(values.filter(|v| !v.is_empty()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cut_off_cache_line_does_not_swallow_the_next_proof() {
        let dir = std::env::temp_dir().join(format!("sowfan-exact-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("scratch directory");
        let path = dir.join("cache.jsonl");
        let whole = r#"{"game":"kalah","fen":"A","half_points":{"a":2}}"#;
        std::fs::write(&path, format!("{whole}\n{}", &whole[..20])).expect("scratch file");
        let mut exact = ExactValues::open(Some(&path), "kalah").expect("a cache");
        assert_eq!(exact.known.len(), 1);
        exact
            .add("B", BTreeMap::from([("b".to_string(), 4)]))
            .expect("added");
        drop(exact);
        let exact = ExactValues::open(Some(&path), "kalah").expect("read again");
        assert_eq!(
            exact.known.get("B"),
            Some(&BTreeMap::from([("b".to_string(), 4)]))
        );
    }
}
