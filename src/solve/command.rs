//! `sowfan solve`: the exact value of a position, on the command line.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use indicatif::{ProgressBar, ProgressStyle};

use super::table::SolveTable;
use crate::game::value_text;
use crate::registry;
use crate::session::{SolveProgress, SolveRequest};
use crate::tablebase;

/// What `sowfan solve` was asked.
#[derive(Debug, Clone)]
pub struct SolveArgs {
    /// The game name and its `key=value` options.
    pub game: Vec<String>,
    pub fen: Option<String>,
    pub moves: Option<String>,
    /// `None`: the default directory (see [`tablebase::default_dir`]), if it exists.
    pub tablebases: Option<PathBuf>,
    pub threads: usize,
    pub hash_mb: usize,
    pub all_moves: bool,
}

/// Solve and print `Value:`, `Best:`, `PV:`, `Nodes:`, `Time:`, `Tbhits:` (and a line per
/// move with `all_moves`). `stop` (Ctrl-C) ends it with the bounds proven so far.
pub fn run(args: &SolveArgs, stop: &AtomicBool) -> Result<(), String> {
    let (name, options) = match args.game.split_first() {
        Some((name, options)) => (name.as_str(), options),
        None => ("kalah", &[][..]),
    };
    let options: Vec<&str> = options.iter().map(String::as_str).collect();
    let mut session = registry::create(name, &options).map_err(|e| e.to_string())?;
    let moves: Vec<&str> = args
        .moves
        .as_deref()
        .map(|m| m.split_whitespace().collect())
        .unwrap_or_default();
    session
        .set_position(args.fen.as_deref(), &moves)
        .map_err(|e| e.to_string())?;
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
                session.set_tables(Some(Arc::new(tables)));
            }
            Ok(None) if explicit => eprintln!(
                "sowfan solve: note: no tables of this game in '{}'; solving without",
                dir.display()
            ),
            Ok(None) => {}
            Err(tablebase::TableError::NoDirectory(_)) if !explicit => {}
            Err(tablebase::TableError::Unsupported(_)) => {}
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
    let report = session.solve(&request, &tt, stop, &progress)?;
    bar.finish_and_clear();
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
