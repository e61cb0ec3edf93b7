//! `sowfan tablebase build|plan|verify|info|merge|bench`: the command line; the work is in
//! [`crate::tablebase`].

use std::path::PathBuf;
use std::process::ExitCode;

use crate::cli::{CancelToken, Exit, cancel_on_interrupt, exit_status};
use crate::tablebase::{TablebaseError, bench, build, info, merge, plan, verify};

/// Build, check and list endgame tables.
#[derive(Debug, Clone, clap::Subcommand)]
pub enum TablebaseCommand {
    /// Build the tables of a game up to --seeds seeds (stones) in play, resuming at the
    /// first missing layer. Fanorona's layers are materials (the two stone counts, e.g.
    /// "2 and 3 stones"), built up to --pieces stones in all.
    ///
    /// Examples: sowfan tablebase build kalah --seeds 20 --dir tables --threads 2
    ///           sowfan tablebase build fanorona --pieces 7 --dir tables --threads 2
    #[command(verbatim_doc_comment)]
    Build {
        /// Game name followed by key=value options (only options that change values matter).
        #[arg(value_name = "GAME [KEY=VALUE ...]", required = true)]
        game: Vec<String>,
        /// Build every layer up to this many seeds (stones) in play (--pieces: the same).
        #[arg(long, visible_alias = "pieces", value_name = "N")]
        seeds: u32,
        /// The table directory.
        #[arg(long, value_name = "DIR")]
        dir: PathBuf,
        #[arg(long, default_value_t = 1, value_name = "T")]
        threads: usize,
        /// Build only layer L (at most the top layer of --seeds), whole or with --shard one
        /// slice of it, from the layers of lower stages, which must be whole (`sowfan
        /// tablebase plan` lists the layers and stages left). A layer already whole, or the
        /// slice already there and sound, is left as it is: a job run again does nothing.
        #[arg(long, value_name = "L")]
        layer: Option<u32>,
        /// I/K: build only slice I (from 1) of K of --layer (without it: of the top layer,
        /// every layer below being whole); `sowfan tablebase merge` assembles the slices.
        #[arg(long, value_name = "I/K")]
        shard: Option<String>,
        /// The memory the build may use, in MiB (default: what is available): a Fanorona
        /// layer needs two bytes an entry, or one (slower) when two do not fit; a layer
        /// that cannot fit is refused before anything is built.
        #[arg(long, value_name = "MB", value_parser = clap::value_parser!(u64).range(1..))]
        memory: Option<u64>,
    },
    /// Print the jobs a build still needs, for a launcher of cluster jobs: one line a
    /// layer not yet whole, in stage order (layers of one stage can be built side by side),
    /// "stage=S layer=L slices=J entries=E name=NAME" (NAME with _ for blanks). For each
    /// line run J slices `build ... --layer L --shard I/J`, then `merge --dir DIR --layer L`.
    ///
    /// Example: sowfan tablebase plan kalah --seeds 20 --dir tables --slices 8
    #[command(verbatim_doc_comment)]
    Plan {
        /// Game name followed by key=value options (only options that change values matter).
        #[arg(value_name = "GAME [KEY=VALUE ...]", required = true)]
        game: Vec<String>,
        /// The build's seeds (stones) in play (--pieces: the same).
        #[arg(long, visible_alias = "pieces", value_name = "N")]
        seeds: u32,
        /// The table directory (layers already whole there are left out).
        #[arg(long, value_name = "DIR")]
        dir: PathBuf,
        /// The most slices a layer is cut into: a depth-first layer (Kalah, Afrika) gets
        /// min(K, entries), a retrograde one (Fanorona), whose every slice computes the
        /// whole layer, 1.
        #[arg(long, value_name = "K")]
        slices: u32,
    },
    /// Check every table file under DIR as the loader does, with its checksum and values.
    Verify {
        #[arg(long, value_name = "DIR")]
        dir: PathBuf,
    },
    /// List what DIR holds: rule sets, layers, entries, sizes.
    Info {
        #[arg(long, value_name = "DIR")]
        dir: PathBuf,
    },
    /// Assemble the slices of layers into whole layer files, verifying every slice, and
    /// remove the slices once the whole layer is written and checked.
    Merge {
        #[arg(long, value_name = "DIR")]
        dir: PathBuf,
        /// Only layer L (beside builds of other layers): fails naming the slices I/K that
        /// are missing; a layer already whole is left as it is.
        #[arg(long, value_name = "L")]
        layer: Option<u32>,
    },
    /// Time table probes: a seeded sample of covered positions from every layer, probed
    /// once (cold: page faults, cache misses) and again (warm).
    ///
    /// Example: sowfan tablebase bench fanorona --dir tables --positions 100000
    #[command(verbatim_doc_comment)]
    Bench {
        /// Game name followed by key=value options.
        #[arg(value_name = "GAME [KEY=VALUE ...]", required = true)]
        game: Vec<String>,
        #[arg(long, value_name = "DIR")]
        dir: PathBuf,
        /// Positions in the sample (1..=10000000).
        #[arg(long, default_value_t = 100_000, value_name = "N")]
        positions: usize,
        #[arg(long, default_value_t = 1, value_name = "S")]
        seed: u64,
    },
}

/// `sowfan tablebase …`: Ctrl-C stops a build between chunks (the layers written so far are
/// complete, a rerun resumes) and verify, info and merge between files; status 1 on an
/// error, 130 when interrupted.
pub fn run(command: TablebaseCommand) -> ExitCode {
    let stop = cancel_on_interrupt("tablebase");
    let result = execute(command, &stop);
    if stop.is_cancelled() {
        eprintln!("sowfan: interrupted");
        return Exit::Interrupted.into();
    }
    exit_status(result)
}

pub fn execute(command: TablebaseCommand, stop: &CancelToken) -> Result<(), TablebaseError> {
    match command {
        TablebaseCommand::Build {
            game,
            seeds,
            dir,
            threads,
            layer,
            shard,
            memory,
        } => build(
            &game,
            seeds,
            dir,
            threads,
            layer,
            shard.as_deref(),
            memory,
            stop,
        ),
        TablebaseCommand::Plan {
            game,
            seeds,
            dir,
            slices,
        } => plan(&game, seeds, &dir, slices),
        TablebaseCommand::Verify { dir } => verify(&dir, stop),
        TablebaseCommand::Info { dir } => info(&dir, stop),
        TablebaseCommand::Merge { dir, layer } => merge(&dir, layer, stop),
        TablebaseCommand::Bench {
            game,
            dir,
            positions,
            seed,
        } => bench(&game, &dir, positions, seed),
    }
}
