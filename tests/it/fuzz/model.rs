//! The model of the engine's state, and what it must answer.

use sowfan::game::Player;
use sowfan::protocol::request::{self, Query, Request as Cmd};
use sowfan::registry::{self, GAMES};
use sowfan::session::Session;

use super::{MARKER, clip};

/// What the engine must answer to one line.
pub(super) enum Expect {
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
pub(super) const Q_BESTMOVE: usize = 0;
pub(super) const Q_RESPONSE: usize = 1;
pub(super) const Q_LEGAL: usize = 2;
pub(super) const Q_FEN: usize = 3;
pub(super) const Q_IDENT: usize = 4;
pub(super) const Q_PERFT: usize = 5;
pub(super) const Q_BENCH: usize = 6;
pub(super) const Q_NOTE: usize = 7;
pub(super) const QUEUES: usize = 8;
pub(super) const QUEUE_NAMES: [&str; QUEUES] = [
    "bestmove", "response", "legal", "d", "uciok", "perft", "bench", "error",
];

pub(super) fn queue_of(expect: &Expect) -> Option<usize> {
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

pub(super) fn describe(expect: &Expect) -> String {
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
pub(super) struct Model {
    pub(super) session: Box<dyn Session>,
    /// The `key=value` options the current game was built with (as the engine keeps them).
    game_options: Vec<String>,
    ponder: bool,
    /// `setoption` lines that took effect, by option, for the repro preamble.
    settings: Vec<(String, String)>,
    /// The last accepted `position` line since the game was chosen.
    position: Option<String>,
}

impl Model {
    pub(super) fn new() -> Model {
        Model {
            session: registry::create(GAMES[0].name, &[]).expect("the default game"),
            game_options: Vec::new(),
            ponder: false,
            settings: Vec::new(),
            position: None,
        }
    }

    pub(super) fn variant(&self) -> String {
        let spec = self.session.spec();
        spec.split_whitespace()
            .next()
            .unwrap_or("kalah")
            .to_string()
    }

    /// Lines that bring a fresh engine to this state (the repetition history of a
    /// `position fen` aside, the same).
    pub(super) fn preamble(&self) -> String {
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
    pub(super) fn apply(&mut self, text: &str, out: &mut Vec<Expect>) -> &'static str {
        let command = match request::parse(text) {
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
            "contempt" => value
                .and_then(|v| v.trim().parse::<i32>().ok())
                .is_some_and(|n| (-500..=500).contains(&n)),
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
            "eval" => matches!(
                value.map(str::to_ascii_lowercase).as_deref(),
                Some("network" | "classic")
            ),
            // The fuzzer names no network file (see lines.rs): only "none" is accepted.
            "evalfile" => matches!(value.unwrap_or("").trim(), "" | "<empty>"),
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
                "hash" | "threads" | "multipv" | "move overhead" | "contempt" | "ponder"
            )
        {
            let line = line.trim_end_matches(['\r', '\n']).to_string();
            self.settings.retain(|(k, _)| *k != key);
            self.settings.push((key, line));
        }
    }
}
