//! `sowfan accuracy`: engines' moves judged against perfect play. The exact values it
//! reports are checked against plain minimax, its cache is reused and survives a damaged
//! line, and bad arguments are refused with a message.

use std::collections::HashMap;
use std::time::Duration;

use serde_json::Value;
use sowfan::game::prelude::*;

use crate::support::run::{self, Run};
use crate::support::walk::game_minimax;
use crate::support::{BIN, fresh_dir, kalah, scaled};

const LIMIT: Duration = Duration::from_secs(120);

fn accuracy(args: &[String]) -> Run {
    run::sowfan("accuracy", args, LIMIT)
}

fn words(text: &str) -> Vec<String> {
    run::args(text)
}

#[test]
fn accuracy_judges_an_engines_moves_by_their_exact_values() {
    let dir = fresh_dir("accuracy");
    let records = dir.join("games.jsonl");
    let game = "kalah pits=4 seeds=2";
    let played = run::sowfan(
        "match",
        &[
            "--engine".to_string(),
            format!("cmd={BIN}"),
            "name=a".to_string(),
            "depth=1".to_string(),
            "--engine".to_string(),
            format!("cmd={BIN}"),
            "name=b".to_string(),
            "depth=3".to_string(),
            "--game".to_string(),
            game.to_string(),
            "--games".to_string(),
            // Enough games for 30 distinct positions of 6-16 seeds: engines that prove
            // such positions before searching play fewer of them.
            "16".to_string(),
            "--openings".to_string(),
            "plies=2".to_string(),
            "--seed".to_string(),
            "7".to_string(),
            "--records".to_string(),
            records.display().to_string(),
            "--quiet".to_string(),
        ],
        LIMIT,
    );
    assert!(played.success, "{}", played.stderr);
    let cache = dir.join("exact.jsonl");
    let out = dir.join("out.jsonl");
    let mut args = vec![
        records.display().to_string(),
        "--stones".to_string(),
        "6-16".to_string(),
        "--positions".to_string(),
        "30".to_string(),
        "--cache".to_string(),
        cache.display().to_string(),
        "--out".to_string(),
        out.display().to_string(),
        "--engine".to_string(),
        format!("cmd={BIN} name=d1 depth=1"),
    ];
    let first = accuracy(&args);
    assert!(first.success, "{}", first.stderr);
    let lines: Vec<Value> = std::fs::read_to_string(&out)
        .expect("--out")
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON"))
        .collect();
    assert_eq!(lines.len(), 30, "30 positions judged");
    let kalah = kalah(&["pits=4", "seeds=2"]);
    let mut memo = HashMap::new();
    let mut perfect = 0;
    let mut total_loss = 0.0;
    for line in &lines {
        let fen = line["fen"].as_str().expect("fen");
        let pos = kalah.parse_position(fen).expect("position");
        let stones = line["stones"].as_u64().expect("stones");
        assert!((6..=16).contains(&stones), "{line}");
        // Every move's value by minimax: the best, and the engine's move's.
        let mover = kalah.to_move(&pos);
        let mut moves = Vec::new();
        kalah.legal_moves(&pos, &mut moves);
        let mut best = i32::MIN;
        let mut played = None;
        for mv in moves {
            let mut child = pos;
            kalah.play(&mut child, mv);
            let v = game_minimax(&kalah, &child, &mut memo);
            let v = if kalah.to_move(&child) == mover {
                v
            } else {
                -v
            };
            best = best.max(v);
            if kalah.format_move(&pos, mv) == line["move"].as_str().expect("move") {
                played = Some(v);
            }
        }
        let played = played.expect("the engine's move is legal");
        assert_eq!(line["best"].as_f64(), Some(best as f64 / 2.0), "{line}");
        assert_eq!(line["value"].as_f64(), Some(played as f64 / 2.0), "{line}");
        let loss = (best - played) as f64 / 2.0;
        assert_eq!(line["loss"].as_f64(), Some(loss), "{line}");
        perfect += usize::from(loss == 0.0);
        total_loss += loss;
    }
    // The summary says the same.
    let row = first
        .stdout
        .lines()
        .find(|l| l.starts_with("d1 "))
        .expect("a row for d1");
    let cells: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(cells[1], "30", "{row}");
    assert_eq!(cells[2], perfect.to_string(), "{row}");
    assert!(
        row.contains(&format!("{:.3} ±", total_loss / 30.0)),
        "{row} (average loss {})",
        total_loss / 30.0
    );

    // The cache holds every position; a damaged line (a run killed mid-write) is skipped,
    // and a second run proves nothing again and judges the same.
    let cached = std::fs::read_to_string(&cache).expect("cache");
    assert_eq!(cached.lines().count(), 30);
    std::fs::write(&cache, format!("{cached}{{\"game\":\"kal")).expect("damage");
    args.push("--engine".to_string());
    args.push(format!("cmd={BIN} name=d1again depth=1"));
    let second = accuracy(&args);
    assert!(second.success, "{}", second.stderr);
    assert!(
        second.stderr.contains("1 damaged lines skipped"),
        "{}",
        second.stderr
    );
    let rows: Vec<Vec<&str>> = second
        .stdout
        .lines()
        .skip(1)
        .map(|l| l.split_whitespace().skip(1).collect())
        .collect();
    assert_eq!(rows.len(), 2, "{}", second.stdout);
    assert_eq!(
        rows[0], rows[1],
        "the same engine judged the same: {}",
        second.stdout
    );
    assert_eq!(rows[0], cells[1..].to_vec());

    // Lines that parse but lie (issue 45): a move that does not exist, a value no game of
    // Kalah(4,2) can end with. Each is skipped with a warning and proven again; the engine
    // is judged as before.
    let cached = std::fs::read_to_string(&cache).expect("cache");
    let mut lines: Vec<String> = cached.lines().map(String::from).collect();
    lines.retain(|l| l.ends_with('}'));
    lines[0] = lines[0].replacen("\"half_points\":{", "\"half_points\":{\"Z\":1,", 1);
    let second_move = lines[1]
        .split("\"half_points\":{\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .expect("a move")
        .to_string();
    let at = lines[1]
        .find(&format!("\"{second_move}\":"))
        .expect("its value");
    let end = at + lines[1][at..].find([',', '}']).expect("end of the value");
    lines[1].replace_range(at..end, &format!("\"{second_move}\":4000"));
    std::fs::write(&cache, lines.join("\n") + "\n").expect("lie");
    let third = accuracy(&args);
    assert!(third.success, "{}", third.stderr);
    assert_eq!(
        third
            .stderr
            .matches("a damaged line of the cache skipped")
            .count(),
        2,
        "{}",
        third.stderr
    );
    assert!(
        third.stderr.contains("'Z' is not a legal move"),
        "{}",
        third.stderr
    );
    assert!(third.stderr.contains("4000"), "{}", third.stderr);
    let rows: Vec<Vec<&str>> = third
        .stdout
        .lines()
        .skip(1)
        .map(|l| l.split_whitespace().skip(1).collect())
        .collect();
    assert_eq!(
        rows[0],
        cells[1..].to_vec(),
        "judged as before: {}",
        third.stdout
    );
}

#[test]
fn accuracy_refuses_bad_arguments_with_a_message() {
    let dir = fresh_dir("accuracy-bad");
    let positions = dir.join("positions.txt");
    std::fs::write(&positions, "2,2,2,2,0/2,2,2,2,0 S\nnot a position\n").expect("write");
    let cases: Vec<(Vec<String>, &str)> = vec![
        (
            words("/nonexistent/games.jsonl"),
            "cannot read '/nonexistent/games.jsonl'",
        ),
        (
            vec![
                positions.display().to_string(),
                "--engine".to_string(),
                format!("cmd={BIN} tc=10+0.1"),
            ],
            "tc= is a clock for whole games",
        ),
        (
            vec![
                positions.display().to_string(),
                "--engine".to_string(),
                format!("cmd={BIN}"),
            ],
            "has no search limit",
        ),
        (
            vec![
                positions.display().to_string(),
                "--stones".to_string(),
                "9-3".to_string(),
            ],
            "the smaller number comes first",
        ),
        (
            vec![
                positions.display().to_string(),
                "--stones".to_string(),
                "1-2".to_string(),
            ],
            "no position of",
        ),
    ];
    for (args, message) in cases {
        let ran = accuracy(&args);
        assert!(!ran.success, "{args:?} must fail");
        assert!(ran.stderr.contains(message), "{args:?}: {}", ran.stderr);
        assert!(!ran.stderr.contains("panicked"), "{}", ran.stderr);
    }
    // A line that is no position is skipped with its number, the rest is judged.
    let ran = accuracy(&[
        positions.display().to_string(),
        "--game".to_string(),
        "kalah pits=4 seeds=2".to_string(),
        "--stones".to_string(),
        "16".to_string(),
    ]);
    assert!(ran.success, "{}", ran.stderr);
    assert!(ran.stderr.contains("line 2:"), "{}", ran.stderr);
    assert!(ran.stderr.contains("1 positions"), "{}", ran.stderr);
}

/// A position the solver does not prove within `--solve-limit` is left out and counted, and
/// the run ends in about that time (the deadline reaches the solver itself).
#[test]
fn accuracy_leaves_out_a_position_not_proven_in_time() {
    let dir = fresh_dir("accuracy-limit");
    let positions = dir.join("start.txt");
    std::fs::write(&positions, "4,4,4,4,4,4,0/4,4,4,4,4,4,0 S\n").expect("write");
    let started = std::time::Instant::now();
    let ran = accuracy(&[
        positions.display().to_string(),
        "--game".to_string(),
        "kalah".to_string(),
        "--solve-limit".to_string(),
        "1".to_string(),
        "--hash".to_string(),
        "16".to_string(),
    ]);
    assert!(ran.success, "{}", ran.stderr);
    assert!(
        ran.stderr.contains("not proven within 1 s"),
        "{}",
        ran.stderr
    );
    assert!(
        ran.stderr.contains("1 positions, 1 left out"),
        "{}",
        ran.stderr
    );
    assert!(
        started.elapsed() < scaled(Duration::from_secs(30)),
        "{:?}",
        started.elapsed()
    );
}
