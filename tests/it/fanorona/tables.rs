//! Fanorona's endgame tables against plain minimax under the draw rules: every entry of the
//! small materials on both big boards, probed under every quiet counter; threads and shards
//! giving the same bytes; damage found by verify.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use sowfan::game::Game;
use sowfan::games::fanorona::{Fanorona, OPTIONS, Size};
use sowfan::options::GameOptions;
use sowfan::tablebase::Tables;
use sowfan::tablebase::build::{self, BuildOptions};

use crate::support::walk::{self, Node};

pub fn fanorona(size: Size, options: &[&str]) -> Fanorona {
    let options = GameOptions::parse(size.game_name(), OPTIONS, options).expect("options");
    Fanorona::new(size, options)
}

/// Plain minimax without pruning under the game's draw rules: the mover's final value
/// (+2 win, 0 draw, −2 loss), memoised by the full hash (which holds the quiet counter, so
/// the graph has no cycle). Repetition is not a rule of a position without history.
pub fn minimax(game: &Fanorona, pos: &<Fanorona as Game>::Position, memo: &mut HashMap<u64, Option<i64>>) -> i32 {
    let value = walk::minimax(pos, memo, &|pos| game.hash(pos), &|pos| {
        let mover = game.to_move(pos);
        if let Some(outcome) = game.outcome(pos) {
            return Node::Over(game.final_value(&outcome, mover).into());
        }
        let mut moves = Vec::new();
        game.legal_moves(pos, &mut moves);
        let children = moves.into_iter().map(|mv| {
            let mut child = *pos;
            game.play(&mut child, mv);
            (child, false)
        });
        Node::Moves(children.collect())
    });
    value as i32
}

pub fn build_tables(game: &Fanorona, dir: &Path, stones: u32, threads: usize) -> Tables {
    let options = BuildOptions {
        dir: dir.to_path_buf(),
        in_play: stones,
        threads,
        shard: None,
        progress: false,
    };
    build::build(game, &options, &AtomicBool::new(false), &mut |_| {}).expect("build");
    Tables::open(game, dir).expect("open").expect("tables present")
}

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
                assert_eq!(tables.value(layer, index), Some(0), "an unused slot holds 0");
                continue;
            };
            assert_eq!(game.table_index(&pos, top), Some((layer, index)));
            let text = game.format_position(&pos);
            for quiet in 0..=limit {
                let at = game
                    .parse_position(&format!("{} {quiet}", text.rsplit_once(' ').expect("fields").0))
                    .expect("position");
                let expected = minimax(game, &at, &mut memo);
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

fn scratch(name: &str) -> PathBuf {
    crate::support::fresh_dir(&format!("fanorona-tb-{name}"))
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
        let checked = check_every_entry(&game, &scratch("dimy-4"), 4, 12);
        assert!(checked > 200_000, "{checked}");
    });
}

#[test]
fn tsivy_tables_equal_minimax_up_to_three_stones_under_every_counter() {
    with_stack(|| {
        let game = fanorona(Size::Tsivy, &["quiet-limit=10"]);
        let checked = check_every_entry(&game, &scratch("tsivy-3"), 3, 10);
        assert!(checked > 50_000, "{checked}");
    });
}

#[test]
fn dimy_tables_under_the_default_limit_equal_minimax_up_to_three_stones() {
    with_stack(|| {
        let game = fanorona(Size::Dimy, &[]);
        let checked = check_every_entry(&game, &scratch("dimy-3-default"), 3, 100);
        assert!(checked > 100_000, "{checked}");
    });
}
