//! An engine as `sowfan match --engine` and `sowfan check --engine` describe it: the
//! `key=value` words (as cutechess/fastchess users write them), parsed into an
//! [`EngineSpec`]: the program, how to talk to it, its options and its search limits.
//!
//! Every error says which key was wrong and what is accepted.

use std::path::PathBuf;
use std::time::Duration;

use thiserror::Error;

/// How the runner talks to an engine: the handshake word and the clock names in `go`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Proto {
    /// `ugi` … `ugiok`; `go p1time p2time p1inc p2inc`.
    Ugi,
    /// `uci` … `uciok`; `go wtime btime winc binc` (white = the player who moves first).
    Uci,
}

impl Proto {
    /// The first line to the engine; it answers with this word and `ok`.
    pub fn hello(self) -> &'static str {
        match self {
            Proto::Ugi => "ugi",
            Proto::Uci => "uci",
        }
    }

    /// The engine's answer to [`hello`](Self::hello): `ugiok` or `uciok`.
    pub fn hello_ok(self) -> &'static str {
        match self {
            Proto::Ugi => "ugiok",
            Proto::Uci => "uciok",
        }
    }

    /// The line that starts a new game: `uginewgame` or `ucinewgame`.
    pub fn new_game(self) -> &'static str {
        match self {
            Proto::Ugi => "uginewgame",
            Proto::Uci => "ucinewgame",
        }
    }

    /// The words of `go` for the clocks of P1 and P2 (`p1time p2time`, or `wtime btime`
    /// with white the player who moves first), and for their increments.
    pub fn clock_words(self) -> ([&'static str; 2], [&'static str; 2]) {
        match self {
            Proto::Ugi => (["p1time", "p2time"], ["p1inc", "p2inc"]),
            Proto::Uci => (["wtime", "btime"], ["winc", "binc"]),
        }
    }
}

/// How the runner tells an engine which game (and options) to play.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Setup {
    /// `newgame <game> [key=value …]` (sowfan's own command).
    NewGame,
    /// `setoption name UCI_Variant value <game>`, `setoption name GameOptions value <options>`,
    /// then `ucinewgame` / `uginewgame` (for engines and GUIs in the Fairy-Stockfish style).
    SetOption,
}

impl Setup {
    /// The word of `setup=`.
    pub fn name(self) -> &'static str {
        match self {
            Setup::NewGame => "newgame",
            Setup::SetOption => "setoption",
        }
    }

    /// The lines that name the game and its options (`game_spec`, as after `newgame`) this
    /// way; the `setoption` way also needs [`Proto::new_game`] after them.
    pub fn game_lines(self, game_spec: &str) -> Vec<String> {
        match self {
            Setup::NewGame => vec![format!("newgame {game_spec}")],
            Setup::SetOption => {
                let mut words = game_spec.split_whitespace();
                let variant = words.next().unwrap_or_default();
                let options: Vec<&str> = words.collect();
                let options = if options.is_empty() {
                    "<empty>".to_string()
                } else {
                    options.join(" ")
                };
                vec![
                    format!("setoption name UCI_Variant value {variant}"),
                    format!("setoption name GameOptions value {options}"),
                ]
            }
        }
    }
}

/// A chess clock: `moves` moves (all the rest when `None`) in `base`, plus `inc` a move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimeControl {
    pub moves: Option<u32>,
    pub base: Duration,
    pub inc: Duration,
}

impl TimeControl {
    /// `[moves/]base[+inc]`, times in seconds (`10`, `0.5`, `1:30`), e.g. `10+0.1`, `40/60`.
    pub fn parse(text: &str) -> Result<TimeControl, TimeControlError> {
        let not_a_time = |part: &str| TimeControlError::NotATime {
            text: text.to_string(),
            part: part.to_string(),
        };
        let (moves, rest) = match text.split_once('/') {
            Some((moves, rest)) => match moves.parse::<u32>() {
                Ok(n) if n > 0 => (Some(n), rest),
                _ => {
                    return Err(TimeControlError::NotAMoveCount {
                        text: text.to_string(),
                        moves: moves.to_string(),
                    });
                }
            },
            None => (None, text),
        };
        let (base, inc) = match rest.split_once('+') {
            Some((base, inc)) => (base, Some(inc)),
            None => (rest, None),
        };
        let base = parse_seconds(base).ok_or_else(|| not_a_time(base))?;
        if base.is_zero() {
            return Err(TimeControlError::NoBase(text.to_string()));
        }
        let inc = match inc {
            Some(inc) => parse_seconds(inc).ok_or_else(|| not_a_time(inc))?,
            None => Duration::ZERO,
        };
        Ok(TimeControl { moves, base, inc })
    }
}

/// What `tc=` accepts, said after each of its errors.
const TC_USAGE: &str = "expected tc=[moves/]base[+inc] with times in seconds, e.g. tc=10+0.1, \
                        tc=1:30+1 or tc=40/60";

/// Why a `tc=` text is no time control.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum TimeControlError {
    #[error("tc={text}: '{moves}' is not a move count; {TC_USAGE}")]
    NotAMoveCount { text: String, moves: String },
    #[error("tc={text}: '{part}' is not a time; {TC_USAGE}")]
    NotATime { text: String, part: String },
    #[error("tc={0}: the base time must be more than 0; {TC_USAGE}")]
    NoBase(String),
}

impl std::fmt::Display for TimeControl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some(moves) = self.moves {
            write!(f, "{moves}/")?;
        }
        write!(f, "{}", self.base.as_secs_f64())?;
        if !self.inc.is_zero() {
            write!(f, "+{}", self.inc.as_secs_f64())?;
        }
        Ok(())
    }
}

/// Seconds as `12`, `0.25` or `m:ss` (`1:30`, `2:05.5`).
fn parse_seconds(text: &str) -> Option<Duration> {
    let seconds = match text.split_once(':') {
        Some((minutes, seconds)) => {
            let minutes: u64 = minutes.parse().ok()?;
            let seconds: f64 = seconds.parse().ok()?;
            if !(0.0..60.0).contains(&seconds) {
                return None;
            }
            minutes as f64 * 60.0 + seconds
        }
        None => text.parse::<f64>().ok()?,
    };
    (0.0..1e9)
        .contains(&seconds)
        .then(|| Duration::from_secs_f64(seconds))
}

/// What each `go` asks of an engine. At least one limit is set.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SearchLimits {
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
    pub movetime: Option<Duration>,
    pub tc: Option<TimeControl>,
}

impl SearchLimits {
    /// The fixed limits as `go` words, each after a space: ` movetime 100 depth 9 nodes 5000`
    /// (the clock words are the caller's, who keeps the clocks).
    pub fn go_words(&self) -> String {
        let mut words = String::new();
        if let Some(t) = self.movetime {
            words.push_str(&format!(" movetime {}", t.as_millis()));
        }
        if let Some(d) = self.depth {
            words.push_str(&format!(" depth {d}"));
        }
        if let Some(n) = self.nodes {
            words.push_str(&format!(" nodes {n}"));
        }
        words
    }

    /// `depth=6`, `nodes=1000`, `movetime=100ms`, `tc=10+0.1`, joined by spaces.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(d) = self.depth {
            parts.push(format!("depth={d}"));
        }
        if let Some(n) = self.nodes {
            parts.push(format!("nodes={n}"));
        }
        if let Some(t) = self.movetime {
            parts.push(format!("movetime={}", t.as_millis()));
        }
        if let Some(tc) = self.tc {
            parts.push(format!("tc={tc}"));
        }
        parts.join(" ")
    }
}

/// One `--engine` after `--each` was merged in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EngineSpec {
    /// From `name=`; otherwise the engine's `id name`, decided when it first starts.
    pub name: Option<String>,
    pub program: String,
    pub args: Vec<String>,
    pub dir: Option<PathBuf>,
    pub proto: Proto,
    pub setup: Setup,
    /// `option.<Name>=<value>`, sent as `setoption name <Name> value <value>` in this order.
    pub options: Vec<(String, String)>,
    pub limits: SearchLimits,
    /// How far past its clock (or movetime) an engine may answer before it loses on time.
    pub timemargin: Duration,
    /// Start a fresh process for every game.
    pub restart: bool,
}

impl EngineSpec {
    /// The command line, for messages: `./engine --flag`.
    pub fn command_line(&self) -> String {
        let mut text = self.program.clone();
        for arg in &self.args {
            text.push(' ');
            text.push_str(arg);
        }
        text
    }
}

/// The default `timemargin`: enough for a loaded machine's scheduling and pipe delays.
pub const DEFAULT_TIME_MARGIN_MS: u64 = 100;

pub const ENGINE_KEYS: &str = "cmd=, arg=, args=, dir=, name=, proto=ugi|uci, \
setup=newgame|setoption, option.<Name>=, depth=, nodes=, movetime=<ms>, tc=[moves/]base[+inc], \
timemargin=<ms>, restart=on|off";

/// Build one engine from its `key=value` words; `each` (from `--each`) come first, so the
/// engine's own keys override them (options accumulate, later ones win).
pub fn parse_engine(words: &[String], each: &[String]) -> Result<EngineSpec, EngineSpecError> {
    let spec = parse_engine_keys(words, each)?;
    if spec.limits == SearchLimits::default() {
        return Err(EngineSpecError::NoLimit(spec.command_line()));
    }
    Ok(spec)
}

/// Why an engine's `key=value` words are no engine.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum EngineSpecError {
    #[error("'{0}' is not key=value (keys: {ENGINE_KEYS})")]
    NotKeyValue(String),
    /// A known key whose value is not one it takes: `what` says what it takes.
    #[error("{key}={value}: {what}")]
    BadValue {
        key: String,
        value: String,
        what: &'static str,
    },
    #[error(transparent)]
    TimeControl(#[from] TimeControlError),
    #[error("unknown engine key '{0}' (keys: {ENGINE_KEYS})")]
    UnknownKey(String),
    #[error("an engine needs cmd=<command> (keys: {ENGINE_KEYS}), got '{0}'")]
    NoCommand(String),
    #[error("cmd= is empty")]
    EmptyCommand,
    #[error("engine '{0}': movetime= and tc= exclude each other; give one")]
    MovetimeAndTc(String),
    #[error(
        "engine '{0}' has no search limit: give depth=, nodes=, movetime= or tc= (on the \
         engine or with --each)"
    )]
    NoLimit(String),
}

/// [`parse_engine`] without its demand for a search limit: for tools that choose their own
/// `go` limits (`sowfan check`). The same keys, the same errors otherwise.
pub fn parse_engine_keys(words: &[String], each: &[String]) -> Result<EngineSpec, EngineSpecError> {
    let mut cmd: Option<String> = None;
    let mut args = Vec::new();
    let mut name = None;
    let mut dir = None;
    let mut proto = Proto::Ugi;
    let mut setup = Setup::NewGame;
    let mut options: Vec<(String, String)> = Vec::new();
    let mut limits = SearchLimits::default();
    let mut timemargin = Duration::from_millis(DEFAULT_TIME_MARGIN_MS);
    let mut restart = false;
    for word in each.iter().chain(words) {
        let Some((key, value)) = word.split_once('=') else {
            return Err(EngineSpecError::NotKeyValue(word.clone()));
        };
        let bad = |what: &'static str| EngineSpecError::BadValue {
            key: key.to_string(),
            value: value.to_string(),
            what,
        };
        match key {
            "cmd" => cmd = Some(value.to_string()),
            "arg" => args.push(value.to_string()),
            "args" => args.extend(value.split_whitespace().map(String::from)),
            "dir" => dir = Some(PathBuf::from(value)),
            "name" => {
                if value.trim().is_empty() {
                    return Err(bad("the name is empty"));
                }
                name = Some(value.to_string())
            }
            "proto" => {
                proto = match value {
                    "ugi" => Proto::Ugi,
                    "uci" => Proto::Uci,
                    _ => return Err(bad("expected ugi or uci")),
                }
            }
            "setup" => {
                setup = match value {
                    "newgame" => Setup::NewGame,
                    "setoption" => Setup::SetOption,
                    _ => return Err(bad("expected newgame or setoption")),
                }
            }
            "depth" => {
                limits.depth = Some(match value.parse::<u32>() {
                    Ok(d) if d > 0 => d,
                    _ => return Err(bad("expected a depth of at least 1")),
                })
            }
            "nodes" => {
                limits.nodes = Some(match value.parse::<u64>() {
                    Ok(n) if n > 0 => n,
                    _ => return Err(bad("expected a node count of at least 1")),
                })
            }
            "movetime" => {
                limits.movetime = Some(match value.parse::<u64>() {
                    Ok(ms) if ms > 0 => Duration::from_millis(ms),
                    _ => return Err(bad("expected milliseconds, at least 1")),
                })
            }
            "tc" => limits.tc = Some(TimeControl::parse(value)?),
            "timemargin" => {
                timemargin = Duration::from_millis(
                    value
                        .parse::<u64>()
                        .map_err(|_| bad("expected milliseconds"))?,
                )
            }
            "restart" => {
                restart = match value {
                    "on" => true,
                    "off" => false,
                    _ => return Err(bad("expected on or off")),
                }
            }
            _ => match key.strip_prefix("option.") {
                Some(option) if !option.trim().is_empty() => {
                    options.retain(|(n, _)| !n.eq_ignore_ascii_case(option));
                    options.push((option.to_string(), value.to_string()));
                }
                _ => return Err(EngineSpecError::UnknownKey(key.to_string())),
            },
        }
    }
    let Some(cmd) = cmd else {
        return Err(EngineSpecError::NoCommand(words.join(" ")));
    };
    // `cmd=` may carry arguments separated by spaces; arg= is for one containing spaces.
    let mut parts = cmd.split_whitespace().map(String::from);
    let Some(program) = parts.next() else {
        return Err(EngineSpecError::EmptyCommand);
    };
    let mut all_args: Vec<String> = parts.collect();
    all_args.extend(args);
    if limits.movetime.is_some() && limits.tc.is_some() {
        return Err(EngineSpecError::MovetimeAndTc(cmd));
    }
    Ok(EngineSpec {
        name,
        program,
        args: all_args,
        dir,
        proto,
        setup,
        options,
        limits,
        timemargin,
        restart,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Words split at spaces; `~` stands for a space inside a word.
    fn words(text: &str) -> Vec<String> {
        text.split(' ').map(|w| w.replace('~', " ")).collect()
    }

    #[test]
    fn engine_keys_and_each() {
        let e = parse_engine(
            &words("cmd=./eng~--fast name=A option.Hash=32 depth=6 proto=uci"),
            &words("option.Hash=8 option.Threads=1 tc=10+0.1 timemargin=50"),
        )
        .unwrap();
        assert_eq!(e.program, "./eng");
        assert_eq!(e.args, vec!["--fast"]);
        assert_eq!(e.name.as_deref(), Some("A"));
        assert_eq!(e.proto, Proto::Uci);
        assert_eq!(
            e.options,
            vec![
                ("Threads".to_string(), "1".to_string()),
                ("Hash".to_string(), "32".to_string())
            ]
        );
        assert_eq!(e.limits.depth, Some(6));
        assert_eq!(
            e.limits.tc,
            Some(TimeControl {
                moves: None,
                base: Duration::from_secs(10),
                inc: Duration::from_millis(100)
            })
        );
        assert_eq!(e.timemargin, Duration::from_millis(50));
        let e = parse_engine(&words("cmd=x arg=a_b args=c nodes=5"), &[]).unwrap();
        assert_eq!(e.args, vec!["a_b", "c"]);
    }

    #[test]
    fn engine_errors_say_what_is_wrong() {
        for (input, expected) in [
            ("depth=3", "needs cmd="),
            ("cmd=x", "no search limit"),
            ("cmd=x depth=0", "at least 1"),
            ("cmd=x depth=2 colour=red", "unknown engine key 'colour'"),
            ("cmd=x depth=2 proto=xboard", "ugi or uci"),
            ("cmd=x movetime=10 tc=1", "exclude each other"),
            ("cmd=x tc=fast", "not a time"),
            ("cmd=x depth", "not key=value"),
        ] {
            let e = parse_engine(&words(input), &[]).unwrap_err().to_string();
            assert!(e.contains(expected), "{input}: {e}");
        }
    }

    #[test]
    fn time_controls() {
        let tc = TimeControl::parse("40/1:30+0.5").unwrap();
        assert_eq!(tc.moves, Some(40));
        assert_eq!(tc.base, Duration::from_secs(90));
        assert_eq!(tc.inc, Duration::from_millis(500));
        assert_eq!(tc.to_string(), "40/90+0.5");
        assert_eq!(
            TimeControl::parse("0.2").unwrap().base,
            Duration::from_millis(200)
        );
        for bad in ["0", "-1", "1+x", "x/10", "0/10", "1:75", "inf", ""] {
            assert!(TimeControl::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn game_lines_of_each_setup() {
        assert_eq!(
            Setup::NewGame.game_lines("kalah pits=4"),
            vec!["newgame kalah pits=4"]
        );
        assert_eq!(
            Setup::SetOption.game_lines("kalah pits=4 seeds=3"),
            vec![
                "setoption name UCI_Variant value kalah",
                "setoption name GameOptions value pits=4 seeds=3"
            ]
        );
        assert_eq!(
            Setup::SetOption.game_lines("afrika")[1],
            "setoption name GameOptions value <empty>"
        );
    }
}
