//! The evaluation as weights × features, documented, and the tuner end to end.

use sowfan::game::Game;
use sowfan::games::afrika::{self, Afrika};
use sowfan::games::anywoli::{self, Anywoli};
use sowfan::games::fanorona::{self, Fanorona, Size};
use sowfan::games::kalah::{self, Kalah};
use sowfan::options::GameOptions;
use sowfan::registry;

use crate::support::rng::Rng;
use crate::support::run;
use crate::support::selfplay::play_out;
use crate::support::{BIN, scratch};

/// Over random games, `evaluate` is exactly Σ weight × feature (the tuner's model of it).
fn evaluation_is_the_weighted_features<G: Game>(game: &G) {
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
            assert_eq!(
                game.evaluate(pos),
                sum,
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
    let options = |name, specs: &'static [sowfan::options::OptionSpec], words: &[&str]| {
        GameOptions::parse(name, specs, words).expect("options")
    };
    evaluation_is_the_weighted_features(&Kalah::new(options(kalah::NAME, kalah::OPTIONS, &[])));
    evaluation_is_the_weighted_features(&Kalah::new(options(
        kalah::NAME,
        kalah::OPTIONS,
        &["leftovers=none", "pits=4"],
    )));
    evaluation_is_the_weighted_features(&Afrika::new(options(afrika::NAME, afrika::OPTIONS, &[])));
    evaluation_is_the_weighted_features(&Afrika::new(options(
        afrika::NAME,
        afrika::OPTIONS,
        &["komi=2.5"],
    )));
    evaluation_is_the_weighted_features(&Anywoli::new(options(
        anywoli::NAME,
        anywoli::OPTIONS,
        &[],
    )));
    for size in [Size::Tsivy, Size::Dimy, Size::Telo] {
        evaluation_is_the_weighted_features(&Fanorona::new(
            size,
            options("fanorona", fanorona::OPTIONS, &[]),
        ));
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
