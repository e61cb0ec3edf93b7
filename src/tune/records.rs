//! Training positions from `sowfan match --records` files (JSON Lines), read by the
//! records module, as `sowfan analyse` reads them.

use std::fs::File;
use std::io::BufReader;
use std::path::Path;

use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};
use thiserror::Error;

use super::Sample;
use crate::cli::{CancelToken, Interrupted};
use crate::game::Player;
use crate::records::jsonl;
use crate::records::lines::BoundedLines;
use crate::registry;

#[derive(Debug, Error)]
pub enum RecordsError {
    #[error("'{path}': {error}")]
    Io { path: String, error: std::io::Error },
    #[error("'{path}' line {line}: {message}")]
    Bad {
        path: String,
        line: usize,
        message: String,
    },
    #[error(transparent)]
    Interrupted(#[from] Interrupted),
}

/// What to take from the records.
#[derive(Debug, Clone)]
pub struct SampleOptions {
    /// Only games of this game (name, as the first word of the record's `game`).
    pub game: String,
    /// Skip this many plies from the start of each game (the opening, random or not).
    pub skip_plies: usize,
}

/// Counts of what was read, for the report.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SampleStats {
    pub games: usize,
    /// Games of another game, or not ended by the rules (forfeits say nothing of positions).
    pub skipped_games: usize,
    pub positions: usize,
    /// Positions left out because something forcing was pending.
    pub not_quiet: usize,
}

/// The samples kept: all of them, or with a most (`--max-positions`) a seeded uniform
/// random subset drawn as they come (reservoir sampling), so that memory holds no more
/// than that most whatever the records' size.
pub struct SampleSet {
    pub samples: Vec<Sample>,
    most: Option<usize>,
    seen: u64,
    rng: Xoshiro256PlusPlus,
}

impl SampleSet {
    pub fn new(most: Option<usize>, seed: u64) -> SampleSet {
        SampleSet {
            samples: Vec::new(),
            most,
            seen: 0,
            rng: Xoshiro256PlusPlus::seed_from_u64(seed),
        }
    }

    fn offer(&mut self, sample: Sample) {
        self.seen += 1;
        match self.most {
            Some(most) if self.samples.len() >= most => {
                let at = self.rng.random_range(0..self.seen);
                if let Some(slot) = usize::try_from(at)
                    .ok()
                    .and_then(|at| self.samples.get_mut(at))
                {
                    *slot = sample;
                }
            }
            _ => self.samples.push(sample),
        }
    }
}

/// Quiet positions of every game in `path` ended by the rules, labelled with the result for
/// the player to move, in file order. The file is read a line at a time (each at most
/// [`crate::records::lines::MAX_LINE_BYTES`]), each game walked once from its start; the first line that is
/// not a record (too long, not UTF-8, not JSON, a move the rules reject) ends the reading
/// with its line number. `stop` (Ctrl-C) ends it too.
pub fn read_samples(
    path: &Path,
    options: &SampleOptions,
    samples: &mut SampleSet,
    stats: &mut SampleStats,
    stop: &CancelToken,
) -> Result<(), RecordsError> {
    let name = path.display().to_string();
    let io = |error: std::io::Error| RecordsError::Io {
        path: name.clone(),
        error,
    };
    let file = File::open(path).map_err(io)?;
    if file.metadata().map_err(io)?.is_dir() {
        return Err(io(std::io::Error::other("a directory, not a records file")));
    }
    for read in BoundedLines::new(BufReader::new(file)).until(stop.clone()) {
        let (line, text) = read.map_err(io)?;
        let bad = |message: String| RecordsError::Bad {
            path: name.clone(),
            line,
            message,
        };
        let text = text.map_err(|e| bad(e.to_string()))?;
        let Some(record) = jsonl::record_line(&text) else {
            continue;
        };
        let record = record.map_err(|e| bad(e.to_string()))?;
        let same_game = record.game.split_whitespace().next() == Some(options.game.as_str());
        if !same_game || record.termination.as_deref() != Some("rules") {
            stats.skipped_games += 1;
            continue;
        }
        let result = match record.result.as_deref() {
            Some("p1win") => Some(Player::P1),
            Some("p2win") => Some(Player::P2),
            Some("draw") => None,
            other => return Err(bad(format!("unknown result {other:?}"))),
        };
        let mut session =
            registry::create_from_spec(&record.game).map_err(|e| bad(e.to_string()))?;
        session
            .set_position(record.opening.fen.as_deref(), &[])
            .map_err(|e| bad(e.to_string()))?;
        for (ply, mv) in record.all_moves().enumerate() {
            if ply >= options.skip_plies {
                if session.outcome().is_some() {
                    break;
                }
                stats.positions += 1;
                match session.eval_sample() {
                    None => stats.not_quiet += 1,
                    Some(features) => {
                        let label = match result {
                            Some(winner) if winner == session.to_move() => 1.0,
                            Some(_) => 0.0,
                            None => 0.5,
                        };
                        samples.offer(Sample {
                            features,
                            result: label,
                        });
                    }
                }
            }
            session.play_moves(&[mv]).map_err(|e| {
                let e = e.to_string();
                // The session counts from the move given; the message names the game's.
                let e = e.strip_prefix("move 1 ").unwrap_or(&e).to_string();
                bad(format!("move {} {e}", ply + 1))
            })?;
        }
        stats.games += 1;
    }
    if stop.is_cancelled() {
        return Err(Interrupted.into());
    }
    Ok(())
}
