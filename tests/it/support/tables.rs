//! Endgame tables built by the library for a test, in a folder of the test's own.

use std::path::{Path, PathBuf};

use sowfan::cli::CancelToken;
use sowfan::game::prelude::*;
use sowfan::tables::Tables;
use sowfan::tables::build::{self, BuildOptions};
use sowfan::tables::format;

/// Build `game`'s tables with up to `in_play` stones or seeds in play into `dir`, with
/// `threads` threads, all layers or one `shard` (`Some((k, n))`: the k-th of n) of each;
/// the folder of the game's rules, where the layer files are.
pub fn build<G: Game>(
    game: &G,
    dir: &Path,
    in_play: u32,
    threads: usize,
    shard: Option<(u32, u32)>,
) -> PathBuf {
    let options = BuildOptions {
        dir: dir.to_path_buf(),
        in_play,
        threads,
        layer: None,
        shard,
        progress: false,
        memory: None,
    };
    build::build(game, &options, &CancelToken::new(), &mut |_| {}).expect("build");
    format::rules_folder(dir, &game.table_rules().expect("a game with tables"))
}

/// Build `game`'s tables up to `in_play` into `dir` and open them.
pub fn build_tables<G: Game>(game: &G, dir: &Path, in_play: u32, threads: usize) -> Tables {
    build(game, dir, in_play, threads, None);
    Tables::open(game, dir)
        .expect("open")
        .expect("tables present")
}
