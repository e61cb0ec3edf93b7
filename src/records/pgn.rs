//! A match record as PGN-like text (`sowfan match --pgn`), for PGN viewers and people;
//! `sowfan analyse` reads it back with its own PGN reader.

use super::GameRecord;

fn quoted(text: &str) -> String {
    text.replace('\\', "\\\\").replace('"', "\\\"")
}

/// A field of the record that `sowfan match` always fills.
fn text(field: &Option<String>) -> String {
    field.clone().unwrap_or_default()
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
        ("P1", text(&record.p1)),
        ("P2", text(&record.p2)),
        ("P1Limits", record.p1_limits.clone()),
        ("P2Limits", record.p2_limits.clone()),
        ("Result", record.score.to_string()),
        ("Termination", text(&record.termination)),
        ("Reason", text(&record.reason)),
        ("Opening", record.opening.source.clone()),
        ("FEN", text(&record.opening.fen)),
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
