//! The work of `sowfan datagen`: games of the engine against itself at a fixed node count,
//! from random balanced openings, on several threads, their positions written with the
//! search's score and the game's result as training data ([`crate::nnue::training_data`]).
//!
//! Game number `i` depends on nothing but the settings and `i`: its opening is opening `i`
//! of the seed ([`crate::openings::opening_number`]), and every search starts from an empty
//! table. So the data are the same whatever the threads, and a run that was interrupted
//! goes on where it stopped: the games already in the file are skipped.
//!
//! Kept: positions after the opening where nothing forcing is at hand (the evaluation is
//! asked only there: `Game::is_quiet`), scored by a search that reached no decision. A
//! search that finds the game decided (a proven result, or endgame tables with
//! `--tablebases`) ends the game with that result: such positions teach nothing an
//! evaluation is for.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

use thiserror::Error;

use crate::cli::{CancelToken, OutputError};
use crate::game::{GameResult, Player};
use crate::memory::{HashSizeError, ThreadsError};
use crate::nnue::network::{NetworkError, NetworkFileError};
use crate::nnue::training_data::DataError;
use crate::nnue::training_data::{self, GameBlock, Header, Sample, Writer};
use crate::openings::{self, OpeningsSpec};
use crate::openings::{OpeningsError, OpeningsSpecError};
use crate::registry;
use crate::registry::RegistryError;
use crate::search::limits::Limits;
use crate::search::tt::HashTableError;
use crate::search::tt::TranspositionTable;
use crate::search::value::Value;
use crate::search::{SearchControl, SearchSettings};
use crate::session::Session;
use crate::session::{PositionCommandError, SessionError};
use crate::tables::TableError;

/// Play games of the engine against itself and write their positions as training data.
///
/// Example: sowfan datagen fanorona --output fanorona.data --games 2000 --nodes 5000
///
/// The file says how it was made (game, nodes, seed, openings); running the same command
/// again goes on with the games it does not hold yet, up to --games. Ctrl-C stops at once:
/// the games finished are kept, the games under way dropped.
#[derive(Debug, Clone, clap::Args)]
// The arguments' doc comments are the command-line help, where `<k>` is a placeholder, not
// an HTML tag.
#[allow(rustdoc::invalid_html_tags)]
#[command(verbatim_doc_comment)]
pub struct DatagenArgs {
    /// The game (and options), as after `newgame`.
    #[arg(value_name = "GAME [KEY=VALUE ...]", required = true)]
    pub game: Vec<String>,
    /// The training data file (created, or continued when it exists).
    #[arg(long, value_name = "FILE")]
    pub output: PathBuf,
    /// Games the file holds when done (at most 100000000).
    #[arg(long, default_value_t = 1000, value_name = "N")]
    pub games: u64,
    /// Nodes of each move's search.
    #[arg(long, default_value_t = 5000, value_name = "N")]
    pub nodes: u64,
    /// Games played at a time (default: the machine's processors).
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
    /// Hash table of each game, in MB.
    #[arg(long, default_value_t = 16, value_name = "MB")]
    pub hash: usize,
    /// Seed of the openings.
    #[arg(long, default_value_t = 1, value_name = "S")]
    pub seed: u64,
    /// Random openings: plies=<k> [balanced=<points>] [probe-nodes=<n>], as in `match`.
    #[arg(long, num_args = 1.., value_name = "KEY=VALUE", default_values_t = ["plies=6".to_string(), "balanced=2".to_string()])]
    pub openings: Vec<String>,
    /// Endgame tables: a position they cover ends the game with their result.
    #[arg(long, value_name = "DIR")]
    pub tablebases: Option<PathBuf>,
    /// The searches' evaluation: `network` (the game's own, where it has one) or
    /// `classic` (the hand-written one), as the engine's `Eval` option.
    #[arg(long, default_value = "network", value_name = "EVAL")]
    pub eval: String,
    /// Evaluate with this network file (`sowfan train`, made for the game) instead of the
    /// game's own: e.g. an earlier network, to make its data again.
    #[arg(long, value_name = "FILE")]
    pub network: Option<PathBuf>,
}

/// A game longer than this is left out (no game of these rules gets near it).
const MAX_GAME_PLIES: usize = 4000;

/// The most `--games`: a file of that many games holds billions of positions (hundreds of
/// GB); a larger count is a mistake.
pub const MAX_GAMES: u64 = 100_000_000;

/// What a run did.
#[derive(Debug, Clone)]
pub struct DatagenSummary {
    pub games: u64,
    pub positions: u64,
    pub seconds: f64,
    /// Games and positions the file holds now.
    pub file_games: u64,
    pub file_positions: u64,
    /// Games over `MAX_GAME_PLIES`, left out.
    pub dropped: u64,
    pub interrupted: bool,
}

impl DatagenSummary {
    pub fn report(&self) -> String {
        let rate = |n: u64| n as f64 / self.seconds.max(1e-9);
        format!(
            "{} games, {} positions in {:.1} s ({:.0} positions/s, {:.2} games/s){}; the file \
             holds {} games, {} positions{}",
            self.games,
            self.positions,
            self.seconds,
            rate(self.positions),
            rate(self.games),
            if self.dropped > 0 {
                format!(
                    "; {} games over {MAX_GAME_PLIES} plies left out",
                    self.dropped
                )
            } else {
                String::new()
            },
            self.file_games,
            self.file_positions,
            if self.interrupted {
                " (interrupted: run the same command to go on)"
            } else {
                ""
            }
        )
    }
}

/// The header of the data `args` make: what decides the games' content.
fn header_for(
    args: &DatagenArgs,
    spec: &OpeningsSpec,
    session: &dyn Session,
    network: Option<&[u8]>,
) -> Header {
    let tables = match (&args.tablebases, session.table_rules()) {
        (Some(_), Some(rules)) => rules,
        _ => "none".to_string(),
    };
    Header {
        fields: vec![
            ("game".into(), session.spec()),
            ("nodes".into(), args.nodes.to_string()),
            ("seed".into(), args.seed.to_string()),
            ("openings".into(), openings_text(spec)),
            ("tables".into(), tables),
            ("hash".into(), args.hash.to_string()),
            ("evaluation".into(), evaluation(network)),
            (
                "kept".into(),
                "quiet positions after the opening, not decided".into(),
            ),
            ("sowfan".into(), env!("SOWFAN_VERSION").into()),
        ],
    }
}

/// The evaluation the searches use: a network (named by its checksum) or the hand-written
/// one.
fn evaluation(network: Option<&[u8]>) -> String {
    match network {
        Some(bytes) => format!("network {:016x}", xxhash_rust::xxh3::xxh3_64(bytes)),
        None => "hand-written".to_string(),
    }
}

/// Random openings in one spelling, whatever the order or form of the words given
/// (`balanced=2 plies=6` is `plies=6 balanced=2`): `plies=<k>`, then `balanced=<points>
/// probe-nodes=<n>` when balanced.
fn openings_text(spec: &OpeningsSpec) -> String {
    match spec {
        OpeningsSpec::Random {
            plies,
            balance: None,
        } => format!("plies={plies}"),
        OpeningsSpec::Random {
            plies,
            balance: Some(balance),
        } => format!(
            "plies={plies} balanced={} probe-nodes={}",
            f64::from(balance.max_centipoints) / 100.0,
            balance.nodes
        ),
        OpeningsSpec::File { path, .. } => format!("file={}", path.display()),
    }
}

/// A header's value of `key` in one spelling: the openings as [`openings_text`] writes
/// them (a file's words, of an earlier sowfan, may be in another order), others as they are.
fn normalised(key: &str, value: Option<&str>) -> Option<String> {
    let value = value?;
    if key == "openings" {
        let words: Vec<String> = value.split_whitespace().map(str::to_string).collect();
        if let Ok(spec) = openings::parse_openings(&words) {
            return Some(openings_text(&spec));
        }
    }
    Some(value.to_string())
}

/// The header keys that must agree for a file to be continued.
const SAME_DATA: [&str; 7] = [
    "game",
    "nodes",
    "seed",
    "openings",
    "tables",
    "hash",
    "evaluation",
];

/// Why a datagen run stopped without its games.
#[derive(Debug, Error)]
pub enum DatagenError {
    #[error(transparent)]
    Game(#[from] RegistryError),
    #[error(transparent)]
    Openings(#[from] OpeningsSpecError),
    #[error("--openings: datagen plays random openings: plies=<k> [balanced=<points>]")]
    OpeningsFromFile,
    #[error("--nodes must be at least 1")]
    ZeroNodes,
    #[error(
        "--games {0}: at most {MAX_GAMES} (a file of that many games holds billions of \
         positions)"
    )]
    TooManyGames(u64),
    #[error(transparent)]
    Output(#[from] OutputError),
    #[error("--eval {0}: expected network or classic")]
    Eval(String),
    #[error(transparent)]
    Hash(#[from] HashSizeError),
    #[error(transparent)]
    Threads(#[from] ThreadsError),
    #[error("--tablebases: {0}")]
    Tables(#[from] TableError),
    #[error("--tablebases: {0} has no endgame tables")]
    NoTables(String),
    #[error("--network plays with a network: not with --eval classic")]
    NetworkWithClassic,
    #[error("--network: {0}")]
    NetworkFile(#[from] NetworkFileError),
    #[error("--network: {0}")]
    Network(#[from] NetworkError),
    #[error(transparent)]
    Data(#[from] DataError),
    #[error(
        "'{}' holds other data: its {key} is '{found}', this run's '{ours}'; give another \
         --output to start anew",
        path.display()
    )]
    OtherData {
        path: PathBuf,
        key: &'static str,
        found: String,
        ours: String,
    },
    #[error("cannot start a datagen thread: {0}")]
    Thread(std::io::Error),
    #[error(transparent)]
    HashTable(#[from] HashTableError),
    #[error("game {number}: {source}")]
    Opening {
        number: u64,
        source: Box<OpeningsError>,
    },
    #[error("game {number}: the opening: {source}")]
    OpeningPosition {
        number: u64,
        source: PositionCommandError,
    },
    #[error(transparent)]
    Search(#[from] SessionError),
    #[error("game {number}: the search's move {mv}: {source}")]
    SearchMove {
        number: u64,
        mv: String,
        source: PositionCommandError,
    },
}

pub fn datagen(args: &DatagenArgs, stop: &CancelToken) -> Result<DatagenSummary, DatagenError> {
    let mut base = registry::create_from_spec(&args.game.join(" "))?;
    let spec = openings::parse_openings(&args.openings)?;
    if matches!(spec, OpeningsSpec::File { .. }) {
        return Err(DatagenError::OpeningsFromFile);
    }
    if args.nodes == 0 {
        return Err(DatagenError::ZeroNodes);
    }
    if args.games > MAX_GAMES {
        return Err(DatagenError::TooManyGames(args.games));
    }
    // The output, before any work: a regular file (or none yet), not the network read,
    // and this run's alone.
    crate::cli::refuse_irregular("--output", &args.output)?;
    if let Some(network) = &args.network {
        crate::cli::refuse_output_over_input(
            ("--output", &args.output),
            &[("--network", network)],
        )?;
    }
    let _lock = crate::cli::OutputLock::file("--output", &args.output, "datagen")?;
    let classic = match args.eval.as_str() {
        "network" => false,
        "classic" => true,
        other => return Err(DatagenError::Eval(other.to_string())),
    };
    crate::memory::check_hash_mb("--hash", args.hash)?;
    let threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let threads = crate::memory::check_threads("--threads", threads)?;
    if let Some(dir) = &args.tablebases {
        let tables = base
            .open_tables(dir)
            .map_err(DatagenError::Tables)?
            .ok_or_else(|| DatagenError::NoTables(base.spec()))?;
        base.set_tables(Some(tables));
    }
    let file = match &args.network {
        Some(_) if classic => {
            return Err(DatagenError::NetworkWithClassic);
        }
        Some(path) => Some(crate::nnue::network::read_file(path)?),
        None => None,
    };
    let network = match &file {
        Some(bytes) => {
            base.set_network(Some(bytes))?;
            Some(bytes.as_slice())
        }
        None if classic => {
            base.set_network(None)?;
            None
        }
        None => base.default_network(),
    };
    let header = header_for(args, &spec, base.as_ref(), network);

    // A new file, or the one there continued when it holds the same data.
    let (writer, done, file_positions) = if args.output.exists() {
        let scan = training_data::scan(&args.output)?;
        for key in SAME_DATA {
            if normalised(key, scan.header.get(key)) != normalised(key, header.get(key)) {
                return Err(DatagenError::OtherData {
                    path: args.output.clone(),
                    key,
                    found: scan.header.get(key).unwrap_or("").to_string(),
                    ours: header.get(key).unwrap_or("").to_string(),
                });
            }
        }
        if scan.good_length < scan.file_length {
            eprintln!(
                "sowfan datagen: '{}' ends inside a game's block (a write cut short: the run \
                 that made it was interrupted); its last {} bytes are cut off, the {} whole \
                 games before them kept",
                args.output.display(),
                scan.file_length - scan.good_length,
                scan.done.len()
            );
        }
        let writer = Writer::resume(&args.output, &scan)?;
        (writer, scan.done, scan.positions)
    } else {
        let writer = Writer::create(&args.output, &header)?;
        (writer, BTreeSet::new(), 0)
    };
    // The games to play are the numbers below --games the file does not hold, taken in
    // turn by the threads (never listed: --games may be large).
    let to_play = args.games - done.range(..args.games).count() as u64;
    let file_games = done.len() as u64;
    eprintln!(
        "sowfan datagen: '{}' holds {file_games} games; {to_play} to play, {} at a time",
        args.output.display(),
        threads.min(to_play.max(1) as usize)
    );

    let progress = crate::cli::progress_bar(
        to_play,
        "datagen {bar:30.cyan/blue} {pos}/{len} games {msg} [{elapsed_precise} < {eta}]",
    );
    let shared = Shared {
        next: AtomicU64::new(0),
        games_asked: args.games,
        done,
        positions: AtomicU64::new(0),
        games: AtomicU64::new(0),
        dropped: AtomicU64::new(0),
        failed: AtomicBool::new(false),
        error: Mutex::new(None),
        writer: Mutex::new(writer),
    };
    let started = Instant::now();
    let threads = threads.min(usize::try_from(to_play).unwrap_or(usize::MAX));
    // One search control a thread: Ctrl-C (or a thread's failure) stops the searches under
    // way at once, not only between them.
    let controls: Vec<SearchControl> = (0..threads).map(|_| SearchControl::new(false)).collect();
    std::thread::scope(|scope| {
        let mut handles = Vec::new();
        for (index, control) in controls.iter().enumerate() {
            let session = base.clone_box();
            let (shared, progress, spec) = (&shared, &progress, &spec);
            let spawned = std::thread::Builder::new()
                .name(format!("datagen-{index}"))
                .spawn_scoped(scope, move || {
                    let result = work(args, spec, session, control, shared, stop, &|positions| {
                        progress.inc(1);
                        let total = shared.positions.load(Ordering::Relaxed);
                        let rate = total as f64 / started.elapsed().as_secs_f64().max(1e-3);
                        progress.set_message(format!(
                            "{total} positions ({rate:.0}/s, last {positions})"
                        ));
                    });
                    if let Err(e) = result {
                        shared.fail(e);
                    }
                });
            match spawned {
                Ok(handle) => handles.push(handle),
                Err(e) => shared.fail(DatagenError::Thread(e)),
            }
        }
        // The signal handler only sets the token: this thread passes it on to the searches.
        while !handles.iter().all(|h| h.is_finished()) {
            if !shared.go_on(stop) {
                controls.iter().for_each(SearchControl::request_stop);
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
    });
    progress.finish_and_clear();
    if let Some(error) = shared.error.into_inner().unwrap_or_else(|e| e.into_inner()) {
        return Err(error);
    }
    let games = shared.games.load(Ordering::Relaxed);
    let positions = shared.positions.load(Ordering::Relaxed);
    Ok(DatagenSummary {
        games,
        positions,
        seconds: started.elapsed().as_secs_f64(),
        file_games: file_games + games,
        file_positions: file_positions + positions,
        dropped: shared.dropped.load(Ordering::Relaxed),
        interrupted: stop.is_cancelled(),
    })
}

/// What the threads share.
struct Shared {
    /// The next game number to look at.
    next: AtomicU64,
    /// `--games`: the numbers to play are below it.
    games_asked: u64,
    /// The games the file held at the start.
    done: BTreeSet<u64>,
    positions: AtomicU64,
    games: AtomicU64,
    dropped: AtomicU64,
    failed: AtomicBool,
    error: Mutex<Option<DatagenError>>,
    writer: Mutex<Writer>,
}

impl Shared {
    fn fail(&self, error: DatagenError) {
        self.failed.store(true, Ordering::Relaxed);
        let mut slot = self.error.lock().unwrap_or_else(|e| e.into_inner());
        slot.get_or_insert(error);
    }

    fn go_on(&self, stop: &CancelToken) -> bool {
        !stop.is_cancelled() && !self.failed.load(Ordering::Relaxed)
    }

    /// The next game number to play, if any is left.
    fn next_game(&self) -> Option<u64> {
        loop {
            let number = self.next.fetch_add(1, Ordering::Relaxed);
            if number >= self.games_asked {
                return None;
            }
            if !self.done.contains(&number) {
                return Some(number);
            }
        }
    }
}

/// One thread: the next game not yet played, until none is left or the run stops.
fn work(
    args: &DatagenArgs,
    spec: &OpeningsSpec,
    mut session: Box<dyn Session>,
    control: &SearchControl,
    shared: &Shared,
    stop: &CancelToken,
    played: &(dyn Fn(usize) + Sync),
) -> Result<(), DatagenError> {
    let tt = TranspositionTable::new(args.hash)?;
    let probe_tt = TranspositionTable::new(2)?;
    let base = session.clone_box();
    while shared.go_on(stop) {
        let Some(number) = shared.next_game() else {
            return Ok(());
        };
        let opening = match openings::opening_number(
            spec,
            base.as_ref(),
            args.seed,
            number as usize,
            &probe_tt,
            stop,
        ) {
            Ok(opening) => opening,
            Err(_) if !shared.go_on(stop) => return Ok(()),
            Err(e) => {
                return Err(DatagenError::Opening {
                    number,
                    source: Box::new(e),
                });
            }
        };
        let moves: Vec<&str> = opening.moves.iter().map(String::as_str).collect();
        session
            .set_position(opening.fen.as_deref(), &moves)
            .map_err(|source| DatagenError::OpeningPosition { number, source })?;
        tt.clear();
        let Some(block) = play_game(
            args,
            session.as_mut(),
            &tt,
            control,
            (number, moves.len()),
            shared,
            stop,
        )?
        else {
            continue;
        };
        let count = block.samples.len();
        shared
            .writer
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .append(&block)?;
        shared.games.fetch_add(1, Ordering::Relaxed);
        shared.positions.fetch_add(count as u64, Ordering::Relaxed);
        played(count);
    }
    Ok(())
}

/// Play game `number` (whose opening was `opening_plies` long) out from the session's
/// position. `None` when it was stopped or left out (too long).
fn play_game(
    args: &DatagenArgs,
    session: &mut dyn Session,
    tt: &TranspositionTable,
    control: &SearchControl,
    (number, opening_plies): (u64, usize),
    shared: &Shared,
    stop: &CancelToken,
) -> Result<Option<GameBlock>, DatagenError> {
    let limits = Limits {
        nodes: Some(args.nodes),
        ..Limits::default()
    };
    let settings = SearchSettings::default();
    let mut samples = Vec::new();
    let mut ply = opening_plies;
    let winner: Option<Player> = loop {
        if !shared.go_on(stop) {
            return Ok(None);
        }
        if let Some(outcome) = session.outcome() {
            break match outcome.result {
                GameResult::Draw => None,
                result => result.winner(),
            };
        }
        if ply >= MAX_GAME_PLIES {
            shared.dropped.fetch_add(1, Ordering::Relaxed);
            return Ok(None);
        }
        let summary = session.search(&limits, &settings, tt, None, control, &mut |_| {})?;
        if !shared.go_on(stop) {
            // Stopped in the search: the game under way is dropped.
            return Ok(None);
        }
        let mover = session.to_move();
        match Value::from_search(summary.score, summary.proven) {
            Value::Cp(cp) => {
                if session.is_quiet() {
                    samples.push(Sample {
                        packed: session.packed_position(),
                        score: cp.clamp(i16::MIN.into(), i16::MAX.into()) as i16,
                        ply: ply.min(usize::from(u16::MAX)) as u16,
                        mover: mover.index() as u8,
                    });
                }
            }
            // Decided: the search's result is the game's.
            Value::Exact(0) => break None,
            Value::Win => break Some(mover),
            Value::Loss => break Some(mover.other()),
            Value::Exact(halves) | Value::Bound(halves) => {
                break Some(if halves > 0 { mover } else { mover.other() });
            }
        }
        session
            .play_moves(&[summary.bestmove.as_str()])
            .map_err(|source| DatagenError::SearchMove {
                number,
                mv: summary.bestmove.clone(),
                source,
            })?;
        ply += 1;
    };
    let result = match winner {
        None => 0,
        Some(Player::P1) => 1,
        Some(Player::P2) => -1,
    };
    Ok(Some(GameBlock {
        number,
        result,
        samples,
    }))
}
