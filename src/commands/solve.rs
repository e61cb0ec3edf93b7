//! `sowfan solve`: the exact value of a position, on the command line.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};

use crate::cli::{cancel_on_interrupt, exit_status};
use crate::game::value_text;
use crate::memory::{MAX_THREADS, check_hash_mb};
use crate::registry;
use crate::session::{SolveProgress, SolveRequest};
use crate::solve::pn::{self, value_word};
use crate::solve::{self, table::SolveTable};
use crate::tablebase::{self, TableError};

/// Prove the exact value of a position: the final margin with perfect play.
///
/// Prints `Value: +8` (the side to move's final margin; 0 a draw), `Best:`, `PV:` (to
/// the end of the game), `Nodes:`, `Time:`, `Tbhits:`. Games that are won, drawn or
/// lost (Fanorona) print `Value: win`, `draw` or `loss`, proven by proof numbers: the
/// value of the position as if it had no earlier occurrence since the last capture.
/// Uses endgame tables from --tablebases DIR, else from $SOWFAN_TABLEBASES or
/// ~/.local/share/sowfan/tablebases when present. Ctrl-C (or SIGTERM) stops it with the
/// bounds proven so far.
///
/// Exit status: 0 when the value is proven, 1 on an error (a bad game, position or
/// option; a --hash this machine cannot hold; a proof file that cannot be read or
/// saved), 130 when interrupted before the proof was complete.
///
/// Example: sowfan solve kalah pits=4 seeds=3 --all-moves
/// Example: sowfan solve fanorona-dimy --hash 2048 --proof-file dimy.proof
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
    /// Search threads (1..=256; more than the machine's processors are not used).
    #[arg(long, default_value_t = 1, value_name = "T")]
    pub threads: usize,
    /// Transposition table size in MiB (at most what this machine can hold, and 65536).
    #[arg(long = "hash", default_value_t = 512, value_name = "MB")]
    pub hash_mb: usize,
    /// First print the exact value of every legal move.
    #[arg(long)]
    pub all_moves: bool,
    /// Won, drawn or lost games: resume the proof saved in FILE (same game, position and
    /// --hash), and save it there every --checkpoint seconds, when stopped and when done.
    #[arg(long, value_name = "FILE")]
    pub proof_file: Option<PathBuf>,
    /// Seconds between two saves of the --proof-file (1..=1000000).
    #[arg(long, default_value_t = 600, value_name = "SECS")]
    pub checkpoint: u64,
}

/// How a solve ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Solved {
    /// The value (and every move's, with --all-moves) is proven.
    Complete,
    /// Stopped (Ctrl-C) first: what was printed are bounds.
    Interrupted,
}

/// `sowfan solve`: Ctrl-C stops the proof with the bounds proven so far (status 130); status
/// 1 on an error.
pub fn run(args: SolveArgs) -> ExitCode {
    let stop = cancel_on_interrupt("solve");
    match solve_position(&args, stop.flag()) {
        Ok(Solved::Complete) => ExitCode::SUCCESS,
        Ok(Solved::Interrupted) => ExitCode::from(130),
        Err(message) => exit_status(Err(message)),
    }
}

/// The threads a solve may use: 1..=[`MAX_THREADS`] asked, at most the processors used
/// (more add nothing to the shared-table search and only slow it, as with the protocol's
/// `Threads`), with a warning then.
pub fn solve_threads(requested: usize) -> Result<usize, String> {
    if requested == 0 || requested > MAX_THREADS {
        return Err(format!(
            "--threads {requested}: give a number of threads in 1..={MAX_THREADS}"
        ));
    }
    let processors = std::thread::available_parallelism().map_or(1, |n| n.get());
    if requested > processors {
        eprintln!(
            "sowfan solve: warning: --threads {requested}: this machine runs {processors} \
             threads at once; solving with {processors}"
        );
    }
    Ok(requested.min(processors))
}

/// A bound for people: the solver's "nothing proven" stand-in is `unknown`; a won, drawn
/// or lost game's values are words.
fn bound_text(bound: i32, words: bool) -> String {
    if words {
        value_word(bound).to_string()
    } else if solve::is_known(bound) {
        value_text(bound)
    } else {
        "unknown".to_string()
    }
}

/// The `Value:` line's text: the value, or what is proven of it.
fn value_line(lower: i32, upper: i32, words: bool) -> String {
    let stopped = "stopped before the proof was complete";
    let text = |v| bound_text(v, words);
    if lower == upper {
        return text(lower);
    }
    if words {
        // The bounds of a won, drawn or lost game: loss ≤ value ≤ win always holds.
        return match (lower > pn::LOSS, upper < pn::WIN) {
            (true, true) => format!("between {} and {} ({stopped})", text(lower), text(upper)),
            (true, false) => format!("at least {} ({stopped})", text(lower)),
            (false, true) => format!("at most {} ({stopped})", text(upper)),
            (false, false) => format!("unknown ({stopped})"),
        };
    }
    match (solve::is_known(lower), solve::is_known(upper)) {
        (true, true) => format!(
            "between {} and {} ({stopped})",
            value_text(lower),
            value_text(upper)
        ),
        (true, false) => format!("at least {} ({stopped})", value_text(lower)),
        (false, true) => format!("at most {} ({stopped})", value_text(upper)),
        (false, false) => format!("unknown ({stopped})"),
    }
}

/// Solve and print `Value:`, `Best:`, `PV:`, `Nodes:`, `Time:`, `Tbhits:` (and a line per
/// move with `all_moves`). `stop` (Ctrl-C) ends it with the bounds proven so far.
pub fn solve_position(args: &SolveArgs, stop: &AtomicBool) -> Result<Solved, String> {
    // Options that size memory or threads are refused before any work, never left to the
    // out-of-memory killer or a failed thread.
    check_hash_mb("--hash", args.hash_mb)?;
    let threads = solve_threads(args.threads)?;
    if !(1..=1_000_000).contains(&args.checkpoint) {
        return Err(format!(
            "--checkpoint {}: give a number of seconds in 1..=1000000",
            args.checkpoint
        ));
    }
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
        threads,
        all_moves: args.all_moves,
        pv: true,
        proof_file: args.proof_file.clone(),
        checkpoint: Duration::from_secs(args.checkpoint),
    };
    let words = session.win_draw_loss();
    let bar = spinner();
    let ticker = Ticker::start(&bar);
    let progress = |p: &SolveProgress| {
        log::info!(
            "value in [{}, {}], nodes {}, tbhits {}, {} ms",
            bound_text(p.lower, words),
            bound_text(p.upper, words),
            p.nodes,
            p.tbhits,
            p.elapsed.as_millis()
        );
        bar.set_message(format!(
            "value in [{}, {}]  nodes {}  {:.1} s",
            bound_text(p.lower, words),
            bound_text(p.upper, words),
            p.nodes,
            p.elapsed.as_secs_f64()
        ));
    };
    let failed = || session.tables().and_then(|t| t.new_failure());
    if let Some(failure) = failed() {
        eprintln!("sowfan solve: {failure}");
    }
    let report = session.solve(&request, &tt, stop, &progress);
    drop(ticker);
    bar.finish_and_clear();
    if let Some(failure) = failed() {
        eprintln!("sowfan solve: {failure}");
    }
    let report = report?;
    let words = report.win_draw_loss;
    if let (Some(work), Some(path)) = (report.resumed, &args.proof_file) {
        eprintln!(
            "sowfan solve: resumed the proof in '{}' ({} nodes, {} s of earlier work)",
            path.display(),
            work.nodes,
            work.millis / 1000
        );
    }
    let mut out = Vec::new();
    for (mv, value) in &report.moves {
        match value {
            Some(v) => out.push(format!("{mv}: {}", bound_text(*v, words))),
            None => out.push(format!("{mv}: unknown (stopped)")),
        }
    }
    out.push(format!(
        "Value: {}",
        value_line(report.lower, report.upper, words)
    ));
    if let Some(best) = &report.best {
        out.push(format!("Best: {best}"));
    }
    if !report.pv.is_empty() {
        out.push(format!("PV: {}", report.pv.join(" ")));
    }
    out.push(format!("Nodes: {}", report.nodes));
    out.push(format!("Time: {} ms", report.elapsed.as_millis()));
    out.push(format!("Tbhits: {}", report.tbhits));
    // A closed output (`| head -1`) is an error to report, not a panic of `println!`.
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "{}", out.join("\n"))
        .and_then(|()| stdout.flush())
        .map_err(|e| format!("cannot write the result: {e}"))?;
    match (&report.saved, &args.proof_file) {
        (Some(Ok(buckets)), Some(path)) => eprintln!(
            "sowfan solve: proof saved in '{}' ({buckets} table buckets)",
            path.display()
        ),
        (Some(Err(e)), _) => return Err(e.clone()),
        _ => {}
    }
    let complete = report.value().is_some() && report.moves.iter().all(|(_, v)| v.is_some());
    Ok(if complete {
        Solved::Complete
    } else {
        Solved::Interrupted
    })
}

fn spinner() -> ProgressBar {
    let bar = ProgressBar::new_spinner();
    if let Ok(style) = ProgressStyle::with_template("{spinner} solving: {msg}") {
        bar.set_style(style);
    }
    bar
}

/// Turns the spinner while the solve runs. Unlike the bar's own steady tick (which panics
/// when the system refuses its thread), a refused thread only means a still spinner.
struct Ticker {
    done: Arc<AtomicBool>,
    handle: Option<std::thread::JoinHandle<()>>,
}

impl Ticker {
    fn start(bar: &ProgressBar) -> Ticker {
        let done = Arc::new(AtomicBool::new(false));
        let (bar, flag) = (bar.clone(), Arc::clone(&done));
        let handle = std::thread::Builder::new()
            .name("spinner".to_string())
            .spawn(move || {
                while !flag.load(Ordering::Relaxed) {
                    bar.tick();
                    std::thread::park_timeout(Duration::from_millis(200));
                }
            })
            .ok();
        Ticker { done, handle }
    }
}

impl Drop for Ticker {
    fn drop(&mut self) {
        self.done.store(true, Ordering::Relaxed);
        if let Some(handle) = self.handle.take() {
            handle.thread().unpark();
            let _ = handle.join();
        }
    }
}
