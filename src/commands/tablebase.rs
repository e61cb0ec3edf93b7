//! `sowfan tablebase build|verify|info|merge|bench`: the command line; the work is in
//! [`crate::table_tools`].

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;

use crate::cli::{cancel_on_interrupt, exit_status};
use crate::table_tools::{bench, build, info, merge, verify};

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
        /// I/K: build only slice I (from 1) of K of the top layer (the layers below must
        /// exist); `sowfan tablebase merge` assembles the slices.
        #[arg(long, value_name = "I/K")]
        shard: Option<String>,
        /// The memory the build may use, in MiB (default: what is available): a Fanorona
        /// layer needs two bytes an entry, or one (slower) when two do not fit; a layer
        /// that cannot fit is refused before anything is built.
        #[arg(long, value_name = "MB", value_parser = clap::value_parser!(u64).range(1..))]
        memory: Option<u64>,
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
    /// Assemble the shards of layers into whole layer files, verifying every slice.
    Merge {
        #[arg(long, value_name = "DIR")]
        dir: PathBuf,
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
    let result = execute(command, stop.flag());
    if stop.is_cancelled() {
        eprintln!("sowfan: interrupted");
        return ExitCode::from(130);
    }
    exit_status(result)
}

pub fn execute(command: TablebaseCommand, stop: &AtomicBool) -> Result<(), String> {
    match command {
        TablebaseCommand::Build {
            game,
            seeds,
            dir,
            threads,
            shard,
            memory,
        } => build(&game, seeds, dir, threads, shard.as_deref(), memory, stop),
        TablebaseCommand::Verify { dir } => verify(&dir, stop),
        TablebaseCommand::Info { dir } => info(&dir, stop),
        TablebaseCommand::Merge { dir } => merge(&dir, stop),
        TablebaseCommand::Bench {
            game,
            dir,
            positions,
            seed,
        } => bench(&game, &dir, positions, seed),
    }
}
