//! `sowfan accuracy`: how close to perfect play an engine's moves are, judged by the exact
//! solver. Positions come from recorded games (or a list of position strings); the solver
//! (with endgame tables when given) proves the exact value of every legal move of each;
//! each engine, driven over the protocol like a match's, is asked for its move in every
//! position afresh (`newgame`, `position fen …`, `go …`); its move keeps the exact value
//! (perfect) or loses points, the difference between the best move's value and its own.
//!
//! - [`positions`] reads the input and picks the positions (by stones in play);
//! - [`exact`] proves every move's value, with a cache file that makes a run resumable and
//!   lets a second engine (or a second run) reuse the proofs;
//! - [`ask`] runs the engines; [`totals`] sums up.

pub mod ask;
pub mod exact;
pub mod positions;
pub mod totals;

use std::path::PathBuf;

use thiserror::Error;

use crate::cli::AppendError;
use crate::cli::CancelToken;
use crate::cli::OutputError;
use crate::client::spec::{EngineSpec, EngineSpecError, parse_engine};
use crate::memory::ThreadsError;
use crate::memory::check_hash_mb;
use crate::registry::{self, RegistryError};
use crate::solver::tt::SolverTt;
use crate::tables::TableError;
use ask::AskError;
use exact::{ExactError, ExactValues};
use positions::{PositionsError, Selection, StoneRange};
use totals::EngineStats;

/// Measure engines' accuracy against perfect play: the share of positions where an
/// engine's move keeps the exact value, and its average loss in points.
///
/// Positions: every position (before each move) of the games in FILE (`sowfan match
/// --records` JSON Lines, or plain lines `<position string>` / `fen <position string>`
/// of the game --game), with --stones in play, the first --positions distinct ones.
/// Each is solved exactly (every legal move's value; endgame tables from --tablebases
/// make it fast), each engine is asked for its move with its own search limit, and the
/// move is judged. Exact values are kept in --cache FILE, which a later run (another
/// engine, a stopped run) reads instead of solving again. See README.md, "Accuracy".
///
/// Exit status: 0 when done, 1 on an error (bad arguments, unreadable input, an engine
/// that cannot be started), 130 when interrupted (the cache keeps what was proven).
///
/// Example: sowfan accuracy games.jsonl --stones 25-48 --positions 500
///   --tablebases tables --cache kalah-exact.jsonl
///   --engine "cmd=sowfan name=new movetime=100" --engine "cmd=./old name=old movetime=100"
#[derive(Debug, Clone, clap::Args)]
// The arguments' doc comments are the command-line help, where `<k>` is a placeholder, not
// an HTML tag.
#[allow(rustdoc::invalid_html_tags)]
#[command(verbatim_doc_comment)]
pub struct AccuracyArgs {
    /// The games or positions: match records (JSON Lines) or position strings, a line each.
    #[arg(value_name = "FILE")]
    pub input: PathBuf,
    /// The game of position-string lines (records name their own), e.g. "kalah pits=6".
    #[arg(long, value_name = "GAME [KEY=VALUE ...]", default_value = "kalah")]
    pub game: String,
    /// An engine, one argument of key=value words as in `sowfan match` (cmd=<command>
    /// [arg=<argument>] [name=] [option.<Name>=<value>] and a limit: depth=, nodes= or
    /// movetime=; no clock), e.g. --engine "cmd=sowfan name=new movetime=100". Give it
    /// once per engine; none: only solve (fill the --cache).
    #[arg(long, value_name = "\"KEY=VALUE ...\"")]
    pub engine: Vec<String>,
    /// Only positions with this many stones (seeds) in play, MIN-MAX (e.g. 25-48) or N.
    #[arg(long, value_name = "MIN-MAX")]
    pub stones: Option<StoneRange>,
    /// At most this many distinct positions, the first ones of the input.
    #[arg(long, default_value_t = 500, value_name = "N")]
    pub positions: usize,
    /// Endgame table directory for the solver.
    #[arg(long, value_name = "DIR")]
    pub tablebases: Option<PathBuf>,
    /// Exact values read from FILE and added to it as they are proven (JSON Lines).
    #[arg(long, value_name = "FILE")]
    pub cache: Option<PathBuf>,
    /// Write one JSON line per position and engine (its move, value and loss) to FILE.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// The solver's threads.
    #[arg(long, default_value_t = 1, value_name = "T")]
    pub threads: usize,
    /// The solver's transposition table in MiB.
    #[arg(long = "hash", default_value_t = 256, value_name = "MB")]
    pub hash_mb: usize,
    /// Give up a position (it is left out) when its proof takes more than this many
    /// seconds.
    #[arg(long, default_value_t = 600, value_name = "SECS")]
    pub solve_limit: u64,
    /// Milliseconds an engine has to answer the handshake, `isready` and `newgame`.
    #[arg(long, default_value_t = 5000, value_name = "MS")]
    pub ready_timeout: u64,
    /// Milliseconds a search by depth= or nodes= may take before the engine is declared
    /// hung (movetime= searches get their time plus a margin).
    #[arg(long, default_value_t = 60000, value_name = "MS")]
    pub move_timeout: u64,
}

/// Why a run could not be done (said after `sowfan accuracy: `).
#[derive(Debug, Error)]
pub enum AccuracyError {
    #[error("--positions 0: give at least 1")]
    NoPositions,
    #[error(transparent)]
    Engine(#[from] EngineSpecError),
    #[error(
        "engine '{0}': tc= is a clock for whole games; give depth=, nodes= or movetime= for \
         single positions"
    )]
    Clock(String),
    #[error(transparent)]
    Game(#[from] RegistryError),
    /// `--hash`, `--threads` or a table's memory refused (the memory check's words).
    #[error("{0}")]
    Memory(String),
    /// An output refused or held by another run (the check's words).
    #[error("{0}")]
    Output(#[from] OutputError),
    #[error("{0}")]
    Threads(#[from] ThreadsError),
    #[error("{0}")]
    Append(#[from] AppendError),
    #[error(transparent)]
    Positions(#[from] PositionsError),
    #[error(
        "no position of '{}' matches (read {games} games and {lines} position lines{})",
        .input.display(),
        .stones.map(|range| format!(", stones {range}")).unwrap_or_default()
    )]
    NoneMatches {
        input: PathBuf,
        games: usize,
        lines: usize,
        stones: Option<StoneRange>,
    },
    #[error(transparent)]
    Tables(#[from] TableError),
    #[error(transparent)]
    Exact(#[from] ExactError),
    #[error(transparent)]
    Ask(#[from] AskError),
    #[error("cannot write '{}': {error}", path.display())]
    Out {
        path: PathBuf,
        error: std::io::Error,
    },
}

/// What a run found.
pub struct AccuracyReport {
    pub positions: usize,
    /// Positions whose proof did not end in time (left out).
    pub unsolved: usize,
    pub engines: Vec<EngineStats>,
    pub interrupted: bool,
}

/// Solve the positions, ask the engines, print the summary (and `--out` lines).
pub fn run(args: &AccuracyArgs, cancel: &CancelToken) -> Result<AccuracyReport, AccuracyError> {
    check_hash_mb("--hash", args.hash_mb).map_err(|e| AccuracyError::Memory(e.to_string()))?;
    crate::memory::check_threads("--threads", args.threads)?;
    if args.positions == 0 {
        return Err(AccuracyError::NoPositions);
    }
    let engines: Vec<EngineSpec> = args
        .engine
        .iter()
        .map(|text| {
            let words: Vec<String> = text.split_whitespace().map(str::to_string).collect();
            let spec = parse_engine(&words, &[])?;
            if spec.limits.tc.is_some() {
                return Err(AccuracyError::Clock(spec.command_line()));
            }
            Ok(spec)
        })
        .collect::<Result<_, AccuracyError>>()?;
    let default_game = registry::create_from_spec(&args.game)?;
    let selection = Selection {
        stones: args.stones,
        limit: args.positions,
    };
    for output in [("--cache", &args.cache), ("--out", &args.out)] {
        if let (name, Some(path)) = output {
            crate::cli::refuse_output_over_input((name, path), &[("the input", &args.input)])
                .map_err(AccuracyError::Output)?;
        }
    }
    if let Some(cache) = &args.cache {
        crate::cli::refuse_irregular("--cache", cache).map_err(AccuracyError::Output)?;
    }
    if let (Some(cache), Some(out)) = (&args.cache, &args.out) {
        crate::cli::refuse_output_over_input(("--out", out), &[("--cache", cache)])
            .map_err(AccuracyError::Output)?;
    }
    // One run a file: held for the whole run. A terminal or a pipe as --out needs none.
    let mut _locks = Vec::new();
    for (name, path) in [("--cache", &args.cache), ("--out", &args.out)] {
        if let Some(path) = path
            && std::fs::metadata(path).map_or(true, |meta| meta.is_file())
        {
            _locks.push(
                crate::cli::OutputLock::file(name, path, "accuracy")
                    .map_err(AccuracyError::Output)?,
            );
        }
    }
    let picked = positions::read(&args.input, default_game.as_ref(), &selection)?;
    if picked.positions.is_empty() {
        return Err(AccuracyError::NoneMatches {
            input: args.input.clone(),
            games: picked.games,
            lines: picked.lines,
            stones: args.stones,
        });
    }
    let mut session = registry::create_from_spec(&picked.spec)?;
    if let Some(dir) = &args.tablebases {
        match session.open_tables(dir) {
            Ok(tables) => session.set_tables(tables),
            Err(e @ TableError::Absent { .. }) => {
                eprintln!("sowfan accuracy: note: {e}; solving without");
            }
            Err(e) => return Err(e.into()),
        }
    }
    // Opened before the proofs, so that an output that cannot be written is said at once;
    // emptied only once they are done (an interrupted run leaves the last one's).
    let mut out = match &args.out {
        Some(path) => Some(
            crate::cli::open_for_appending(path)
                .map(std::io::BufWriter::new)
                .map_err(AccuracyError::Append)?,
        ),
        None => None,
    };
    let tt = SolverTt::new(args.hash_mb).map_err(|e| AccuracyError::Memory(e.to_string()))?;
    let mut exact = ExactValues::open(args.cache.as_deref(), &picked.spec)?;
    let solved = exact.solve_all(
        session.as_mut(),
        &picked.positions,
        &tt,
        args.threads,
        std::time::Duration::from_secs(args.solve_limit),
        cancel,
    )?;
    let interrupted = || cancel.is_cancelled();
    if interrupted() {
        return Ok(AccuracyReport {
            positions: picked.positions.len(),
            unsolved: picked.positions.len() - solved.len(),
            engines: Vec::new(),
            interrupted: true,
        });
    }
    if let (Some(writer), Some(path)) = (&out, &args.out) {
        // A regular file is written from its start; a pipe or a terminal as it is.
        let file = writer.get_ref();
        if file.metadata().is_ok_and(|m| m.is_file()) {
            file.set_len(0).map_err(|error| AccuracyError::Out {
                path: path.clone(),
                error,
            })?;
        }
    }
    let timeouts = ask::Timeouts {
        ready: std::time::Duration::from_millis(args.ready_timeout),
        search: std::time::Duration::from_millis(args.move_timeout),
    };
    let mut results = Vec::new();
    for spec in &engines {
        let judged = ask::judge_engine(
            spec,
            &picked.spec,
            session.as_mut(),
            &solved,
            timeouts,
            cancel,
            out.as_mut(),
        )?;
        results.push(judged);
        if interrupted() {
            break;
        }
    }
    if let (Some(mut writer), Some(path)) = (out, &args.out) {
        use std::io::Write;
        writer.flush().map_err(|error| AccuracyError::Out {
            path: path.clone(),
            error,
        })?;
    }
    Ok(AccuracyReport {
        positions: picked.positions.len(),
        unsolved: picked.positions.len() - solved.len(),
        engines: results,
        interrupted: interrupted(),
    })
}
