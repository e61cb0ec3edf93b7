//! The evaluation as weights × features, documented, and the tuner end to end.

use std::time::Duration;

use sowfan::game::prelude::*;
use sowfan::games::fanorona::Size;
use sowfan::registry;

use crate::support::games;
use crate::support::rng::Rng;
use crate::support::run;
use crate::support::selfplay::play_out;
use crate::support::{BIN, scaled, scratch};

/// Over random games, the hand-written `evaluate` is exactly Σ weight × feature, times the
/// game's scale of the position (the tuner's model of it).
fn evaluation_is_the_weighted_features<G: Game>(mut game: G) {
    game.set_network(None).expect("the hand-written evaluation");
    let game = &game;
    let terms = game.eval_terms();
    assert!(!terms.is_empty(), "{}", game.spec());
    assert!(
        terms.iter().any(|t| t.unit),
        "{}: no unit weight",
        game.spec()
    );
    let mut features = vec![0; terms.len()];
    let mut rng = Rng::new(0x9E37_79B9);
    for _ in 0..30 {
        play_out(game, game.start_position(), |ply, pos, moves| {
            if ply == 300 {
                return None;
            }
            game.eval_features(pos, &mut features);
            let sum: i32 = terms.iter().zip(&features).map(|(t, f)| t.value * f).sum();
            let (numerator, denominator) = game.eval_scale(pos);
            assert_eq!(
                i64::from(game.evaluate(pos)),
                i64::from(sum) * numerator / denominator,
                "{}: {}",
                game.spec(),
                game.format_position(pos)
            );
            if moves.is_empty() {
                return None;
            }
            Some(*rng.pick(moves))
        });
    }
}

#[test]
fn every_evaluation_is_weights_times_features() {
    evaluation_is_the_weighted_features(games::kalah(&[]));
    evaluation_is_the_weighted_features(games::kalah(&["leftovers=none", "pits=4"]));
    evaluation_is_the_weighted_features(games::afrika(&[]));
    evaluation_is_the_weighted_features(games::afrika(&["komi=2.5"]));
    evaluation_is_the_weighted_features(games::anywoli(&[]));
    for size in [Size::Tsivy, Size::Dimy, Size::Telo] {
        evaluation_is_the_weighted_features(games::fanorona(size, &[]));
    }
}

/// docs/strength.md lists every game's weights: the table and the code agree.
#[test]
fn the_weights_table_in_the_docs_matches_the_code() {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/strength.md"))
        .expect("docs/strength.md");
    let section = doc
        .split("## Evaluation weights")
        .nth(1)
        .expect("an 'Evaluation weights' section");
    let rows: Vec<Vec<String>> = section
        .lines()
        .take_while(|l| !l.starts_with("## "))
        .filter(|l| l.starts_with("| ") && !l.starts_with("| game") && !l.starts_with("| ---"))
        .map(|l| l.split('|').map(|c| c.trim().replace('`', "")).collect())
        .collect();
    let mut documented = 0;
    for entry in registry::GAMES {
        let session = registry::create(entry.name, &[]).expect("game");
        for term in session.eval_terms() {
            let row = rows
                .iter()
                .find(|r| r[1] == entry.name && r[2] == term.name)
                .unwrap_or_else(|| panic!("{} {} is not documented", entry.name, term.name));
            assert_eq!(
                row[3],
                term.value.to_string(),
                "{} {}: the docs say {}, the code {}",
                entry.name,
                term.name,
                row[3],
                term.value
            );
            documented += 1;
        }
    }
    assert_eq!(
        documented,
        rows.len(),
        "the docs list weights the code does not have"
    );
}

/// `sowfan tune` on records `sowfan match` writes: loss before and after, and the new table.
#[test]
fn the_tuner_runs_on_match_records() {
    let records = scratch("tune.jsonl");
    let records = records.to_str().expect("a UTF-8 path");
    let out = run::output(&[
        "match",
        "--engine",
        &format!("cmd={BIN}"),
        "name=a",
        "nodes=500",
        "--engine",
        &format!("cmd={BIN}"),
        "name=b",
        "nodes=500",
        "--game",
        "kalah",
        "--games",
        "40",
        "--concurrency",
        "2",
        "--openings",
        "plies=6",
        "--seed",
        "3",
        "--quiet",
        "--records",
        records,
    ]);
    assert!(out.status.success());
    let tune = |seed: &str| {
        run::output(&[
            "tune",
            "kalah",
            "--iterations",
            "200",
            "--seed",
            seed,
            "--records",
            records,
        ])
    };
    let first = tune("1");
    let text = String::from_utf8_lossy(&first.stdout).to_string();
    assert!(first.status.success(), "{text}");
    assert!(
        text.contains("Loss before: ") && text.contains("Loss after:  "),
        "{text}"
    );
    assert!(
        text.contains("pub const WEIGHTS: Weights = Weights {"),
        "{text}"
    );
    assert!(
        text.contains("    store: 100,"),
        "the unit weight stays: {text}"
    );
    // Deterministic.
    assert_eq!(String::from_utf8_lossy(&tune("1").stdout), text);
}

/// A match record of a long Fanorona game that no rule ends (two stones far apart walking
/// to and fro), ended "by the rules" as a draw for the tuner.
fn long_record(moves: usize) -> String {
    let shuffle = ["i1-i2", "a5-a4", "i2-i1", "a4-a5"];
    let moves: Vec<String> = (0..moves)
        .map(|i| format!("\"{}\"", shuffle[i % 4]))
        .collect();
    format!(
        "{{\"game\":\"fanorona repetition=off quiet-limit=off\",\"opening\":{{\"fen\":\"B8/9/9/9/8W w 0\",\"moves\":[]}},\"moves\":[{}],\"result\":\"draw\",\"termination\":\"rules\"}}\n",
        moves.join(",")
    )
}

fn tune_on(name: &str, contents: &[u8], extra: &[&str]) -> std::process::Output {
    let path = scratch(name);
    std::fs::write(&path, contents).expect("records");
    let mut arguments = vec!["tune", "fanorona", "--records", path.to_str().unwrap()];
    arguments.extend_from_slice(extra);
    run::output(&arguments)
}

/// Item 4 for tune: records are read a line at a time; a line that is not UTF-8 or is
/// longer than the bound is named by its line number (the old reader read the whole file
/// as one string and said only that it was not UTF-8).
#[test]
fn tune_names_the_line_that_is_not_utf8_or_too_long() {
    let mut bytes = long_record(40).into_bytes();
    bytes.extend_from_slice(b"{\"game\":\"fanorona\",\"moves\":[\"\xff\"]}\n");
    let out = tune_on("tune-utf8.jsonl", &bytes, &["--iterations", "5"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("line 2: the line is not UTF-8 text"), "{err}");
    let mut bytes = long_record(40).into_bytes();
    bytes.extend(vec![b' '; 9 << 20]);
    bytes.extend_from_slice(b"\n");
    let out = tune_on("tune-long.jsonl", &bytes, &["--iterations", "5"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("line 2: the line is longer than 8 MiB"),
        "{err}"
    );
    // An illegal move is named with its move number in the game.
    let bad = long_record(12).replace("\"i2-i1\"", "\"i2-i9\"");
    let out = tune_on("tune-illegal.jsonl", bad.as_bytes(), &["--iterations", "5"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("line 1: move 3 'i2-i9' rejected"), "{err}");
}

/// Item 13 for tune: each game is walked once: a 64 000-move record is read in seconds
/// (the old reader replayed the game from its start for every position: minutes).
#[test]
fn tune_reads_a_very_long_game_in_linear_time() {
    let started = std::time::Instant::now();
    let out = tune_on(
        "tune-long-game.jsonl",
        long_record(64_000).as_bytes(),
        &[
            "--iterations",
            "5",
            "--skip-plies",
            "0",
            "--max-positions",
            "1000",
        ],
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("64000 positions after ply 0"), "{text}");
    assert!(text.contains("; 1000 used"), "{text}");
    assert!(
        started.elapsed() < scaled(Duration::from_secs(30)),
        "{:?}",
        started.elapsed()
    );
}

/// Item 14 for tune: Ctrl-C (or SIGTERM) during the fit ends it within a second with
/// status 130 and no weights written.
#[test]
fn tune_interrupted_exits_130_within_a_second() {
    let path = scratch("tune-interrupt.jsonl");
    std::fs::write(&path, long_record(4000)).expect("records");
    let output = scratch("tune-interrupt-weights.rs");
    let _ = std::fs::remove_file(&output);
    for signal in ["-INT", "-TERM"] {
        let mut running = run::start(
            "tune",
            &[
                "fanorona",
                "--records",
                path.to_str().unwrap(),
                "--iterations",
                "1000000000",
                "--output",
                output.to_str().unwrap(),
            ],
        );
        // The records are read (the handler is in place before): the fit is running.
        running.await_line(Duration::from_secs(30), |l| l.starts_with("Records: "));
        assert!(run::signal(running.id(), signal));
        let started = std::time::Instant::now();
        let run = running.finish(Duration::from_secs(5));
        assert!(
            started.elapsed() < scaled(Duration::from_secs(1)),
            "{signal}"
        );
        assert_eq!(run.code, Some(130), "{signal}: {}", run.stderr);
        assert!(run.stderr.contains("interrupted"), "{}", run.stderr);
        assert!(!output.exists());
    }
}

/// Issue 65, point 3: one run an output, for every tool that writes one. An output held by
/// another run (its lock, as the tools take it) is refused before any work, naming it:
/// `tune --output`, `accuracy --cache` and `--out`, `solve --save`.
#[test]
fn an_output_held_by_another_run_is_refused_before_any_work() {
    let dir = crate::support::fresh_dir("held-outputs");
    let held = |name: &str| -> std::fs::File {
        let lock = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(dir.join(format!(".{name}.lock")))
            .expect("lock file");
        lock.try_lock().expect("locked");
        lock
    };
    let records = dir.join("games.jsonl");
    std::fs::write(&records, long_record(12)).expect("records");
    let positions = dir.join("positions.txt");
    std::fs::write(&positions, "2,2,2,2,0/2,2,2,2,0 S\n").expect("positions");
    let path = |name: &str| dir.join(name).display().to_string();
    let records = records.display().to_string();
    let positions = positions.display().to_string();
    let cases: Vec<(&str, Vec<&str>)> = vec![
        (
            "weights.rs",
            vec!["tune", "fanorona", "--records", &records, "--output"],
        ),
        (
            "cache.jsonl",
            vec![
                "accuracy",
                &positions,
                "--game",
                "kalah pits=4 seeds=2",
                "--cache",
            ],
        ),
        (
            "out.jsonl",
            vec![
                "accuracy",
                &positions,
                "--game",
                "kalah pits=4 seeds=2",
                "--out",
            ],
        ),
        (
            "k.proof",
            vec!["solve", "kalah", "pits=3", "seeds=2", "--save"],
        ),
    ];
    for (name, mut words) in cases {
        let _lock = held(name);
        let output = path(name);
        words.push(&output);
        let out = run::output(&words);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{words:?}: {err}");
        assert!(
            err.contains("is in use: another sowfan"),
            "{words:?}: {err}"
        );
        assert!(!dir.join(name).exists(), "{words:?} wrote {name}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
