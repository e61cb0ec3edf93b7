//! Training positions from `sowfan match --records` files (JSON Lines), read by the
//! records module, as `sowfan analyse` reads them.

use std::path::Path;

use thiserror::Error;

use super::Sample;
use crate::game::Player;
use crate::records::jsonl;
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
    for (line, read) in jsonl::records(&text) {
        let bad = |message: String| RecordsError::Bad {
            path: name.clone(),
            line,
            message,
        };
        let record = read.map_err(|e| bad(e.to_string()))?;
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
        let all: Vec<&str> = record.all_moves().collect();
        for ply in options.skip_plies..all.len() {
            session
                .set_position(record.opening.fen.as_deref(), &all[..ply])
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
