//! What a table build is asked to do and how it can fail, and its progress bars: shared by
//! the depth-first builder (`build.rs`) and the retrograde one (`retro.rs`).

use std::path::PathBuf;

use indicatif::ProgressBar;
use thiserror::Error;

#[derive(Debug, Error)]
pub enum BuildError {
    #[error("{0} has no endgame tables")]
    Unsupported(String),
    #[error("layer {layer}: {message}")]
    Cycle { layer: u32, message: String },
    #[error("layer {layer}: {message}")]
    Invalid { layer: u32, message: String },
    #[error("{0}")]
    Missing(String),
    /// More in play than a table can hold.
    #[error("{0}")]
    TooMany(String),
    #[error("'{path}': {error}")]
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error(transparent)]
    Table(#[from] super::TableError),
    /// A layer the memory cannot hold, said before anything is built.
    #[error("{0}")]
    Memory(String),
    #[error("stopped; the layers written so far are complete, a rerun resumes")]
    Stopped,
    #[error(
        "{0}; the layers built on it cannot be trusted: restore or remove it (and every \
         layer above it) and build again"
    )]
    Changed(String),
}

/// What to build.
#[derive(Debug, Clone)]
pub struct BuildOptions {
    pub dir: PathBuf,
    /// Build every layer of positions with at most this many seeds (stones) in play
    /// ([`TableIndexing::table_top_layer`](crate::game::TableIndexing::table_top_layer)).
    pub in_play: u32,
    pub threads: usize,
    /// Only this layer (at most the top layer of `in_play`), from the layers of lower
    /// stages ([`TableIndexing::table_layer_stage`](crate::game::TableIndexing::table_layer_stage)), which must be whole.
    pub layer: Option<u32>,
    /// `(i, k)`: only slice `i` (from 1) of `k` of `layer` (without one: of the top layer).
    pub shard: Option<(u32, u32)>,
    /// Show a progress bar per layer (on a terminal).
    pub progress: bool,
    /// The memory in bytes the build plans within (`--memory`); `None`: what the machine
    /// has available ([`crate::memory::available_bytes`]).
    pub memory: Option<u64>,
}

/// A progress bar of `count` steps named `what`, hidden unless `show`.
pub(super) fn progress_bar(show: bool, what: &str, count: u64) -> ProgressBar {
    if !show {
        return ProgressBar::hidden();
    }
    crate::cli::progress_bar(
        count,
        &format!("{what} {{bar:30.cyan/blue}} {{pos}}/{{len}} [{{elapsed_precise}} < {{eta}}]"),
    )
}
