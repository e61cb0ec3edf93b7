//! Each engine's move in every solved position, judged by the exact values: a fresh game
//! for each position (`newgame`, `position fen …`, `go` with the engine's limit), waits
//! bounded like a match's. An engine that crashes or hangs is restarted for the next
//! position; its failures are counted, not judged.

use std::io::Write;
use std::time::{Duration, Instant};

use thiserror::Error;

use crate::cli::{CancelToken, progress_bar};
use crate::client::process::{EngineProcess, Failure, deadline_after};
use crate::client::spec::EngineSpec;
use crate::client::{is_bestmove, parse_bestmove};
use crate::session::Session;

use super::exact::Solved;
use super::totals::{EngineStats, Judged};

/// How long the engine may take.
#[derive(Debug, Clone, Copy)]
pub struct Timeouts {
    pub ready: Duration,
    /// A search by depth or nodes (movetime searches get their time plus the margin).
    pub search: Duration,
}

/// Why an engine could not be judged.
#[derive(Debug, Error)]
pub enum AskError {
    #[error("engine '{engine}': {}", .failure.message())]
    NotStarted { engine: String, failure: Failure },
    #[error("engine '{name}' failed {failures} positions in a row: given up")]
    GivenUp { name: String, failures: usize },
    #[error("cannot write --out: {0}")]
    Out(std::io::Error),
}

/// Failures in a row after which the engine is given up.
const MAX_FAILURES_IN_A_ROW: usize = 3;

/// Ask `spec` for its move in every position and judge it.
pub fn judge_engine(
    spec: &EngineSpec,
    game_spec: &str,
    session: &mut dyn Session,
    solved: &[Solved],
    timeouts: Timeouts,
    cancel: &CancelToken,
    mut out: Option<&mut std::io::BufWriter<std::fs::File>>,
) -> Result<EngineStats, AskError> {
    let mut engine: Option<EngineProcess> = None;
    let mut stats = EngineStats::new(
        spec.name.clone().unwrap_or_else(|| spec.command_line()),
        spec.limits.describe(),
    );
    let bar = progress_bar(
        solved.len() as u64,
        "asking {msg} {bar:30} {pos}/{len} positions, {elapsed_precise}",
    );
    bar.set_message(stats.name.clone());
    let mut failures_in_a_row = 0;
    for position in solved {
        if cancel.is_cancelled() {
            break;
        }
        if engine.is_none() {
            match EngineProcess::start(spec, timeouts.ready, cancel.clone()) {
                Ok(process) => {
                    if spec.name.is_none()
                        && let Some(id) = &process.id_name
                    {
                        stats.name = id.clone();
                    }
                    engine = Some(process);
                }
                Err(Failure::Cancelled) => break,
                Err(failure) => {
                    return Err(AskError::NotStarted {
                        engine: spec.command_line(),
                        failure,
                    });
                }
            }
        }
        let Some(process) = engine.as_mut() else {
            break;
        };
        match ask(process, spec, game_spec, &position.position.fen, timeouts) {
            Ok(mv) => {
                failures_in_a_row = 0;
                let judged = judge(session, position, &mv);
                if let Some(writer) = out.as_mut() {
                    let line = serde_json::json!({
                        "engine": stats.name,
                        "fen": position.position.fen,
                        "stones": position.position.stones,
                        "move": mv,
                        "best": position.best() as f64 / 2.0,
                        "value": judged.value().map(|v| v as f64 / 2.0),
                        "loss": judged.loss().map(|l| l as f64 / 2.0),
                    });
                    writeln!(writer, "{line}").map_err(AskError::Out)?;
                }
                stats.add(judged);
            }
            Err(Failure::Cancelled) => break,
            Err(failure) => {
                bar.suspend(|| {
                    eprintln!(
                        "sowfan accuracy: {}: {} (at {}); restarting it",
                        stats.name,
                        failure.message(),
                        position.position.fen
                    )
                });
                stats.add(Judged::Failed);
                if let Some(process) = engine.take() {
                    process.quit(Duration::from_millis(200));
                }
                failures_in_a_row += 1;
                if failures_in_a_row >= MAX_FAILURES_IN_A_ROW {
                    bar.finish_and_clear();
                    return Err(AskError::GivenUp {
                        name: stats.name,
                        failures: failures_in_a_row,
                    });
                }
            }
        }
        bar.inc(1);
    }
    bar.finish_and_clear();
    if let Some(process) = engine {
        process.quit(timeouts.ready);
    }
    Ok(stats)
}

/// One position: the engine's `bestmove`.
fn ask(
    engine: &mut EngineProcess,
    spec: &EngineSpec,
    game_spec: &str,
    fen: &str,
    timeouts: Timeouts,
) -> Result<String, Failure> {
    engine.new_game(spec.setup, game_spec, timeouts.ready)?;
    engine.send(&format!("position fen {fen}"))?;
    let limits = &spec.limits;
    let go = format!("go{}", limits.go_words());
    let budget = match limits.movetime {
        Some(t) if limits.depth.is_none() && limits.nodes.is_none() => t
            .saturating_add(spec.timemargin)
            .saturating_add(Duration::from_secs(1)),
        _ => timeouts.search,
    };
    engine.send(&go)?;
    let deadline: Instant = deadline_after(budget);
    while let Some((line, _)) = engine.next_line(deadline)? {
        if is_bestmove(&line) {
            return match parse_bestmove(&line) {
                Some((mv, _)) => Ok(mv.to_string()),
                None => Err(Failure::Crashed(format!(
                    "a malformed bestmove line: {line}"
                ))),
            };
        }
    }
    Err(Failure::Silent(format!(
        "no bestmove within {} ms",
        budget.as_millis()
    )))
}

/// The engine's move against the exact values: the same move text, or else the move of the
/// same resulting position (an engine may write a move in another accepted form).
fn judge(session: &mut dyn Session, position: &Solved, mv: &str) -> Judged {
    let best = position.best();
    let worst = position.worst();
    if let Some(&(_, value)) = position.moves.iter().find(|(m, _)| m == mv) {
        return Judged::Move { value, best, worst };
    }
    let after = |session: &mut dyn Session, m: &str| {
        session
            .set_position(Some(&position.position.fen), &[m])
            .ok()
            .map(|()| session.fen())
    };
    let Some(reached) = after(session, mv) else {
        return Judged::Illegal;
    };
    for (m, value) in &position.moves {
        if after(session, m).as_deref() == Some(reached.as_str()) {
            return Judged::Move {
                value: *value,
                best,
                worst,
            };
        }
    }
    Judged::Illegal
}
