//! Fanorona's endgame tables against plain minimax under the draw rules: every entry of the
//! small materials on both big boards, probed under every quiet counter; threads and shards
//! giving the same bytes; damage found by verify.

use std::collections::HashMap;
use std::path::Path;

use sowfan::game::prelude::*;
use sowfan::games::fanorona::{Fanorona, Size};

use crate::support::fresh_dir;
use crate::support::games::fanorona;
use crate::support::tables::build_tables;
use crate::support::walk::game_minimax;

/// Every used entry of the tables up to `stones`, probed under every quiet counter, equals
/// minimax; the number of (entry, counter) pairs checked.
fn check_every_entry(game: &Fanorona, dir: &Path, stones: u32, limit: u32) -> u64 {
    let tables = build_tables(game, dir, stones, 2);
    let mut memo = HashMap::new();
    let mut checked = 0;
    let top = game.table_top_layer(stones).expect("layers");
    for layer in 0..=top {
        for index in 0..game.table_layer_size(layer) {
            let Some(pos) = game.table_position(layer, index) else {
                assert_eq!(
                    tables.value(layer, index),
                    Some(0),
                    "an unused slot holds 0"
                );
                continue;
            };
            assert_eq!(game.table_index(&pos, top), Some((layer, index)));
            let text = game.format_position(&pos);
            for quiet in 0..=limit {
                let at = game
                    .parse_position(&format!(
                        "{} {quiet}",
                        text.rsplit_once(' ').expect("fields").0
                    ))
                    .expect("position");
                let expected = game_minimax(game, &at, &mut memo);
                let probed = tables.probe(game, &at).expect("covered");
                assert_eq!(
                    probed,
                    expected,
                    "{} layer {layer} entry {index} (byte {:?}): {}",
                    game.spec(),
                    tables.value(layer, index),
                    game.format_position(&at)
                );
                checked += 1;
            }
        }
    }
    checked
}

/// A test body with room for minimax's recursion (a quiet stretch is a path of up to the
/// limit's length, per material).
fn with_stack(f: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(f)
        .expect("thread")
        .join()
        .expect("the test body");
}

#[test]
fn dimy_tables_equal_minimax_up_to_four_stones_under_every_counter() {
    with_stack(|| {
        let game = fanorona(Size::Dimy, &["quiet-limit=12"]);
        let checked = check_every_entry(&game, &fresh_dir("fanorona-tb-dimy-4"), 4, 12);
        assert!(checked > 200_000, "{checked}");
    });
}

#[test]
fn tsivy_tables_equal_minimax_up_to_three_stones_under_every_counter() {
    with_stack(|| {
        let game = fanorona(Size::Tsivy, &["quiet-limit=10"]);
        let checked = check_every_entry(&game, &fresh_dir("fanorona-tb-tsivy-3"), 3, 10);
        assert!(checked > 50_000, "{checked}");
    });
}

#[test]
fn dimy_tables_under_the_default_limit_equal_minimax_up_to_three_stones() {
    with_stack(|| {
        let game = fanorona(Size::Dimy, &[]);
        let checked = check_every_entry(&game, &fresh_dir("fanorona-tb-dimy-3-default"), 3, 100);
        assert!(checked > 100_000, "{checked}");
    });
}

/// 100 won table positions (seeded, 4 and 5 stones on 5×5, some with a quiet counter
/// already running): the engine with tables, playing the winner, wins every one against
/// the engine without tables, under the game's draw rules (judged by the session).
#[test]
fn won_table_positions_are_converted_against_the_engine_without_tables() {
    use sowfan::registry;
    use sowfan::search::limits::Limits;
    use sowfan::search::tt::TranspositionTable;
    use sowfan::search::{SearchControl, SearchSettings};

    let dir = fresh_dir("fanorona-tb-convert");
    let game = fanorona(Size::Dimy, &[]);
    let tables = build_tables(&game, &dir, 5, 2);
    let mut rng = crate::support::rng::Rng::new(18);
    let mut starts = Vec::new();
    while starts.len() < 100 {
        let layer = *rng.pick(&[4u32, 5]);
        let index = rng.below(game.table_layer_size(layer) as usize) as u64;
        let (Some(pos), Some(byte)) = (
            game.table_position(layer, index),
            tables.value(layer, index),
        ) else {
            continue;
        };
        // A win that needs some play: at least 4 turns, and a counter that leaves it won.
        if byte < 4 || game.outcome(&pos).is_some() {
            continue;
        }
        let spare = 100 - byte as u32;
        let quiet = if rng.one_in(2) {
            0
        } else {
            rng.below(spare as usize + 1) as u32
        };
        let text = game.format_position(&pos);
        starts.push(format!(
            "{} {quiet}",
            text.rsplit_once(' ').expect("fields").0
        ));
    }
    let mut turns = 0;
    for fen in &starts {
        let mut winner = registry::create("fanorona-dimy", &[]).expect("game");
        let tables = winner.open_tables(&dir).expect("tables").expect("present");
        winner.set_tables(Some(tables));
        let mut loser = registry::create("fanorona-dimy", &[]).expect("game");
        let mut moves: Vec<String> = Vec::new();
        let mut hero = None;
        for turn in 0.. {
            let session = if turn % 2 == 0 {
                &mut winner
            } else {
                &mut loser
            };
            let texts: Vec<&str> = moves.iter().map(String::as_str).collect();
            session.set_position(Some(fen), &texts).expect("replay");
            if turn == 0 {
                hero = Some(session.to_move());
            }
            if let Some(outcome) = session.outcome() {
                assert_eq!(
                    outcome.result.winner(),
                    hero,
                    "{fen}: {} ({}) after {}",
                    outcome.result.as_str(),
                    outcome.reason,
                    moves.join(" ")
                );
                turns += turn;
                break;
            }
            let tt = TranspositionTable::new(4).expect("table");
            let summary = session
                .search(
                    &Limits::depth(4),
                    &SearchSettings::default(),
                    &tt,
                    None,
                    &SearchControl::default(),
                    &mut |_| {},
                )
                .expect("search");
            moves.push(summary.bestmove);
        }
    }
    assert!(turns > 400, "{turns} turns in all");
}

/// Through the command line: `--pieces`, one thread or two, shards of the top layer merged,
/// a `--memory` that leaves a layer without counters, all give the same bytes (a build that
/// cannot fit is refused before it writes); verify passes them and catches a damaged byte and a value no
/// entry can hold; info lists the materials.
#[test]
fn fanorona_builds_agree_across_threads_and_shards_and_verify_catches_damage() {
    use crate::support::run;
    let folder = "fanorona-dimy_quiet-limit=100";
    let build = |dir: &Path, extra: &[&str]| {
        let dir = dir.display().to_string();
        let mut args = vec![
            "tablebase",
            "build",
            "fanorona-dimy",
            "--pieces",
            "6",
            "--dir",
            &dir,
        ];
        args.extend_from_slice(extra);
        let out = run::output(&args);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).to_string()
    };
    let one = fresh_dir("fanorona-tb-cli-one");
    let text = build(&one, &["--threads", "1"]);
    assert!(text.contains("layer   8 (3 and 3 stones):"), "{text}");
    let two = fresh_dir("fanorona-tb-cli-two");
    build(&two, &["--threads", "2"]);
    // Within 1 MiB the {2,4} layer (699,720 entries) is built without counters, {3,3} with.
    let lean = fresh_dir("fanorona-tb-cli-lean");
    let text = build(&lean, &["--threads", "2", "--memory", "1"]);
    assert!(
        text.contains("planned for the largest layer: 1 MiB"),
        "{text}"
    );
    // Seven stones do not fit in 1 MiB: refused before anything is written, with what fits.
    let refused = fresh_dir("fanorona-tb-cli-refused");
    let out = run::output(&[
        "tablebase",
        "build",
        "fanorona-dimy",
        "--pieces",
        "7",
        "--dir",
        &refused.display().to_string(),
        "--memory",
        "1",
    ]);
    let text = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success()
            && text.contains("layer 10 (2 and 5 stones, 2589320 entries) needs at least 3 MiB")
            && text.contains("--pieces 6"),
        "{text}"
    );
    assert!(!refused.join(folder).exists(), "nothing is written");
    let sharded = fresh_dir("fanorona-tb-cli-shards");
    let dir = sharded.display().to_string();
    let build_up_to = |pieces: &str| {
        let out = run::output(&[
            "tablebase",
            "build",
            "fanorona-dimy",
            "--pieces",
            pieces,
            "--dir",
            &dir,
        ]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    build_up_to("4");
    // The top layer of 6 stones is {3,3}: a shard of it reads the layers of fewer stones
    // (stages below 6), all of them; {1,5} and {2,4} (layers 6 and 7, stage 6) it does not.
    let shard = |dir: &str| {
        run::output(&[
            "tablebase",
            "build",
            "fanorona-dimy",
            "--seeds",
            "6",
            "--dir",
            dir,
            "--shard",
            "1/2",
        ])
    };
    let out = shard(&dir);
    let text = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && text.contains("layer-005.sftb"),
        "a shard needs the layers of fewer stones: {text}"
    );
    build_up_to("5");
    for layer in ["layer-006.sftb", "layer-007.sftb"] {
        std::fs::copy(
            one.join(folder).join(layer),
            sharded.join(folder).join(layer),
        )
        .expect("copy");
    }
    for shard in ["1/3", "2/3", "3/3"] {
        build(&sharded, &["--shard", shard]);
    }
    let merge = run::output(&["tablebase", "merge", "--dir", &dir]);
    assert!(
        merge.status.success(),
        "{}",
        String::from_utf8_lossy(&merge.stderr)
    );
    for layer in 0..=8 {
        let name = format!("layer-{layer:03}.sftb");
        let a = std::fs::read(one.join(folder).join(&name)).expect("one thread");
        let b = std::fs::read(two.join(folder).join(&name)).expect("two threads");
        let c = std::fs::read(sharded.join(folder).join(&name)).expect("merged");
        let d = std::fs::read(lean.join(folder).join(&name)).expect("within 1 MiB");
        assert!(a == b && a == c && a == d, "{name} differs");
    }
    let verify = run::output(&["tablebase", "verify", "--dir", &one.display().to_string()]);
    assert!(
        verify.status.success(),
        "{}",
        String::from_utf8_lossy(&verify.stdout)
    );
    let info = run::output(&["tablebase", "info", "--dir", &one.display().to_string()]);
    let text = String::from_utf8_lossy(&info.stdout);
    assert!(text.contains("fanorona-dimy quiet-limit=100"), "{text}");
    assert!(text.contains("complete: layers 0..=8"), "{text}");
    // A changed byte breaks the checksum; a value beyond the limit is named.
    let path = one.join(folder).join("layer-007.sftb");
    let mut bytes = std::fs::read(&path).expect("read");
    let last = bytes.len() - 1;
    bytes[last] = bytes[last].wrapping_add(1);
    std::fs::write(&path, &bytes).expect("write");
    let verify = run::output(&["tablebase", "verify", "--dir", &one.display().to_string()]);
    let text = String::from_utf8_lossy(&verify.stdout);
    assert!(
        !verify.status.success() && text.contains("checksum"),
        "{text}"
    );
    let header = bytes.len() - game_entries(7) as usize;
    bytes[header] = 120; // a win in 120 turns: beyond quiet-limit 100
    let data = &bytes[header..];
    let sum = sowfan::file_header::checksum(data); // files are written in version 2
    bytes[48..56].copy_from_slice(&sum.to_le_bytes());
    std::fs::write(&path, &bytes).expect("write");
    let verify = run::output(&["tablebase", "verify", "--dir", &one.display().to_string()]);
    let text = String::from_utf8_lossy(&verify.stdout);
    assert!(
        !verify.status.success() && text.contains("holds 120"),
        "{text}"
    );
}

fn game_entries(layer: u32) -> u64 {
    fanorona(Size::Dimy, &[]).table_layer_size(layer)
}

/// The tables leave the repetition rule out: for a position without history it cannot change
/// the value (docs/tablebases.md). Checked against a search that plays the rule out along
/// its path (repetition=2, the strictest: a position's second occurrence since the last
/// capture is a draw), on seeded positions of up to 4 stones on 5×5 under quiet-limit=6,
/// every counter.
#[test]
fn the_repetition_rule_does_not_change_a_table_value() {
    fn search(
        game: &Fanorona,
        pos: &<Fanorona as sowfan::game::Rules>::Position,
        path: &mut Vec<u64>,
        mut alpha: i32,
        beta: i32,
    ) -> i32 {
        if let Some(outcome) = game.outcome(pos) {
            return game.final_value(&outcome, game.to_move(pos));
        }
        let key = game.repetition_key(pos);
        let window = (pos.quiet() as usize).min(path.len());
        if path[path.len() - window..].contains(&key) {
            return 0;
        }
        path.push(key);
        let mut moves = Vec::new();
        game.legal_moves(pos, &mut moves);
        let mut best = -2;
        for mv in moves {
            let mut child = *pos;
            game.play(&mut child, mv);
            let value = -search(game, &child, path, -beta, -alpha);
            best = best.max(value);
            alpha = alpha.max(value);
            if alpha >= beta {
                break;
            }
        }
        path.pop();
        best
    }
    with_stack(|| {
        let game = fanorona(Size::Dimy, &["quiet-limit=6", "repetition=2"]);
        let tables = build_tables(&game, &fresh_dir("fanorona-tb-repetition"), 4, 2);
        let mut rng = crate::support::rng::Rng::new(2);
        let mut checked = 0;
        let mut decided = 0;
        while checked < 1000 {
            let layer = rng.below(4) as u32;
            let index = rng.below(game.table_layer_size(layer) as usize) as u64;
            let Some(pos) = game.table_position(layer, index) else {
                continue;
            };
            let text = game.format_position(&pos);
            let quiet = rng.below(7);
            let at = game
                .parse_position(&format!(
                    "{} {quiet}",
                    text.rsplit_once(' ').expect("fields").0
                ))
                .expect("position");
            let value = search(&game, &at, &mut Vec::new(), -2, 2);
            assert_eq!(
                tables.probe(&game, &at),
                Some(value),
                "{}",
                game.format_position(&at)
            );
            checked += 1;
            decided += usize::from(value != 0);
        }
        assert!(decided > 200, "{decided} of {checked} decided");
    });
}

/// `sowfan analyse` with Fanorona tables: proven values are results (`win*`, `loss*`, `0*`),
/// and a move that throws a table win away to a draw is a blunder (`??`), not a one-point
/// slip.
#[test]
fn analyse_marks_table_results_and_a_thrown_away_win() {
    use crate::support::run;
    let dir = fresh_dir("fanorona-tb-analyse");
    build_tables(&fanorona(Size::Dimy, &[]), &dir, 4, 2);
    let out = run::output_with_input(
        &[
            "analyse",
            "--game",
            "fanorona-dimy",
            "--depth",
            "4",
            "--tablebases",
            &dir.display().to_string(),
        ],
        "fen 5/1B3/5/2W2/W3W w 0 moves a1-b2 b4-b3A e1-e2 b3-a3 c2-c3\n",
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let line = |ply: &str| {
        text.lines()
            .find(|l| l.split_whitespace().next() == Some(ply))
            .unwrap_or_else(|| panic!("ply {ply}: {text}"))
            .to_string()
    };
    assert!(line("1").contains("win*"), "{text}");
    assert!(line("2").contains("loss*"), "{text}");
    let thrown = line("5");
    assert!(
        thrown.contains("win*") && thrown.contains("0*") && thrown.contains("??"),
        "{text}"
    );
}
