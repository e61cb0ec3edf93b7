//! `sowfan bench`: the fixed search suite on the command line.

use std::process::ExitCode;

use crate::cli::Exit;
use crate::protocol::Output;
use crate::search::SearchControl;

/// Search a fixed set of positions of every game to a fixed depth; prints the node
/// total (the same for a given build) and nodes per second.
#[derive(Debug, Clone, clap::Args)]
pub struct BenchArgs {
    /// Override every game's bench depth.
    pub depth: Option<u32>,
}

pub fn run(args: BenchArgs) -> ExitCode {
    let out = Output::stdout();
    let control = SearchControl::default();
    crate::bench::run(args.depth, &control, &mut |line| out.line(line));
    Exit::Success.into()
}
