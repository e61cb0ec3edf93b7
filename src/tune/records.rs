//! Training positions from `sowfan match --records` files (JSON Lines), read by the
//! same parser as `sowfan analyse`.

use std::path::Path;

use thiserror::Error;

use super::Sample;
use crate::analysis::input::{Format, Parser};
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
    let mut parser = Parser::new(&options.game);
    for (i, line) in text.lines().enumerate() {
        for parsed in parser.line(line) {
            let bad = |message: String| RecordsError::Bad {
                path: name.clone(),
                line: i + 1,
                message,
            };
            let game = parsed.map_err(|e| bad(e.error.to_string()))?;
            if game.format != Format::Records {
                return Err(bad(format!(
                    "not a match record ({})",
                    game.format.as_str()
                )));
            }
            let same_game = game.spec.split_whitespace().next() == Some(options.game.as_str());
            if !same_game || game.termination.as_deref() != Some("rules") {
                stats.skipped_games += 1;
                continue;
            }
            let result = match game.result.as_deref() {
                Some("p1win") => Some(Player::P1),
                Some("p2win") => Some(Player::P2),
                Some("draw") => None,
                other => return Err(bad(format!("unknown result {other:?}"))),
            };
            let mut session =
                registry::create_from_spec(&game.spec).map_err(|e| bad(e.to_string()))?;
            let all: Vec<&str> = game.moves.iter().map(String::as_str).collect();
            for ply in options.skip_plies..all.len() {
                session
                    .set_position(game.fen.as_deref(), &all[..ply])
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
    }
    // A block still open at the end (PGN, fixture) is not a record either.
    if parser.finish().into_iter().next().is_some() {
        return Err(RecordsError::Bad {
            path: name,
            line: text.lines().count(),
            message: "not a match record".to_string(),
        });
    }
    Ok(())
}
