//! The work of `sowfan solve`: a position set up from the command line, endgame tables held
//! as asked, the proof run with a progress spinner and its report printed; a proof split by
//! first move and its parts combined; a proof split at a frontier (`frontier_split.rs`).
//! `commands/solve.rs` holds only the entry point.

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};
use thiserror::Error;

mod frontier_split;

pub use frontier_split::FrontierSplitError;

use crate::cli::CancelToken;
use crate::game::value_text;
use crate::memory::ThreadsError;
use crate::memory::{self, check_hash_mb, check_threads, peak_resident_bytes};
use crate::registry;
use crate::session::{Session, SolveProgress, SolveRequest, SolvingError};
use crate::solver::frontier::FrontierError;
use crate::solver::frontier_parts::{AnyPart, read_any};
use crate::solver::parts::{
    CombineError, Part, PartFileError, PathTaken, SplitError, combine, parse_split,
    refuse_existing, split_moves,
};
use crate::solver::pn::{self, value_word};
use crate::solver::{self, SolverError, tt::SolverTt};
use crate::tables::{self, TableError, Tables};

/// Why `sowfan solve` failed (status 1): a bad game, position or option, memory or tables
/// it cannot have, a proof or part file that cannot be read, saved or combined.
#[derive(Debug, Error)]
pub enum SolveError {
    /// A size or thread count refused by [`crate::memory`]'s checks, which say why in words.
    #[error("{0}")]
    Resources(String),
    #[error("{0}")]
    Threads(#[from] ThreadsError),
    /// The game or position of the command line, refused by the registry in words.
    #[error("{0}")]
    Setup(String),
    #[error("--checkpoint {0}: give a number of seconds in 1..=1000000")]
    Checkpoint(u64),
    #[error(
        "--combine prints the combined values: it takes no --split or --part-file (those run \
         one part)"
    )]
    CombineRunsNoPart,
    #[error(
        "--frontier {0} runs a part (--split I/K --part-file FILE), counts the frontier \
         (--frontier-size) or, with --combine, checks the depth of its parts"
    )]
    FrontierWithoutPart(u32),
    #[error(transparent)]
    Split(#[from] SplitError),
    #[error(transparent)]
    Taken(#[from] PathTaken),
    /// The `--save` file is there already and is not the `--resume` one.
    #[error(
        "{0} (to continue a proof saved there: --resume {path} --save {path}, or --proof-file \
         {path})",
        path = .0.path.display()
    )]
    SaveTaken(PathTaken),
    #[error(transparent)]
    Tables(#[from] TableError),
    #[error(
        "--tables-in memory: the tables ({tables_mib} MiB) and --hash ({hash_mb} MiB) need more \
         than the {free_mib} MiB available; use --tables-in mapped or a smaller --hash"
    )]
    TablesTooLarge {
        tables_mib: u64,
        hash_mb: usize,
        free_mib: u64,
    },
    #[error("--tables-in memory: {0}")]
    TablesToMemory(TableError),
    #[error(transparent)]
    Solver(#[from] SolverError),
    #[error(transparent)]
    Solving(#[from] SolvingError),
    /// The frontier could not be walked or its values not be had.
    #[error(transparent)]
    FrontierWalk(#[from] FrontierError),
    #[error(transparent)]
    PartFile(#[from] PartFileError),
    #[error(transparent)]
    Combine(#[from] CombineError),
    #[error(
        "'{}' is a part of a proof split by first move, '{}' one split by --frontier: give the \
         parts of one split",
        by_move.display(),
        by_frontier.display()
    )]
    MixedSplits {
        by_move: PathBuf,
        by_frontier: PathBuf,
    },
    #[error("--frontier {0}: the parts given are split by first move, not by --frontier")]
    NotFrontierParts(u32),
    #[error("the position is over: it has no moves to combine")]
    NoMovesToCombine,
    #[error(transparent)]
    Frontier(#[from] FrontierSplitError),
    /// Standard output refused the result (a closed pipe: `| head -1`).
    #[error("cannot write the result: {0}")]
    Output(std::io::Error),
}

/// Prove the exact value of a position: the final margin with perfect play.
///
/// Prints `Value: +8` (the side to move's final margin; 0 a draw), `Best:`, `PV:` (to
/// the end of the game), `Nodes:`, `Time:`, `Tbhits:`, `Memory:` (the peak resident
/// memory, the --hash and the endgame tables mapped). Games that are won, drawn or
/// lost (Fanorona) print `Value: win`, `draw` or `loss`, proven by proof numbers: the
/// value of the position as if it had no earlier occurrence since the last capture.
/// Uses endgame tables from --tablebases DIR, else from $SOWFAN_TABLEBASES or
/// ~/.local/share/sowfan/tablebases when present. Ctrl-C (or SIGTERM) stops it with the
/// bounds proven so far.
///
/// Long proofs: --save FILE keeps the proof (its table and what is proven of the root)
/// in FILE every --checkpoint seconds, when stopped and when done; --resume FILE goes on
/// from it (same game, position and --hash); --proof-file FILE does both (resuming only
/// if FILE exists). A split proof: --split I/K --part-file FILE proves the values of
/// every K-th root move from the I-th and writes them to FILE; with --frontier D, every
/// K-th position D plies down instead (--frontier D --frontier-size counts them); --combine
/// FILE... checks the parts (same game and position, everything exactly once) and prints
/// every move's value, `Value:` and `Best:` as --all-moves would.
///
/// Exit status: 0 when the value (or the part) is proven, 1 on an error (a bad game,
/// position or option; a --hash this machine cannot hold; a proof or part file that
/// cannot be read, saved or combined), 130 when interrupted before the proof was complete.
///
/// Example: sowfan solve kalah pits=4 seeds=3 --all-moves
/// Example: sowfan solve fanorona-dimy --hash 2048 --proof-file dimy.proof
/// Example: sowfan solve kalah pits=6 seeds=4 --hash 8192 --save k64.proof --checkpoint 900
/// Example: sowfan solve kalah pits=6 seeds=4 --split 2/6 --part-file part-2.txt
/// Example: sowfan solve kalah pits=6 seeds=4 --combine part-*.txt
/// Example: sowfan solve kalah pits=6 seeds=5 --frontier 4 --frontier-size
/// Example: sowfan solve kalah pits=6 seeds=5 --frontier 4 --split 17/200 --part-file p-17.txt
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
    /// How the endgame tables are held: mapped, or read whole into memory.
    ///
    /// `mapped` (the default) maps them, pages coming in
    /// as they are probed (the quick start a short proof wants); `memory` reads them whole
    /// at the start (0.25 to 2.5 s a GB from the page cache, measured), after which probes
    /// take no page fault and, in huge pages, fewer address-translation misses: for long
    /// proofs over big tables. Refused when they do not fit beside --hash in the memory
    /// available.
    #[arg(long, value_enum, default_value_t = TablesIn::Mapped, value_name = "HOW")]
    pub tables_in: TablesIn,
    /// Search threads (1..=256; more than the machine's processors are not used).
    #[arg(long, default_value_t = 1, value_name = "T")]
    pub threads: usize,
    /// Transposition table size in MiB (at most what this machine can hold, and 65536).
    #[arg(long = "hash", default_value_t = 512, value_name = "MB")]
    pub hash_mb: usize,
    /// First print the exact value of every legal move.
    #[arg(long)]
    pub all_moves: bool,
    /// Resume the proof saved in FILE if it exists (same game, position and --hash), and
    /// save it there: --resume FILE --save FILE, without needing FILE to exist.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["save", "resume"])]
    pub proof_file: Option<PathBuf>,
    /// Save the proof (its table, the root's bounds and moves' values proven so far) in
    /// FILE every --checkpoint seconds, when stopped (Ctrl-C, SIGTERM) and when done. An
    /// existing FILE is only written over when it is the --resume FILE.
    #[arg(long, value_name = "FILE")]
    pub save: Option<PathBuf>,
    /// Continue the proof saved in FILE (by --save or --proof-file): same game, position
    /// and --hash. Give --save FILE too to keep saving it.
    #[arg(long, value_name = "FILE")]
    pub resume: Option<PathBuf>,
    /// Seconds between two saves of the --save or --proof-file (1..=1000000).
    #[arg(long, default_value_t = 600, value_name = "SECS")]
    pub checkpoint: u64,
    /// A part of a split proof: prove the values of the root's legal moves I, I+K, I+2K,
    /// ... (1-based, in the order of the legal-move list) and not the root's (e.g. --split
    /// $SLURM_ARRAY_TASK_ID/8); with --frontier D, those of the frontier positions I, I+K,
    /// ... instead. With --part-file, write them there.
    #[arg(long, value_name = "I/K", conflicts_with = "all_moves")]
    pub split: Option<String>,
    /// With --split: write the part's proven values to FILE (atomically), for --combine;
    /// written only when every value of the part is proven. With --frontier, a sound part
    /// already in FILE is kept and nothing is redone (status 0).
    #[arg(long, value_name = "FILE", requires = "split")]
    pub part_file: Option<PathBuf>,
    /// Combine part files (of --split ... --part-file) of this game and position: print
    /// every move's value, `Value:` and `Best:` as --all-moves would (no `PV:`). Parts split
    /// by --frontier are combined at the depth their files give.
    #[arg(long, value_name = "FILE", num_args = 1.., conflicts_with_all = [
        "split", "all_moves", "save", "resume", "proof_file", "frontier_size"
    ])]
    pub combine: Vec<PathBuf>,
    /// Split the proof at the frontier D plies (moves, whoever makes them) from the root:
    /// --split I/K then proves the exact values of frontier positions I, I+K, I+2K, ...
    /// (1-based, K up to 1000000), and --combine minimaxes them back up to the root. With
    /// --combine it is optional (the files give the depth) and must match.
    #[arg(long, value_name = "D", conflicts_with_all = [
        "all_moves", "save", "resume", "proof_file"
    ])]
    pub frontier: Option<u32>,
    /// With --frontier and --split: leave a frontier position whose proof outgrows N nodes
    /// open (an `open:` line of the part file) instead of proving it: split it further
    /// with --fen POSITION --frontier, and give those parts to --combine too.
    #[arg(
        long,
        value_name = "N",
        requires = "frontier",
        conflicts_with = "frontier_size"
    )]
    pub part_nodes: Option<u64>,
    /// With --frontier D: print `Frontier: N positions at D plies (M game ends before D)`,
    /// to choose the number of parts K, and exit.
    #[arg(long, requires = "frontier", conflicts_with = "split")]
    pub frontier_size: bool,
}

/// How the endgame tables are held (`--tables-in`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum TablesIn {
    Mapped,
    Memory,
}

/// The tables as `how` wants them held: left mapped, or read into memory
/// ([`Tables::to_memory`]) when they and `hash_mb` fit in the memory available.
fn hold_tables(
    tables: Arc<Tables>,
    how: TablesIn,
    hash_mb: usize,
) -> Result<Arc<Tables>, SolveError> {
    if how == TablesIn::Mapped {
        return Ok(tables);
    }
    let bytes = tables.mapped_bytes();
    let wanted = bytes.saturating_add((hash_mb as u64) << 20);
    if let Some(free) = memory::available_bytes()
        && wanted > free
    {
        return Err(SolveError::TablesTooLarge {
            tables_mib: bytes >> 20,
            hash_mb,
            free_mib: free >> 20,
        });
    }
    let started = Instant::now();
    let copy = tables.to_memory().map_err(SolveError::TablesToMemory)?;
    log::info!(
        "tables: {} MiB read into memory in {} ms",
        bytes >> 20,
        started.elapsed().as_millis()
    );
    Ok(Arc::new(copy))
}

/// How a solve ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Solved {
    /// The value (and every move's, with --all-moves) is proven.
    Complete,
    /// Stopped (Ctrl-C) first: what was printed are bounds.
    Interrupted,
}

/// The threads a solve may use: 1..=[`MAX_THREADS`](crate::memory::MAX_THREADS) asked, at most the processors used
/// (more add nothing to the shared-table search and only slow it, as with the protocol's
/// `Threads`), with a warning then.
pub fn solve_threads(requested: usize) -> Result<usize, SolveError> {
    check_threads("--threads", requested)?;
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
    } else if solver::is_known(bound) {
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
    match (solver::is_known(lower), solver::is_known(upper)) {
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
pub fn solve_position(args: &SolveArgs, stop: &CancelToken) -> Result<Solved, SolveError> {
    // Options that size memory or threads are refused before any work, never left to the
    // out-of-memory killer or a failed thread.
    check_hash_mb("--hash", args.hash_mb).map_err(|e| SolveError::Resources(e.to_string()))?;
    let threads = solve_threads(args.threads)?;
    if !(1..=1_000_000).contains(&args.checkpoint) {
        return Err(SolveError::Checkpoint(args.checkpoint));
    }
    let mut session = registry::create_at(&args.game, args.fen.as_deref(), args.moves.as_deref())
        .map_err(|e| SolveError::Setup(e.to_string()))?;
    if !args.combine.is_empty() {
        if args.part_file.is_some() || args.split.is_some() {
            return Err(SolveError::CombineRunsNoPart);
        }
        return combine_parts(args, session.as_ref());
    }
    if let Some(depth) = args.frontier {
        if args.frontier_size {
            return frontier_split::print_size(session.as_ref(), depth, stop);
        }
        let Some(split) = &args.split else {
            return Err(SolveError::FrontierWithoutPart(depth));
        };
        return frontier_split::run_part(args, session, depth, split, stop);
    }
    if let Some(path) = &args.part_file {
        // Before the proof, not after hours of it.
        refuse_existing("--part-file", path)?;
    }
    let part = match &args.split {
        Some(text) => {
            let (i, k) = parse_split(text)?;
            Some(split_moves(&session.legal_moves(), i, k))
        }
        None => None,
    };
    let (resume, save) = match &args.proof_file {
        Some(path) => (Some(path.clone()), Some(path.clone())),
        None => (args.resume.clone(), args.save.clone()),
    };
    if let Some(path) = &save
        && resume.as_ref() != Some(path)
        && let Err(taken) = refuse_existing("--save", path)
    {
        return Err(SolveError::SaveTaken(taken));
    }
    load_tables(args, session.as_mut())?;
    let tt = SolverTt::for_game(args.hash_mb, session.win_draw_loss())?;
    let request = SolveRequest {
        threads,
        all_moves: args.all_moves,
        pv: part.is_none(),
        resume_optional: args.proof_file.is_some(),
        resume,
        save,
        checkpoint: Duration::from_secs(args.checkpoint),
        part: part.clone(),
        deadline: None,
        node_limit: None,
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
    let report = session.solve(&request, &tt, stop.flag(), &progress);
    drop(ticker);
    bar.finish_and_clear();
    if let Some(failure) = failed() {
        eprintln!("sowfan solve: {failure}");
    }
    let report = report?;
    let words = report.win_draw_loss;
    if let (Some(work), Some(path)) = (report.resumed, &request.resume) {
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
    if part.is_none() {
        out.push(format!(
            "Value: {}",
            value_line(report.lower, report.upper, words)
        ));
    }
    if let Some(best) = &report.best {
        out.push(format!("Best: {best}"));
    }
    if !report.pv.is_empty() {
        out.push(format!("PV: {}", report.pv.join(" ")));
    }
    out.push(format!("Nodes: {}", report.nodes));
    out.push(format!("Time: {} ms", report.elapsed.as_millis()));
    out.push(format!("Tbhits: {}", report.tbhits));
    out.push(memory_line(
        &tt,
        session.tables().map(|t| (t.mapped_bytes(), t.in_memory())),
    ));
    print_lines(&out)?;
    match (&report.saved, &request.save) {
        (Some(Ok(buckets)), Some(path)) => eprintln!(
            "sowfan solve: proof saved in '{}' ({buckets} table buckets)",
            path.display()
        ),
        (Some(Err(e)), _) => return Err(e.clone().into()),
        _ => {}
    }
    let moves_proven = report.moves.iter().all(|(_, v)| v.is_some());
    if let Some(moves) = &part {
        if !moves_proven {
            eprintln!(
                "sowfan solve: stopped before every move of the part was proven: no part file written"
            );
            return Ok(Solved::Interrupted);
        }
        if let Some(path) = &args.part_file {
            let part = Part {
                game: session.spec(),
                position: session.fen(),
                legal: session.legal_moves().len(),
                moves: report
                    .moves
                    .iter()
                    .filter_map(|(mv, v)| v.map(|v| (mv.clone(), v)))
                    .collect(),
                nodes: report.nodes,
                tbhits: report.tbhits,
                millis: report.elapsed.as_millis() as u64,
            };
            part.write(path)?;
            eprintln!(
                "sowfan solve: part {} ({} moves: {}) written to '{}'",
                args.split.as_deref().unwrap_or(""),
                moves.len(),
                moves.join(" "),
                path.display()
            );
        }
        return Ok(Solved::Complete);
    }
    let complete = report.value().is_some() && moves_proven;
    Ok(if complete {
        Solved::Complete
    } else {
        Solved::Interrupted
    })
}

/// The endgame tables of `args` (--tablebases, else the default folder when there is
/// one) loaded into `session`, held as --tables-in says.
fn load_tables(args: &SolveArgs, session: &mut dyn Session) -> Result<(), SolveError> {
    let (dir, explicit) = match &args.tablebases {
        Some(dir) => (Some(dir.clone()), true),
        None => (tables::default_dir(), false),
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
                let tables = hold_tables(tables, args.tables_in, args.hash_mb)?;
                session.set_tables(Some(tables));
            }
            Ok(None) => {}
            Err(e @ TableError::Absent { .. }) if explicit => {
                eprintln!("sowfan solve: note: {e}; solving without");
            }
            Err(TableError::Absent { .. } | TableError::NoDirectory(_)) if !explicit => {}
            Err(e) => return Err(e.into()),
        }
    }
    Ok(())
}

/// Every root move's combined value, `Value:` (the greatest) and `Best:` (the first move
/// with it), as `--all-moves` prints them: what `--combine` prints of a split proof.
fn move_value_lines(moves: &[(String, i32)], words: bool) -> Vec<String> {
    let mut out: Vec<String> = moves
        .iter()
        .map(|(mv, v)| format!("{mv}: {}", bound_text(*v, words)))
        .collect();
    let value = moves.iter().map(|&(_, v)| v).max().unwrap_or(0);
    out.push(format!("Value: {}", bound_text(value, words)));
    if let Some((best, _)) = moves.iter().find(|&&(_, v)| v == value) {
        out.push(format!("Best: {best}"));
    }
    out
}

/// Write `lines` to stdout. A closed output (`| head -1`) is an error to report, not a
/// panic of `println!`.
fn print_lines(lines: &[String]) -> Result<(), SolveError> {
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "{}", lines.join("\n"))
        .and_then(|()| stdout.flush())
        .map_err(SolveError::Output)
}

/// `Memory: peak resident N MiB (hash M MiB, tables mapped T MiB)`, or `tables in memory T
/// MiB` when read whole (`--tables-in`): what the proof held at its most (the solver's table
/// and mapped table pages count as they are touched).
fn memory_line(tt: &SolverTt, tables: Option<(u64, bool)>) -> String {
    let peak = peak_resident_bytes().map_or("unknown".to_string(), |b| format!("{} MiB", b >> 20));
    let (bytes, in_memory) = tables.unwrap_or((0, false));
    format!(
        "Memory: peak resident {peak} (hash {} MiB, tables {} {} MiB)",
        tt.asked_megabytes(),
        if in_memory { "in memory" } else { "mapped" },
        bytes >> 20
    )
}

/// `--combine`: the parts' move values checked against this game and position, then
/// printed as `--all-moves` prints them.
fn combine_parts(args: &SolveArgs, session: &dyn Session) -> Result<Solved, SolveError> {
    let (mut parts, mut by_frontier) = (Vec::new(), Vec::new());
    for path in &args.combine {
        match read_any(path)? {
            AnyPart::Moves(part) => parts.push((path.clone(), part)),
            AnyPart::Frontier(part) => by_frontier.push((path.clone(), part)),
        }
    }
    if let (Some((moves, _)), Some((deep, _))) = (parts.first(), by_frontier.first()) {
        return Err(SolveError::MixedSplits {
            by_move: moves.clone(),
            by_frontier: deep.clone(),
        });
    }
    if !by_frontier.is_empty() {
        return frontier_split::combine(args, session, &by_frontier);
    }
    if let Some(depth) = args.frontier {
        return Err(SolveError::NotFrontierParts(depth));
    }
    let legal = session.legal_moves();
    if legal.is_empty() {
        return Err(SolveError::NoMovesToCombine);
    }
    let moves = combine(&session.spec(), &session.fen(), &legal, &parts, &|mv, v| {
        session.possible_move_value(mv, v)
    })?;
    let mut out = move_value_lines(&moves, session.win_draw_loss());
    let sum = |f: fn(&Part) -> u64| parts.iter().map(|(_, p)| f(p)).sum::<u64>();
    out.push(format!("Nodes: {}", sum(|p| p.nodes)));
    out.push(format!("Time: {} ms", sum(|p| p.millis)));
    out.push(format!("Tbhits: {}", sum(|p| p.tbhits)));
    print_lines(&out)?;
    Ok(Solved::Complete)
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
