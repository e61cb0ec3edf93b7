//! `sowfan solve`: the exact value of a position, on the command line.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;

use indicatif::{ProgressBar, ProgressStyle};

use crate::cli::{cancel_on_interrupt, exit_status};
use crate::game::value_text;
use crate::registry;
use crate::session::{SolveProgress, SolveRequest};
use crate::solve::table::SolveTable;
use crate::tablebase::{self, TableError};

/// Prove the exact value of a position: the final margin with perfect play.
///
/// Prints `Value: +8` (the side to move's final margin; 0 a draw), `Best:`, `PV:` (to
/// the end of the game), `Nodes:`, `Time:`, `Tbhits:`. Uses endgame tables from
/// --tablebases DIR, else from $SOWFAN_TABLEBASES or ~/.local/share/sowfan/tablebases
/// when present. Ctrl-C stops it with the bounds proven so far.
///
/// Example: sowfan solve kalah pits=4 seeds=3 --all-moves
#[derive(Debug, Clone, clap::Args)]
#[command(verbatim_doc_comment)]
pub struct SolveArgs {
    /// Game name (default kalah) followed by key=value options.
    #[arg(value_name = "GAME [KEY=VALUE ...]")]
    pub game: Vec<String>,
    /// Start from this position string instead of the start position.
    #[arg(long)]
    pub fen: Option<String>,
    /// Play these moves (space-separated, one argument) first.
    #[arg(long)]
    pub moves: Option<String>,
    /// Endgame table directory (default: $SOWFAN_TABLEBASES or
    /// ~/.local/share/sowfan/tablebases, if present).
    #[arg(long, value_name = "DIR")]
    pub tablebases: Option<PathBuf>,
    /// Search threads.
    #[arg(long, default_value_t = 1, value_name = "T")]
    pub threads: usize,
    /// Transposition table size in MiB.
    #[arg(long = "hash", default_value_t = 512, value_name = "MB")]
    pub hash_mb: usize,
    /// First print the exact value of every legal move.
    #[arg(long)]
    pub all_moves: bool,
}

/// `sowfan solve`: Ctrl-C stops the proof with the bounds proven so far; status 1 on an
/// error.
pub fn run(args: SolveArgs) -> ExitCode {
    let stop = cancel_on_interrupt("solve");
    exit_status(solve_position(&args, stop.flag()))
}

/// Solve and print `Value:`, `Best:`, `PV:`, `Nodes:`, `Time:`, `Tbhits:` (and a line per
/// move with `all_moves`). `stop` (Ctrl-C) ends it with the bounds proven so far.
pub fn solve_position(args: &SolveArgs, stop: &AtomicBool) -> Result<(), String> {
    let mut session = registry::create_at(&args.game, args.fen.as_deref(), args.moves.as_deref())?;
    let (dir, explicit) = match &args.tablebases {
        Some(dir) => (Some(dir.clone()), true),
        None => (tablebase::default_dir(), false),
    };
    if let Some(dir) = dir {
        match session.open_tables(&dir) {
            Ok(Some(tables)) => {
                log::info!(
                    "tables: layers 0..={} of '{}' in {}",
                    tables.max_layer(),
                    tables.rules(),
                    tables.folder().display()
                );
                session.set_tables(Some(tables));
            }
            Ok(None) => {}
            Err(e @ TableError::Absent { .. }) if explicit => {
                eprintln!("sowfan solve: note: {e}; solving without");
            }
            Err(TableError::Absent { .. } | TableError::NoDirectory(_)) if !explicit => {}
            Err(e) => return Err(e.to_string()),
        }
    }
    let tt = SolveTable::new(args.hash_mb)?;
    let request = SolveRequest {
        threads: args.threads.max(1),
        all_moves: args.all_moves,
        pv: true,
    };
    let bar = spinner();
    let progress = |p: &SolveProgress| {
        log::info!(
            "value in [{}, {}], nodes {}, tbhits {}, {} ms",
            value_text(p.lower),
            value_text(p.upper),
            p.nodes,
            p.tbhits,
            p.elapsed.as_millis()
        );
        bar.set_message(format!(
            "value in [{}, {}]  nodes {}  {:.1} s",
            value_text(p.lower),
            value_text(p.upper),
            p.nodes,
            p.elapsed.as_secs_f64()
        ));
    };
    let failed = || session.tables().and_then(|t| t.new_failure());
    if let Some(failure) = failed() {
        eprintln!("sowfan solve: {failure}");
    }
    let report = session.solve(&request, &tt, stop, &progress)?;
    bar.finish_and_clear();
    if let Some(failure) = failed() {
        eprintln!("sowfan solve: {failure}");
    }
    for (mv, value) in &report.moves {
        match value {
            Some(v) => println!("{mv}: {}", value_text(*v)),
            None => println!("{mv}: unknown (stopped)"),
        }
    }
    match report.value() {
        Some(v) => println!("Value: {}", value_text(v)),
        None => println!(
            "Value: between {} and {} (stopped before the proof was complete)",
            value_text(report.lower),
            value_text(report.upper)
        ),
    }
    if let Some(best) = &report.best {
        println!("Best: {best}");
    }
    if !report.pv.is_empty() {
        println!("PV: {}", report.pv.join(" "));
    }
    println!("Nodes: {}", report.nodes);
    println!("Time: {} ms", report.elapsed.as_millis());
    println!("Tbhits: {}", report.tbhits);
    Ok(())
}

fn spinner() -> ProgressBar {
    let bar = ProgressBar::new_spinner();
    if let Ok(style) = ProgressStyle::with_template("{spinner} solving: {msg}") {
        bar.set_style(style);
    }
    bar.enable_steady_tick(std::time::Duration::from_millis(200));
    bar
}
