//! A match record as one line of JSON (`sowfan match --records`), written and read through
//! the serde derives of [`GameRecord`].
//!
//! Reading is tolerant of what a reader need not know, and exact about what it must: a
//! record needs `game` (a string) and `moves` (a list of moves: `{"move": …}` objects or
//! plain strings); `opening`, its `fen` and `moves`, `p1`, `p2`, `result`, `reason` and
//! `termination` may be missing or null but not of another type; every other field may
//! be anything. A record with several faults is reported by the first in that order
//! (`CHECKED`), each in words that name the field.

use serde::de::value::MapDeserializer;
use serde::de::{DeserializeOwned, Error as _};
use serde::{Deserialize, Deserializer};
use serde_json::Value;
use thiserror::Error;

use super::{GameRecord, MoveRecord, OpeningRecord, RecordError};

/// How every line `line` writes begins: its first field is the game's number (the
/// order of [`GameRecord`]'s fields). `match --resume` removes a last line cut off as it
/// was written only when it begins so.
pub const RECORD_START: &str = "{\"number\":";

/// The record as one line of JSON (no newline).
pub fn line(record: &GameRecord) -> Result<String, serde_json::Error> {
    serde_json::to_string(record)
}

/// The fields whose faults a reader is told, in the order it looks at them: only the
/// first fault of a record is reported.
const CHECKED: [&str; 8] = [
    "game",
    "opening",
    "moves",
    "p1",
    "p2",
    "result",
    "reason",
    "termination",
];

/// One record from its line of JSON.
pub fn read_record(text: &str) -> Result<GameRecord, RecordError> {
    let value: Value = serde_json::from_str(text).map_err(|e| RecordError::Json(e.to_string()))?;
    let Value::Object(mut fields) = value else {
        return Err(RecordError::Field(not_a("line", "an object").to_string()));
    };
    // serde visits the fields in the order given; they are given in the order of CHECKED
    // (a JSON object has none of its own here), so that the first fault is CHECKED's first.
    let mut ordered: Vec<(String, Value)> = Vec::with_capacity(fields.len() + 1);
    for key in CHECKED {
        match fields.remove(key) {
            Some(value) => ordered.push((key.to_string(), value)),
            // A missing game is told as a null one is, before anything else.
            None if key == "game" => ordered.push((key.to_string(), Value::Null)),
            // Missing moves are told after the faults of the fields before them, before
            // those of the fields after them (which are not looked at).
            None if key == "moves" => {
                deserialize(ordered)?;
                return Err(RecordError::Field(missing("'moves'").to_string()));
            }
            None => {}
        }
    }
    ordered.extend(fields);
    deserialize(ordered)
}

fn deserialize(fields: Vec<(String, Value)>) -> Result<GameRecord, RecordError> {
    let fields = MapDeserializer::<_, serde_json::Error>::new(fields.into_iter());
    GameRecord::deserialize(fields).map_err(|e| RecordError::Field(e.to_string()))
}

/// The records of a records file, each with its line number (from 1): blank lines and `#`
/// comments are skipped, and any other line that is not a JSON object is
/// [`RecordError::NotARecord`].
pub fn records(text: &str) -> impl Iterator<Item = (usize, Result<GameRecord, RecordError>)> {
    text.lines()
        .enumerate()
        .filter_map(|(index, raw)| Some((index + 1, record_line(raw)?)))
}

/// One line of a records file: `None` for a blank line or a `#` comment, else its record,
/// or [`RecordError::NotARecord`] when it is not a JSON object.
pub fn record_line(line: &str) -> Option<Result<GameRecord, RecordError>> {
    let line = line.trim();
    if line.is_empty() || line.starts_with('#') {
        return None;
    }
    Some(if line.starts_with('{') {
        read_record(line)
    } else {
        Err(RecordError::NotARecord)
    })
}

/// What is wrong with one field of a record: told to serde, whose message
/// [`RecordError::Field`] then carries.
#[derive(Debug, Error)]
enum FieldFault {
    #[error("the record has no {0}")]
    Missing(&'static str),
    #[error("the record's {field} is not {expected}")]
    NotA {
        field: &'static str,
        expected: &'static str,
    },
}

fn missing(field: &'static str) -> FieldFault {
    FieldFault::Missing(field)
}

fn not_a(field: &'static str, expected: &'static str) -> FieldFault {
    FieldFault::NotA { field, expected }
}

/// A field nobody needs to read back: anything not of its type is taken as its default.
pub(super) fn lenient<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: DeserializeOwned + Default,
{
    let value = Value::deserialize(deserializer)?;
    Ok(T::deserialize(value).unwrap_or_default())
}

/// `max_plies`: a whole number, or null (no limit); a record without it does not say.
pub(super) fn max_plies<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<Option<usize>>, D::Error> {
    match Value::deserialize(deserializer)? {
        Value::Null => Ok(Some(None)),
        Value::Number(n) => match n.as_u64().and_then(|n| usize::try_from(n).ok()) {
            Some(n) => Ok(Some(Some(n))),
            None => Err(D::Error::custom(not_a(
                "max_plies",
                "a whole number or null",
            ))),
        },
        _ => Err(D::Error::custom(not_a(
            "max_plies",
            "a whole number or null",
        ))),
    }
}

/// A string, or nothing (null).
fn optional_text<'de, D: Deserializer<'de>>(
    deserializer: D,
    field: &'static str,
) -> Result<Option<String>, D::Error> {
    match Value::deserialize(deserializer)? {
        Value::Null => Ok(None),
        Value::String(text) => Ok(Some(text)),
        _ => Err(D::Error::custom(not_a(field, "a string"))),
    }
}

/// The `deserialize_with` of an optional string field, named in its faults.
macro_rules! optional_text_field {
    ($($name:ident: $field:literal),*) => {$(
        pub(super) fn $name<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
            optional_text(d, $field)
        }
    )*};
}

optional_text_field!(
    p1: "p1",
    p2: "p2",
    result: "result",
    reason: "reason",
    termination: "termination",
    opening_fen: "opening.fen"
);

pub(super) fn game<'de, D: Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    optional_text(deserializer, "game")?.ok_or_else(|| D::Error::custom(missing("'game'")))
}

pub(super) fn opening<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<OpeningRecord, D::Error> {
    match Value::deserialize(deserializer)? {
        Value::Null => Ok(OpeningRecord::default()),
        // Its fields come in name order (fen, moves, source): the order of their faults.
        object @ Value::Object(_) => OpeningRecord::deserialize(object).map_err(D::Error::custom),
        _ => Err(D::Error::custom(not_a("opening", "an object"))),
    }
}

pub(super) fn opening_moves<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Vec<String>, D::Error> {
    let moves = move_list(Value::deserialize(deserializer)?, "opening.moves");
    Ok(moves
        .map_err(D::Error::custom)?
        .into_iter()
        .map(|m| m.mv)
        .collect())
}

pub(super) fn moves<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Vec<MoveRecord>, D::Error> {
    move_list(Value::deserialize(deserializer)?, "moves").map_err(D::Error::custom)
}

/// A list of moves: each a [`MoveRecord`] object (`move`, or `mv`), or the move's string.
fn move_list(value: Value, field: &'static str) -> Result<Vec<MoveRecord>, FieldFault> {
    let Value::Array(items) = value else {
        return Err(not_a(field, "a list"));
    };
    let fault = || not_a(field, "a list of moves ({\"move\": …} or strings)");
    items
        .into_iter()
        .map(|item| match item {
            Value::String(mv) => Ok(MoveRecord {
                mv,
                ..MoveRecord::default()
            }),
            Value::Object(mut object) => {
                // `move` wins over its old name `mv` when a move has both.
                if object.contains_key("move") {
                    object.remove("mv");
                }
                MoveRecord::deserialize(Value::Object(object)).map_err(|_| fault())
            }
            _ => Err(fault()),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_written_record_begins_as_resume_expects() {
        let record: GameRecord =
            read_record(r#"{"game":"kalah","moves":["C"]}"#).expect("a record");
        assert!(line(&record).expect("a line").starts_with(RECORD_START));
    }

    fn record() -> GameRecord {
        GameRecord {
            number: 3,
            round: 2,
            slice: None,
            seed: None,
            match_games: None,
            game: "kalah pits=4".to_string(),
            p1: Some("a".to_string()),
            p2: Some("b \"big\"".to_string()),
            p1_limits: "depth=1".to_string(),
            p2_limits: "tc=10+0.1".to_string(),
            opening: OpeningRecord {
                source: "random".to_string(),
                fen: Some("4,4,4,4,0/4,4,4,4,0 S".to_string()),
                moves: vec!["C".to_string()],
            },
            max_plies: Some(Some(200)),
            moves: vec![
                MoveRecord {
                    mv: "b".to_string(),
                    by: "p2".to_string(),
                    ms: 12,
                    clock_ms: Some(9_988),
                    depth: Some(7),
                    score: Some("cp -35".to_string()),
                },
                MoveRecord {
                    mv: "D".to_string(),
                    by: "p1".to_string(),
                    ms: 0,
                    clock_ms: None,
                    depth: None,
                    score: None,
                },
            ],
            result: Some("p1win".to_string()),
            score: "1-0".to_string(),
            termination: Some("rules".to_string()),
            reason: Some("a row is empty".to_string()),
            points: Some(["20".to_string(), "12".to_string()]),
            final_fen: "0,0,0,0,20/0,0,0,0,12 N".to_string(),
            duration_ms: 40,
        }
    }

    #[test]
    fn a_record_written_reads_back_the_same() {
        let written = line(&record()).unwrap();
        assert!(
            written.starts_with(r#"{"number":3,"round":2,"game":"kalah pits=4","p1":"a""#),
            "{written}"
        );
        assert!(
            written.contains(r#"{"move":"D","by":"p1","ms":0}"#),
            "{written}"
        );
        assert_eq!(read_record(&written), Ok(record()));
        let mut no_points = record();
        no_points.points = None;
        assert!(!line(&no_points).unwrap().contains("points"));
        assert_eq!(read_record(&line(&no_points).unwrap()), Ok(no_points));
        assert_eq!(
            record().all_moves().collect::<Vec<_>>(),
            vec!["C", "b", "D"]
        );
    }

    #[test]
    fn a_record_needs_only_its_game_and_moves() {
        let read =
            read_record(r#"{"game":"kalah","moves":["C",{"mv":"f"},{"move":"A","mv":"x"}],"number":"x","opening":null,"p1":null}"#)
                .unwrap();
        assert_eq!(read.game, "kalah");
        assert_eq!(read.all_moves().collect::<Vec<_>>(), vec!["C", "f", "A"]);
        assert_eq!((read.number, read.p1, read.opening.fen), (0, None, None));
        let read = read_record(
            r#"{"game":"kalah","opening":{"fen":null,"moves":[{"move":"E"}]},"moves":[]}"#,
        )
        .unwrap();
        assert_eq!(read.opening.moves, vec!["E"]);
    }

    #[test]
    fn faults_are_named_and_the_first_in_order_is_told() {
        let said = |text: &str| read_record(text).unwrap_err().to_string();
        assert!(said("{not json").starts_with("not a JSON game record: "));
        assert_eq!(said("[1]"), "the record's line is not an object");
        assert_eq!(said(r#"{"moves":[]}"#), "the record has no 'game'");
        assert_eq!(
            said(r#"{"game":null,"moves":[]}"#),
            "the record has no 'game'"
        );
        assert_eq!(said(r#"{"game":1}"#), "the record's game is not a string");
        assert_eq!(said(r#"{"game":"kalah"}"#), "the record has no 'moves'");
        assert_eq!(
            said(r#"{"game":"kalah","moves":null}"#),
            "the record's moves is not a list"
        );
        assert_eq!(
            said(r#"{"game":"kalah","moves":[3]}"#),
            "the record's moves is not a list of moves ({\"move\": …} or strings)"
        );
        assert_eq!(
            said(r#"{"game":"kalah","moves":[{"move":null,"mv":"C"}]}"#),
            "the record's moves is not a list of moves ({\"move\": …} or strings)"
        );
        assert_eq!(
            said(r#"{"game":"kalah","opening":{"moves":{}},"moves":[]}"#),
            "the record's opening.moves is not a list"
        );
        assert_eq!(
            said(r#"{"game":"kalah","opening":{"fen":2,"moves":{}},"moves":[]}"#),
            "the record's opening.fen is not a string"
        );
        // The order: game, opening, moves, then p1, p2, result, reason, termination,
        // whatever the order of the line.
        assert_eq!(said(r#"{"p1":1,"moves":2}"#), "the record has no 'game'");
        assert_eq!(
            said(r#"{"termination":1,"p1":1,"game":"kalah","moves":[]}"#),
            "the record's p1 is not a string"
        );
        assert_eq!(
            said(r#"{"p2":1,"game":"kalah","opening":3}"#),
            "the record's opening is not an object"
        );
        assert_eq!(
            said(r#"{"p2":1,"game":"kalah"}"#),
            "the record has no 'moves'"
        );
        assert_eq!(
            said(r#"{"reason":1,"result":2,"game":"kalah","moves":[]}"#),
            "the record's result is not a string"
        );
    }

    #[test]
    fn a_records_file_skips_blanks_and_comments_only() {
        let text = "# games\n\n{\"game\":\"kalah\",\"moves\":[]}\nkalah: C\n";
        let read: Vec<(usize, bool)> = records(text).map(|(n, r)| (n, r.is_ok())).collect();
        assert_eq!(read, vec![(3, true), (4, false)]);
        let (_, last) = records(text).last().unwrap();
        assert_eq!(last, Err(RecordError::NotARecord));
    }
}
