//! Protocol lines of every form, from real games of the current game: random games give
//! real move sequences and position strings, and a generator turns them into lines.

use std::collections::HashMap;

use sowfan::game::Player;
use sowfan::options::{OptionKind, OptionSpec};
use sowfan::protocol::request::Request as Cmd;
use sowfan::registry::{self, GAMES, GameEntry};
use sowfan::session::Session;

use super::model::Model;
use super::vocabulary::{EXTREMES, GO_PARAMS, ODD_UNICODE, OPTION_NAMES, WORDS};
use crate::support::rng::Rng;

pub(super) struct GameLine {
    pub(super) moves: Vec<String>,
    /// `fens[i]`: the position after `i` moves.
    fens: Vec<String>,
}

#[derive(Default)]
pub(super) struct Corpus {
    games: HashMap<String, Vec<GameLine>>,
}

impl Corpus {
    /// A random game of `session`'s game (options included), from its start.
    pub(super) fn line(&mut self, session: &dyn Session, rng: &mut Rng) -> &GameLine {
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

/// What a generated line costs the engine.
pub(super) enum Cost {
    /// Cheap enough to send as it is.
    Fine,
    /// A search that may not end soon by itself: a `stop` must follow.
    NeedsStop,
    /// Too slow or heavy for the budget (or `quit`): generate another line.
    Reject,
}

pub(super) fn cost(command: &Cmd, to_move: Player) -> Cost {
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
pub(super) fn engine_lines(bytes: &[u8]) -> impl Iterator<Item = String> + '_ {
    let mut parts: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
    if bytes.ends_with(b"\n") {
        parts.pop();
    }
    parts
        .into_iter()
        .map(|p| String::from_utf8_lossy(p).into_owned())
}

pub(super) struct Generator {
    pub(super) rng: Rng,
    pub(super) corpus: Corpus,
}

impl Generator {
    /// One protocol line, before mutation and without its line end.
    pub(super) fn base_line(&mut self, model: &Model) -> Vec<u8> {
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

    pub(super) fn number(&mut self) -> String {
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
            "contempt" => Some(self.rng.range(-600, 600).to_string()),
            "clear hash" => None,
            "eval" => Some(
                self.rng
                    .pick(&["network", "classic", "Classic", "NETWORK", "nnue", ""])
                    .to_string(),
            ),
            // Files that are no network (a directory, a device, a text file, none), or
            // none at all: a network that is set makes every game change warn when it does
            // not fit, which the model leaves to tests/it/nnue.rs.
            "evalfile" => Some(
                self.rng
                    .pick(&[
                        "<empty>",
                        "",
                        "/nonexistent/sowfan.nnue",
                        "/dev/zero",
                        "/",
                        "Cargo.toml",
                    ])
                    .to_string(),
            ),
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
}
