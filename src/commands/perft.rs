//! `sowfan perft`: the move-path count of a game from a position, split by first move, with
//! its speed.

use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use crate::cli::exit_status;
use crate::protocol::Output;
use crate::registry::{self, CreateAtError};

/// Count move sequences of DEPTH moves (split by first move), with the speed.
///
/// Example: sowfan perft 11 kalah   or   sowfan perft 6 kalah pits=4 seeds=3
#[derive(Debug, Clone, clap::Args)]
pub struct PerftArgs {
    /// Number of moves (an extra move counts as a move).
    pub depth: u32,
    /// Game name (default kalah) followed by key=value options.
    #[arg(value_name = "GAME [KEY=VALUE ...]")]
    pub game: Vec<String>,
    /// Start from this position string instead of the start position.
    #[arg(long)]
    pub fen: Option<String>,
    /// Play these moves (space-separated, one argument) before counting.
    #[arg(long)]
    pub moves: Option<String>,
}

/// Status 1 with the reason when the game or the position is not accepted.
pub fn run(args: PerftArgs) -> ExitCode {
    exit_status(count(&args))
}

fn count(args: &PerftArgs) -> Result<(), CreateAtError> {
    let session = registry::create_at(&args.game, args.fen.as_deref(), args.moves.as_deref())?;
    let out = Output::stdout();
    let start = Instant::now();
    let mut total = 0u64;
    let never = AtomicBool::new(false);
    session.divide(args.depth, &never, &mut |mv, count| {
        out.line(&format!("{mv}: {count}"));
        total += count;
    });
    if args.depth == 0 {
        total = 1;
    }
    let elapsed = start.elapsed();
    out.line(&format!("Nodes searched: {total}"));
    out.line(&format!("Time: {} ms", elapsed.as_millis()));
    out.line(&format!(
        "Nodes/second: {}",
        (total as f64 / elapsed.as_secs_f64().max(1e-9)) as u64
    ));
    Ok(())
}
