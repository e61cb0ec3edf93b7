//! Game records: one self-contained JSON object a line (JSON Lines), and the same games as
//! PGN-like text. Both are written as each game ends, so a stopped match keeps its games.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use serde::Serialize;

/// One move as played: who, what, how long, and what the engine said about it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MoveRecord {
    #[serde(rename = "move")]
    pub mv: String,
    /// `p1` or `p2`.
    pub by: &'static str,
    /// Thinking time: from sending `go` to receiving `bestmove`.
    pub ms: u64,
    /// The mover's clock after the move (increment included), under `tc=` only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clock_ms: Option<i64>,
    /// The last `info … depth` before `bestmove`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub depth: Option<u32>,
    /// The last `info … score`, as the engine wrote it (`cp 35`, `mate 3`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub score: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OpeningRecord {
    /// `startpos`, `random`, or `file line N`.
    pub source: String,
    /// The position string the game started from (the game's start position unless the
    /// opening gave one).
    pub fen: String,
    /// Opening moves from `fen`, played by the runner, not by the engines.
    pub moves: Vec<String>,
}

/// Everything about one finished game.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GameRecord {
    /// Number in the schedule, from 1.
    pub number: usize,
    /// Opening pair number, from 1: games of the same round and pairing share the opening.
    pub round: usize,
    /// The game and its non-default options, as after `newgame`.
    pub game: String,
    pub p1: String,
    pub p2: String,
    /// The search limits each engine was given (`depth=6`, `tc=10+0.1`).
    pub p1_limits: String,
    pub p2_limits: String,
    pub opening: OpeningRecord,
    pub moves: Vec<MoveRecord>,
    /// `p1win`, `p2win` or `draw`.
    pub result: &'static str,
    /// The same in PGN style: `1-0`, `0-1`, `1/2-1/2` (P1 first).
    pub score: &'static str,
    /// `rules`, `illegal-move`, `malformed-move`, `time-forfeit`, `crash`, `unresponsive`,
    /// `adjudication`.
    pub termination: &'static str,
    pub reason: String,
    /// The final game points of P1 and P2 by the rules (stores, captures), when the rules
    /// ended the game.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub points: Option<[String; 2]>,
    pub final_fen: String,
    /// Wall time of the whole game.
    pub duration_ms: u64,
}

/// Where records go; each game is flushed as soon as it is written.
pub struct RecordWriter {
    jsonl: Option<BufWriter<File>>,
    pgn: Option<BufWriter<File>>,
}

impl RecordWriter {
    pub fn create(jsonl: Option<&Path>, pgn: Option<&Path>) -> Result<RecordWriter, String> {
        let open = |path: &Path| {
            File::create(path)
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
            let line = serde_json::to_string(record).map_err(|e| e.to_string())?;
            writeln!(out, "{line}")
                .and_then(|_| out.flush())
                .map_err(|e| format!("cannot write the records file: {e}"))?;
        }
        if let Some(out) = self.pgn.as_mut() {
            write!(out, "{}", pgn_text(record))
                .and_then(|_| out.flush())
                .map_err(|e| format!("cannot write the PGN file: {e}"))?;
        }
        Ok(())
    }
}

fn quoted(text: &str) -> String {
    text.replace('\\', "\\\\").replace('"', "\\\"")
}

/// A PGN-like rendering: tag pairs, then the opening in a comment and each move followed by
/// `{time, depth, score}`. Moves are not numbered, since a side may move several times in a
/// row; `p1`/`p2` tags say who is who.
pub fn pgn_text(record: &GameRecord) -> String {
    let mut tags = vec![
        ("Event", "sowfan match".to_string()),
        ("Round", record.round.to_string()),
        ("Number", record.number.to_string()),
        ("Game", record.game.clone()),
        ("P1", record.p1.clone()),
        ("P2", record.p2.clone()),
        ("P1Limits", record.p1_limits.clone()),
        ("P2Limits", record.p2_limits.clone()),
        ("Result", record.score.to_string()),
        ("Termination", record.termination.to_string()),
        ("Reason", record.reason.clone()),
        ("Opening", record.opening.source.clone()),
        ("FEN", record.opening.fen.clone()),
    ];
    if let Some(points) = &record.points {
        tags.push(("Points", format!("{} {}", points[0], points[1])));
    }
    let mut text = String::new();
    for (name, value) in tags {
        text.push_str(&format!("[{name} \"{}\"]\n", quoted(&value)));
    }
    text.push('\n');
    let mut words = Vec::new();
    if !record.opening.moves.is_empty() {
        words.push(format!("{{opening: {}}}", record.opening.moves.join(" ")));
    }
    for mv in &record.moves {
        let mut notes = vec![format!("{} ms", mv.ms)];
        if let Some(depth) = mv.depth {
            notes.push(format!("depth {depth}"));
        }
        if let Some(score) = &mv.score {
            notes.push(score.clone());
        }
        words.push(format!("{} {{{}}}", mv.mv, notes.join(", ")));
    }
    words.push(record.score.to_string());
    // Lines of at most about 80 characters, as PGN readers like.
    let mut line = String::new();
    for word in words {
        if !line.is_empty() && line.len() + word.len() >= 80 {
            text.push_str(&line);
            text.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&word);
    }
    text.push_str(&line);
    text.push_str("\n\n");
    text
}
