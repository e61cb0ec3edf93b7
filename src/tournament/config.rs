//! What a match is made of, parsed from the command line's `key=value` lists: engines (as
//! cutechess/fastchess users write them), time controls, openings, the SPRT.
//!
//! Every error says which key was wrong and what is accepted.

use std::path::PathBuf;
use std::time::Duration;

use crate::openings::OpeningsSpec;

/// How the runner talks to an engine: the handshake word and the clock names in `go`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Proto {
    /// `ugi` … `ugiok`; `go p1time p2time p1inc p2inc`.
    Ugi,
    /// `uci` … `uciok`; `go wtime btime winc binc` (white = the player who moves first).
    Uci,
}

impl Proto {
    pub fn hello(self) -> &'static str {
        match self {
            Proto::Ugi => "ugi",
            Proto::Uci => "uci",
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

/// A chess clock: `moves` moves (all the rest when `None`) in `base`, plus `inc` a move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimeControl {
    pub moves: Option<u32>,
    pub base: Duration,
    pub inc: Duration,
}

impl TimeControl {
    /// `[moves/]base[+inc]`, times in seconds (`10`, `0.5`, `1:30`), e.g. `10+0.1`, `40/60`.
    pub fn parse(text: &str) -> Result<TimeControl, String> {
        let usage = "expected tc=[moves/]base[+inc] with times in seconds, e.g. tc=10+0.1, \
                     tc=1:30+1 or tc=40/60";
        let (moves, rest) = match text.split_once('/') {
            Some((moves, rest)) => match moves.parse::<u32>() {
                Ok(n) if n > 0 => (Some(n), rest),
                _ => return Err(format!("tc={text}: '{moves}' is not a move count; {usage}")),
            },
            None => (None, text),
        };
        let (base, inc) = match rest.split_once('+') {
            Some((base, inc)) => (base, Some(inc)),
            None => (rest, None),
        };
        let base = parse_seconds(base)
            .ok_or_else(|| format!("tc={text}: '{base}' is not a time; {usage}"))?;
        if base.is_zero() {
            return Err(format!(
                "tc={text}: the base time must be more than 0; {usage}"
            ));
        }
        let inc = match inc {
            Some(inc) => parse_seconds(inc)
                .ok_or_else(|| format!("tc={text}: '{inc}' is not a time; {usage}"))?,
            None => Duration::ZERO,
        };
        Ok(TimeControl { moves, base, inc })
    }
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
pub fn parse_engine(words: &[String], each: &[String]) -> Result<EngineSpec, String> {
    let spec = parse_engine_keys(words, each)?;
    if spec.limits == SearchLimits::default() {
        return Err(format!(
            "engine '{}' has no search limit: give depth=, nodes=, movetime= or tc= \
             (on the engine or with --each)",
            spec.command_line()
        ));
    }
    Ok(spec)
}

/// [`parse_engine`] without its demand for a search limit: for tools that choose their own
/// `go` limits (`sowfan check`). The same keys, the same errors otherwise.
pub fn parse_engine_keys(words: &[String], each: &[String]) -> Result<EngineSpec, String> {
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
            return Err(format!("'{word}' is not key=value (keys: {ENGINE_KEYS})"));
        };
        let bad = |what: &str| format!("{key}={value}: {what}");
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
                _ => return Err(format!("unknown engine key '{key}' (keys: {ENGINE_KEYS})")),
            },
        }
    }
    let Some(cmd) = cmd else {
        return Err(format!(
            "an engine needs cmd=<command> (keys: {ENGINE_KEYS}), got '{}'",
            words.join(" ")
        ));
    };
    // `cmd=` may carry arguments separated by spaces; arg= is for one containing spaces.
    let mut parts = cmd.split_whitespace().map(String::from);
    let Some(program) = parts.next() else {
        return Err("cmd= is empty".to_string());
    };
    let mut all_args: Vec<String> = parts.collect();
    all_args.extend(args);
    if limits.movetime.is_some() && limits.tc.is_some() {
        return Err(format!(
            "engine '{cmd}': movetime= and tc= exclude each other; give one"
        ));
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

pub fn parse_openings(words: &[String]) -> Result<OpeningsSpec, String> {
    let usage = "expected --openings plies=<k> or --openings file=<path> [order=sequential|random]";
    let mut plies = None;
    let mut file = None;
    let mut random_order = false;
    for word in words {
        match word.split_once('=') {
            Some(("plies", v)) => {
                plies = Some(
                    v.parse::<usize>()
                        .map_err(|_| format!("plies={v}: expected a number of moves; {usage}"))?,
                )
            }
            Some(("file", v)) => file = Some(PathBuf::from(v)),
            Some(("order", "sequential")) => random_order = false,
            Some(("order", "random")) => random_order = true,
            _ => return Err(format!("--openings: bad '{word}'; {usage}")),
        }
    }
    match (plies, file) {
        (Some(plies), None) => {
            if random_order {
                return Err(format!("--openings: order= applies to file= only; {usage}"));
            }
            Ok(OpeningsSpec::Random { plies })
        }
        (None, Some(path)) => Ok(OpeningsSpec::File { path, random_order }),
        _ => Err(format!("--openings: give either plies= or file=; {usage}")),
    }
}

/// A sequential probability ratio test: H0 "the first engine is elo0 stronger" against
/// H1 "elo1 stronger", with false-positive rate `alpha` and false-negative rate `beta`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SprtSpec {
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
}

pub fn parse_sprt(words: &[String]) -> Result<SprtSpec, String> {
    let usage = "expected --sprt elo0=<elo> elo1=<elo> [alpha=0.05] [beta=0.05]";
    let (mut elo0, mut elo1, mut alpha, mut beta) = (None, None, 0.05, 0.05);
    for word in words {
        let Some((key, value)) = word.split_once('=') else {
            return Err(format!("--sprt: bad '{word}'; {usage}"));
        };
        let number: f64 = value
            .parse()
            .ok()
            .filter(|v: &f64| v.is_finite())
            .ok_or_else(|| format!("--sprt: {key}={value} is not a number; {usage}"))?;
        match key {
            "elo0" => elo0 = Some(number),
            "elo1" => elo1 = Some(number),
            "alpha" => alpha = number,
            "beta" => beta = number,
            _ => return Err(format!("--sprt: unknown key '{key}'; {usage}")),
        }
    }
    let (Some(elo0), Some(elo1)) = (elo0, elo1) else {
        return Err(format!("--sprt: elo0= and elo1= are required; {usage}"));
    };
    if elo1 <= elo0 {
        return Err(format!(
            "--sprt: elo1 ({elo1}) must be greater than elo0 ({elo0})"
        ));
    }
    for (name, p) in [("alpha", alpha), ("beta", beta)] {
        if !(p > 0.0 && p < 0.5) {
            return Err(format!("--sprt: {name}={p} must be between 0 and 0.5"));
        }
    }
    Ok(SprtSpec {
        elo0,
        elo1,
        alpha,
        beta,
    })
}

/// Who plays whom when more than two engines are given (`--tournament`; the variants'
/// comments are its help).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum TournamentKind {
    /// Every engine plays every other.
    RoundRobin,
    /// The first engine plays each of the others.
    Gauntlet,
}

/// Everything a match needs.
#[derive(Debug, Clone)]
pub struct MatchConfig {
    pub engines: Vec<EngineSpec>,
    /// The game and its options as after `newgame`.
    pub game: String,
    /// Games per pairing; openings are played in pairs with colours swapped.
    pub games: usize,
    pub concurrency: usize,
    pub seed: u64,
    pub openings: Option<OpeningsSpec>,
    pub sprt: Option<SprtSpec>,
    /// JSON Lines, one game a line, written as each game ends.
    pub records: Option<PathBuf>,
    /// The same games as PGN-like text.
    pub pgn: Option<PathBuf>,
    pub tournament: TournamentKind,
    /// Time allowed for `ugiok`/`uciok`, `readyok`, and the `bestmove` after `stop`.
    pub ready_timeout: Duration,
    /// Time allowed for a search without a clock (depth= / nodes=) before the engine is
    /// declared hung, loses, and is killed.
    pub move_timeout: Duration,
    /// Adjudicate a draw after this many moves (opening included); `None`: never.
    pub max_plies: Option<usize>,
    /// Print a line for every finished game.
    pub show_games: bool,
}

/// The pairings (engine indices; the first named plays P1 in the first game of each pair).
pub fn pairings(engines: usize, kind: TournamentKind) -> Vec<(usize, usize)> {
    match kind {
        TournamentKind::RoundRobin => (0..engines)
            .flat_map(|a| (a + 1..engines).map(move |b| (a, b)))
            .collect(),
        TournamentKind::Gauntlet => (1..engines).map(|b| (0, b)).collect(),
    }
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
            let e = parse_engine(&words(input), &[]).unwrap_err();
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
    fn openings_and_sprt() {
        assert_eq!(
            parse_openings(&words("plies=8")).unwrap(),
            OpeningsSpec::Random { plies: 8 }
        );
        assert_eq!(
            parse_openings(&words("file=o.txt order=random")).unwrap(),
            OpeningsSpec::File {
                path: PathBuf::from("o.txt"),
                random_order: true
            }
        );
        assert!(parse_openings(&words("plies=2 file=x")).is_err());
        assert!(parse_openings(&words("plies=two")).is_err());
        let s = parse_sprt(&words("elo0=0 elo1=10")).unwrap();
        assert_eq!((s.elo0, s.elo1, s.alpha, s.beta), (0.0, 10.0, 0.05, 0.05));
        assert!(parse_sprt(&words("elo0=5 elo1=0")).is_err());
        assert!(parse_sprt(&words("elo0=0 elo1=5 alpha=0.7")).is_err());
        assert!(parse_sprt(&words("elo1=5")).is_err());
    }

    #[test]
    fn pairings_by_kind() {
        assert_eq!(
            pairings(3, TournamentKind::RoundRobin),
            vec![(0, 1), (0, 2), (1, 2)]
        );
        assert_eq!(pairings(3, TournamentKind::Gauntlet), vec![(0, 1), (0, 2)]);
        assert_eq!(pairings(2, TournamentKind::Gauntlet), vec![(0, 1)]);
    }
}
