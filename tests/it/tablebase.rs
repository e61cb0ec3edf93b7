//! Endgame tables and the exact solver against plain minimax: every entry of small layers,
//! the value of every small Kalah, shards merging to the same bytes, tables in play through
//! the protocol, and perfect play just beyond the tables.

use std::collections::HashMap;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use sowfan::game::prelude::*;
use sowfan::games::kalah::Kalah;
use sowfan::solver::tt::SolverTt;
use sowfan::solver::{self, SolveSettings};

use crate::support::games::afrika;
use crate::support::rng::Rng;
use crate::support::run;
use crate::support::selfplay::play_out;
use crate::support::tables::build_tables;
use crate::support::walk::game_minimax;
use crate::support::{Engine, field, fresh_dir, kalah, last_score, scaled};

/// Kalah(3) under every rule set (capture, end, leftovers), each with a name.
fn kalah3_every_rule_set() -> Vec<(String, Kalah)> {
    let mut games = Vec::new();
    for capture in ["false", "true"] {
        for end in ["any-row", "on-move"] {
            for leftovers in ["owner", "none"] {
                let options = [
                    "pits=3".to_string(),
                    format!("empty-capture={capture}"),
                    format!("end={end}"),
                    format!("leftovers={leftovers}"),
                ];
                let refs: Vec<&str> = options.iter().map(String::as_str).collect();
                games.push((format!("{capture}-{end}-{leftovers}"), kalah(&refs)));
            }
        }
    }
    games
}

/// Every entry of every layer up to `max_layer` equals plain minimax.
fn check_every_entry<G: Game>(game: &G, dir: &Path, max_layer: u32) -> u64 {
    let tables = build_tables(game, dir, max_layer, 2);
    let mut memo = HashMap::new();
    let mut checked = 0;
    for layer in 0..=max_layer {
        for index in 0..game.table_layer_size(layer) {
            let pos = game.table_position(layer, index).expect("position");
            let value = game_minimax(game, &pos, &mut memo) - game.banked_value(&pos);
            let stored = tables.value(layer, index).expect("entry");
            assert_eq!(
                2 * stored as i32,
                value,
                "{} layer {layer} entry {index}: {}",
                game.spec(),
                game.format_position(&pos)
            );
            checked += 1;
        }
    }
    checked
}

#[test]
fn every_entry_of_small_layers_equals_plain_minimax() {
    let mut checked = 0;
    for (name, game) in kalah3_every_rule_set() {
        let dir = fresh_dir(&format!("tb-minimax-{name}"));
        checked += check_every_entry(&game, &dir, 8);
    }
    let dir = fresh_dir("tb-minimax-kalah6");
    checked += check_every_entry(&kalah(&[]), &dir, 5);
    // Afrika: stones on the board, no stores, sowing goes round (the builder checks that no
    // layer cycles; plain minimax here would panic on a cycle too).
    let dir = fresh_dir("tb-minimax-afrika");
    checked += check_every_entry(&afrika(&[]), &dir, 5);
    assert!(checked > 40_000, "{checked}");
}

/// `Game::value_range` is a true bound: on every position of up to 8 seeds (Kalah(3), every
/// rule set) and 7 seeds (Kalah(6)), and along games with the pie rule, plain minimax lies
/// within it, its ends on the grid of values; and it is tighter than the stake often.
#[test]
fn value_range_bounds_plain_minimax() {
    fn check(
        game: &Kalah,
        pos: &<Kalah as sowfan::game::Rules>::Position,
        memo: &mut HashMap<u64, Option<i64>>,
    ) -> bool {
        let stake = game.value_at_stake(pos).expect("stake");
        let (lower, upper) = game.value_range(pos).expect("range");
        let rest = game_minimax(game, pos, memo) - game.banked_value(pos);
        let spec = game.spec();
        assert!(
            lower <= rest && rest <= upper,
            "{spec} {pos:?}: {rest} outside {lower}..={upper}"
        );
        let step = game.value_step();
        assert!(-stake <= lower && upper <= stake, "{spec} {pos:?}");
        assert_eq!((lower + stake) % step, 0, "{spec} {pos:?}");
        assert_eq!((upper + stake) % step, 0, "{spec} {pos:?}");
        (lower, upper) != (-stake, stake)
    }
    let mut checked = 0;
    let mut tighter = 0;
    for (_, game) in kalah3_every_rule_set() {
        let mut memo = HashMap::new();
        for layer in 0..=8 {
            for index in 0..game.table_layer_size(layer) {
                if let Some(pos) = game.table_position(layer, index) {
                    tighter += u32::from(check(&game, &pos, &mut memo));
                    checked += 1;
                }
            }
        }
    }
    for capture in ["false", "true"] {
        let game = kalah(&[&format!("empty-capture={capture}")]);
        let mut memo = HashMap::new();
        for layer in 0..=7 {
            for index in 0..game.table_layer_size(layer) {
                if let Some(pos) = game.table_position(layer, index) {
                    tighter += u32::from(check(&game, &pos, &mut memo));
                    checked += 1;
                }
            }
        }
    }
    // The pie rule: every position of every game of Kalah(3,2) with it.
    for capture in ["false", "true"] {
        let game = kalah(&[
            "pits=3",
            "seeds=2",
            "pie=true",
            &format!("empty-capture={capture}"),
        ]);
        let mut memo = HashMap::new();
        let mut stack = vec![game.start_position()];
        let mut seen = std::collections::HashSet::new();
        while let Some(pos) = stack.pop() {
            if !seen.insert(game.hash(&pos)) {
                continue;
            }
            check(&game, &pos, &mut memo);
            checked += 1;
            let mut moves = Vec::new();
            game.legal_moves(&pos, &mut moves);
            for mv in moves {
                let mut child = pos;
                game.play(&mut child, mv);
                stack.push(child);
            }
        }
    }
    assert!(checked > 40_000, "{checked}");
    assert!(tighter * 4 > checked, "{tighter} of {checked}");
}

/// Kalah(m,n) for m ≤ 4, n ≤ 3 under both capture rules and both end rules: the solver's
/// value (and a best move that keeps it) equals plain minimax.
#[test]
fn the_solver_matches_plain_minimax_on_every_small_kalah() {
    for pits in 1..=4 {
        for seeds in 1..=3 {
            for capture in ["false", "true"] {
                for end in ["any-row", "on-move"] {
                    let options = [
                        format!("pits={pits}"),
                        format!("seeds={seeds}"),
                        format!("empty-capture={capture}"),
                        format!("end={end}"),
                    ];
                    let refs: Vec<&str> = options.iter().map(String::as_str).collect();
                    let game = kalah(&refs);
                    // A solver table holds one rule set's values (its keys are the pits).
                    let tt = SolverTt::new(8).expect("table");
                    let start = game.start_position();
                    let mut memo = HashMap::new();
                    let expected = game_minimax(&game, &start, &mut memo);
                    let settings = SolveSettings {
                        threads: 1 + (pits as usize % 2),
                        tables: None,
                        guess: None,
                        want_pv: true,
                        node_limit: None,
                        deadline: None,
                    };
                    let solution = solver::solve(
                        &game,
                        &start,
                        &tt,
                        &settings,
                        &AtomicBool::new(false),
                        &|_| {},
                    );
                    let spec = game.spec();
                    assert_eq!(
                        (solution.lower, solution.upper),
                        (expected, expected),
                        "{spec}"
                    );
                    // The line keeps the value to the end of the game.
                    let mut pos = start;
                    let mut value = expected;
                    for &mv in &solution.pv {
                        let mover = game.to_move(&pos);
                        game.play(&mut pos, mv);
                        let next = game_minimax(&game, &pos, &mut memo);
                        let next = if game.to_move(&pos) == mover {
                            next
                        } else {
                            -next
                        };
                        assert_eq!(next, value, "{spec}: the line loses value");
                        if game.to_move(&pos) != mover {
                            value = -value;
                        }
                    }
                    assert!(game.outcome(&pos).is_some(), "{spec}: the line stops early");
                }
            }
        }
    }
}

#[test]
fn solve_on_the_command_line_prints_value_line_and_every_move() {
    let out = run::output(&[
        "solve",
        "kalah",
        "pits=4",
        "seeds=3",
        "--all-moves",
        "--hash",
        "16",
    ]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    let game = kalah(&["pits=4", "seeds=3"]);
    let mut memo = HashMap::new();
    let value = game_minimax(&game, &game.start_position(), &mut memo);
    assert!(text.contains(&format!("Value: +{}\n", value / 2)), "{text}");
    for prefix in [
        "A: ", "B: ", "C: ", "D: ", "Best: ", "PV: ", "Nodes: ", "Time: ", "Tbhits: ",
    ] {
        assert!(
            text.lines().any(|l| l.starts_with(prefix)),
            "{prefix} missing: {text}"
        );
    }
}

/// Tables read into memory (`--tables-in memory`) answer as the mapped ones: the same
/// value and the same nodes, and the `Memory:` line says how they were held; the copy's
/// probes equal the mapping's on every entry.
#[test]
fn tables_in_memory_answer_as_mapped_ones() {
    let game = kalah(&["pits=4"]);
    let dir = fresh_dir("tb-in-memory");
    let mapped = build_tables(&game, &dir, 9, 2);
    let copy = mapped.to_memory().expect("copy");
    assert!(copy.in_memory() && !mapped.in_memory());
    for layer in 0..=mapped.max_layer() {
        for index in 0.. {
            let Some(value) = mapped.value(layer, index) else {
                break;
            };
            assert_eq!(
                copy.value(layer, index),
                Some(value),
                "layer {layer} entry {index}"
            );
        }
    }
    let dir = dir.display().to_string();
    let mut seen = Vec::new();
    for how in ["memory", "mapped"] {
        let out = run::output(&[
            "solve",
            "kalah",
            "pits=4",
            "seeds=3",
            "--hash",
            "16",
            "--tablebases",
            &dir,
            "--tables-in",
            how,
        ]);
        let text = String::from_utf8_lossy(&out.stdout).to_string();
        assert!(out.status.success(), "{how}: {text}");
        let line = |prefix: &str| {
            text.lines()
                .find(|l| l.starts_with(prefix))
                .unwrap_or_default()
                .to_string()
        };
        let memory = line("Memory: ");
        let held = if how == "mapped" {
            "mapped"
        } else {
            "in memory"
        };
        assert!(
            memory.contains(&format!("tables {held} ")),
            "{how}: {memory}"
        );
        let (value, nodes) = (line("Value: "), line("Nodes: "));
        assert!(!value.is_empty() && !nodes.is_empty(), "{how}: {text}");
        seen.push((value, nodes));
    }
    assert!(seen.windows(2).all(|w| w[0] == w[1]), "{seen:?}");
    let out = run::output(&["solve", "kalah", "--tables-in", "sometimes"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("sometimes"), "{err}");
}

/// A layer built in K slices and merged is byte for byte the layer built at once.
#[test]
fn merged_shards_equal_a_single_build() {
    let game = kalah(&["pits=4"]);
    let whole = fresh_dir("tb-shards-whole");
    build_tables(&game, &whole, 9, 1);
    let sharded = fresh_dir("tb-shards-parts");
    build_tables(&game, &sharded, 8, 2);
    let dir = sharded.display().to_string();
    for shard in ["1/3", "2/3", "3/3"] {
        let status = run::output(&[
            "tablebase",
            "build",
            "kalah",
            "pits=4",
            "--seeds",
            "9",
            "--dir",
            &dir,
            "--shard",
            shard,
        ]);
        assert!(
            status.status.success(),
            "{}",
            String::from_utf8_lossy(&status.stderr)
        );
    }
    let merge = run::output(&["tablebase", "merge", "--dir", &dir]);
    assert!(
        merge.status.success(),
        "{}",
        String::from_utf8_lossy(&merge.stderr)
    );
    let folder = "kalah_pits=4_empty-capture=false_end=any-row_leftovers=owner";
    let a = std::fs::read(whole.join(folder).join("layer-009.sftb")).expect("whole layer");
    let b = std::fs::read(sharded.join(folder).join("layer-009.sftb")).expect("merged layer");
    assert!(a == b, "the merged layer differs from the single build");
    // verify sees every file whole, and a damaged byte.
    let verify = run::output(&["tablebase", "verify", "--dir", &dir]);
    assert!(verify.status.success());
    let info = run::output(&["tablebase", "info", "--dir", &dir]);
    let text = String::from_utf8_lossy(&info.stdout);
    assert!(text.contains("complete: layers 0..=9"), "{text}");
    let damaged = sharded.join(folder).join("layer-005.sftb");
    let mut bytes = std::fs::read(&damaged).expect("read");
    let last = bytes.len() - 1;
    bytes[last] ^= 0x55;
    std::fs::write(&damaged, bytes).expect("write");
    let verify = run::output(&["tablebase", "verify", "--dir", &dir]);
    assert!(!verify.status.success());
    assert!(String::from_utf8_lossy(&verify.stdout).contains("FAIL"));
}

/// A build stopped half way leaves only whole layers, and a rerun goes on from there.
#[test]
fn an_interrupted_build_resumes() {
    let dir = fresh_dir("tb-interrupted");
    let d = dir.display().to_string();
    let build = run::start(
        "tablebase",
        &["build", "kalah", "--seeds", "30", "--dir", &d],
    );
    let folder = dir.join("kalah_pits=6_empty-capture=false_end=any-row_leftovers=owner");
    let deadline = std::time::Instant::now() + scaled(Duration::from_secs(60));
    while !folder.join("layer-012.sftb").exists() {
        assert!(
            std::time::Instant::now() < deadline,
            "no layer 12 within a minute"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = run::signal(build.id(), "-INT");
    let stopped = build.finish(Duration::from_secs(60));
    assert!(!stopped.success, "a stopped build reports it");
    let verify = run::output(&["tablebase", "verify", "--dir", &d]);
    assert!(
        verify.status.success(),
        "{}",
        String::from_utf8_lossy(&verify.stdout)
    );
    let rerun = run::output(&["tablebase", "build", "kalah", "--seeds", "13", "--dir", &d]);
    let text = String::from_utf8_lossy(&rerun.stdout);
    assert!(rerun.status.success());
    assert!(
        text.lines()
            .any(|l| l.starts_with("layer  12 (12 in play):") && l.contains("present")),
        "{text}"
    );
}

/// Tables through the protocol: a covered position is answered at once with its exact
/// value, `d` shows it, and wrong directories are errors that say what was expected.
#[test]
fn tables_in_play_answer_covered_positions_exactly() {
    let dir = fresh_dir("tb-in-play");
    let game = kalah(&[]);
    let tables = build_tables(&game, &dir, 10, 2);
    let fen = "1,0,2,0,0,3,20/0,1,0,0,2,1,18 S";
    let pos = game.parse_position(fen).expect("position");
    let expected = game.banked_value(&pos) + tables.probe(&game, &pos).expect("covered");
    let mut engine = Engine::start(&["--tablebases", &dir.display().to_string()]);
    let lines = engine.ask(&format!("position fen {fen}\ngo depth 30"), "bestmove");
    let info = last_score(&lines);
    assert_eq!(
        field(info, "cp"),
        Some(expected * 50).map(|v| v.to_string()).as_deref()
    );
    assert!(field(info, "tbhits").is_some(), "{info}");
    let shown = engine.ask("d", "To move:");
    assert!(
        shown
            .iter()
            .any(|l| l.starts_with(&format!("Tablebase: +{} ", expected / 2))),
        "{shown:?}"
    );
    // The chosen move keeps the value.
    let best = lines.last().unwrap()["bestmove ".len()..].to_string();
    let mv = game.parse_move(&pos, &best).expect("legal");
    let mut child = pos;
    game.play(&mut child, mv);
    let after = game.banked_value(&child) + tables.probe(&game, &child).unwrap_or(0);
    let after = if game.to_move(&child) == game.to_move(&pos) {
        after
    } else {
        -after
    };
    assert_eq!(after, expected);
    // A directory without these rules, and none at all.
    let lines = engine.ask("newgame kalah empty-capture=true\nisready", "readyok");
    assert!(
        lines.iter().any(|l| l.starts_with(
            "info string tablebases: no endgame tables of 'kalah \
                                        pits=6 empty-capture=true"
        )),
        "{lines:?}"
    );
    let lines = engine.ask(
        "setoption name TablebasePath value /no/such/place\nisready",
        "readyok",
    );
    assert!(
        lines
            .iter()
            .any(|l| l.contains("error") && l.contains("/no/such/place")),
        "{lines:?}"
    );
    engine.ask("go depth 3", "bestmove");
}

#[test]
fn go_solve_reports_bounds_then_the_exact_value() {
    let mut engine = Engine::start(&[]);
    let lines = engine.ask("newgame kalah pits=4 seeds=3\ngo solve", "bestmove");
    let game = kalah(&["pits=4", "seeds=3"]);
    let value = game_minimax(&game, &game.start_position(), &mut HashMap::new());
    assert!(
        lines.iter().any(|l| l.contains(" lowerbound ")),
        "{lines:?}"
    );
    let last_info = last_score(&lines);
    assert_eq!(
        field(last_info, "cp"),
        Some((value * 50).to_string()).as_deref()
    );
    assert!(!last_info.contains("bound"), "{last_info}");
    // stop ends a long solve with the bounds proven so far, and a legal move.
    engine.send("newgame kalah pits=6 seeds=6\ngo solve");
    std::thread::sleep(Duration::from_millis(300));
    let lines = engine.ask("stop", "bestmove");
    assert!(lines.last().unwrap().len() > "bestmove ".len());
}

/// Perfect endgames: in positions a few seeds beyond the tables, `go movetime 200` never
/// throws a value away (the solver checks every chosen move).
#[test]
fn play_just_beyond_the_tables_keeps_the_exact_value() {
    let dir = fresh_dir("tb-perfect");
    let game = kalah(&[]);
    let tables = build_tables(&game, &dir, 12, 2);
    // Positions from engine games (depth 3, seeded random openings) with 13 to 18 seeds.
    let positions = sample_positions(&game, 13..=18, 100);
    assert!(positions.len() >= 100, "{}", positions.len());
    let tt = SolverTt::new(64).expect("table");
    let mut engine = Engine::start(&["--tablebases", &dir.display().to_string()]);
    let mut kept = 0;
    for pos in &positions {
        let fen = game.format_position(pos);
        let lines = engine.ask(&format!("position fen {fen}\ngo movetime 200"), "bestmove");
        let best = lines.last().unwrap()["bestmove ".len()..].to_string();
        let mv = game.parse_move(pos, &best).expect("a legal move");
        let value = exact_value(&game, pos, Some(&tables), &tt);
        let after = exact_move_value(&game, pos, mv, Some(&tables), &tt);
        assert_eq!(
            after,
            value,
            "{fen}: {best} throws away {} points",
            (value - after) / 2
        );
        kept += 1;
    }
    assert!(kept >= 100);
}

/// Without tables, a Kalah position within the solver's reach (`proof_stake_without_tables`)
/// is proven before it is searched: `go depth 2` (the solver's fixed node budget keeps it
/// reproducible) answers a proven value and never throws one away, where a depth-2 search
/// alone does.
#[test]
fn play_within_the_solvers_reach_keeps_the_exact_value_without_tables() {
    use sowfan::search::limits::Limits;
    use sowfan::search::tt::TranspositionTable;
    use sowfan::search::{SearchControl, SearchSettings};
    let game = kalah(&[]);
    let positions = sample_positions(&game, 13..=18, 40);
    assert!(positions.len() >= 40, "{}", positions.len());
    let tt = SolverTt::new(64).expect("table");
    let mut engine = engine_without_tables("no-tables");
    let search_tt = TranspositionTable::new(4).expect("table");
    let mut searched_away = 0;
    for pos in &positions {
        let fen = game.format_position(pos);
        let lines = engine.ask(&format!("position fen {fen}\ngo depth 2"), "bestmove");
        assert!(
            last_score(&lines).contains(" wdl "),
            "{fen}: not proven: {lines:?}"
        );
        let best = lines.last().unwrap()["bestmove ".len()..].to_string();
        let mv = game.parse_move(pos, &best).expect("a legal move");
        let value = exact_value(&game, pos, None, &tt);
        assert_eq!(
            exact_move_value(&game, pos, mv, None, &tt),
            value,
            "{fen}: {best} throws a value away"
        );
        let searched = sowfan::search::search(
            &game,
            pos,
            &[],
            &[],
            &Limits::depth(2),
            &SearchSettings::default(),
            &search_tt,
            None,
            &SearchControl::default(),
            &mut |_| {},
        );
        let searched = searched.best.expect("a move");
        if exact_move_value(&game, pos, searched, None, &tt) != value {
            searched_away += 1;
        }
    }
    assert!(
        searched_away > 0,
        "a depth-2 search alone keeps every value: nothing shown"
    );
}

/// A proof tried before the search is bounded whatever the limits. In a Kalah position of 40
/// seeds in the pits that the solver takes seconds to prove, `go infinite` is searching
/// (depth lines) within a second and `stop` answers at once; after `go ponder`, a ponder
/// hit is answered within the move's share of the clock, not after the proof.
#[test]
fn a_proof_before_the_search_never_holds_up_infinite_or_ponder() {
    let fen = "0,0,2,7,7,1,6/7,6,5,4,0,1,2 N";
    let mut engine = engine_without_tables("no-tables-ponder");
    engine.send(&format!("position fen {fen}\ngo infinite"));
    // Fails the test when no depth-8 line comes within a second.
    engine.until(Duration::from_secs(1), |l| l.starts_with("info depth 8 "));
    let (_, took) = engine.timed_ask("stop", "bestmove");
    assert!(
        took < scaled(Duration::from_millis(500)),
        "stop took {took:?}"
    );
    engine.send(&format!(
        "position fen {fen}\ngo ponder wtime 2000 btime 2000"
    ));
    std::thread::sleep(Duration::from_millis(200));
    let (lines, took) = engine.timed_ask("ponderhit", "bestmove");
    assert!(
        took < scaled(Duration::from_secs(2)),
        "ponderhit answered after {took:?}: {lines:?}"
    );
}

/// The engine with no endgame tables wherever it would look for them (`$SOWFAN_TABLEBASES`,
/// the home directory's), `name` its empty directory.
fn engine_without_tables(name: &str) -> Engine {
    let empty = fresh_dir(name);
    let mut command = std::process::Command::new(crate::support::BIN);
    command.env("SOWFAN_TABLEBASES", &empty).env("HOME", &empty);
    Engine::spawn(command)
}

/// The exact value of `pos` for its mover, proven with `tables` (or none).
fn exact_value(
    game: &Kalah,
    pos: &sowfan::games::kalah::KalahPosition,
    tables: Option<&sowfan::tables::Tables>,
    tt: &SolverTt,
) -> i32 {
    let settings = SolveSettings {
        threads: 1,
        tables,
        guess: None,
        want_pv: false,
        node_limit: None,
        deadline: None,
    };
    let s = solver::solve(game, pos, tt, &settings, &AtomicBool::new(false), &|_| {});
    assert_eq!(s.lower, s.upper);
    s.lower
}

/// The exact value of `mv` in `pos`, from the view of `pos`'s mover (an extra move keeps
/// the view, a turn passed turns it).
fn exact_move_value(
    game: &Kalah,
    pos: &sowfan::games::kalah::KalahPosition,
    mv: sowfan::games::kalah::KalahMove,
    tables: Option<&sowfan::tables::Tables>,
    tt: &SolverTt,
) -> i32 {
    let mut child = *pos;
    game.play(&mut child, mv);
    let after = exact_value(game, &child, tables, tt);
    if game.to_move(&child) == game.to_move(pos) {
        after
    } else {
        -after
    }
}

/// Positions with a number of seeds in play in `range`, from games the engine plays against
/// itself at depth 3 after seeded random openings.
fn sample_positions(
    game: &Kalah,
    range: std::ops::RangeInclusive<i32>,
    wanted: usize,
) -> Vec<sowfan::games::kalah::KalahPosition> {
    use sowfan::search::limits::Limits;
    use sowfan::search::tt::TranspositionTable;
    use sowfan::search::{SearchControl, SearchSettings};
    let tt = TranspositionTable::new(4).expect("table");
    let mut found = Vec::new();
    let mut rng = Rng::new(0x2545_F491_4F6C_DD1D);
    for _ in 0..200 {
        if found.len() >= wanted {
            break;
        }
        let mut history = Vec::new();
        play_out(game, game.start_position(), |ply, pos, moves| {
            history.push(game.hash(pos));
            let stake = game.value_at_stake(pos).unwrap_or(0) / 2;
            if ply > 0 && range.contains(&stake) && game.outcome(pos).is_none() {
                found.push(*pos);
                return None; // one position a game: varied positions
            }
            if ply == 200 || game.outcome(pos).is_some() {
                return None;
            }
            Some(if ply < 6 {
                *rng.pick(moves)
            } else {
                let result = sowfan::search::search(
                    game,
                    pos,
                    &history,
                    &[],
                    &Limits::depth(3),
                    &SearchSettings::default(),
                    &tt,
                    None,
                    &SearchControl::default(),
                    &mut |_| {},
                );
                result.best.expect("a move")
            })
        });
    }
    found
}

/// The values of fixtures/solved/kalah.txt, published (Irving et al. 2000) and computed,
/// proven again: the tables are built into `$SOWFAN_DEEP_TABLES` (default
/// `target/tmp/deep-tables`, a cache kept between runs: a build resumes at the first missing
/// layer) up to `$SOWFAN_DEEP_SEEDS` seeds (default 24: 1.25 GB and about 4 minutes a rule
/// set on 2 cores), then each value is solved with 2 threads. `$SOWFAN_PUBLISHED` (comma-
/// separated parts of the fixture's game specs, e.g. `seeds=3,seeds=4`) chooses the lines
/// (default all); `$SOWFAN_PUBLISHED_MINUTES` (default 120) bounds each solve. Fails, saying
/// what to set, when the cache folder cannot be made or lacks the room for the tables, when
/// a knob is no number or chooses nothing, and when a solve runs out of its minutes. Every
/// line on 2 cores: CONTRIBUTING.md, "Long checks".
///
/// `cargo test --release --test it published_values -- --ignored --nocapture`
#[test]
#[ignore = "long: about an hour and a half for every line (Kalah(6,5) alone 44 min), 2.5 GB of tables cached in SOWFAN_DEEP_TABLES; SOWFAN_PUBLISHED chooses lines; see CONTRIBUTING.md"]
fn published_values() {
    let dir = std::env::var_os("SOWFAN_DEEP_TABLES")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/tmp/deep-tables")
        });
    let seeds = crate::support::knob("SOWFAN_DEEP_SEEDS").unwrap_or(24) as u32;
    let minutes = crate::support::knob("SOWFAN_PUBLISHED_MINUTES").unwrap_or(120);
    let chosen: Vec<String> = std::env::var("SOWFAN_PUBLISHED")
        .map(|v| v.split(',').map(|w| w.trim().to_string()).collect())
        .unwrap_or_default();
    let fixture = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/solved/kalah.txt"
    ))
    .expect("fixture");
    let lines: Vec<(&str, &str)> = fixture
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|line| {
            let fields: Vec<&str> = line.split('|').map(str::trim).collect();
            (fields[0], fields[1])
        })
        .filter(|(spec, _)| chosen.is_empty() || chosen.iter().any(|c| spec.contains(c.as_str())))
        .collect();
    assert!(
        !lines.is_empty(),
        "SOWFAN_PUBLISHED={chosen:?} chooses no line of fixtures/solved/kalah.txt"
    );
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| {
        panic!(
            "cannot make the table cache '{}': {e}; set SOWFAN_DEEP_TABLES to a writable folder",
            dir.display()
        )
    });
    for (spec, value) in lines {
        let words: Vec<&str> = spec.split_whitespace().skip(1).collect();
        let game = kalah(&words);
        let folder = sowfan::tables::format::rules_folder(
            &dir,
            &game.table_rules().expect("Kalah has tables"),
        );
        // The room the missing layers take (one byte an entry, and a header).
        let missing: u64 = (0..=seeds)
            .filter(|&l| !sowfan::tables::format::layer_file(&folder, l).is_file())
            .map(|l| game.table_layer_size(l) + 4096)
            .sum();
        let free = free_bytes(&dir);
        assert!(
            missing <= free,
            "the tables of '{spec}' up to {seeds} seeds need {} MB more in '{}', which has {} \
             MB free: set SOWFAN_DEEP_TABLES to a folder with the room (or SOWFAN_DEEP_SEEDS \
             lower, at the cost of longer solves)",
            missing >> 20,
            dir.display(),
            free >> 20
        );
        let started = std::time::Instant::now();
        build_tables(&game, &dir, seeds, 2);
        let built = started.elapsed();
        let mut all: Vec<&OsStr> = spec.split_whitespace().map(OsStr::new).collect();
        all.extend(["--threads", "2", "--hash", "512", "--tablebases"].map(OsStr::new));
        all.push(dir.as_os_str());
        let out = run::sowfan("solve", &all, Duration::from_secs(60 * minutes));
        println!(
            "{spec}: {} (tables {built:.1?}, solve {:.1?})",
            out.line("Value: ").unwrap_or("no value"),
            out.elapsed
        );
        assert!(out.success, "{spec}: {}{}", out.stdout, out.stderr);
        assert_eq!(out.line("Value: "), Some(value), "{spec}: {}", out.stdout);
        let tbhits: u64 = out
            .line("Tbhits: ")
            .and_then(|n| n.parse().ok())
            .unwrap_or(0);
        assert!(
            tbhits > 0,
            "{spec}: solved without its tables: {}",
            out.stdout
        );
    }
}

/// Bytes free for an unprivileged user in the file system of `dir`.
fn free_bytes(dir: &Path) -> u64 {
    use std::os::unix::ffi::OsStrExt;
    let path = std::ffi::CString::new(dir.as_os_str().as_bytes()).expect("a path");
    // SAFETY: statvfs reads the NUL-terminated path and writes one `statvfs` into `stat`,
    // a valid, exclusively borrowed value.
    let mut stat: libc::statvfs = unsafe { std::mem::zeroed() };
    let ok = unsafe { libc::statvfs(path.as_ptr(), &mut stat) } == 0;
    assert!(ok, "statvfs '{}'", dir.display());
    stat.f_bavail as u64 * stat.f_frsize as u64
}

/// Games decided by a result, not points: Fanoron-Telo is a win for White (as the
/// retrograde analysis of tests/it/fanorona/telo.rs finds), `Value: win`, with its
/// repetition rule or without (the proof-number solver, src/solver/pn/); a margin game with
/// a repetition rule is refused with the reason.
#[test]
fn the_solver_proves_fanorona_telo_and_refuses_repetition_rules() {
    for options in [&["repetition=off"][..], &[][..]] {
        let mut args = vec!["solve", "fanorona-telo", "--hash", "16"];
        args.extend(options);
        let out = run::output(&args);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && text.starts_with("Value: win\n"),
            "{options:?}: {text}"
        );
    }
    let out = run::output(&["solve", "anywoli", "--hash", "16"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("repetition"));
}

/// `Game::table_index_or_key` (one pass in Kalah and Afrika) equals asking
/// `Game::table_index`, then `Game::exact_key` (the trait's default), along seeded random
/// games, under every rule that changes the key or the tables and at several table sizes.
#[test]
fn table_index_or_key_is_table_index_then_exact_key() {
    fn check<G: Game>(game: &G, games: usize, max_plies: usize, layers: &[Option<u32>]) {
        let mut rng = Rng::new(0x7AB1E);
        let mut moves = Vec::new();
        for _ in 0..games {
            let mut pos = game.start_position();
            for _ in 0..max_plies {
                for &max in layers {
                    let expected = match max.and_then(|m| game.table_index(&pos, m)) {
                        Some(at) => Ok(at),
                        None => Err(game.exact_key(&pos)),
                    };
                    let text = game.format_position(&pos);
                    assert_eq!(
                        game.table_index_or_key(&pos, max),
                        expected,
                        "{text} {max:?}"
                    );
                }
                game.legal_moves(&pos, &mut moves);
                if moves.is_empty() {
                    break;
                }
                game.play(&mut pos, moves[rng.below(moves.len())]);
            }
        }
    }
    let kalah_layers = [None, Some(0), Some(8), Some(20), Some(40)];
    for options in [
        &[][..],
        &["empty-capture=true"],
        &["pie=true"],
        &["pits=4", "seeds=3"],
    ] {
        check(&kalah(options), 40, 1000, &kalah_layers);
    }
    let afrika_layers = [None, Some(0), Some(10), Some(40), Some(200)];
    for options in [&[][..], &["target=40"]] {
        check(&afrika(options), 20, 400, &afrika_layers);
    }
}

/// Issue 47, point 3: `--tablebases DIR` holding only another game's tables says nothing at
/// start-up (no game chosen yet); the current game's absence is said once, as information,
/// when that game is played; the other game's tables load when it is chosen.
#[test]
fn tables_of_another_game_are_quiet_at_start_up_and_said_once() {
    let dir = fresh_dir("tb-another-game");
    let built = run::sowfan(
        "tablebase",
        &[
            "build",
            "fanorona-dimy",
            "--pieces",
            "3",
            "--dir",
            dir.to_str().expect("utf-8"),
        ],
        Duration::from_secs(60),
    );
    assert!(built.success, "{}", built.stderr);
    let mut engine = Engine::start(&["--tablebases", dir.to_str().expect("utf-8")]);
    let start = engine.ask("uci\nquery gameover", "response");
    assert!(
        !start
            .iter()
            .any(|l| l.contains("tablebases") || l.contains("error")),
        "{start:?}"
    );
    let played = engine.ask("position startpos\ngo depth 2", "bestmove");
    let again = engine.ask("newgame kalah\nposition startpos\ngo depth 2", "bestmove");
    let said: Vec<&String> = played
        .iter()
        .chain(&again)
        .filter(|l| l.contains("no endgame tables of 'kalah"))
        .collect();
    assert_eq!(said.len(), 1, "said once: {played:?} {again:?}");
    assert!(said[0].starts_with("info string tablebases: "), "{said:?}");
    // A query runs in turn after the newgame (`isready` is answered at once, maybe first).
    let dimy = engine.ask("newgame fanorona-dimy\nquery gameover", "response");
    assert!(
        dimy.iter()
            .any(|l| l.starts_with("info string tablebases: 'fanorona-dimy")),
        "{dimy:?}"
    );
    engine.send("quit");
}
