//! A protocol fuzzer that drives the real `sowfan` binary through its pipes.
//!
//! Lines are generated from a seed: every command form of `protocol.md` (`uci`, `ugi`,
//! `isready`, `setoption` with every option and odd values, `ucinewgame`, `uginewgame`,
//! `newgame` with valid and invalid options of every game, `position startpos|fen|moves` with
//! real legal move sequences and real position strings of the current game, `go` with every
//! parameter and numbers at the extremes, `stop`, `ponderhit`, `query`, `d`, `legal`, `perft`,
//! `bench`, `help`, `debug`), then, for a fifth of them, mutated: corrupted position strings and
//! moves, byte flips, token shuffles, truncation, invalid UTF-8, NUL bytes, tabs, CRLF endings,
//! and now and then very long lines (up to 1 MiB). They go to one engine process in batches of
//! 200–1000 lines, each followed by `isready` (a `readyok` must come within 10 s) and by a sync
//! marker (an unknown `setoption` that answers with a warning once everything before it has
//! run; `stop` is sent whenever answers stall while it is awaited, so every search ends). A
//! `go` that may not end by itself (`infinite`, `ponder`, no limit, huge limits) is followed
//! by a `stop` a few lines later, and the lines after the `go` are held back until the engine
//! has answered everything before it, so that the `stop` (and any `ponderhit`, `d`, `legal`,
//! `query` sent meanwhile) reach the running search, as from a GUI.
//!
//! The fuzzer keeps an in-process model of the engine's state (the same `sowfan` library: the
//! current game, its options, the position) and checks every answer against it:
//! every `go` gets exactly one `bestmove`, a legal move (or `0000` in a finished game, a move
//! among `searchmoves` when given, a legal reply after `ponder`), preceded by an
//! `info … score …` line; `query`, `legal`, `d` (its `Fen:` line), `uci`/`ugi` (the
//! `UCI_Variant` and `GameOptions` defaults), `perft` (the total, for depth ≤ 3) and `bench`
//! (the same node count every time) answer what the model says; every rejected line gets one
//! `info string error:` and nothing else does. A panic message (stdout or stderr), an
//! `internal error`, a missing `readyok`, a batch that does not finish within 30 s, a search
//! that answers `stop` after more than 5 s, or an engine that exits is a failure; after a
//! hang or crash the engine is restarted, and the batch is written with a preamble that
//! recreates the engine's state to `target/tmp/fuzz-repro/seed<seed>-batch<n>.txt` (pipe it
//! into `sowfan`). At the end `quit` is sent during a `go infinite`: the process must exit
//! (successfully) within 5 s; a `bestmove` printed then is counted (protocol.md says none
//! comes; the engine prints one today). Reported, not failures: searches the fuzzer had to
//! stop at a batch end (slow under load, or unbounded: the line is named) and read-only
//! answers that came after the `bestmove` of the open-ended search they were sent during.
//! Peak memory is `VmHWM` from `/proc/<pid>/status`.
//!
//! Searches stay short (`go depth 1..6`, `nodes ≤ 20000`, `movetime ≤ 20`, small clocks);
//! any `go` without such a limit is followed by a `stop`. Known slow or heavy commands are
//! kept moderate, also after mutation: `Hash ≤ 64`, `Threads ≤ 4`, `perft` depth ≤ 5,
//! `bench` only with depth ≤ 3.
//!
//! Runs:
//!
//! ```text
//! cargo test --release --test it fuzz          # the CI budget: 130 000 lines or 50 s
//! SOWFAN_FUZZ_LINES=2000000 SOWFAN_FUZZ_SEED=7 \
//!     cargo test --release --test it fuzz_long -- --ignored --nocapture
//! ```
//!
//! Knobs: `SOWFAN_FUZZ_SEED` (both tests; default 1), `SOWFAN_FUZZ_LINES` (the long run's line
//! budget; default 2 000 000), `SOWFAN_FUZZ_SECONDS` (the long run's time budget; default
//! none), `SOWFAN_FUZZ_DUMP=<file>` (write every byte sent to the engine there),
//! `SOWFAN_FUZZ_BIN=<path>` (fuzz another build, e.g. `target/debug/sowfan`, whose overflow
//! checks turn silent wrap-arounds into panics). Both print one `fuzz summary:` line; the
//! long run also prints progress.

use std::collections::{HashMap, VecDeque};
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::time::{Duration, Instant};

use sowfan::game::Player;
use sowfan::options::{OptionKind, OptionSpec};
use sowfan::protocol::command::{self, Command as Cmd, Query};
use sowfan::registry::{self, GAMES, GameEntry};
use sowfan::session::Session;

use crate::support::BIN;
use crate::support::rng::Rng;
use crate::support::run::{status_kb, wait_exit};

/// `readyok` must follow `isready` within this time.
const READY_TIMEOUT: Duration = Duration::from_secs(10);
/// Everything sent in a batch must have run (its sync marker answered) within this time.
const BATCH_TIMEOUT: Duration = Duration::from_secs(30);
/// `quit` must end the process within this time.
const QUIT_TIMEOUT: Duration = Duration::from_secs(5);
/// While awaiting the sync marker, send `stop` once no answer has come for `STALL` (a long
/// or open-ended search is running), and not more often than `STOP_EVERY`.
const STALL: Duration = Duration::from_millis(100);
const STOP_EVERY: Duration = Duration::from_millis(25);
/// A search told to stop must answer within this time.
const SLOW_STOP: Duration = Duration::from_secs(5);
/// The sync marker: `setoption name fuzz-sync-<n>`, answered by an unknown-option warning.
const MARKER: &str = "fuzz-sync-";
/// Failure details kept for the report (all are counted).
const MAX_DETAILS: usize = 40;

// ------------------------------------------------------------------------------------------
// Vocabulary.

/// Numbers at the extremes, and things that look like numbers.
const EXTREMES: &[&str] = &[
    "0",
    "1",
    "-1",
    "2",
    "-0",
    "+0",
    "+1",
    "00",
    "007",
    "255",
    "256",
    "65535",
    "65536",
    "2147483647",
    "2147483648",
    "-2147483648",
    "4294967295",
    "4294967296",
    "9223372036854775807",
    "-9223372036854775808",
    "9223372036854775808",
    "18446744073709551615",
    "18446744073709551616",
    "99999999999999999999",
    "-99999999999999999999",
    "1e3",
    "0x10",
    "1.5",
    "-0.5",
    "NaN",
    "inf",
    "١٢",
    "１２",
];

const GO_PARAMS: &[&str] = &[
    "depth",
    "nodes",
    "movetime",
    "wtime",
    "btime",
    "winc",
    "binc",
    "p1time",
    "p2time",
    "p1inc",
    "p2inc",
    "movestogo",
];

const OPTION_NAMES: &[&str] = &[
    "Hash",
    "Threads",
    "MultiPV",
    "Ponder",
    "Move Overhead",
    "Clear Hash",
    "UCI_Variant",
    "GameOptions",
];

/// Protocol words for random lines.
const WORDS: &[&str] = &[
    "uci",
    "ugi",
    "isready",
    "setoption",
    "name",
    "value",
    "ucinewgame",
    "uginewgame",
    "newgame",
    "position",
    "startpos",
    "fen",
    "moves",
    "go",
    "depth",
    "nodes",
    "movetime",
    "infinite",
    "ponder",
    "wtime",
    "btime",
    "winc",
    "binc",
    "p1time",
    "p2time",
    "movestogo",
    "searchmoves",
    "perft",
    "stop",
    "ponderhit",
    "query",
    "p1turn",
    "gameover",
    "result",
    "d",
    "legal",
    "bench",
    "help",
    "debug",
    "on",
    "off",
    "kalah",
    "afrika",
    "anywoli",
    "fanorona",
    "fanorona-dimy",
    "fanorona-telo",
    "Hash",
    "Threads",
    "MultiPV",
    "Ponder",
    "Move",
    "Overhead",
    "Clear",
    "UCI_Variant",
    "GameOptions",
    "true",
    "false",
    "<empty>",
    "pits=4",
    "seeds=3",
    "pie=true",
    "komi=2.5",
    "target=65",
    "houses=7",
    "repetition=off",
    "quiet-limit=1",
    "A",
    "a",
    "F",
    "xA",
    "swap",
    "pass",
    "d2-e3A",
    "c2-d2",
    "d4-d3A-c3W-d2A",
    "0000",
    "S",
    "N",
    "w",
    "b",
    "p",
    "x",
    "-",
    "4,4,4,4,4,4,0/4,4,4,4,4,4,0",
    "BBB/B1W/WWW",
    "quit",
    "readyok",
    "bestmove",
    "info",
    "string",
];

/// Byte sequences that are not UTF-8.
const BAD_UTF8: &[&[u8]] = &[
    b"\xff",
    b"\xfe",
    b"\x80",
    b"\xbf",
    b"\xc0\x80",
    b"\xc3",
    b"\xe2\x82",
    b"\xed\xa0\x80",
    b"\xf4\x90\x80\x80",
    b"\xf8\x88\x80\x80\x80",
    b"\xef\xbf",
];

/// Unicode that is valid but unusual: look-alike letters and digits, spaces that are not
/// the protocol's separators, a BOM.
const ODD_UNICODE: &[&str] = &[
    "é", "Ａ", "ａ", "٣", "\u{200b}", "\u{a0}", "\u{feff}", "\u{2028}", "𝟘", "ß",
];

// ------------------------------------------------------------------------------------------
// The model of the engine's state, and what it must answer.

/// What the engine must answer to one line.
enum Expect {
    Ready,
    /// A `bestmove`: `0000` when the game is over, else one of `allowed`. With the Ponder
    /// option on, the session to check a `ponder` reply in.
    Bestmove {
        over: bool,
        allowed: Vec<String>,
        ponder: Option<Box<dyn Session>>,
        /// The search waits for `stop` (`infinite`, `ponder`, or no limit for the mover —
        /// only the opponent's clock counts as none).
        open: bool,
    },
    Response(String),
    Legal(String),
    Fen(String),
    Ident {
        ok: &'static str,
        variant: String,
        options: String,
    },
    /// `Nodes searched: <n>` (checked when known).
    Perft(Option<u64>),
    /// `Nodes searched  : <n>`, the same for every bench of this depth.
    Bench(Option<u32>),
    Error,
    Warning,
    Marker(u64),
}

/// Answers of one kind come in order; different kinds may overtake each other (a read-only
/// command is answered during `go infinite`, before its `bestmove`).
const Q_BESTMOVE: usize = 0;
const Q_RESPONSE: usize = 1;
const Q_LEGAL: usize = 2;
const Q_FEN: usize = 3;
const Q_IDENT: usize = 4;
const Q_PERFT: usize = 5;
const Q_BENCH: usize = 6;
const Q_NOTE: usize = 7;
const QUEUES: usize = 8;
const QUEUE_NAMES: [&str; QUEUES] = [
    "bestmove", "response", "legal", "d", "uciok", "perft", "bench", "error",
];

fn queue_of(expect: &Expect) -> Option<usize> {
    Some(match expect {
        Expect::Ready => return None,
        Expect::Bestmove { .. } => Q_BESTMOVE,
        Expect::Response(_) => Q_RESPONSE,
        Expect::Legal(_) => Q_LEGAL,
        Expect::Fen(_) => Q_FEN,
        Expect::Ident { .. } => Q_IDENT,
        Expect::Perft(_) => Q_PERFT,
        Expect::Bench(_) => Q_BENCH,
        Expect::Error | Expect::Warning | Expect::Marker(_) => Q_NOTE,
    })
}

fn describe(expect: &Expect) -> String {
    match expect {
        Expect::Ready => "readyok".into(),
        Expect::Bestmove { over: true, .. } => "bestmove 0000".into(),
        Expect::Bestmove { allowed, .. } => {
            format!("bestmove <one of {}>", clip(&allowed.join(" "), 120))
        }
        Expect::Response(r) => format!("response {r}"),
        Expect::Legal(l) => clip(l, 200),
        Expect::Fen(f) => format!("Fen: {f}"),
        Expect::Ident {
            ok,
            variant,
            options,
        } => format!("{ok} (UCI_Variant {variant}, GameOptions {options})"),
        Expect::Perft(Some(n)) => format!("Nodes searched: {n}"),
        Expect::Perft(None) => "Nodes searched: <n>".into(),
        Expect::Bench(d) => format!("bench {d:?} totals"),
        Expect::Error => "info string error: …".into(),
        Expect::Warning => "info string warning: …".into(),
        Expect::Marker(n) => format!("the warning for {MARKER}{n}"),
    }
}

/// The processors the engine may use (`Threads` above this is capped with a warning).
fn processors() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The `Hash` maximum the engine computes from this machine's memory.
fn hash_max() -> usize {
    sowfan::memory::MemoryLimits::current()
        .table_limit_mb()
        .map_or(65536, |most| most.min(65536))
}

/// The engine's state as the fuzzer knows it, kept by the same library code.
struct Model {
    session: Box<dyn Session>,
    /// The `key=value` options the current game was built with (as the engine keeps them).
    game_options: Vec<String>,
    ponder: bool,
    /// `setoption` lines that took effect, by option, for the repro preamble.
    settings: Vec<(String, String)>,
    /// The last accepted `position` line since the game was chosen.
    position: Option<String>,
}

impl Model {
    fn new() -> Model {
        Model {
            session: registry::create(GAMES[0].name, &[]).expect("the default game"),
            game_options: Vec::new(),
            ponder: false,
            settings: Vec::new(),
            position: None,
        }
    }

    fn variant(&self) -> String {
        let spec = self.session.spec();
        spec.split_whitespace()
            .next()
            .unwrap_or("kalah")
            .to_string()
    }

    /// Lines that bring a fresh engine to this state (the repetition history of a
    /// `position fen` aside, the same).
    fn preamble(&self) -> String {
        let mut text = String::new();
        for (_, line) in &self.settings {
            text.push_str(line);
            text.push('\n');
        }
        text.push_str(&format!(
            "newgame {} {}\n",
            self.variant(),
            self.game_options.join(" ")
        ));
        if let Some(position) = &self.position {
            text.push_str(position);
            text.push('\n');
        }
        text
    }

    /// Run one line (as the engine reads it, after lossy UTF-8 decoding) and add what the
    /// engine must answer.
    /// Returns the command's name (for the coverage counts).
    fn apply(&mut self, text: &str, out: &mut Vec<Expect>) -> &'static str {
        let command = match command::parse(text) {
            Ok(Some(command)) => command,
            Ok(None) => return "blank",
            Err(_) => {
                out.push(Expect::Error);
                return "unparsable";
            }
        };
        let name = match &command {
            Cmd::Uci => "uci",
            Cmd::Ugi => "ugi",
            Cmd::Debug(_) => "debug",
            Cmd::IsReady => "isready",
            Cmd::SetOption { .. } => "setoption",
            Cmd::NewGameReset => "ucinewgame",
            Cmd::NewGame { .. } => "newgame",
            Cmd::Position { fen: None, .. } => "position startpos",
            Cmd::Position { fen: Some(_), .. } => "position fen",
            Cmd::Go(l) if l.infinite || l.ponder => "go infinite|ponder",
            Cmd::Go(l) if !l.searchmoves.is_empty() => "go searchmoves",
            Cmd::Go(_) => "go",
            Cmd::Perft(_) => "perft",
            Cmd::Stop => "stop",
            Cmd::PonderHit => "ponderhit",
            Cmd::Quit => "quit",
            Cmd::Query(_) => "query",
            Cmd::Display => "d",
            Cmd::Legal => "legal",
            Cmd::Bench(_) => "bench",
            Cmd::Help => "help",
        };
        match command {
            Cmd::Uci | Cmd::Ugi => out.push(Expect::Ident {
                ok: if matches!(command, Cmd::Uci) {
                    "uciok"
                } else {
                    "ugiok"
                },
                variant: self.variant(),
                options: if self.game_options.is_empty() {
                    "<empty>".to_string()
                } else {
                    self.game_options.join(" ")
                },
            }),
            Cmd::Debug(_) | Cmd::Stop | Cmd::PonderHit | Cmd::Help | Cmd::Quit => {}
            Cmd::IsReady => out.push(Expect::Ready),
            Cmd::SetOption { name, value } => self.set_option(text, &name, value.as_deref(), out),
            Cmd::NewGameReset => {
                let _ = self.session.set_position(None, &[]);
                self.position = None;
            }
            Cmd::NewGame { game, options } => {
                let refs: Vec<&str> = options.iter().map(String::as_str).collect();
                match registry::create(&game, &refs) {
                    Ok(session) => {
                        self.session = session;
                        self.game_options = options;
                        self.position = None;
                    }
                    Err(_) => out.push(Expect::Error),
                }
            }
            Cmd::Position { fen, moves } => {
                let refs: Vec<&str> = moves.iter().map(String::as_str).collect();
                match self.session.set_position(fen.as_deref(), &refs) {
                    Ok(()) => self.position = Some(text.trim_end_matches(['\r', '\n']).to_string()),
                    Err(_) => out.push(Expect::Error),
                }
            }
            Cmd::Go(limits) => {
                let legal = self.session.legal_moves();
                if limits.searchmoves.iter().any(|m| !legal.contains(m)) {
                    out.push(Expect::Error);
                } else {
                    out.push(Expect::Bestmove {
                        open: limits.infinite
                            || limits.ponder
                            || limits.is_unlimited_for(self.session.to_move()),
                        over: self.session.outcome().is_some(),
                        allowed: if limits.searchmoves.is_empty() {
                            legal
                        } else {
                            limits.searchmoves
                        },
                        ponder: self.ponder.then(|| self.session.clone_box()),
                    });
                }
            }
            Cmd::Perft(depth) => {
                let total = (depth <= 3).then(|| match depth {
                    0 => 1,
                    _ => {
                        let mut total = 0;
                        let never = std::sync::atomic::AtomicBool::new(false);
                        self.session.divide(depth, &never, &mut |_, n| total += n);
                        total
                    }
                });
                out.push(Expect::Perft(total));
            }
            Cmd::Query(query) => out.push(Expect::Response(match query {
                Query::P1Turn => (self.session.to_move() == Player::P1).to_string(),
                Query::GameOver => self.session.outcome().is_some().to_string(),
                Query::Result => self
                    .session
                    .outcome()
                    .map_or("none", |o| o.result.as_str())
                    .to_string(),
            })),
            Cmd::Display => out.push(Expect::Fen(self.session.fen())),
            Cmd::Legal => {
                let moves = self.session.legal_moves();
                out.push(Expect::Legal(if moves.is_empty() {
                    "legal".to_string()
                } else {
                    format!("legal {}", moves.join(" "))
                }));
            }
            Cmd::Bench(depth) => out.push(Expect::Bench(depth)),
        }
        name
    }

    /// `setoption` as protocol.md describes it.
    fn set_option(&mut self, line: &str, name: &str, value: Option<&str>, out: &mut Vec<Expect>) {
        let spin = |min: usize, max: usize| {
            value
                .and_then(|v| v.parse::<usize>().ok())
                .is_some_and(|n| (min..=max).contains(&n))
        };
        let key = name.to_ascii_lowercase();
        let ok = match key.as_str() {
            "hash" => {
                spin(1, 65536) && value.and_then(|v| v.parse::<usize>().ok()) <= Some(hash_max())
            }
            "threads" => spin(1, 256),
            "multipv" => spin(1, 64),
            "move overhead" => spin(0, 5000),
            "ponder" => match value.map(str::to_ascii_lowercase).as_deref() {
                Some("true") => {
                    self.ponder = true;
                    true
                }
                Some("false") => {
                    self.ponder = false;
                    true
                }
                _ => false,
            },
            "clear hash" => true,
            "uci_variant" => {
                let game = value.unwrap_or("").trim();
                if registry::find(game).is_err() {
                    false
                } else {
                    let refs: Vec<&str> = self.game_options.iter().map(String::as_str).collect();
                    match registry::create(game, &refs) {
                        Ok(session) => self.session = session,
                        Err(_) => {
                            out.push(Expect::Warning);
                            self.game_options.clear();
                            self.session = registry::create(game, &[]).expect("defaults");
                        }
                    }
                    self.position = None;
                    true
                }
            }
            "gameoptions" => {
                let text = value.unwrap_or("").trim();
                let text = if text == "<empty>" { "" } else { text };
                let options: Vec<&str> = text.split_whitespace().collect();
                match registry::create(&self.variant(), &options) {
                    Ok(session) => {
                        self.session = session;
                        self.game_options = options.iter().map(|s| s.to_string()).collect();
                        self.position = None;
                        true
                    }
                    Err(_) => false,
                }
            }
            _ => {
                out.push(Expect::Warning);
                return;
            }
        };
        if !ok {
            out.push(Expect::Error);
        } else if key == "threads"
            && value
                .and_then(|v| v.parse::<usize>().ok())
                .is_some_and(|n| n > processors())
        {
            // More threads than processors: accepted, capped, and said so.
            out.push(Expect::Warning);
        }
        if ok
            && matches!(
                key.as_str(),
                "hash" | "threads" | "multipv" | "move overhead" | "ponder"
            )
        {
            let line = line.trim_end_matches(['\r', '\n']).to_string();
            self.settings.retain(|(k, _)| *k != key);
            self.settings.push((key, line));
        }
    }
}

// ------------------------------------------------------------------------------------------
// Random games of the current game: real move sequences and position strings.

struct GameLine {
    moves: Vec<String>,
    /// `fens[i]`: the position after `i` moves.
    fens: Vec<String>,
}

#[derive(Default)]
struct Corpus {
    games: HashMap<String, Vec<GameLine>>,
}

impl Corpus {
    /// A random game of `session`'s game (options included), from its start.
    fn line(&mut self, session: &dyn Session, rng: &mut Rng) -> &GameLine {
        let spec = session.spec();
        if self.games.len() > 64 && !self.games.contains_key(&spec) {
            self.games.clear();
        }
        let lines = self.games.entry(spec).or_default();
        if lines.is_empty() || (lines.len() < 12 && rng.one_in(6)) {
            lines.push(random_game(session, rng));
        }
        let i = rng.below(lines.len());
        &lines[i]
    }

    /// A position string of any game seen (often not the current one).
    fn any_fen(&self, rng: &mut Rng) -> Option<String> {
        let n = self.games.len();
        let lines = self.games.values().nth(rng.below(n))?;
        let line = rng.pick(lines);
        Some(rng.pick(&line.fens).clone())
    }
}

fn random_game(session: &dyn Session, rng: &mut Rng) -> GameLine {
    let mut s = session.clone_box();
    let _ = s.set_position(None, &[]);
    let start = s.fen();
    let max = if rng.one_in(5) {
        400
    } else {
        1 + rng.below(80)
    };
    let mut moves = Vec::new();
    let mut fens = vec![start.clone()];
    // Move by move from the previous position string (cheap), then once from the start
    // to cut the game where the repetition rule (which needs the history) ends it.
    while moves.len() < max {
        let legal = s.legal_moves();
        if legal.is_empty() {
            break;
        }
        let mv = rng.pick(&legal).clone();
        let fen = fens.last().expect("a position").clone();
        if s.set_position(Some(&fen), &[&mv]).is_err() {
            break;
        }
        moves.push(mv);
        fens.push(s.fen());
    }
    let refs: Vec<&str> = moves.iter().map(String::as_str).collect();
    let mut full = session.clone_box();
    if let Err(sowfan::session::PositionCommandError::AfterEnd { index, .. }) =
        full.set_position(None, &refs)
    {
        moves.truncate(index - 1);
        fens.truncate(index);
    }
    GameLine { moves, fens }
}

// ------------------------------------------------------------------------------------------
// Line generation.

/// What a generated line costs the engine.
enum Cost {
    /// Cheap enough to send as it is.
    Fine,
    /// A search that may not end soon by itself: a `stop` must follow.
    NeedsStop,
    /// Too slow or heavy for the budget (or `quit`): generate another line.
    Reject,
}

fn cost(command: &Cmd, to_move: Player) -> Cost {
    match command {
        Cmd::Quit => Cost::Reject,
        Cmd::Perft(depth) if *depth > 5 => Cost::Reject,
        Cmd::Bench(None) => Cost::Reject,
        Cmd::Bench(Some(depth)) if *depth > 3 => Cost::Reject,
        Cmd::SetOption { name, value } => {
            let n = value.as_deref().and_then(|v| v.parse::<usize>().ok());
            match name.to_ascii_lowercase().as_str() {
                "hash" if n.is_some_and(|n| n > 64) => Cost::Reject,
                "threads" if n.is_some_and(|n| n > 4) => Cost::Reject,
                _ => Cost::Fine,
            }
        }
        Cmd::Go(l) => {
            let own = to_move.index();
            let cheap = !l.infinite
                && !l.ponder
                && (l.depth.is_some_and(|d| d <= 6)
                    || l.nodes.is_some_and(|n| n <= 50_000)
                    || l.movetime.is_some_and(|t| t <= 50)
                    || l.time[own].is_some_and(|t| t <= 2000));
            if cheap { Cost::Fine } else { Cost::NeedsStop }
        }
        _ => Cost::Fine,
    }
}

/// The lines in a chunk of bytes, as the engine reads them (split at `\n`, lossy UTF-8).
fn engine_lines(bytes: &[u8]) -> impl Iterator<Item = String> + '_ {
    let mut parts: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
    if bytes.ends_with(b"\n") {
        parts.pop();
    }
    parts
        .into_iter()
        .map(|p| String::from_utf8_lossy(p).into_owned())
}

struct Generator {
    rng: Rng,
    corpus: Corpus,
}

impl Generator {
    /// One protocol line, before mutation and without its line end.
    fn base_line(&mut self, model: &Model) -> Vec<u8> {
        let r = self.rng.below(1000);
        let text = match r {
            0..=249 => self.position(model),
            250..=409 => self.go(model),
            410..=489 => self.query(),
            490..=539 => "legal".to_string(),
            540..=579 => "d".to_string(),
            580..=659 => self.setoption(model),
            660..=719 => self.newgame(),
            720..=739 => self.rng.pick(&["ucinewgame", "uginewgame"]).to_string(),
            740..=759 => self.rng.pick(&["uci", "ugi"]).to_string(),
            760..=789 => "isready".to_string(),
            790..=819 => self.rng.pick(&["stop", "ponderhit"]).to_string(),
            820..=849 => self.perft(),
            850..=851 => self.bench(),
            852..=869 => self.misc(),
            870..=889 => self.blank(),
            890..=989 => return self.garbage(),
            _ => self.searchmoves(model),
        };
        text.into_bytes()
    }

    fn number(&mut self) -> String {
        self.rng.pick(EXTREMES).to_string()
    }

    fn position(&mut self, model: &Model) -> String {
        let (moves, fens) = {
            let line = self.corpus.line(&*model.session, &mut self.rng);
            (line.moves.clone(), line.fens.clone())
        };
        let n = moves.len();
        let k = if self.rng.one_in(3) {
            n
        } else {
            self.rng.below(n + 1)
        };
        let i = self.rng.below(k + 1);
        let join = |m: &[String]| m.join(" ");
        match self.rng.below(16) {
            0..=3 => format!("position startpos moves {}", join(&moves[..k])),
            4 => "position startpos".to_string(),
            5 => format!("position moves {}", join(&moves[..k])),
            6..=7 => {
                if i == k && self.rng.one_in(2) {
                    format!("position fen {}", fens[i])
                } else {
                    format!("position fen {} moves {}", fens[i], join(&moves[i..k]))
                }
            }
            8..=9 => {
                let fen = self.mutate_fen(&fens[i]);
                if self.rng.one_in(2) {
                    format!("position fen {fen}")
                } else {
                    format!("position fen {fen} moves {}", join(&moves[i..k]))
                }
            }
            10 => {
                // One move of the sequence mutated.
                let mut seq = moves[..k].to_vec();
                if seq.is_empty() {
                    seq.push(String::new());
                }
                let j = self.rng.below(seq.len());
                seq[j] = self.mutate_move(&seq[j]);
                format!("position startpos moves {}", join(&seq))
            }
            11 => {
                // Past the end of the game, or a move of the wrong side.
                let extra = if n > 0 {
                    moves[self.rng.below(n)].clone()
                } else {
                    "A".to_string()
                };
                format!("position startpos moves {} {extra}", join(&moves))
            }
            12 => match self.corpus.any_fen(&mut self.rng) {
                Some(fen) => format!("position fen {fen}"),
                None => format!("position fen {}", fens[0]),
            },
            13 => {
                // The position string's fields separated by runs of blanks and tabs.
                let blanks = *self.rng.pick(&["\t", "  ", " \t "]);
                let fen = fens[i].replace(' ', blanks);
                format!("position\tfen  {fen}\tmoves {}", join(&moves[i..k]))
            }
            _ => self
                .rng
                .pick(&[
                    "position",
                    "position fen",
                    "position fen moves A",
                    "position startpos moves",
                    "position startpos A",
                    "position startpos moves moves",
                    "position FEN x",
                    "position Startpos",
                    "position moves",
                    "position fen - moves",
                    "position fen moves",
                    "position startpos fen",
                ])
                .to_string(),
        }
    }

    fn mutate_fen(&mut self, fen: &str) -> String {
        let mut fen = fen.to_string();
        for _ in 0..1 + self.rng.below(3) {
            fen = self.mutate_fen_once(&fen);
        }
        if fen.trim().is_empty() || fen.split_whitespace().any(|w| w == "moves") {
            fen.push_str(" x");
        }
        fen
    }

    fn mutate_fen_once(&mut self, fen: &str) -> String {
        let chars: Vec<char> = fen.chars().collect();
        let at = self.rng.below(chars.len().max(1));
        let mut fields: Vec<String> = fen.split(' ').map(String::from).collect();
        match self.rng.below(13) {
            0 => {
                let c = *self.rng.pick(&[
                    ',', '/', '0', '1', '9', 'S', 'N', 'w', 'b', 'W', 'B', 'p', 'x', '-', '+', '.',
                    ' ', 'é',
                ]);
                let mut chars = chars;
                if at < chars.len() {
                    chars[at] = c;
                }
                chars.into_iter().collect()
            }
            1 => {
                let mut chars = chars;
                if at < chars.len() {
                    chars.remove(at);
                }
                chars.into_iter().collect()
            }
            2 => {
                let mut chars = chars;
                if at < chars.len() {
                    let c = chars[at];
                    chars.insert(at, c);
                }
                chars.into_iter().collect()
            }
            3 => {
                if !fields.is_empty() {
                    let i = self.rng.below(fields.len());
                    fields.remove(i);
                }
                fields.join(" ")
            }
            4 => {
                let extra = if !fields.is_empty() && self.rng.one_in(2) {
                    self.rng.pick(&fields).clone()
                } else {
                    self.rng
                        .pick(&["0", "-", "x", "p", "wb", "99", "S", "N", "w", "-1", "+3"])
                        .to_string()
                };
                let i = self.rng.below(fields.len() + 1);
                fields.insert(i, extra);
                fields.join(" ")
            }
            5 => {
                let (a, b) = (self.rng.below(fields.len()), self.rng.below(fields.len()));
                fields.swap(a, b);
                fields.join(" ")
            }
            6 | 7 => {
                // A number replaced by an extreme one, or given a sign.
                let runs = digit_runs(fen);
                if runs.is_empty() {
                    return fen.to_string();
                }
                let (s, e) = *self.rng.pick(&runs);
                let new = if self.rng.one_in(2) {
                    self.number()
                } else {
                    format!("{}{}", self.rng.pick(&["+", "-", "0", "00"]), &fen[s..e])
                };
                format!("{}{new}{}", &fen[..s], &fen[e..])
            }
            8 => {
                // A row or rank dropped or duplicated.
                let board = fields.first().cloned().unwrap_or_default();
                let mut rows: Vec<String> = board.split('/').map(String::from).collect();
                let i = self.rng.below(rows.len());
                if self.rng.one_in(2) && rows.len() > 1 {
                    rows.remove(i);
                } else {
                    let row = rows[i].clone();
                    rows.insert(i, row);
                }
                if let Some(first) = fields.first_mut() {
                    *first = rows.join("/");
                }
                fields.join(" ")
            }
            9 => {
                // A cell dropped or duplicated in a comma-separated row.
                let runs = digit_runs(fen);
                if runs.is_empty() {
                    return fen.to_string();
                }
                let (s, e) = *self.rng.pick(&runs);
                if self.rng.one_in(2) {
                    format!("{}{},{}", &fen[..s], &fen[s..e], &fen[s..])
                } else {
                    let e = if fen[e..].starts_with(',') { e + 1 } else { e };
                    format!("{}{}", &fen[..s], &fen[e..])
                }
            }
            10 => {
                if self.rng.one_in(2) {
                    fen.to_uppercase()
                } else {
                    fen.to_lowercase()
                }
            }
            11 => chars[..at].iter().collect(),
            _ => {
                let board = fields.first().cloned().unwrap_or_default();
                let big: String = board.repeat(1 + self.rng.below(50));
                if let Some(first) = fields.first_mut() {
                    *first = big;
                }
                fields.join(" ")
            }
        }
    }

    fn mutate_move(&mut self, mv: &str) -> String {
        let mut m = mv.to_string();
        match self.rng.below(12) {
            0 => {
                m = m
                    .chars()
                    .map(|c| {
                        if c.is_ascii_uppercase() {
                            c.to_ascii_lowercase()
                        } else {
                            c.to_ascii_uppercase()
                        }
                    })
                    .collect()
            }
            1 => m.push(*self.rng.pick(&['A', 'W', 'x', '-', '1', 'é'])),
            2 => m.insert(0, 'x'),
            3 => {
                m = self
                    .rng
                    .pick(&["swap", "pass", "0000", "null", "(none)", "--"])
                    .to_string()
            }
            4 => m = format!("{m}{m}"),
            5 => {
                m.pop();
            }
            6 => {
                m = format!(
                    "{m}-{}",
                    self.rng.pick(&["a1", "e3", "i5", "z9", "a0", "a10"])
                )
            }
            7 => {
                m = self
                    .rng
                    .pick(&["a10-a11", "c3-d3a", "c2-d2", "d2-e3A", "xZ", "M", "m"])
                    .to_string()
            }
            8 => m = self.rng.pick(ODD_UNICODE).to_string(),
            9 => m = self.rng.pick(WORDS).to_string(),
            10 => m = format!("{m}\u{0}"),
            _ => m = self.number(),
        }
        if m.is_empty() || m == "moves" {
            m.push('?');
        }
        m
    }

    fn go(&mut self, model: &Model) -> String {
        let mut w: Vec<String> = vec!["go".into()];
        let rng = &mut self.rng;
        match rng.below(100) {
            0..=39 => w.extend(["depth".into(), rng.range(1, 6).to_string()]),
            40..=57 => w.extend(["nodes".into(), rng.log_uniform(20_000).to_string()]),
            58..=67 => w.extend(["movetime".into(), rng.range(0, 20).to_string()]),
            68..=79 => {
                for (a, b) in [("wtime", "p1time"), ("btime", "p2time")] {
                    if !rng.one_in(4) {
                        let key = if rng.one_in(2) { a } else { b };
                        w.extend([key.into(), rng.range(-50, 1000).to_string()]);
                    }
                }
                for (a, b) in [("winc", "p1inc"), ("binc", "p2inc")] {
                    if rng.one_in(3) {
                        let key = if rng.one_in(2) { a } else { b };
                        w.extend([key.into(), rng.range(0, 50).to_string()]);
                    }
                }
                if rng.one_in(5) {
                    w.extend(["movestogo".into(), rng.range(0, 40).to_string()]);
                }
            }
            80..=83 => {
                w.push("infinite".into());
                if rng.one_in(3) {
                    w.extend(["depth".into(), rng.range(1, 4).to_string()]);
                }
            }
            84..=86 => {
                w.push("ponder".into());
                w.extend(["wtime".into(), rng.range(0, 1000).to_string()]);
                w.extend(["btime".into(), rng.range(0, 1000).to_string()]);
            }
            87..=88 => {
                // No limit at all (runs like infinite).
                if rng.one_in(2) {
                    w.extend(["winc".into(), rng.range(0, 100).to_string()]);
                }
            }
            89..=95 => {
                let key = rng.pick(GO_PARAMS).to_string();
                w.push(key);
                w.push(rng.pick(EXTREMES).to_string());
            }
            _ => {
                w.extend(["perft".into(), rng.range(0, 4).to_string()]);
                return w.join(" ");
            }
        }
        if self.rng.one_in(5) {
            let key = self.rng.pick(GO_PARAMS).to_string();
            let value = match key.as_str() {
                "depth" => self.rng.range(1, 5).to_string(),
                "nodes" => self.rng.log_uniform(5000).to_string(),
                _ => self.rng.range(0, 20).to_string(),
            };
            w.extend([key, value]);
        }
        if self.rng.one_in(6) {
            let rest: Vec<String> = w.drain(1..).collect();
            let mut pairs: Vec<Vec<String>> = Vec::new();
            let mut it = rest.into_iter().peekable();
            while let Some(word) = it.next() {
                let mut pair = vec![word.clone()];
                if word != "infinite" && word != "ponder" {
                    pair.extend(it.next());
                }
                pairs.push(pair);
            }
            self.rng.shuffle(&mut pairs);
            w.extend(pairs.into_iter().flatten());
        }
        if self.rng.one_in(12) {
            w.push("searchmoves".into());
            w.extend(self.some_moves(model));
        }
        w.join(" ")
    }

    /// 1–3 legal moves of the current position, now and then a bad one.
    fn some_moves(&mut self, model: &Model) -> Vec<String> {
        let legal = model.session.legal_moves();
        let mut out = Vec::new();
        for _ in 0..1 + self.rng.below(3) {
            if legal.is_empty() || self.rng.one_in(6) {
                let base = legal.first().cloned().unwrap_or_else(|| "A".into());
                out.push(self.mutate_move(&base));
            } else {
                out.push(self.rng.pick(&legal).clone());
            }
        }
        out
    }

    fn searchmoves(&mut self, model: &Model) -> String {
        let moves = self.some_moves(model);
        format!(
            "go depth {} searchmoves {}",
            self.rng.range(1, 4),
            moves.join(" ")
        )
    }

    fn query(&mut self) -> String {
        if self.rng.one_in(10) {
            return self
                .rng
                .pick(&[
                    "query",
                    "query weather",
                    "query p1turn extra",
                    "query P1TURN",
                    "query result result",
                    "query\tgameover",
                ])
                .to_string();
        }
        format!("query {}", self.rng.pick(&["p1turn", "gameover", "result"]))
    }

    fn perft(&mut self) -> String {
        if self.rng.one_in(8) {
            return self
                .rng
                .pick(&[
                    "perft",
                    "perft -1",
                    "perft x",
                    "perft 1 2",
                    "perft 99999999999",
                    "perft +2",
                    "go perft",
                    "go perft -3",
                ])
                .to_string();
        }
        let go = if self.rng.one_in(4) { "go " } else { "" };
        let depth = if self.rng.one_in(10) {
            5
        } else {
            self.rng.range(0, 4)
        };
        format!("{go}perft {depth}")
    }

    fn bench(&mut self) -> String {
        self.rng
            .pick(&["bench 1", "bench 2", "bench x", "bench 1 2", "bench -1"])
            .to_string()
    }

    fn misc(&mut self) -> String {
        self.rng
            .pick(&[
                "help",
                "debug on",
                "debug off",
                "debug",
                "debug maybe",
                "help me",
                "uci now",
                "isready please",
                "stop it",
                "d 1",
                "legal A",
                "ucinewgame x",
                "UCI",
                "Isready",
                "GO depth 1",
                "quit2",
                "quitt",
                "-",
                "#",
                "//",
            ])
            .to_string()
    }

    fn blank(&mut self) -> String {
        self.rng
            .pick(&["", " ", "\t", "  \t  ", "\r", "\u{a0}", "\u{b}", "\u{c}"])
            .to_string()
    }

    fn garbage(&mut self) -> Vec<u8> {
        if self.rng.one_in(4) {
            // Random bytes.
            let n = self.rng.below(64);
            return (0..n).map(|_| self.rng.next() as u8).collect();
        }
        let n = 1 + self.rng.below(8);
        let words: Vec<String> = (0..n)
            .map(|_| match self.rng.below(10) {
                0 => self.number(),
                1 => self.rng.pick(ODD_UNICODE).to_string(),
                _ => self.rng.pick(WORDS).to_string(),
            })
            .collect();
        words.join(" ").into_bytes()
    }

    fn setoption(&mut self, model: &Model) -> String {
        let name = if self.rng.one_in(10) {
            self.rng
                .pick(&[
                    "hash",
                    "HASH",
                    "move overhead",
                    "Move  Overhead",
                    "MoveOverhead",
                    "clear hash",
                    "uci_variant",
                    "Skill Level",
                    "UCI_Chess960",
                    "Foo",
                    "value",
                    "é",
                ])
                .to_string()
        } else {
            self.rng.pick(OPTION_NAMES).to_string()
        };
        let odd = self.rng.one_in(5);
        let value: Option<String> = match name.to_ascii_lowercase().as_str() {
            _ if odd => {
                if self.rng.one_in(4) {
                    None
                } else {
                    Some(self.number())
                }
            }
            "hash" => Some(
                self.rng
                    .pick(&["1", "2", "4", "8", "16", "32", "64"])
                    .to_string(),
            ),
            "threads" => Some(self.rng.range(1, 4).to_string()),
            "multipv" => Some(
                if self.rng.one_in(4) {
                    self.rng.range(1, 64)
                } else {
                    self.rng.range(1, 4)
                }
                .to_string(),
            ),
            "ponder" => Some(
                self.rng
                    .pick(&["true", "false", "TRUE", "False", "yes", "1", ""])
                    .to_string(),
            ),
            "move overhead" => Some(self.rng.range(0, 5000).to_string()),
            "clear hash" => None,
            "uci_variant" => Some(if self.rng.one_in(6) {
                self.rng
                    .pick(&["chess", "Kalah", "fanorona-9x5", "", " kalah "])
                    .to_string()
            } else {
                self.rng.pick(GAMES).name.to_string()
            }),
            "gameoptions" => Some(match self.rng.below(6) {
                0 => "<empty>".to_string(),
                1 => String::new(),
                2 => {
                    let other = self.rng.pick(GAMES);
                    self.game_options(other).join(" ")
                }
                _ => {
                    let entry = registry::find(&model.variant()).unwrap_or(&GAMES[0]);
                    self.game_options(entry).join(" ")
                }
            }),
            _ => Some(self.number()),
        };
        let form = self.rng.below(20);
        match (form, value) {
            (0, _) => "setoption".to_string(),
            (1, _) => format!("setoption {name}"),
            (2, _) => "setoption name".to_string(),
            (3, Some(v)) => format!("setoption NAME {name} VALUE {v}"),
            (4, _) => format!("setoption name {name} value"),
            (5, Some(v)) => format!("setoption name {name} value {v} value {v}"),
            (_, Some(v)) => format!("setoption name {name} value {v}"),
            (_, None) => format!("setoption name {name}"),
        }
    }

    fn newgame(&mut self) -> String {
        let entry = self.rng.pick(GAMES);
        let name = match self.rng.below(20) {
            0 => self
                .rng
                .pick(&[
                    "chess",
                    "Kalah",
                    "FANORONA",
                    "fanorona-9x5",
                    "kalah,",
                    "telo",
                ])
                .to_string(),
            1 => return "newgame".to_string(),
            _ => entry.name.to_string(),
        };
        let options = self.game_options(entry);
        if options.is_empty() {
            format!("newgame {name}")
        } else {
            format!("newgame {name} {}", options.join(" "))
        }
    }

    /// `key=value` options of a game: mostly valid, now and then not.
    fn game_options(&mut self, entry: &GameEntry) -> Vec<String> {
        let mut out = Vec::new();
        for spec in entry.options {
            if self.rng.one_in(3) {
                let value = if self.rng.one_in(6) {
                    self.bad_value(spec)
                } else {
                    self.good_value(spec)
                };
                out.push(format!("{}={value}", spec.name));
            }
        }
        if self.rng.one_in(10) {
            out.push(
                self.rng
                    .pick(&[
                        "pitz=3", "=4", "pits", "pits=", "pits==4", "=", "komi=", "x=y", "pie",
                        "PITS=4", "pits=4=4",
                    ])
                    .to_string(),
            );
        }
        if self.rng.one_in(15) && !out.is_empty() {
            let dup = self.rng.pick(&out).clone();
            out.push(dup);
        }
        self.rng.shuffle(&mut out);
        out
    }

    fn good_value(&mut self, spec: &OptionSpec) -> String {
        match spec.kind {
            OptionKind::Bool => self.rng.pick(&["true", "false"]).to_string(),
            OptionKind::Int { min, max } => self.int_in(min, max).to_string(),
            OptionKind::IntOrOff { min, max } => {
                if self.rng.one_in(4) {
                    "off".to_string()
                } else {
                    self.int_in(min, max).to_string()
                }
            }
            OptionKind::Half { min, max } => {
                let h = self.int_in(2 * min, 2 * max);
                let whole = (h / 2).abs();
                let sign = if h < 0 { "-" } else { "" };
                if h % 2 == 0 {
                    format!("{sign}{whole}")
                } else {
                    format!("{sign}{whole}.5")
                }
            }
            OptionKind::Choice(words) => self.rng.pick(words).to_string(),
        }
    }

    /// In `min..=max`, the ends as often as the middle.
    fn int_in(&mut self, min: i64, max: i64) -> i64 {
        match self.rng.below(4) {
            0 => min,
            1 => max,
            _ => self.rng.range(min, max.min(min + 40)),
        }
    }

    fn bad_value(&mut self, spec: &OptionSpec) -> String {
        let (min, max) = match spec.kind {
            OptionKind::Int { min, max }
            | OptionKind::IntOrOff { min, max }
            | OptionKind::Half { min, max } => (min, max),
            _ => (0, 1),
        };
        match self.rng.below(6) {
            0 => (min - 1).to_string(),
            1 => (max + 1).to_string(),
            2 => self.number(),
            3 => self
                .rng
                .pick(&["yes", "TRUE", "on", "off", "", "2.25", "1/2", "x"])
                .to_string(),
            4 => format!("{}.5", max),
            _ => self.rng.pick(ODD_UNICODE).to_string(),
        }
    }

    /// A very long line: up to 1 MiB.
    fn long_line(&mut self, model: &Model) -> Vec<u8> {
        let size = 1usize << self.rng.range(10, 20);
        let legal = model.session.legal_moves();
        let first = legal.first().cloned().unwrap_or_else(|| "A".into());
        let (head, unit): (String, String) = match self.rng.below(8) {
            0 => ("position startpos moves".into(), format!(" {first}")),
            1 => {
                let line = self.corpus.line(&*model.session, &mut self.rng);
                (
                    "position startpos moves".into(),
                    format!(" {}", line.moves.join(" ")),
                )
            }
            2 => (
                "go depth 1 searchmoves".into(),
                format!(" {}", legal.join(" ")),
            ),
            3 => ("setoption name GameOptions value".into(), " pits=4".into()),
            4 => ("newgame kalah".into(), " seeds=3".into()),
            5 => (String::new(), " \t".into()),
            6 => ("d".into(), " x".into()),
            _ => {
                let n = 1 + self.rng.below(64);
                let unit: String = (0..n)
                    .map(|_| char::from(b'!' + (self.rng.next() % 94) as u8))
                    .collect();
                (String::new(), unit)
            }
        };
        let mut line = head.into_bytes();
        let unit = if unit.trim().is_empty() && !line.is_empty() {
            " x".to_string()
        } else {
            unit
        };
        while line.len() < size {
            line.extend_from_slice(unit.as_bytes());
        }
        line
    }

    /// Byte-level damage: flips, insertions, deletions, shuffles, invalid UTF-8.
    fn mutate(&mut self, line: &mut Vec<u8>) {
        for _ in 0..1 + self.rng.below(3) {
            let at = self.rng.below(line.len() + 1);
            match self.rng.below(12) {
                0 => {
                    if at < line.len() {
                        line[at] ^= 1 << self.rng.below(8);
                    }
                }
                1 => {
                    let b = *self.rng.pick(&[
                        0u8, 0xff, 0xfe, 0x80, 0xc3, 0xc0, b'\t', b'\r', b' ', 0x7f, 0x1b, 0x0b,
                    ]);
                    line.insert(at, b);
                }
                2 => {
                    let bad = *self.rng.pick(BAD_UTF8);
                    line.splice(at..at, bad.iter().copied());
                }
                3 => {
                    let end = (at + 1 + self.rng.below(8)).min(line.len());
                    if at < end {
                        line.drain(at..end);
                    }
                }
                4 => line.truncate(at),
                5..=7 => {
                    let text = String::from_utf8_lossy(line).into_owned();
                    let mut words: Vec<String> = text.split(' ').map(String::from).collect();
                    match self.rng.below(4) {
                        0 => self.rng.shuffle(&mut words),
                        1 => {
                            let i = self.rng.below(words.len());
                            let w = words[i].clone();
                            words.insert(i, w);
                        }
                        2 => {
                            let i = self.rng.below(words.len());
                            words.remove(i);
                        }
                        _ => {
                            let i = self.rng.below(words.len());
                            words[i] = self.number();
                        }
                    }
                    *line = words.join(" ").into_bytes();
                }
                8 => {
                    let sep = *self.rng.pick(&[&b"\t"[..], b"  ", b" \t", b"\x00"]);
                    let mut out = Vec::new();
                    for &b in line.iter() {
                        if b == b' ' {
                            out.extend_from_slice(sep);
                        } else {
                            out.push(b);
                        }
                    }
                    *line = out;
                }
                9 => {
                    line.insert(0, *self.rng.pick(b" \t"));
                    line.push(*self.rng.pick(b" \t\r"));
                }
                10 => line.make_ascii_uppercase(),
                _ => {
                    let odd = self.rng.pick(ODD_UNICODE).as_bytes();
                    line.splice(at..at, odd.iter().copied());
                }
            }
        }
    }
}

fn digit_runs(text: &str) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut runs = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i].is_ascii_digit() {
            let start = i;
            while i < bytes.len() && bytes[i].is_ascii_digit() {
                i += 1;
            }
            runs.push((start, i));
        } else {
            i += 1;
        }
    }
    runs
}

fn clip(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… ({} bytes)", &text[..end], text.len())
}

// ------------------------------------------------------------------------------------------
// The engine process.

enum Msg {
    Out(String),
    Err(String),
    OutClosed,
}

struct Proc {
    child: Child,
    input: Sender<Vec<u8>>,
    msgs: Receiver<Msg>,
}

impl Proc {
    fn start() -> Proc {
        let bin = std::env::var_os("SOWFAN_FUZZ_BIN").unwrap_or_else(|| BIN.into());
        let mut child = Command::new(bin)
            .env_remove("RUST_LOG")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start sowfan");
        let mut stdin = child.stdin.take().expect("stdin");
        let stdout = child.stdout.take().expect("stdout");
        let stderr = child.stderr.take().expect("stderr");
        // A writer thread: the fuzzer never blocks on a full pipe, so a hang is seen as a
        // missing answer, not as a stuck test.
        let (input, to_write) = mpsc::channel::<Vec<u8>>();
        std::thread::spawn(move || {
            for chunk in to_write {
                if stdin.write_all(&chunk).and_then(|_| stdin.flush()).is_err() {
                    break;
                }
            }
        });
        let (tx, msgs) = mpsc::channel();
        let out_tx = tx.clone();
        std::thread::spawn(move || {
            read_lines(stdout, |line| out_tx.send(Msg::Out(line)).is_ok());
            let _ = out_tx.send(Msg::OutClosed);
        });
        std::thread::spawn(move || {
            read_lines(stderr, |line| tx.send(Msg::Err(line)).is_ok());
        });
        Proc { child, input, msgs }
    }

    fn send(&self, bytes: Vec<u8>) {
        // A dead writer (the engine is gone) shows up as a crash elsewhere.
        let _ = self.input.send(bytes);
    }

    /// Peak and current resident memory in KiB (`VmHWM`, `VmRSS`).
    fn memory(&self) -> Option<(u64, u64)> {
        let pid = self.child.id();
        Some((status_kb(pid, "VmHWM:")?, status_kb(pid, "VmRSS:")?))
    }

    fn wait_exit(&mut self, timeout: Duration) -> Option<ExitStatus> {
        wait_exit(&mut self.child, timeout)
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Lines (split at `\n`, lossy UTF-8) until end of file or until `each` says stop.
fn read_lines(stream: impl std::io::Read, mut each: impl FnMut(String) -> bool) {
    let mut reader = BufReader::with_capacity(1 << 16, stream);
    let mut buffer = Vec::new();
    loop {
        buffer.clear();
        match reader.read_until(b'\n', &mut buffer) {
            Ok(0) | Err(_) => return,
            Ok(_) => {
                if buffer.ends_with(b"\n") {
                    buffer.pop();
                }
                if !each(String::from_utf8_lossy(&buffer).into_owned()) {
                    return;
                }
            }
        }
    }
}

// ------------------------------------------------------------------------------------------
// The fuzzer.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fail {
    Panic,
    Hang,
    Crash,
    Internal,
    Mismatch,
    Missing,
    Unexpected,
    Quit,
}

#[derive(Default)]
struct Stats {
    lines: u64,
    bytes: u64,
    batches: u64,
    mutated: u64,
    long_lines: u64,
    gos: u64,
    bestmoves: u64,
    errors: u64,
    warnings: u64,
    out_lines: u64,
    out_bytes: u64,
    stderr_lines: u64,
    extra_stops: u64,
    panics: u64,
    hangs: u64,
    crashes: u64,
    restarts: u64,
    internal: u64,
    mismatches: u64,
    missing: u64,
    unexpected: u64,
    quit_failures: u64,
    /// `bestmove` lines printed for a search stopped by `quit` (protocol.md: none). Reported,
    /// not (yet) a failure: the engine does print one today.
    quit_bestmoves: u64,
    generating: Duration,
    awaiting_ready: Duration,
    awaiting_batch: Duration,
    peak_rss_kb: u64,
    last_rss_kb: u64,
    latencies: Vec<Duration>,
    /// From sending the line after a search that needed a `stop` to its `bestmove`.
    stop_latencies: Vec<Duration>,
    /// Answers to read-only lines sent while an open-ended search ran: before its `bestmove`
    /// (as protocol.md says), or after it (reported in `notes`, not a failure: a race with
    /// the end of the search before is possible).
    early_answers: u64,
    late_answers: u64,
    /// Observations that are not failures.
    notes: Vec<String>,
    /// Searches that did not answer until the fuzzer sent `stop` at a batch end (slow on a
    /// loaded machine, or unbounded), and the first of them.
    stalls: u64,
    stall_notes: Vec<String>,
    /// Lines by command: (accepted, rejected).
    kinds: std::collections::BTreeMap<&'static str, (u64, u64)>,
    details: Vec<String>,
    repro: Vec<PathBuf>,
    elapsed: Duration,
    capped: bool,
}

impl Stats {
    fn failures(&self) -> u64 {
        self.panics
            + self.hangs
            + self.crashes
            + self.internal
            + self.mismatches
            + self.missing
            + self.unexpected
            + self.quit_failures
    }

    fn coverage(&self) -> String {
        let kinds: Vec<String> = self
            .kinds
            .iter()
            .map(|(k, (ok, bad))| format!("{k} {ok}/{bad}"))
            .collect();
        format!(
            "fuzz coverage (lines accepted/rejected by command): {}",
            kinds.join(", ")
        )
    }

    fn summary(&self, seed: u64) -> String {
        let percentiles = |samples: &[Duration]| -> [f64; 3] {
            let mut l = samples.to_vec();
            l.sort();
            [0.5, 0.99, 1.0].map(|q| {
                if l.is_empty() {
                    return 0.0;
                }
                let i = ((l.len() - 1) as f64 * q).round() as usize;
                l[i].as_secs_f64() * 1000.0
            })
        };
        let ready = percentiles(&self.latencies);
        let stop = percentiles(&self.stop_latencies);
        let secs = self.elapsed.as_secs_f64();
        format!(
            "fuzz summary: seed {seed}, lines fed {} ({} mutated, {} long), bytes {} ({:.1} MiB), \
             batches {}, go {} / bestmove {}, error answers {}, warnings {}, output lines {} \
             ({:.1} MiB), stderr lines {}, extra stops {}; panics {}, hangs {}, crashes {}, \
             restarts {}, internal errors {}, mismatches {}, missing answers {}, unexpected \
             answers {}, quit failures {}, bestmoves after quit {}; peak RSS (VmHWM) {:.1} MiB, last RSS {:.1} MiB; \
             readyok latency p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms; bestmove after stop \
             ({} searches) p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms; elapsed {:.1} s ({:.0} \
             lines/s: generating {:.1} s, awaiting readyok {:.1} s, awaiting batch ends {:.1} s); \
             read-only answers during open-ended searches {} before the bestmove, {} after; \
             searches stopped by the fuzzer at a batch end {}{}",
            self.lines,
            self.mutated,
            self.long_lines,
            self.bytes,
            self.bytes as f64 / 1048576.0,
            self.batches,
            self.gos,
            self.bestmoves,
            self.errors,
            self.warnings,
            self.out_lines,
            self.out_bytes as f64 / 1048576.0,
            self.stderr_lines,
            self.extra_stops,
            self.panics,
            self.hangs,
            self.crashes,
            self.restarts,
            self.internal,
            self.mismatches,
            self.missing,
            self.unexpected,
            self.quit_failures,
            self.quit_bestmoves,
            self.peak_rss_kb as f64 / 1024.0,
            self.last_rss_kb as f64 / 1024.0,
            ready[0],
            ready[1],
            ready[2],
            self.stop_latencies.len(),
            stop[0],
            stop[1],
            stop[2],
            secs,
            self.lines as f64 / secs.max(1e-9),
            self.generating.as_secs_f64(),
            self.awaiting_ready.as_secs_f64(),
            self.awaiting_batch.as_secs_f64(),
            self.early_answers,
            self.late_answers,
            self.stalls,
            if self.capped {
                " (stopped by the time budget)"
            } else {
                ""
            },
        )
    }
}

/// Lines to send once the engine has answered `after` (expectations by queue), if given.
struct Segment {
    after: Option<[u64; QUEUES]>,
    /// The number of `bestmove`s, the stopped search's included, once it has answered.
    stop_target: Option<u64>,
    bytes: Vec<u8>,
}

enum Wait {
    Done,
    Timeout,
    Dead,
}

struct Fuzzer {
    seed: u64,
    generator: Generator,
    model: Model,
    proc: Proc,
    /// Per queue: the expectation, the line it answers, and (for a read-only command sent
    /// while an open-ended search runs) the `bestmove` count it should come before.
    queues: [VecDeque<(Expect, String, Option<u64>)>; QUEUES],
    /// While set, read-only commands are sent while an open-ended search runs (the `bestmove`
    /// count that answers it).
    early: Option<u64>,
    /// Expectations queued and answered so far, by queue.
    pushed: [u64; QUEUES],
    answered: [u64; QUEUES],
    ready_sent: u64,
    ready_seen: u64,
    /// An `info … score …` line since the last `bestmove`.
    score_seen: bool,
    /// When the last answer (not `info`) arrived.
    last_answer: Instant,
    /// The search last reported as stalled (by its `bestmove` count), to report it once.
    stalled_noted: Option<u64>,
    /// Searches told to stop: the `bestmove` count that answers them, and when.
    stop_watch: VecDeque<(u64, Instant)>,
    /// The `UCI_Variant` and `GameOptions` defaults of the last `uci`/`ugi` answer.
    ident: (String, String),
    bench_nodes: HashMap<Option<u32>, u64>,
    marker: u64,
    synced: bool,
    dead: bool,
    /// `quit` has been sent: a `bestmove` now is counted, not matched.
    quitting: bool,
    batch_failed: bool,
    stderr_tail: VecDeque<String>,
    /// `SOWFAN_FUZZ_DUMP`: a file that receives every byte sent.
    dump: Option<std::fs::File>,
    stats: Stats,
}

impl Fuzzer {
    fn new(seed: u64) -> Fuzzer {
        Fuzzer {
            seed,
            generator: Generator {
                rng: Rng::new(seed),
                corpus: Corpus::default(),
            },
            model: Model::new(),
            proc: Proc::start(),
            queues: Default::default(),
            pushed: [0; QUEUES],
            answered: [0; QUEUES],
            early: None,
            ready_sent: 0,
            ready_seen: 0,
            score_seen: false,
            last_answer: Instant::now(),
            stop_watch: VecDeque::new(),
            stalled_noted: None,
            ident: Default::default(),
            bench_nodes: HashMap::new(),
            marker: 0,
            synced: false,
            dead: false,
            quitting: false,
            batch_failed: false,
            stderr_tail: VecDeque::new(),
            dump: std::env::var_os("SOWFAN_FUZZ_DUMP")
                .map(|path| std::fs::File::create(path).expect("create SOWFAN_FUZZ_DUMP")),
            stats: Stats::default(),
        }
    }

    fn fail(&mut self, kind: Fail, detail: String) {
        let s = &mut self.stats;
        match kind {
            Fail::Panic => s.panics += 1,
            Fail::Hang => s.hangs += 1,
            Fail::Crash => s.crashes += 1,
            Fail::Internal => s.internal += 1,
            Fail::Mismatch => s.mismatches += 1,
            Fail::Missing => s.missing += 1,
            Fail::Unexpected => s.unexpected += 1,
            Fail::Quit => s.quit_failures += 1,
        }
        if s.details.len() < MAX_DETAILS {
            s.details
                .push(format!("batch {}: {kind:?}: {detail}", s.batches));
        }
        self.batch_failed = true;
    }

    /// Send bytes and account for them.
    fn send(&mut self, bytes: Vec<u8>) {
        self.stats.lines += bytes.iter().filter(|&&b| b == b'\n').count() as u64;
        self.stats.bytes += bytes.len() as u64;
        if let Some(dump) = &mut self.dump {
            dump.write_all(&bytes).expect("write SOWFAN_FUZZ_DUMP");
        }
        self.proc.send(bytes);
    }

    /// Run `line` through the model, queue what it must answer, and append it to `batch`.
    fn feed(&mut self, line: Vec<u8>, batch: &mut Vec<u8>) {
        let mut expects = Vec::new();
        let mut raw_lengths = line.split(|&b| b == b'\n').map(<[u8]>::len);
        for text in engine_lines(&line) {
            let before = expects.len();
            // protocol.md: a line over 1 MiB (its bytes before the `\n`) is skipped with an
            // error.
            let raw = raw_lengths.next().unwrap_or(0);
            let kind = if raw > sowfan::protocol::MAX_LINE_BYTES {
                expects.push(Expect::Error);
                "overlong"
            } else {
                self.model.apply(&text, &mut expects)
            };
            let rejected = expects[before..].iter().any(|e| matches!(e, Expect::Error));
            let count = self.stats.kinds.entry(kind).or_default();
            if rejected {
                count.1 += 1;
            } else {
                count.0 += 1;
            }
            let source = clip(&text, 160);
            // protocol.md: during `go infinite` / `go ponder`, read-only commands (and lines
            // that do not parse) are answered at once, before the search's `bestmove`.
            let parsed = command::parse(&text);
            let early = match &parsed {
                Ok(Some(Cmd::IsReady)) | Ok(None) => self.early,
                Ok(Some(c)) if c.is_read_only() => self.early,
                Err(_) => self.early,
                _ => None,
            };
            self.early = early;
            let mut opened = None;
            for expect in expects.drain(before..).collect::<Vec<_>>() {
                match queue_of(&expect) {
                    None => self.ready_sent += 1,
                    Some(q) => {
                        if q == Q_BESTMOVE {
                            self.stats.gos += 1;
                            if let (
                                Ok(Some(Cmd::Go(_))),
                                Expect::Bestmove {
                                    over: false,
                                    open: true,
                                    ..
                                },
                            ) = (&parsed, &expect)
                            {
                                opened = Some(self.pushed[q] + 1);
                            }
                        }
                        self.pushed[q] += 1;
                        let early = early.filter(|_| q != Q_BESTMOVE);
                        self.queues[q].push_back((expect, source.clone(), early));
                    }
                }
            }
            if opened.is_some() {
                self.early = opened;
            }
        }
        batch.extend_from_slice(&line);
    }

    /// One line to send, with its line end; whether a `stop` must follow it.
    fn next_line(&mut self) -> (Vec<u8>, bool) {
        for _ in 0..50 {
            let g = &mut self.generator;
            let long = g.rng.one_in(2500);
            let mut line = if long {
                g.long_line(&self.model)
            } else {
                g.base_line(&self.model)
            };
            let mutated = g.rng.one_in(5);
            if mutated {
                g.mutate(&mut line);
            }
            let end: &[u8] = match g.rng.below(100) {
                0..=84 => b"\n",
                85..=97 => b"\r\n",
                98 => b"\r\r\n",
                _ => b" \n",
            };
            line.extend_from_slice(end);
            let mut needs_stop = false;
            let mut reject = false;
            for text in engine_lines(&line) {
                if let Ok(Some(command)) = command::parse(&text) {
                    match cost(&command, self.model.session.to_move()) {
                        Cost::Fine => {}
                        Cost::NeedsStop => needs_stop = true,
                        Cost::Reject => reject = true,
                    }
                }
            }
            if reject {
                continue;
            }
            self.stats.mutated += mutated as u64;
            self.stats.long_lines += long as u64;
            return (line, needs_stop);
        }
        (b"isready\n".to_vec(), false)
    }

    /// A batch of lines, in segments: after a search that needs a `stop`, the rest waits
    /// until the engine has answered everything before that search (so that it has started
    /// and the `stop` that follows reaches it, as with a GUI).
    fn make_batch(&mut self, size: usize) -> Vec<Segment> {
        let mut segments = Vec::new();
        let mut bytes = Vec::new();
        let mut after = None;
        let mut stop_target = None;
        // Countdowns to the `stop` owed to open-ended searches.
        let mut stops: Vec<usize> = Vec::new();
        for _ in 0..size {
            let (line, needs_stop) = self.next_line();
            if needs_stop {
                // Stop the open-ended searches before it first.
                for _ in stops.drain(..) {
                    self.feed(b"stop\n".to_vec(), &mut bytes);
                }
            }
            let before = self.pushed;
            self.feed(line, &mut bytes);
            if needs_stop {
                segments.push(Segment {
                    after,
                    stop_target,
                    bytes: std::mem::take(&mut bytes),
                });
                after = Some(before);
                stop_target = (self.pushed[Q_BESTMOVE] == before[Q_BESTMOVE] + 1)
                    .then_some(self.pushed[Q_BESTMOVE]);
            }
            for s in stops.iter_mut() {
                *s = s.saturating_sub(1);
            }
            let due = stops.iter().filter(|&&s| s == 0).count();
            stops.retain(|&s| s > 0);
            for _ in 0..due {
                if self.generator.rng.one_in(4) {
                    self.feed(b"ponderhit\n".to_vec(), &mut bytes);
                }
                self.feed(b"stop\n".to_vec(), &mut bytes);
            }
            if needs_stop {
                stops.push(self.generator.rng.below(4));
            }
        }
        for _ in stops {
            self.feed(b"stop\n".to_vec(), &mut bytes);
        }
        segments.push(Segment {
            after,
            stop_target,
            bytes,
        });
        segments
    }

    fn on_msg(&mut self, msg: Msg) {
        match msg {
            Msg::Out(line) => self.on_stdout(line),
            Msg::Err(line) => {
                self.stats.stderr_lines += 1;
                if line.contains("panicked at") {
                    self.fail(Fail::Panic, format!("stderr: {}", clip(&line, 300)));
                }
                if self.stderr_tail.len() == 20 {
                    self.stderr_tail.pop_front();
                }
                self.stderr_tail.push_back(clip(&line, 300));
            }
            Msg::OutClosed => self.dead = true,
        }
    }

    fn on_stdout(&mut self, line: String) {
        self.stats.out_lines += 1;
        self.stats.out_bytes += line.len() as u64 + 1;
        if line.contains("panicked at") {
            self.fail(Fail::Panic, format!("stdout: {}", clip(&line, 300)));
        }
        if line.starts_with("info string error: internal error") {
            // A caught panic: counted once, not matched against the errors expected.
            self.fail(Fail::Internal, clip(&line, 300));
            return;
        }
        if line == "readyok" {
            self.last_answer = Instant::now();
            self.ready_seen += 1;
            return;
        }
        if line.starts_with("info ") && !line.starts_with("info string") && line.contains(" score ")
        {
            self.score_seen = true;
        }
        if let Some(rest) = line.strip_prefix("option name UCI_Variant type combo default ") {
            self.ident.0 = rest.split(' ').next().unwrap_or("").to_string();
        }
        if let Some(rest) = line.strip_prefix("option name GameOptions type string default ") {
            self.ident.1 = rest.to_string();
        }
        let marker_prefix = format!("info string warning: unknown option '{MARKER}");
        if let Some(rest) = line.strip_prefix(&marker_prefix) {
            let n: u64 = rest
                .split('\'')
                .next()
                .and_then(|n| n.parse().ok())
                .unwrap_or(0);
            self.on_marker(n, &line);
            return;
        }
        let q = if line.starts_with("bestmove") {
            Q_BESTMOVE
        } else if line.starts_with("response ") {
            Q_RESPONSE
        } else if line == "legal" || line.starts_with("legal ") {
            Q_LEGAL
        } else if line.starts_with("Fen: ") {
            Q_FEN
        } else if line == "uciok" || line == "ugiok" {
            Q_IDENT
        } else if line.starts_with("Nodes searched: ")
            || line.starts_with("info string perft stopped after ")
        {
            // protocol.md: a `stop` ends a running perft with this line instead of the total.
            Q_PERFT
        } else if line.starts_with("Nodes searched  : ")
            || line.starts_with("info string bench stopped after ")
        {
            Q_BENCH
        } else if line.starts_with("info string error: ") {
            self.stats.errors += 1;
            Q_NOTE
        } else if line.starts_with("info string warning: ") {
            self.stats.warnings += 1;
            Q_NOTE
        } else {
            return;
        };
        self.last_answer = Instant::now();
        if q == Q_BESTMOVE && self.quitting {
            self.stats.quit_bestmoves += 1;
            return;
        }
        if q == Q_BESTMOVE {
            self.stats.bestmoves += 1;
            if !self.score_seen {
                self.fail(
                    Fail::Mismatch,
                    format!("'{line}' without an 'info … score …' line before it"),
                );
            }
            self.score_seen = false;
        }
        if matches!(
            self.queues[q].front(),
            None | Some((Expect::Marker(_), _, _))
        ) {
            self.fail(
                Fail::Unexpected,
                format!("'{}' answers nothing sent", clip(&line, 300)),
            );
            return;
        }
        let (expect, source, early) = self.queues[q].pop_front().expect("an expectation");
        self.answered[q] += 1;
        if let Some(n) = early {
            if self.answered[Q_BESTMOVE] < n {
                self.stats.early_answers += 1;
            } else {
                self.stats.late_answers += 1;
                if self.stats.notes.len() < MAX_DETAILS {
                    self.stats.notes.push(format!(
                        "batch {}: '{source}' sent during an open-ended search was answered after \
                         its bestmove",
                        self.stats.batches
                    ));
                }
            }
        }
        if q == Q_BESTMOVE {
            self.stopped();
        }
        if let Err(why) = self.check(&expect, &line) {
            self.fail(
                Fail::Mismatch,
                format!(
                    "{why}: expected '{}', got '{}' (answer to '{source}')",
                    describe(&expect),
                    clip(&line, 300)
                ),
            );
        }
    }

    fn check(&mut self, expect: &Expect, line: &str) -> Result<(), String> {
        let same = |text: &str| {
            if line == text {
                Ok(())
            } else {
                Err("wrong answer".to_string())
            }
        };
        match expect {
            Expect::Bestmove {
                over,
                allowed,
                ponder,
                ..
            } => {
                let words: Vec<&str> = line.split(' ').collect();
                let shape_ok = words.len() == 2
                    || (words.len() == 4 && words[2] == "ponder" && ponder.is_some());
                if words[0] != "bestmove" || !shape_ok {
                    return Err("malformed bestmove".into());
                }
                let mv = words[1];
                if *over {
                    return if mv == "0000" {
                        Ok(())
                    } else {
                        Err("a move in a finished game".into())
                    };
                }
                if !allowed.iter().any(|m| m == mv) {
                    return Err("not a legal (or allowed) move".into());
                }
                if let (Some(session), 4) = (ponder, words.len()) {
                    let mut s = session.clone_box();
                    let fen = s.fen();
                    if s.set_position(Some(&fen), &[mv, words[3]]).is_err() {
                        return Err("the ponder move is not a legal reply".into());
                    }
                }
                Ok(())
            }
            Expect::Response(r) => same(&format!("response {r}")),
            Expect::Legal(l) => same(l),
            Expect::Fen(f) => same(&format!("Fen: {f}")),
            Expect::Ident {
                ok,
                variant,
                options,
            } => {
                same(ok)?;
                if (variant, options) != (&self.ident.0, &self.ident.1) {
                    return Err(format!(
                        "identify shows UCI_Variant '{}' and GameOptions '{}'",
                        self.ident.0, self.ident.1
                    ));
                }
                Ok(())
            }
            // A `stop` sent while it ran may end a perft or bench early.
            Expect::Perft(_) | Expect::Bench(_) if line.starts_with("info string ") => Ok(()),
            Expect::Perft(Some(n)) => same(&format!("Nodes searched: {n}")),
            Expect::Perft(None) => Ok(()),
            Expect::Bench(depth) => {
                let nodes: u64 = line["Nodes searched  : ".len()..]
                    .trim()
                    .parse()
                    .map_err(|_| "unreadable node count".to_string())?;
                let first = *self.bench_nodes.entry(*depth).or_insert(nodes);
                if first != nodes {
                    return Err(format!("bench node count changed from {first}"));
                }
                Ok(())
            }
            Expect::Error if line.starts_with("info string error: ") => Ok(()),
            Expect::Warning if line.starts_with("info string warning: ") => Ok(()),
            Expect::Error | Expect::Warning => Err("an error instead of a warning or back".into()),
            Expect::Ready | Expect::Marker(_) => Err("internal: not an answer".into()),
        }
    }

    /// Time the `bestmove`s of searches told to stop.
    fn stopped(&mut self) {
        let n = self.answered[Q_BESTMOVE];
        while let Some(&(target, sent)) = self.stop_watch.front() {
            if n < target {
                break;
            }
            self.stop_watch.pop_front();
            if n == target {
                let latency = sent.elapsed();
                self.stats.stop_latencies.push(latency);
                if latency > SLOW_STOP {
                    self.fail(
                        Fail::Hang,
                        format!("a search told to stop answered after {latency:?}"),
                    );
                }
            }
        }
    }

    /// The sync marker: everything sent before it has been answered.
    fn on_marker(&mut self, n: u64, line: &str) {
        if n != self.marker {
            self.fail(Fail::Unexpected, format!("stale marker '{line}'"));
            return;
        }
        while let Some((expect, source, _)) = self.queues[Q_NOTE].pop_front() {
            self.answered[Q_NOTE] += 1;
            if matches!(expect, Expect::Marker(_)) {
                break;
            }
            self.fail(
                Fail::Missing,
                format!("no '{}' for '{source}'", describe(&expect)),
            );
        }
        for (q, name) in QUEUE_NAMES.iter().enumerate() {
            while let Some((expect, source, _)) = self.queues[q].pop_front() {
                self.answered[q] += 1;
                self.fail(
                    Fail::Missing,
                    format!("no {name} answer '{}' for '{source}'", describe(&expect)),
                );
            }
        }
        self.synced = true;
    }

    /// Handle output until `done`, the deadline, or the engine's end. With `stop_spam`,
    /// send `stop` whenever answers stall (only what was sent before can be running).
    fn pump(&mut self, deadline: Instant, done: impl Fn(&Fuzzer) -> bool, stop_spam: bool) -> Wait {
        let started = Instant::now();
        let mut last_stop = started;
        let wait_for = if stop_spam { STOP_EVERY } else { STALL };
        loop {
            if done(self) {
                return Wait::Done;
            }
            if self.dead {
                return Wait::Dead;
            }
            let now = Instant::now();
            if now >= deadline {
                return Wait::Timeout;
            }
            if stop_spam
                && now.duration_since(self.last_answer.max(started)) >= STALL
                && now.duration_since(last_stop) >= STOP_EVERY
            {
                self.send(b"stop\n".to_vec());
                self.stats.extra_stops += 1;
                last_stop = now;
                // Which search did not end by itself (if a search it is)? Reported once.
                let stalled = self.queues[Q_BESTMOVE].front().map(|(_, s, _)| s.clone());
                if let Some(source) = stalled
                    && self.stalled_noted != Some(self.answered[Q_BESTMOVE])
                {
                    self.stalled_noted = Some(self.answered[Q_BESTMOVE]);
                    self.stats.stalls += 1;
                    if self.stats.stall_notes.len() < MAX_DETAILS / 2 {
                        self.stats.stall_notes.push(format!(
                            "batch {}: no answer for {STALL:?} while '{source}' was running (or \
                             queued): the fuzzer sent stop",
                            self.stats.batches
                        ));
                    }
                }
            }
            match self.proc.msgs.recv_timeout((deadline - now).min(wait_for)) {
                Ok(msg) => self.on_msg(msg),
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => self.dead = true,
            }
        }
    }

    fn read_memory(&mut self) {
        if let Some((peak, now)) = self.proc.memory() {
            self.stats.peak_rss_kb = self.stats.peak_rss_kb.max(peak);
            self.stats.last_rss_kb = now;
        }
    }

    fn save_repro(&mut self, preamble: &str, batch: &[u8]) {
        if self.stats.repro.len() >= 10 {
            return;
        }
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("fuzz-repro");
        let path = dir.join(format!("seed{}-batch{}.txt", self.seed, self.stats.batches));
        let mut bytes = preamble.as_bytes().to_vec();
        bytes.extend_from_slice(batch);
        bytes.extend_from_slice(b"isready\n");
        if std::fs::create_dir_all(&dir).is_ok() && std::fs::write(&path, bytes).is_ok() {
            self.stats.repro.push(path);
        }
    }

    /// The engine died, hung or must be replaced: record its end and start a fresh one.
    fn restart(&mut self, why: Fail, what: &str) {
        self.read_memory();
        let status = match why {
            Fail::Crash => self.proc.wait_exit(Duration::from_secs(2)),
            _ => None,
        };
        // Collect the last words on stderr.
        while let Ok(msg) = self.proc.msgs.recv_timeout(Duration::from_millis(100)) {
            if let Msg::Err(_) = msg {
                self.on_msg(msg);
            }
        }
        let tail: Vec<String> = self.stderr_tail.drain(..).collect();
        self.fail(
            why,
            format!(
                "{what}; exit status {status:?}; stderr tail: {}",
                tail.join(" | ")
            ),
        );
        self.proc = Proc::start();
        self.model = Model::new();
        for q in &mut self.queues {
            q.clear();
        }
        self.pushed = [0; QUEUES];
        self.answered = [0; QUEUES];
        self.early = None;
        self.stop_watch.clear();
        self.ready_sent = 0;
        self.ready_seen = 0;
        self.score_seen = false;
        self.dead = false;
        self.stats.restarts += 1;
    }

    fn run(&mut self, max_lines: u64, time_cap: Option<Duration>, progress: bool) {
        let start = Instant::now();
        let mut next_report = 100_000;
        while self.stats.lines < max_lines {
            if time_cap.is_some_and(|cap| start.elapsed() >= cap) {
                self.stats.capped = true;
                break;
            }
            self.stats.batches += 1;
            self.batch_failed = false;
            let t = Instant::now();
            let preamble = self.model.preamble();
            let size = 200 + self.generator.rng.below(801);
            let segments = self.make_batch(size);
            self.stats.generating += t.elapsed();
            let batch: Vec<u8> = segments.iter().flat_map(|s| s.bytes.clone()).collect();
            let t = Instant::now();
            let mut waited = Wait::Done;
            for segment in segments {
                if let Some(after) = segment.after {
                    waited = self.pump(
                        t + BATCH_TIMEOUT,
                        |f| (0..QUEUES).all(|q| f.answered[q] >= after[q]),
                        true,
                    );
                    if !matches!(waited, Wait::Done) {
                        break;
                    }
                    // The search is about to start (or has): let it.
                    std::thread::sleep(Duration::from_millis(2));
                }
                self.send(segment.bytes);
                if let Some(target) = segment.stop_target
                    && self.answered[Q_BESTMOVE] < target
                {
                    self.stop_watch.push_back((target, Instant::now()));
                }
            }
            self.stats.awaiting_batch += t.elapsed();
            match waited {
                Wait::Done => {}
                Wait::Timeout => {
                    self.save_repro(&preamble, &batch);
                    self.restart(
                        Fail::Hang,
                        "no answers within 30 s before an open-ended search",
                    );
                    continue;
                }
                Wait::Dead => {
                    self.save_repro(&preamble, &batch);
                    self.restart(Fail::Crash, "the engine exited (in the batch)");
                    continue;
                }
            }

            // isready: a readyok within READY_TIMEOUT.
            self.ready_sent += 1;
            self.send(b"isready\n".to_vec());
            let sent = Instant::now();
            let waited = self.pump(
                sent + READY_TIMEOUT,
                |f| f.ready_seen >= f.ready_sent,
                false,
            );
            self.stats.awaiting_ready += sent.elapsed();
            match waited {
                Wait::Done => self.stats.latencies.push(sent.elapsed()),
                Wait::Timeout => {
                    self.save_repro(&preamble, &batch);
                    self.restart(Fail::Hang, "no readyok within 10 s");
                    continue;
                }
                Wait::Dead => {
                    self.save_repro(&preamble, &batch);
                    self.restart(Fail::Crash, "the engine exited (before readyok)");
                    continue;
                }
            }

            // The sync marker: every answer of the batch, within BATCH_TIMEOUT.
            self.marker += 1;
            self.synced = false;
            self.pushed[Q_NOTE] += 1;
            self.queues[Q_NOTE].push_back((Expect::Marker(self.marker), "sync".into(), None));
            self.send(format!("setoption name {MARKER}{}\n", self.marker).into_bytes());
            let t = Instant::now();
            let waited = self.pump(t + BATCH_TIMEOUT, |f| f.synced, true);
            self.stats.awaiting_batch += t.elapsed();
            match waited {
                Wait::Done => {}
                Wait::Timeout => {
                    self.save_repro(&preamble, &batch);
                    self.restart(
                        Fail::Hang,
                        "the batch did not finish within 30 s (with stop repeated)",
                    );
                    continue;
                }
                Wait::Dead => {
                    self.save_repro(&preamble, &batch);
                    self.restart(Fail::Crash, "the engine exited (before the sync marker)");
                    continue;
                }
            }
            if let Ok(Some(status)) = self.proc.child.try_wait() {
                self.dead = true;
                self.save_repro(&preamble, &batch);
                self.restart(Fail::Crash, &format!("the engine exited with {status}"));
                continue;
            }
            self.read_memory();
            if self.batch_failed {
                self.save_repro(&preamble, &batch);
            }
            if progress && self.stats.lines >= next_report {
                next_report += 100_000;
                self.stats.elapsed = start.elapsed();
                eprintln!(
                    "fuzz progress: {} lines, {} batches, {:.0} s, {:.0} lines/s, {} failures, peak \
                     RSS {:.1} MiB, RSS {:.1} MiB",
                    self.stats.lines,
                    self.stats.batches,
                    self.stats.elapsed.as_secs_f64(),
                    self.stats.lines as f64 / self.stats.elapsed.as_secs_f64(),
                    self.stats.failures(),
                    self.stats.peak_rss_kb as f64 / 1024.0,
                    self.stats.last_rss_kb as f64 / 1024.0,
                );
            }
        }
        self.finish();
        self.stats.elapsed = start.elapsed();
    }

    /// `quit` stops a running `go infinite` without a `bestmove`, and the engine exits.
    fn finish(&mut self) {
        let mut tail = Vec::new();
        self.feed(b"newgame kalah\ngo infinite\n".to_vec(), &mut tail);
        self.stats.gos -= 1;
        // The `go infinite` must not answer: quit stops it silently.
        self.queues[Q_BESTMOVE].clear();
        self.quitting = true;
        self.send(tail);
        let _ = self.pump(Instant::now() + Duration::from_millis(50), |_| false, false);
        self.send(b"quit\n".to_vec());
        let status = self.proc.wait_exit(QUIT_TIMEOUT);
        // Whatever it printed last.
        while let Ok(msg) = self.proc.msgs.recv_timeout(Duration::from_millis(200)) {
            self.on_msg(msg);
        }
        self.read_memory();
        match status {
            Some(s) if s.success() => {}
            Some(s) => self.fail(Fail::Quit, format!("after quit the engine exited with {s}")),
            None => self.fail(
                Fail::Quit,
                "the engine did not exit within 5 s of quit".into(),
            ),
        }
    }
}

fn env_u64(name: &str) -> Option<u64> {
    let text = std::env::var(name).ok()?;
    let text = text.replace('_', "");
    Some(
        text.trim()
            .parse()
            .unwrap_or_else(|_| panic!("{name} must be a whole number, got '{text}'")),
    )
}

fn fuzz(seed: u64, lines: u64, time_cap: Option<Duration>, progress: bool) -> Stats {
    let mut fuzzer = Fuzzer::new(seed);
    fuzzer.run(lines, time_cap, progress);
    let stats = std::mem::take(&mut fuzzer.stats);
    println!("{}", stats.summary(seed));
    println!("{}", stats.coverage());
    eprintln!("{}", stats.summary(seed));
    eprintln!("{}", stats.coverage());
    for detail in &stats.details {
        eprintln!("  {detail}");
    }
    for note in stats.notes.iter().chain(&stats.stall_notes) {
        eprintln!("  note: {note}");
    }
    for path in &stats.repro {
        eprintln!("  repro: {}", path.display());
    }
    stats
}

fn assert_clean(stats: &Stats, seed: u64) {
    assert!(
        stats.failures() == 0,
        "the protocol fuzzer found {} failures (seed {seed}):\n{}\nrepro files:\n{}",
        stats.failures(),
        stats.details.join("\n"),
        stats
            .repro
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// The CI budget: 130 000 lines (about 40 s on a 2-core machine) or 50 s, whichever comes
/// first.
#[test]
fn fuzz_short() {
    let seed = env_u64("SOWFAN_FUZZ_SEED").unwrap_or(1);
    let stats = fuzz(seed, 130_000, Some(Duration::from_secs(50)), false);
    assert!(
        stats.bestmoves > 100,
        "too few searches: {}",
        stats.bestmoves
    );
    assert_clean(&stats, seed);
}

/// The long run: `SOWFAN_FUZZ_LINES` lines (default 2 000 000), `SOWFAN_FUZZ_SECONDS` at most.
#[test]
#[ignore = "long: run with --ignored (see the top of tests/it/fuzz.rs)"]
fn fuzz_long() {
    let seed = env_u64("SOWFAN_FUZZ_SEED").unwrap_or(1);
    let lines = env_u64("SOWFAN_FUZZ_LINES").unwrap_or(2_000_000);
    let cap = env_u64("SOWFAN_FUZZ_SECONDS").map(Duration::from_secs);
    let stats = fuzz(seed, lines, cap, true);
    assert_clean(&stats, seed);
}
