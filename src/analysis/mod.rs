//! `sowfan analyse`: every move of recorded games judged by the engine — the best move and
//! its score, the score of the move played, the loss and a mark — with each player's totals,
//! the decisive mistake, and an evaluation chart.
//!
//! - [`input`] reads games in every form sowfan writes or accepts, line by line;
//! - [`evaluate`] searches each position once and judges the moves;
//! - [`output`] prints text or JSON Lines; [`chart`] draws the SVG chart.
//!
//! Positions are searched by `--threads` workers at once, each search on one thread with a
//! fresh transposition table, so that with `--depth` or `--nodes` the output depends only
//! on the input (not on the number of threads or the order the workers finish in); the
//! output is printed in input order as soon as each move's two positions are done.

pub mod chart;
pub mod evaluate;
pub mod input;
pub mod output;

use std::collections::{HashMap, VecDeque};
use std::fs::File;
use std::io::{BufRead, BufReader, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::game::Player;
use crate::registry;
use crate::search::SearchControl;
use crate::search::limits::Limits;
use crate::session::Session;
use crate::tablebase::{TableError, Tables};
use evaluate::{MoveAnalysis, PositionResult, SearchSpec};
use input::{GameError, InputGame, Parser};
pub use output::OutputFormat;

/// The default search of each position when no limit is given.
pub const DEFAULT_DEPTH: u32 = 10;

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
    /// does not depend on this).
    #[arg(long, default_value_t = 1, value_name = "T")]
    pub threads: usize,
    /// Transposition table of each search, in MiB.
    #[arg(long = "hash", default_value_t = 16, value_name = "MB")]
    pub hash_mb: usize,
    /// Endgame table directory: covered positions get exact values.
    #[arg(long, value_name = "DIR")]
    pub tablebases: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    pub format: OutputFormat,
    /// Draw each game's evaluation chart as SVG to FILE (FILE-<game number>.svg when the
    /// input holds several games).
    #[arg(long, value_name = "FILE.svg")]
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

/// One game being analysed, shared by the workers.
struct GameJob {
    game: InputGame,
    /// At the game's start position, tables set; each job clones it.
    session: Mutex<Box<dyn Session>>,
}

enum Event {
    Game(Arc<GameJob>),
    Error(GameError),
    Position {
        game: usize,
        index: usize,
        result: Result<PositionResult, String>,
    },
    /// The input has ended (or could not be read further: the message).
    InputDone {
        games: usize,
        error: Option<String>,
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

/// One position to analyse: its game and the ply before which it stands.
type Job = (Arc<GameJob>, usize);

/// Read the input, send each game (or its error) as an event and its positions as jobs.
fn read_games(
    reader: Box<dyn BufRead + Send>,
    default_game: String,
    mut tables: TableCache,
    events: Sender<Event>,
    jobs: Sender<Job>,
    stop: Arc<AtomicBool>,
) {
    let mut parser = Parser::new(&default_game);
    let mut handle = |item: input::Parsed| -> bool {
        let checked = item.and_then(|game| game.check().map(|session| (game, session)));
        match checked {
            Ok((game, mut session)) => {
                let tables = tables.for_session(session.as_ref());
                session.set_tables(tables);
                let positions = game.moves.len() + 1;
                let job = Arc::new(GameJob {
                    game,
                    session: Mutex::new(session),
                });
                if events.send(Event::Game(Arc::clone(&job))).is_err() {
                    return false;
                }
                (0..positions).all(|i| jobs.send((Arc::clone(&job), i)).is_ok())
            }
            Err(error) => events.send(Event::Error(error)).is_ok(),
        }
    };
    let mut error = None;
    'lines: for line in reader.lines() {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        match line {
            Ok(line) => {
                for item in parser.line(&line) {
                    if !handle(item) {
                        break 'lines;
                    }
                }
            }
            Err(e) => {
                error = Some(format!("cannot read the input: {e}"));
                break;
            }
        }
    }
    for item in parser.finish() {
        if !handle(item) {
            break;
        }
    }
    drop(jobs);
    let _ = events.send(Event::InputDone {
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
    stop: Arc<AtomicBool>,
) {
    loop {
        if stop.load(Ordering::Relaxed) {
            return;
        }
        let next = match jobs.lock() {
            Ok(rx) => rx.recv_timeout(Duration::from_millis(50)),
            Err(_) => return,
        };
        let (job, index) = match next {
            Ok(job) => job,
            Err(RecvTimeoutError::Timeout) => continue,
            Err(RecvTimeoutError::Disconnected) => return,
        };
        let result = (|| {
            let mut session = match job.session.lock() {
                Ok(s) => s.clone_box(),
                Err(_) => return Err("internal error: a worker failed".to_string()),
            };
            let moves: Vec<&str> = job.game.moves[..index].iter().map(String::as_str).collect();
            session
                .set_position(job.game.fen.as_deref(), &moves)
                .map_err(|e| e.to_string())?;
            let next = job.game.moves.get(index).map(String::as_str);
            evaluate::analyse_position(session.as_ref(), next, &spec, &control)
        })();
        let event = Event::Position {
            game: job.game.number,
            index,
            result,
        };
        if events.send(event).is_err() {
            return;
        }
    }
}

/// Standard output was closed (e.g. `| head`): the run ends quietly.
const CLOSED: &str = "standard output closed";

fn output_error(e: std::io::Error) -> String {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        CLOSED.to_string()
    } else {
        format!("cannot write the output: {e}")
    }
}

/// A game whose positions are coming in.
struct Pending {
    job: Arc<GameJob>,
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
    chart: Option<PathBuf>,
    out: std::io::Stdout,
    bar: ProgressBar,
    /// Errors also go to stderr unless stdout is the same terminal.
    errors_to_stderr: bool,
}

impl Printer {
    fn write(&self, text: &str) -> Result<(), std::io::Error> {
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
            self.bar.suspend(|| eprintln!("sowfan analyse: {error}"));
        }
        match self.format {
            OutputFormat::Text => self.write(&output::text_error(error)),
            OutputFormat::Jsonl => self.line(&output::json_error(error)),
        }
    }

    /// Print what `pending` has ready; true when the game is finished.
    fn advance(&self, pending: &mut Pending, several: Option<bool>) -> Result<bool, String> {
        let io = output_error;
        let game = &pending.job.game;
        if !pending.header_done {
            pending.header_done = true;
            if self.format == OutputFormat::Text {
                self.write(&output::text_header(game, &self.limits, pending.width))
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
                OutputFormat::Text => self.line(&output::text_move(&m, pending.width)),
                OutputFormat::Jsonl => self.line(&output::json_move(game.number, &m)),
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
            (Some(_), None) => return Ok(false),
            (Some(path), Some(true)) => Some(numbered(path, game.number)),
            (Some(path), Some(false)) => Some(path.clone()),
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
                .map(|p| p.value.for_player(p.mover, Player::P1).points())
                .unwrap_or(0.0);
            let svg = chart::render(&chart::ChartSpec {
                title: &title,
                y_label: &y_label,
                start,
                moves: &pending.moves,
            })?;
            std::fs::write(path, svg)
                .map_err(|e| format!("cannot write the chart '{}': {e}", path.display()))?;
        }
        match self.format {
            OutputFormat::Text => {
                let footer =
                    output::text_footer(game, &summary, &pending.moves, chart_text.as_deref());
                self.write(&format!("{footer}\n"))
            }
            OutputFormat::Jsonl => self.line(&output::json_game(
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
pub fn run(args: &AnalyseArgs, stop: &AtomicBool) -> Result<AnalyseReport, String> {
    let limits = Limits {
        depth: args
            .depth
            .or((args.nodes.is_none() && args.movetime.is_none()).then_some(DEFAULT_DEPTH)),
        nodes: args.nodes,
        movetime: args.movetime,
        ..Limits::default()
    };
    if args.threads == 0 {
        return Err("--threads must be at least 1".to_string());
    }
    let default_game = args.game.clone().unwrap_or_else(|| "kalah".to_string());
    registry::create_from_spec(&default_game).map_err(|e| format!("--game: {e}"))?;
    let file = args.input.as_ref().filter(|path| path.as_os_str() != "-");
    if file.is_none() && std::io::stdin().is_terminal() {
        eprintln!("sowfan analyse: reading games from the terminal, one a line (Ctrl-D ends)");
    }
    let reader: Box<dyn BufRead + Send> = match file {
        None => Box::new(BufReader::new(std::io::stdin())),
        Some(path) => Box::new(BufReader::new(
            File::open(path).map_err(|e| format!("cannot open '{}': {e}", path.display()))?,
        )),
    };
    if let Some(dir) = &args.tablebases
        && !dir.is_dir()
    {
        return Err(format!(
            "--tablebases: '{}' is not a directory",
            dir.display()
        ));
    }
    let spec = SearchSpec {
        limits: limits.clone(),
        hash_mb: args.hash_mb.max(1),
    };
    // Fail early on a hash size that cannot be had.
    crate::search::tt::TranspositionTable::new(spec.hash_mb)?;

    let flag = Arc::new(AtomicBool::new(false));
    let control = Arc::new(SearchControl::default());
    let (events_tx, events) = mpsc::channel::<Event>();
    let (jobs_tx, jobs_rx) = mpsc::channel::<Job>();
    let jobs_rx = Arc::new(Mutex::new(jobs_rx));
    {
        let events = events_tx.clone();
        let flag = Arc::clone(&flag);
        let tables = TableCache {
            dir: args.tablebases.clone(),
            opened: HashMap::new(),
        };
        // Detached: it may be blocked reading a terminal when the run ends.
        std::thread::spawn(move || read_games(reader, default_game, tables, events, jobs_tx, flag));
    }
    let workers: Vec<_> = (0..args.threads)
        .map(|_| {
            let jobs = Arc::clone(&jobs_rx);
            let events = events_tx.clone();
            let spec = spec.clone();
            let control = Arc::clone(&control);
            let flag = Arc::clone(&flag);
            std::thread::spawn(move || work(jobs, events, spec, control, flag))
        })
        .collect();
    drop(events_tx);

    let printer = Printer {
        format: args.format,
        limits: limits_text(&limits),
        chart: args.chart.clone(),
        out: std::io::stdout(),
        bar: progress_bar(),
        errors_to_stderr: !std::io::stdout().is_terminal(),
    };
    let mut report = AnalyseReport::default();
    let mut order: VecDeque<usize> = VecDeque::new();
    let mut slots: HashMap<usize, Slot> = HashMap::new();
    let mut announced = 0usize;
    let mut input_done: Option<usize> = None;
    let mut failure: Option<String> = None;
    let mut read_error: Option<String> = None;
    let finish = |flag: &AtomicBool, control: &SearchControl| {
        flag.store(true, Ordering::Relaxed);
        control.request_stop();
    };
    loop {
        if stop.load(Ordering::Relaxed) {
            report.interrupted = true;
            break;
        }
        let event = match events.recv_timeout(Duration::from_millis(50)) {
            Ok(event) => event,
            Err(RecvTimeoutError::Timeout) => continue,
            Err(RecvTimeoutError::Disconnected) => break,
        };
        match event {
            Event::Game(job) => {
                announced += 1;
                report.games += 1;
                printer.bar.inc_length(job.game.moves.len() as u64 + 1);
                let number = job.game.number;
                order.push_back(number);
                let width = output::move_width(&job.game);
                let positions = job.game.moves.len() + 1;
                slots.insert(
                    number,
                    Slot::Game(Box::new(Pending {
                        job,
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
                    Err(e) => {
                        failure = Some(format!("game {game}, position {index}: {e}"));
                        break;
                    }
                }
            }
            Event::InputDone { games, error } => {
                input_done = Some(games);
                read_error = error;
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
                }
                Ok(false) => break,
                Err(e) => {
                    printed = Err(e);
                    break;
                }
            }
        }
        if let Err(e) = printed {
            failure = Some(e);
            break;
        }
        if failure.is_some() {
            break;
        }
        if input_done.is_some() && order.is_empty() {
            break;
        }
    }
    finish(&flag, &control);
    drop(events);
    for worker in workers {
        let _ = worker.join();
    }
    printer.bar.finish_and_clear();
    match failure.or(read_error) {
        Some(e) if e == CLOSED => Ok(report),
        Some(e) => Err(e),
        None => Ok(report),
    }
}
