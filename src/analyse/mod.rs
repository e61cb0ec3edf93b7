//! `sowfan analyse`: every move of recorded games judged by the engine — the best move and
//! its score, the score of the move played, the loss and a mark — with each player's totals,
//! the decisive mistake, and an evaluation chart.
//!
//! - [`input`] reads games in every form sowfan writes or accepts, line by line;
//! - [`evaluate`] searches each position once and judges the moves;
//! - [`render`] prints text or JSON Lines; [`chart`] draws the SVG chart.
//!
//! Positions are searched by `--threads` workers at once, each search on one thread with a
//! fresh transposition table, so that with `--depth` or `--nodes` the output depends only
//! on the input (not on the number of threads or the order the workers finish in); the
//! output is printed in input order as soon as each move's two positions are done.
//!
//! The input streams through in bounded memory whatever its size: lines are read with a
//! bound on their length ([`crate::records::lines`]), the reader waits while
//! [`MAX_GAMES_IN_FLIGHT`] games are read but not yet printed, and the workers' queue holds
//! a few runs of positions. Each game is walked once: a run of consecutive positions is one
//! job, its session at the run's first position, and the worker plays the game's moves on
//! from there, so that the work is linear in the game's length.

pub mod chart;
pub mod evaluate;
pub mod input;
pub mod render;

use std::collections::{HashMap, VecDeque};
use std::fs::File;
use std::io::{BufRead, BufReader, IsTerminal, Write};
use std::path::{Path, PathBuf};

use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender, SyncSender};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use thiserror::Error;

use crate::cli::CancelToken;
use crate::game::Player;
use crate::memory;
use crate::memory::ThreadsError;
use crate::records::lines::BoundedLines;
use crate::registry::{self, RegistryError};
use crate::search::SearchControl;
use crate::search::limits::Limits;
use crate::session::{PositionCommandError, Session};
use crate::tables::{TableError, Tables};
use chart::ChartError;
use evaluate::{MoveAnalysis, PositionResult, SearchError, SearchSpec};
use input::{GameError, InputGame, Parser};
pub use render::OutputFormat;

/// The default search of each position when no limit is given.
pub const DEFAULT_DEPTH: u32 = 10;

/// Games read but not yet printed, at most: the reader waits beyond (its memory, and that
/// of the results kept for printing in order, stays bounded whatever the input's size).
pub const MAX_GAMES_IN_FLIGHT: usize = 256;

/// A worker thread's stack (Rust's default), counted with the tables against the memory
/// cap.
const WORKER_STACK_MB: usize = 2;

/// The most consecutive positions of a game in one job.
const MAX_RUN: usize = 256;

/// Analyse games: each move against the engine's best, its loss and mark (?!, ?, ??,
/// !), each player's average loss, the decisive mistake, and an evaluation chart.
///
/// Reads `sowfan match --records` JSON Lines, `--pgn` games, game-record fixtures
/// (docs/afrika.md) and plain lines (`<game> [options]: <moves>`, `fen <position> moves
/// <moves>`), several games per input, from FILE or stdin (`-`). Prints aligned text or
/// JSON Lines (one object a move, one a game) as each move is done. See README.md,
/// "Analysing games".
///
/// Example:
///   sowfan analyse games.jsonl --depth 10 --threads 2 --format jsonl --chart game.svg
///   echo 'kalah: C f a E' | sowfan analyse
// The doc comments are the command-line help: `<game number>` is a placeholder.
#[allow(rustdoc::invalid_html_tags)]
#[derive(Debug, Clone, clap::Args)]
#[command(verbatim_doc_comment)]
pub struct AnalyseArgs {
    /// The games: a file, or - (the default) for standard input.
    #[arg(value_name = "FILE|-")]
    pub input: Option<PathBuf>,
    /// The game of plain lines that name none (default kalah), e.g. --game "kalah pits=4".
    #[arg(long, value_name = "GAME [KEY=VALUE ...]")]
    pub game: Option<String>,
    /// Search each position to this depth (the default: 10).
    #[arg(long, value_name = "N", conflicts_with_all = ["movetime", "nodes"])]
    pub depth: Option<u32>,
    /// Search each position for this many milliseconds.
    #[arg(long, value_name = "MS", conflicts_with = "nodes")]
    pub movetime: Option<u64>,
    /// Search each position for this many nodes.
    #[arg(long, value_name = "N")]
    pub nodes: Option<u64>,
    /// Positions analysed at the same time (each search uses one thread, so the output
    /// does not depend on this); at most 256.
    #[arg(long, default_value_t = 1, value_name = "T")]
    pub threads: usize,
    /// Transposition table of each search, in MiB (each worker has its own: --hash ×
    /// --threads is held to the cap of the protocol's Hash).
    #[arg(long = "hash", default_value_t = 16, value_name = "MB")]
    pub hash_mb: usize,
    /// Endgame table directory: covered positions get exact values.
    #[arg(long, value_name = "DIR")]
    pub tablebases: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    pub format: OutputFormat,
    /// Draw each game's evaluation chart as SVG to FILE (FILE-<game number>.svg when the
    /// input holds several games), or into the directory DIR (an existing directory, or a
    /// path ending with '/'): DIR/game-<game number>.svg.
    #[arg(long, value_name = "FILE.svg|DIR/")]
    pub chart: Option<PathBuf>,
}

/// How a run went.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AnalyseReport {
    pub games: usize,
    /// Games that could not be read or replayed.
    pub errors: usize,
    /// Stopped by Ctrl-C.
    pub interrupted: bool,
}

/// A run of consecutive positions of one game: `session` stands at position `start` (the
/// position before move `start + 1`); the worker analyses it, plays the move, and so on
/// up to `end` (not included).
struct Job {
    game: Arc<InputGame>,
    start: usize,
    end: usize,
    session: Box<dyn Session>,
}

/// How many games are read but not yet printed: the reader takes a place before it
/// announces a game (waiting while there is none), the printer gives it back.
struct InFlight {
    count: Mutex<usize>,
    freed: Condvar,
}

impl InFlight {
    fn new() -> InFlight {
        InFlight {
            count: Mutex::new(0),
            freed: Condvar::new(),
        }
    }

    /// Wait for a place; false when `stop` came first.
    fn take(&self, stop: &CancelToken) -> bool {
        let Ok(mut count) = self.count.lock() else {
            return false;
        };
        while *count >= MAX_GAMES_IN_FLIGHT {
            if stop.is_cancelled() {
                return false;
            }
            count = match self.freed.wait_timeout(count, Duration::from_millis(50)) {
                Ok((count, _)) => count,
                Err(_) => return false,
            };
        }
        *count += 1;
        true
    }

    fn give_back(&self) {
        if let Ok(mut count) = self.count.lock() {
            *count = count.saturating_sub(1);
            self.freed.notify_one();
        }
    }
}

/// Why the analysis could not start or go on (said after `sowfan analyse: `). A game that
/// cannot be read or replayed is no error of the run: it is reported in its place.
#[derive(Debug, Error)]
pub enum AnalyseError {
    #[error("--game: {0}")]
    Game(RegistryError),
    #[error("--tablebases: '{}' is not a directory", .0.display())]
    TablebasesNotADirectory(PathBuf),
    /// `--threads` or `--hash` refused, or a table not had (the memory check's words).
    #[error("{0}")]
    Memory(String),
    #[error("{0}")]
    Threads(#[from] ThreadsError),
    #[error(transparent)]
    Chart(#[from] ChartTargetError),
    #[error("cannot open '{}': {error}", path.display())]
    Open {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error("cannot read '{}': a directory", .0.display())]
    InputIsADirectory(PathBuf),
    #[error("cannot start the input thread: {0}")]
    InputThread(std::io::Error),
    #[error("cannot start a worker thread: {0}")]
    WorkerThread(std::io::Error),
    #[error("cannot read the input: {0}")]
    Read(std::io::Error),
    #[error("game {game}, position {index}: {error}")]
    Position {
        game: usize,
        index: usize,
        error: PositionError,
    },
    #[error(transparent)]
    Print(#[from] PrintError),
}

/// Why `--chart` is refused before the analysis starts.
#[derive(Debug, Error)]
pub enum ChartTargetError {
    #[error("--chart: '{}' is not a directory", .0.display())]
    NotADirectory(PathBuf),
    #[error("--chart: '{}' is not a regular file or a directory", .0.display())]
    NotAFile(PathBuf),
    #[error("--chart: '{}' names no file", .0.display())]
    NoFileName(PathBuf),
    #[error("--chart: the directory '{}' does not exist", .0.display())]
    NoDirectory(PathBuf),
    #[error("--chart: cannot write in the directory '{}': {error}", dir.display())]
    Unwritable { dir: PathBuf, error: std::io::Error },
}

/// Why a position of a game got no result: the run stops there.
#[derive(Debug, Error)]
pub enum PositionError {
    #[error(transparent)]
    Search(#[from] SearchError),
    /// The reader's replay of a game `check` had replayed whole failed.
    #[error("internal error: the replay failed: {0}")]
    Replay(PositionCommandError),
    /// A worker's step to its job's next position failed.
    #[error("{0}")]
    NextMove(PositionCommandError),
}

/// Why the results could not be printed (or a chart written).
#[derive(Debug, Error)]
pub enum PrintError {
    /// Standard output was closed (e.g. `| head`): the run ends quietly.
    #[error("standard output closed")]
    Closed,
    #[error("cannot write the output: {0}")]
    Write(std::io::Error),
    #[error(transparent)]
    Chart(#[from] ChartError),
    #[error("cannot write the chart '{}': {error}", path.display())]
    WriteChart {
        path: PathBuf,
        error: std::io::Error,
    },
}

enum Event {
    Game(Arc<InputGame>),
    Error(GameError),
    Position {
        game: usize,
        index: usize,
        result: Result<PositionResult, PositionError>,
    },
    /// The input has ended (or could not be read further: why).
    InputDone {
        games: usize,
        error: Option<std::io::Error>,
    },
}

/// `depth 10`, `nodes 50000`, `movetime 200 ms`.
fn limits_text(limits: &Limits) -> String {
    let mut parts = Vec::new();
    if let Some(d) = limits.depth {
        parts.push(format!("depth {d}"));
    }
    if let Some(n) = limits.nodes {
        parts.push(format!("nodes {n}"));
    }
    if let Some(t) = limits.movetime {
        parts.push(format!("movetime {t} ms"));
    }
    parts.join(", ")
}

/// `chart.svg` for game 3 of several: `chart-3.svg`.
fn numbered(path: &Path, number: usize) -> PathBuf {
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let name = match path.extension() {
        Some(ext) => format!("{stem}-{number}.{}", ext.to_string_lossy()),
        None => format!("{stem}-{number}"),
    };
    path.with_file_name(name)
}

/// Where the charts go (`--chart`), checked before the analysis starts.
#[derive(Debug, Clone, PartialEq, Eq)]
enum ChartTarget {
    /// A file: this name for one game, `stem-N.ext` beside it for several.
    File(PathBuf),
    /// A directory: `game-N.svg` inside it.
    Dir(PathBuf),
}

impl ChartTarget {
    /// `--chart PATH`: an existing directory or a path ending with `/` is a directory, which
    /// must exist; otherwise a file, which may not exist yet but must not be anything but a
    /// regular file (a device such as /dev/full, a FIFO), in a directory that exists. Either
    /// directory must take a new file: one is created there and removed, so that a chart
    /// that cannot be written is refused before hours of analysis, not after.
    fn check(path: &Path) -> Result<ChartTarget, ChartTargetError> {
        let slash = path.as_os_str().as_encoded_bytes().ends_with(b"/");
        let target = if slash || path.is_dir() {
            if !path.is_dir() {
                return Err(ChartTargetError::NotADirectory(path.to_path_buf()));
            }
            ChartTarget::Dir(path.to_path_buf())
        } else {
            if let Ok(meta) = std::fs::metadata(path)
                && !meta.is_file()
            {
                return Err(ChartTargetError::NotAFile(path.to_path_buf()));
            }
            if path.file_name().is_none() {
                return Err(ChartTargetError::NoFileName(path.to_path_buf()));
            }
            ChartTarget::File(path.to_path_buf())
        };
        let dir = target.dir();
        if !dir.is_dir() {
            return Err(ChartTargetError::NoDirectory(dir));
        }
        let probe = dir.join(format!(".sowfan-chart-check-{}", std::process::id()));
        if let Err(error) = File::create(&probe) {
            return Err(ChartTargetError::Unwritable { dir, error });
        }
        let _ = std::fs::remove_file(&probe);
        Ok(target)
    }

    /// The directory the charts are written in.
    fn dir(&self) -> PathBuf {
        match self {
            ChartTarget::Dir(dir) => dir.clone(),
            ChartTarget::File(path) => match path.parent() {
                Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
                _ => PathBuf::from("."),
            },
        }
    }

    /// The chart of game `number`; `several`: the input holds more than one game.
    fn path(&self, number: usize, several: bool) -> PathBuf {
        match self {
            ChartTarget::Dir(dir) => dir.join(format!("game-{number}.svg")),
            ChartTarget::File(path) if several => numbered(path, number),
            ChartTarget::File(path) => path.clone(),
        }
    }
}

/// Tables for each rule set, opened once.
struct TableCache {
    dir: Option<PathBuf>,
    opened: HashMap<String, Option<Arc<Tables>>>,
}

impl TableCache {
    fn for_session(&mut self, session: &dyn Session) -> Option<Arc<Tables>> {
        let dir = self.dir.as_ref()?;
        let rules = session.table_rules()?;
        self.opened
            .entry(rules.clone())
            .or_insert_with(|| match session.open_tables(dir) {
                Ok(tables) => tables,
                Err(e @ TableError::Absent { .. }) => {
                    eprintln!("sowfan analyse: {e}; searching without");
                    None
                }
                Err(e) => {
                    eprintln!("sowfan analyse: tables for '{rules}': {e}: searching without");
                    None
                }
            })
            .clone()
    }
}

/// How many positions a job holds: enough runs for every worker to have several (so that a
/// short game is still shared out), at most [`MAX_RUN`] (so that a long game is too).
fn run_length(positions: usize, threads: usize) -> usize {
    positions
        .div_ceil(threads.saturating_mul(4).max(1))
        .clamp(1, MAX_RUN)
}

/// What the reader shares with the rest of the run.
struct Reading {
    default_game: String,
    tables: TableCache,
    events: Sender<Event>,
    jobs: SyncSender<Job>,
    in_flight: Arc<InFlight>,
    stop: CancelToken,
    threads: usize,
}

impl Reading {
    /// Announce a game (or its error) and queue its positions; false when the run is over.
    fn handle(&mut self, item: input::Parsed) -> bool {
        if !self.in_flight.take(&self.stop) {
            return false;
        }
        let checked = item.and_then(|game| game.check().map(|session| (game, session)));
        let (game, mut session) = match checked {
            Ok(checked) => checked,
            Err(error) => return self.events.send(Event::Error(error)).is_ok(),
        };
        let tables = self.tables.for_session(session.as_ref());
        session.set_tables(tables);
        let positions = game.moves.len() + 1;
        let job = Arc::new(game);
        if self.events.send(Event::Game(Arc::clone(&job))).is_err() {
            return false;
        }
        // The game was replayed whole by `check`: its moves are legal, played one run at a
        // time on the one session, which each job gets a copy of.
        let run = run_length(positions, self.threads);
        let mut start = 0;
        while start < positions {
            if self.stop.is_cancelled() {
                return false;
            }
            let end = (start + run).min(positions);
            let next = Job {
                game: Arc::clone(&job),
                start,
                end,
                session: session.clone_box(),
            };
            if self.jobs.send(next).is_err() {
                return false;
            }
            let moves: Vec<&str> = job.moves[start..end.min(job.moves.len())]
                .iter()
                .map(String::as_str)
                .collect();
            if let Err(e) = session.play_moves(&moves) {
                // Cannot happen after `check`; if it does, the run stops saying so (the
                // game's later positions will never come).
                let _ = self.events.send(Event::Position {
                    game: job.number,
                    index: end,
                    result: Err(PositionError::Replay(e)),
                });
                return false;
            }
            start = end;
        }
        true
    }
}

/// Read the input, send each game (or its error) as an event and its positions as jobs.
fn read_games(reader: Box<dyn BufRead + Send>, mut reading: Reading) {
    let mut parser = Parser::new(&reading.default_game);
    let mut error = None;
    let mut lines = BoundedLines::new(reader);
    'lines: while let Some(line) = lines.next_line() {
        if reading.stop.is_cancelled() {
            break;
        }
        let items = match line {
            Ok((_, Ok(text))) => parser.line(&text),
            Ok((_, Err(bad))) => parser.bad_line(&bad),
            Err(e) => {
                error = Some(e);
                break;
            }
        };
        for item in items {
            if !reading.handle(item) {
                break 'lines;
            }
        }
    }
    if !reading.stop.is_cancelled() {
        for item in parser.finish() {
            if !reading.handle(item) {
                break;
            }
        }
    }
    let _ = reading.events.send(Event::InputDone {
        games: parser.games_seen(),
        error,
    });
}

/// Analyse positions until the jobs run out or `stop`.
fn work(
    jobs: Arc<Mutex<Receiver<Job>>>,
    events: Sender<Event>,
    spec: SearchSpec,
    control: Arc<SearchControl>,
    stop: CancelToken,
) {
    loop {
        if stop.is_cancelled() {
            return;
        }
        let next = match jobs.lock() {
            Ok(rx) => rx.recv_timeout(Duration::from_millis(50)),
            Err(_) => return,
        };
        let mut job = match next {
            Ok(job) => job,
            Err(RecvTimeoutError::Timeout) => continue,
            Err(RecvTimeoutError::Disconnected) => return,
        };
        let moves = &job.game.moves;
        for index in job.start..job.end {
            if stop.is_cancelled() {
                return;
            }
            let next = moves.get(index).map(String::as_str);
            let result = evaluate::analyse_position(job.session.as_ref(), next, &spec, &control)
                .map_err(PositionError::from);
            let failed = result.is_err();
            let event = Event::Position {
                game: job.game.number,
                index,
                result,
            };
            if events.send(event).is_err() || failed {
                return;
            }
            if let Some(next) = next
                && index + 1 < job.end
                && let Err(e) = job.session.play_moves(&[next])
            {
                let event = Event::Position {
                    game: job.game.number,
                    index: index + 1,
                    result: Err(PositionError::NextMove(e)),
                };
                let _ = events.send(event);
                return;
            }
        }
    }
}

fn output_error(e: std::io::Error) -> PrintError {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        PrintError::Closed
    } else {
        PrintError::Write(e)
    }
}

/// A game whose positions are coming in.
struct Pending {
    game: Arc<InputGame>,
    results: Vec<Option<PositionResult>>,
    moves: Vec<MoveAnalysis>,
    header_done: bool,
    width: usize,
}

enum Slot {
    Game(Box<Pending>),
    Error(GameError),
}

/// Prints in input order; knows whether charts are numbered.
struct Printer {
    format: OutputFormat,
    limits: String,
    chart: Option<ChartTarget>,
    out: std::io::Stdout,
    bar: ProgressBar,
    /// Errors also go to stderr unless stdout is the same terminal.
    errors_to_stderr: bool,
}

impl Printer {
    /// `text` as it is, but for control characters other than the line ends, which come
    /// from the input (a bad line, a player's name) and are written out (`\u{0}`,
    /// `\u{1b}`): never raw to a terminal or to a program reading the lines.
    fn write(&self, text: &str) -> Result<(), std::io::Error> {
        let text = crate::text::lines(text);
        self.bar.suspend(|| {
            let mut out = self.out.lock();
            out.write_all(text.as_bytes())?;
            out.flush()
        })
    }

    fn line(&self, text: &str) -> Result<(), std::io::Error> {
        self.write(&format!("{text}\n"))
    }

    fn error(&self, error: &GameError) -> Result<(), std::io::Error> {
        if self.errors_to_stderr {
            let error = crate::text::one_line(&error.to_string()).into_owned();
            self.bar.suspend(|| eprintln!("sowfan analyse: {error}"));
        }
        match self.format {
            OutputFormat::Text => self.write(&render::text_error(error)),
            OutputFormat::Jsonl => self.line(&render::json_error(error)),
        }
    }

    /// Print what `pending` has ready; true when the game is finished.
    fn advance(&self, pending: &mut Pending, several: Option<bool>) -> Result<bool, PrintError> {
        let io = output_error;
        let game = Arc::clone(&pending.game);
        let game = game.as_ref();
        if !pending.header_done {
            pending.header_done = true;
            if self.format == OutputFormat::Text {
                self.write(&render::text_header(game, &self.limits, pending.width))
                    .map_err(io)?;
            }
        }
        while pending.moves.len() < game.moves.len() {
            let i = pending.moves.len();
            let (Some(before), Some(after)) = (&pending.results[i], &pending.results[i + 1]) else {
                return Ok(false);
            };
            let m = evaluate::judge_move(i + 1, &game.moves[i], i < game.opening, before, after);
            match self.format {
                OutputFormat::Text => self.line(&render::text_move(&m, pending.width)),
                OutputFormat::Jsonl => self.line(&render::json_move(game.number, &m)),
            }
            .map_err(io)?;
            pending.moves.push(m);
        }
        if pending.results.iter().any(Option::is_none) {
            return Ok(false);
        }
        // Chart names depend on whether the input holds several games.
        let chart = match (&self.chart, several) {
            (None, _) => None,
            (Some(ChartTarget::File(_)), None) => return Ok(false),
            (Some(target), several) => Some(target.path(game.number, several.unwrap_or(true))),
        };
        let positions: Vec<PositionResult> = pending.results.iter().flatten().cloned().collect();
        let summary = evaluate::summarise(
            &positions,
            &pending.moves,
            game.result.as_deref(),
            game.reason.as_deref(),
        );
        let chart_text = chart.as_ref().map(|p| p.display().to_string());
        if let Some(path) = &chart {
            let name = |name: Option<&str>, side: &str| match name {
                Some(name) => format!("{name} ({side})"),
                None => side.to_string(),
            };
            let title = format!(
                "Game {}: {}, {} vs {}, {}",
                game.number,
                game.spec,
                name(game.p1.as_deref(), "p1"),
                name(game.p2.as_deref(), "p2"),
                summary.result
            );
            let y_label = match &game.p1 {
                Some(name) => format!("points for p1 ({name})"),
                None => "points for p1".to_string(),
            };
            let start = positions
                .first()
                .map(|p| p.value.for_player(p.mover, Player::P1))
                .unwrap_or(evaluate::Value::Cp(0));
            let svg = chart::render(&chart::ChartSpec {
                title: &title,
                y_label: &y_label,
                start,
                moves: &pending.moves,
            })?;
            crate::cli::write_atomically(path, svg.as_bytes()).map_err(|error| {
                PrintError::WriteChart {
                    path: path.clone(),
                    error,
                }
            })?;
        }
        match self.format {
            OutputFormat::Text => {
                let footer =
                    render::text_footer(game, &summary, &pending.moves, chart_text.as_deref());
                self.write(&format!("{footer}\n"))
            }
            OutputFormat::Jsonl => self.line(&render::json_game(
                game,
                &summary,
                &pending.moves,
                &self.limits,
                chart_text.as_deref(),
            )),
        }
        .map_err(io)?;
        Ok(true)
    }
}

fn progress_bar() -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::stderr());
    if let Ok(style) = ProgressStyle::with_template(
        "{bar:30.cyan/blue} {pos}/{len} positions, game {msg} [{elapsed_precise} < {eta}]",
    ) {
        bar.set_style(style.progress_chars("=> "));
    }
    bar
}

/// Analyse every game of the input and print as each move is done. `stop` (Ctrl-C) ends
/// the run after the searches in progress.
pub fn run(args: &AnalyseArgs, stop: &CancelToken) -> Result<AnalyseReport, AnalyseError> {
    let limits = Limits {
        depth: args
            .depth
            .or((args.nodes.is_none() && args.movetime.is_none()).then_some(DEFAULT_DEPTH)),
        nodes: args.nodes,
        movetime: args.movetime,
        ..Limits::default()
    };
    memory::check_threads("--threads", args.threads)?;
    if let Ok(cores) = std::thread::available_parallelism()
        && args.threads > cores.get()
    {
        eprintln!(
            "sowfan analyse: warning: --threads {} is more than the {} processors here; \
             the searches share them",
            args.threads, cores
        );
    }
    let default_game = args.game.clone().unwrap_or_else(|| "kalah".to_string());
    registry::create_from_spec(&default_game).map_err(AnalyseError::Game)?;
    if let Some(dir) = &args.tablebases
        && !dir.is_dir()
    {
        return Err(AnalyseError::TablebasesNotADirectory(dir.clone()));
    }
    // Every worker has its own table (and, with endgame tables, a solver's table of the
    // same size) and its thread's stack: the cap holds for them all together, so that a
    // machine that cannot hold them refuses up front instead of failing mid-run.
    memory::check_hash_mb("--hash", args.hash_mb)
        .map_err(|e| AnalyseError::Memory(e.to_string()))?;
    let tables_per_worker = if args.tablebases.is_some() { 2 } else { 1 };
    let total = args
        .hash_mb
        .saturating_mul(tables_per_worker)
        .saturating_add(WORKER_STACK_MB)
        .saturating_mul(args.threads);
    memory::check_hash_mb(
        &format!(
            "--hash {} MB for each of {} tables and {WORKER_STACK_MB} MB of stack a worker \
             (--threads {}{})",
            args.hash_mb,
            args.threads * tables_per_worker,
            args.threads,
            if tables_per_worker > 1 {
                ", a search and a solver table each with --tablebases"
            } else {
                ""
            }
        ),
        total,
    )
    .map_err(|e| AnalyseError::Memory(e.to_string()))?;
    let chart = args.chart.as_deref().map(ChartTarget::check).transpose()?;
    let file = args.input.as_ref().filter(|path| path.as_os_str() != "-");
    if file.is_none() && std::io::stdin().is_terminal() {
        eprintln!("sowfan analyse: reading games from the terminal, one a line (Ctrl-D ends)");
    }
    let reader: Box<dyn BufRead + Send> = match file {
        None => Box::new(BufReader::new(std::io::stdin())),
        Some(path) => {
            let opened = File::open(path).map_err(|error| AnalyseError::Open {
                path: path.clone(),
                error,
            })?;
            if opened.metadata().is_ok_and(|m| m.is_dir()) {
                return Err(AnalyseError::InputIsADirectory(path.clone()));
            }
            Box::new(BufReader::new(opened))
        }
    };
    let spec = SearchSpec {
        limits: limits.clone(),
        hash_mb: args.hash_mb,
    };
    // Fail early on a hash size that cannot be had.
    crate::search::tt::TranspositionTable::new(spec.hash_mb)
        .map_err(|e| AnalyseError::Memory(e.to_string()))?;

    // The run's own stop for its threads: Ctrl-C, or the end of the run.
    let halt = CancelToken::new();
    let control = Arc::new(SearchControl::default());
    let (events_tx, events) = mpsc::channel::<Event>();
    // A few runs of positions a worker: the reader waits beyond.
    let (jobs_tx, jobs_rx) = mpsc::sync_channel::<Job>(2 * args.threads);
    let jobs_rx = Arc::new(Mutex::new(jobs_rx));
    // The input's thread first: without it nothing is read; without all the workers the
    // analysis goes on with fewer.
    let in_flight = Arc::new(InFlight::new());
    {
        let reading = Reading {
            default_game,
            tables: TableCache {
                dir: args.tablebases.clone(),
                opened: HashMap::new(),
            },
            events: events_tx.clone(),
            jobs: jobs_tx,
            in_flight: Arc::clone(&in_flight),
            stop: halt.clone(),
            threads: args.threads,
        };
        // Detached: it may be blocked reading a terminal when the run ends.
        let spawned = std::thread::Builder::new()
            .name("analyse-input".to_string())
            .spawn(move || read_games(reader, reading));
        if let Err(e) = spawned {
            return Err(AnalyseError::InputThread(e));
        }
    }
    let mut workers = Vec::new();
    for number in 0..args.threads {
        let jobs = Arc::clone(&jobs_rx);
        let events = events_tx.clone();
        let spec = spec.clone();
        let control = Arc::clone(&control);
        let worker_halt = halt.clone();
        let spawned = std::thread::Builder::new()
            .name(format!("analyse-{}", number + 1))
            .spawn(move || work(jobs, events, spec, control, worker_halt));
        match spawned {
            Ok(worker) => workers.push(worker),
            Err(e) if workers.is_empty() => {
                halt.cancel();
                return Err(AnalyseError::WorkerThread(e));
            }
            Err(e) => {
                eprintln!(
                    "sowfan analyse: warning: cannot start more than {} worker threads ({e}); \
                     going on with {}",
                    workers.len(),
                    workers.len()
                );
                break;
            }
        }
    }
    drop(jobs_rx);
    drop(events_tx);

    let printer = Printer {
        format: args.format,
        limits: limits_text(&limits),
        chart,
        out: std::io::stdout(),
        bar: progress_bar(),
        errors_to_stderr: !std::io::stdout().is_terminal(),
    };
    let mut report = AnalyseReport::default();
    let mut order: VecDeque<usize> = VecDeque::new();
    let mut slots: HashMap<usize, Slot> = HashMap::new();
    let mut announced = 0usize;
    let mut input_done: Option<usize> = None;
    let mut failure: Option<AnalyseError> = None;
    let mut read_error: Option<AnalyseError> = None;
    let finish = |halt: &CancelToken, control: &SearchControl| {
        halt.cancel();
        control.request_stop();
    };
    loop {
        if stop.is_cancelled() {
            report.interrupted = true;
            break;
        }
        let event = match events.recv_timeout(Duration::from_millis(50)) {
            Ok(event) => event,
            Err(RecvTimeoutError::Timeout) => continue,
            Err(RecvTimeoutError::Disconnected) => break,
        };
        match event {
            Event::Game(game) => {
                announced += 1;
                report.games += 1;
                printer.bar.inc_length(game.moves.len() as u64 + 1);
                let number = game.number;
                order.push_back(number);
                let width = render::move_width(&game);
                let positions = game.moves.len() + 1;
                slots.insert(
                    number,
                    Slot::Game(Box::new(Pending {
                        game,
                        results: vec![None; positions],
                        moves: Vec::new(),
                        header_done: false,
                        width,
                    })),
                );
            }
            Event::Error(error) => {
                announced += 1;
                report.errors += 1;
                order.push_back(error.number);
                slots.insert(error.number, Slot::Error(error));
            }
            Event::Position {
                game,
                index,
                result,
            } => {
                printer.bar.inc(1);
                printer.bar.set_message(game.to_string());
                match result {
                    Ok(result) => {
                        if let Some(Slot::Game(pending)) = slots.get_mut(&game) {
                            pending.results[index] = Some(result);
                        }
                    }
                    Err(error) => {
                        failure = Some(AnalyseError::Position { game, index, error });
                        break;
                    }
                }
            }
            Event::InputDone { games, error } => {
                input_done = Some(games);
                read_error = error.map(AnalyseError::Read);
            }
        }
        let several = if announced > 1 {
            Some(true)
        } else {
            input_done.map(|games| games > 1)
        };
        // Print whatever is ready, in input order.
        let mut printed = Ok(());
        while let Some(&number) = order.front() {
            let done = match slots.get_mut(&number) {
                Some(Slot::Error(error)) => {
                    printer.error(error).map(|_| true).map_err(output_error)
                }
                Some(Slot::Game(pending)) => printer.advance(pending, several),
                None => Ok(true),
            };
            match done {
                Ok(true) => {
                    slots.remove(&number);
                    order.pop_front();
                    in_flight.give_back();
                }
                Ok(false) => break,
                Err(e) => {
                    printed = Err(e);
                    break;
                }
            }
        }
        if let Err(e) = printed {
            failure = Some(e.into());
            break;
        }
        if failure.is_some() {
            break;
        }
        if input_done.is_some() && order.is_empty() {
            break;
        }
    }
    // A Ctrl-C that came as the input ended (a terminal's Ctrl-C also ends the program
    // writing into the pipe) still counts: the run did not finish by itself.
    if stop.is_cancelled() {
        report.interrupted = true;
    }
    finish(&halt, &control);
    drop(events);
    for worker in workers {
        let _ = worker.join();
    }
    printer.bar.finish_and_clear();
    match failure.or(read_error) {
        Some(AnalyseError::Print(PrintError::Closed)) => Ok(report),
        Some(e) => Err(e),
        None => Ok(report),
    }
}
