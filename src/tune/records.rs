//! Training positions from `sowfan match --records` files (JSON Lines).

use std::path::Path;

use serde::Deserialize;
use thiserror::Error;

use super::Sample;
use crate::game::Player;
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
}

#[derive(Deserialize)]
struct Opening {
    fen: String,
    moves: Vec<String>,
}

#[derive(Deserialize)]
struct Move {
    #[serde(rename = "move")]
    mv: String,
}

/// The part of a match record the tuner reads.
#[derive(Deserialize)]
struct Record {
    game: String,
    opening: Opening,
    moves: Vec<Move>,
    result: String,
    termination: String,
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

/// Quiet positions of every game in `path` ended by the rules, labelled with the result for
/// the player to move, in file order.
pub fn read_samples(
    path: &Path,
    options: &SampleOptions,
    samples: &mut Vec<Sample>,
    stats: &mut SampleStats,
) -> Result<(), RecordsError> {
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|error| RecordsError::Io {
        path: name.clone(),
        error,
    })?;
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let bad = |message: String| RecordsError::Bad {
            path: name.clone(),
            line: i + 1,
            message,
        };
        let record: Record =
            serde_json::from_str(line).map_err(|e| bad(format!("not a match record: {e}")))?;
        let same_game = record.game.split_whitespace().next() == Some(options.game.as_str());
        if !same_game || record.termination != "rules" {
            stats.skipped_games += 1;
            continue;
        }
        let result = match record.result.as_str() {
            "p1win" => Some(Player::P1),
            "p2win" => Some(Player::P2),
            "draw" => None,
            other => return Err(bad(format!("unknown result '{other}'"))),
        };
        let mut session =
            registry::create_from_spec(&record.game).map_err(|e| bad(e.to_string()))?;
        let all: Vec<&str> = record
            .opening
            .moves
            .iter()
            .map(String::as_str)
            .chain(record.moves.iter().map(|m| m.mv.as_str()))
            .collect();
        for ply in 0..all.len() {
            if ply < options.skip_plies {
                continue;
            }
            session
                .set_position(Some(&record.opening.fen), &all[..ply])
                .map_err(|e| bad(e.to_string()))?;
            if session.outcome().is_some() {
                break;
            }
            stats.positions += 1;
            let Some(features) = session.eval_sample() else {
                stats.not_quiet += 1;
                continue;
            };
            let label = match result {
                Some(winner) if winner == session.to_move() => 1.0,
                Some(_) => 0.0,
                None => 0.5,
            };
            samples.push(Sample {
                features: features.into_iter().map(f64::from).collect(),
                result: label,
            });
        }
        stats.games += 1;
    }
    Ok(())
}
