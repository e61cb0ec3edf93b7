//! Protocol requests: each line a client sends, parsed with nom into one [`Request`]. The
//! first word of a line is its command (protocol.md, "Commands"); the parsed line is called
//! a request so that it is not taken for the command-line `Command` of a tool.
//!
//! Lines are whitespace-separated tokens (runs of spaces and tabs, `\r` ignored). Parsing
//! never panics and never guesses: anything it does not understand is a [`RequestError`]
//! whose message says what was expected.

use nom::bytes::complete::take_till1;
use nom::character::complete::space0;
use nom::sequence::preceded;
use nom::{IResult, Parser};
use thiserror::Error;

use crate::search::limits::Limits;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Query {
    P1Turn,
    GameOver,
    Result,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Request {
    Uci,
    Ugi,
    Debug(bool),
    IsReady,
    SetOption {
        name: String,
        value: Option<String>,
    },
    /// `ucinewgame` / `uginewgame`: same game, back to the start, empty hash.
    NewGameReset,
    /// `newgame <game> [key=value …]`.
    NewGame {
        game: String,
        options: Vec<String>,
    },
    Position {
        /// `None`: the start position.
        fen: Option<String>,
        moves: Vec<String>,
    },
    Go(Limits),
    Perft(u32),
    Stop,
    PonderHit,
    Quit,
    Query(Query),
    Display,
    Legal,
    Bench(Option<u32>),
    Help,
}

impl Request {
    /// Commands that only read the state; everything else waits for a running search.
    pub fn is_read_only(&self) -> bool {
        matches!(
            self,
            Request::Uci
                | Request::Ugi
                | Request::Debug(_)
                | Request::Query(_)
                | Request::Display
                | Request::Legal
                | Request::Help
        )
    }
}

pub const COMMANDS: &str = "uci, ugi, isready, setoption, ucinewgame, uginewgame, newgame, \
position, go, stop, ponderhit, quit, query, d, perft, legal, bench, help";

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum RequestError {
    #[error("unknown command '{0}' (commands: {COMMANDS})")]
    Unknown(String),
    #[error("{command}: {message}")]
    Invalid {
        command: &'static str,
        message: String,
    },
}

fn invalid(command: &'static str, message: impl Into<String>) -> RequestError {
    RequestError::Invalid {
        command,
        message: message.into(),
    }
}

/// One token: a run of non-blank characters after optional blanks.
fn token(input: &str) -> IResult<&str, &str> {
    preceded(space0, take_till1(|c: char| c == ' ' || c == '\t')).parse(input)
}

/// All remaining tokens.
fn tokens(mut input: &str) -> Vec<&str> {
    let mut out = Vec::new();
    while let Ok((rest, t)) = token(input) {
        out.push(t);
        input = rest;
    }
    out
}

/// A decimal integer of any length, saturated to ±(2^127 − 1) beyond that: numbers from a
/// client are judged by range in one place (see [`bounded`]), never wrapped.
fn integer(text: &str) -> Option<i128> {
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let magnitude = digits.bytes().fold(0i128, |n, b| {
        n.saturating_mul(10).saturating_add(i128::from(b - b'0'))
    });
    Some(if negative { -magnitude } else { magnitude })
}

/// A number for `what` in `min..=max`: below `min` is an error, above `max` saturates to
/// `max` (a depth or node count beyond what can be searched means "as much as possible").
fn bounded(
    text: &str,
    min: i128,
    max: i128,
    command: &'static str,
    what: &str,
) -> Result<i128, RequestError> {
    let n = integer(text)
        .ok_or_else(|| invalid(command, format!("'{what}' needs a number, got '{text}'")))?;
    if n < min {
        return Err(invalid(
            command,
            format!("'{what}' must be at least {min}, got {text}"),
        ));
    }
    Ok(n.min(max))
}

fn count_u32(text: &str, min: u32, command: &'static str, what: &str) -> Result<u32, RequestError> {
    bounded(text, min.into(), u32::MAX.into(), command, what).map(|n| n as u32)
}

fn count_u64(text: &str, command: &'static str, what: &str) -> Result<u64, RequestError> {
    bounded(text, 0, u64::MAX.into(), command, what).map(|n| n as u64)
}

/// A clock reading or increment in ms: any integer, saturated to the range of `i64`
/// (negative time left means the clock has run out: move now).
fn clock_ms(text: &str, what: &str) -> Result<i64, RequestError> {
    bounded(text, i128::MIN, i64::MAX.into(), "go", what).map(|n| n.max(i64::MIN.into()) as i64)
}

/// Parse one line. `Ok(None)` for a blank line.
pub fn parse(line: &str) -> Result<Option<Request>, RequestError> {
    let line = line.trim_end_matches(['\r', '\n']);
    let Ok((args, name)) = token(line) else {
        return Ok(None);
    };
    let command = match name {
        "uci" => Request::Uci,
        "ugi" => Request::Ugi,
        "isready" => Request::IsReady,
        "ucinewgame" | "uginewgame" => Request::NewGameReset,
        "stop" => Request::Stop,
        "ponderhit" => Request::PonderHit,
        "quit" => Request::Quit,
        "d" => Request::Display,
        "legal" => Request::Legal,
        "help" => Request::Help,
        "debug" => match tokens(args).as_slice() {
            ["on"] => Request::Debug(true),
            ["off"] | [] => Request::Debug(false),
            _ => return Err(invalid("debug", "expected 'debug on' or 'debug off'")),
        },
        "setoption" => parse_setoption(args)?,
        "newgame" => parse_newgame(args)?,
        "position" => parse_position(args)?,
        "go" => parse_go(args)?,
        "perft" => Request::Perft(parse_perft_depth(args, "perft")?),
        "query" => parse_query(args)?,
        "bench" => match tokens(args).as_slice() {
            [] => Request::Bench(None),
            [depth] => Request::Bench(Some(count_u32(depth, 1, "bench", "depth")?)),
            _ => return Err(invalid("bench", "expected 'bench' or 'bench <depth>'")),
        },
        other => return Err(RequestError::Unknown(other.to_string())),
    };
    // Commands without arguments reject stray tokens rather than ignore them.
    let takes_no_arguments = matches!(
        command,
        Request::Uci
            | Request::Ugi
            | Request::IsReady
            | Request::NewGameReset
            | Request::Stop
            | Request::PonderHit
            | Request::Quit
            | Request::Display
            | Request::Legal
            | Request::Help
    );
    if takes_no_arguments {
        let extra = tokens(args);
        if !extra.is_empty() {
            return Err(RequestError::Invalid {
                command: static_name(name),
                message: format!("takes no arguments, got '{}'", extra.join(" ")),
            });
        }
    }
    Ok(Some(command))
}

fn static_name(name: &str) -> &'static str {
    COMMANDS
        .split(", ")
        .find(|c| *c == name)
        .unwrap_or("command")
}

fn parse_perft_depth(args: &str, command: &'static str) -> Result<u32, RequestError> {
    match tokens(args).as_slice() {
        [depth] => count_u32(depth, 0, command, "depth"),
        _ => Err(invalid(command, "expected a depth, e.g. 'perft 6'")),
    }
}

fn parse_setoption(args: &str) -> Result<Request, RequestError> {
    let words = tokens(args);
    let usage = "expected 'setoption name <name> [value <value>]'";
    let Some((first, rest)) = words.split_first() else {
        return Err(invalid("setoption", usage));
    };
    if !first.eq_ignore_ascii_case("name") {
        return Err(invalid("setoption", usage));
    }
    let value_at = rest.iter().position(|w| w.eq_ignore_ascii_case("value"));
    let name_words = &rest[..value_at.unwrap_or(rest.len())];
    if name_words.is_empty() {
        return Err(invalid(
            "setoption",
            format!("the option name is missing: {usage}"),
        ));
    }
    let value = value_at.map(|i| rest[i + 1..].join(" "));
    Ok(Request::SetOption {
        name: name_words.join(" "),
        value,
    })
}

fn parse_newgame(args: &str) -> Result<Request, RequestError> {
    let words = tokens(args);
    let Some((game, options)) = words.split_first() else {
        return Err(invalid(
            "newgame",
            format!(
                "expected 'newgame <game> [key=value ...]' with a game among {}",
                crate::registry::names()
            ),
        ));
    };
    Ok(Request::NewGame {
        game: game.to_string(),
        options: options.iter().map(|s| s.to_string()).collect(),
    })
}

fn parse_position(args: &str) -> Result<Request, RequestError> {
    let usage = "expected 'position startpos [moves ...]', 'position fen <position> [moves ...]' \
                 or 'position moves ...'";
    let Ok((after, kind)) = token(args) else {
        return Err(invalid("position", usage));
    };
    let (fen, moves_part) = match kind {
        "startpos" => {
            let words = tokens(after);
            match words.split_first() {
                None => (None, Vec::new()),
                Some((&"moves", moves)) => (None, moves.to_vec()),
                Some((other, _)) => {
                    return Err(invalid(
                        "position",
                        format!("expected 'moves' after 'startpos', got '{other}'"),
                    ));
                }
            }
        }
        "fen" => {
            // The position string may contain spaces: it runs up to the token `moves`.
            let words = tokens(after);
            let at = words.iter().position(|w| *w == "moves");
            let fen_words = &words[..at.unwrap_or(words.len())];
            if fen_words.is_empty() {
                return Err(invalid(
                    "position",
                    "the position string after 'fen' is missing",
                ));
            }
            let moves = at.map(|i| words[i + 1..].to_vec()).unwrap_or_default();
            (Some(fen_words.join(" ")), moves)
        }
        "moves" => (None, tokens(after)),
        other => {
            return Err(invalid(
                "position",
                format!("unknown position kind '{other}': {usage}"),
            ));
        }
    };
    Ok(Request::Position {
        fen,
        moves: moves_part.iter().map(|s| s.to_string()).collect(),
    })
}

fn parse_go(args: &str) -> Result<Request, RequestError> {
    let words = tokens(args);
    if let Some(&"perft") = words.first() {
        return Ok(Request::Perft(parse_perft_depth(
            &words[1..].join(" "),
            "go perft",
        )?));
    }
    let mut limits = Limits::default();
    let mut i = 0;
    let value = |i: usize, key: &str| -> Result<&str, RequestError> {
        words
            .get(i + 1)
            .copied()
            .ok_or_else(|| invalid("go", format!("'{key}' needs a value")))
    };
    while i < words.len() {
        let key = words[i];
        match key {
            "infinite" => limits.infinite = true,
            "solve" => limits.solve = true,
            "ponder" => limits.ponder = true,
            "searchmoves" => {
                limits.searchmoves = words[i + 1..].iter().map(|s| s.to_string()).collect();
                if limits.searchmoves.is_empty() {
                    return Err(invalid("go", "'searchmoves' needs at least one move"));
                }
                break;
            }
            "depth" => {
                limits.depth = Some(count_u32(value(i, key)?, 1, "go", key)?);
                i += 1;
            }
            "nodes" => {
                limits.nodes = Some(count_u64(value(i, key)?, "go", key)?);
                i += 1;
            }
            "movetime" => {
                // Negative: no time at all (move now), like a clock that has run out.
                let ms = clock_ms(value(i, key)?, key)?;
                limits.movetime = Some(ms.max(0) as u64);
                i += 1;
            }
            "movestogo" => {
                limits.movestogo = Some(count_u32(value(i, key)?, 1, "go", key)?);
                i += 1;
            }
            "wtime" | "p1time" => {
                limits.time[0] = Some(clock_ms(value(i, key)?, key)?);
                i += 1;
            }
            "btime" | "p2time" => {
                limits.time[1] = Some(clock_ms(value(i, key)?, key)?);
                i += 1;
            }
            "winc" | "p1inc" => {
                limits.inc[0] = Some(clock_ms(value(i, key)?, key)?);
                i += 1;
            }
            "binc" | "p2inc" => {
                limits.inc[1] = Some(clock_ms(value(i, key)?, key)?);
                i += 1;
            }
            other => {
                return Err(invalid(
                    "go",
                    format!(
                        "unknown parameter '{other}' (depth, nodes, movetime, infinite, ponder, \
                         wtime, btime, winc, binc, movestogo, p1time, p2time, p1inc, p2inc, \
                         searchmoves, solve, perft)"
                    ),
                ));
            }
        }
        i += 1;
    }
    Ok(Request::Go(limits))
}

fn parse_query(args: &str) -> Result<Request, RequestError> {
    let usage = "expected 'query p1turn', 'query gameover' or 'query result'";
    match tokens(args).as_slice() {
        ["p1turn"] => Ok(Request::Query(Query::P1Turn)),
        ["gameover"] => Ok(Request::Query(Query::GameOver)),
        ["result"] => Ok(Request::Query(Query::Result)),
        [other] => Err(invalid(
            "query",
            format!("unknown query '{other}': {usage}"),
        )),
        _ => Err(invalid("query", usage)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(line: &str) -> Request {
        parse(line).unwrap().unwrap()
    }

    #[test]
    fn simple_commands_and_blank_lines() {
        assert_eq!(ok("uci"), Request::Uci);
        assert_eq!(ok("  isready \r"), Request::IsReady);
        assert_eq!(ok("uginewgame"), Request::NewGameReset);
        assert_eq!(parse("").unwrap(), None);
        assert_eq!(parse(" \t ").unwrap(), None);
        assert!(matches!(
            parse("isready now"),
            Err(RequestError::Invalid { .. })
        ));
        assert!(matches!(parse("xyzzy 1 2"), Err(RequestError::Unknown(_))));
    }

    #[test]
    fn position_forms() {
        assert_eq!(
            ok("position startpos moves C  f\tA"),
            Request::Position {
                fen: None,
                moves: vec!["C".into(), "f".into(), "A".into()]
            }
        );
        assert_eq!(
            ok("position moves C"),
            Request::Position {
                fen: None,
                moves: vec!["C".into()]
            }
        );
        assert_eq!(
            ok("position fen 4,4,4,4,4,4,0/4,4,4,4,4,4,0   S p moves C"),
            Request::Position {
                fen: Some("4,4,4,4,4,4,0/4,4,4,4,4,4,0 S p".into()),
                moves: vec!["C".into()]
            }
        );
        assert!(parse("position").is_err());
        assert!(parse("position fen").is_err());
        assert!(parse("position fen moves C").is_err());
        assert!(parse("position startpos C").is_err());
        assert!(parse("position somewhere").is_err());
    }

    #[test]
    fn go_parameters() {
        let Request::Go(l) = ok("go wtime 1000 btime -20 winc 5 binc 5 movestogo 10") else {
            panic!()
        };
        assert_eq!(l.time, [Some(1000), Some(-20)]);
        assert_eq!(l.inc, [Some(5), Some(5)]);
        assert_eq!(l.movestogo, Some(10));
        let Request::Go(l) = ok("go p1time 100 p2time 200 p1inc 1 p2inc 2") else {
            panic!()
        };
        assert_eq!(l.time, [Some(100), Some(200)]);
        let Request::Go(l) = ok("go depth 5 nodes 1000 movetime 50 searchmoves A B") else {
            panic!()
        };
        assert_eq!(
            (l.depth, l.nodes, l.movetime),
            (Some(5), Some(1000), Some(50))
        );
        assert_eq!(l.searchmoves, vec!["A", "B"]);
        let Request::Go(l) = ok("go infinite") else {
            panic!()
        };
        assert!(l.infinite);
        assert_eq!(ok("go perft 3"), Request::Perft(3));
        for bad in [
            "go depth",
            "go depth x",
            "go depth 0",
            "go nodes -5",
            "go fast",
            "go searchmoves",
            "go depth -1",
            "go depth +5",
            "go movestogo 0",
            "go wtime 1e3",
        ] {
            let e = parse(bad).unwrap_err();
            assert!(e.to_string().starts_with("go"), "{bad}: {e}");
        }
    }

    /// Every `go` number at the extremes: counts below their minimum are errors, anything
    /// above a field's range saturates, clock values keep their sign (negative = no time).
    #[test]
    fn go_numbers_at_the_extremes_saturate() {
        let go = |line: &str| match parse(line) {
            Ok(Some(Request::Go(l))) => Ok(l),
            Ok(other) => panic!("{line}: {other:?}"),
            Err(e) => Err(e.to_string()),
        };
        let extremes = [
            "0",
            "1",
            "-1",
            "-9223372036854775808",
            "9223372036854775807",
            "18446744073709551615",
            "18446744073709551616",
            "-9223372036854775809",
            "99999999999999999999999999999999999999999999",
        ];
        for v in extremes {
            let negative = v.starts_with('-');
            let zero = v == "0";
            // depth: at least 1; saturates at u32::MAX (the search clamps it to its maximum).
            let depth = go(&format!("go depth {v}"));
            if negative || zero {
                assert!(depth.is_err(), "depth {v}");
            } else {
                let d = depth.unwrap().depth.unwrap();
                assert!(d >= 1 && (v.len() < 10 || d == u32::MAX), "depth {v}: {d}");
            }
            // nodes: at least 0; saturates at u64::MAX.
            let nodes = go(&format!("go nodes {v}"));
            if negative {
                assert!(nodes.is_err(), "nodes {v}");
            } else {
                let n = nodes.unwrap().nodes.unwrap();
                assert!(v.len() < 20 || n == u64::MAX, "nodes {v}: {n}");
            }
            // movetime: negative is 0 (move now); saturates at i64::MAX.
            let movetime = go(&format!("go movetime {v}")).unwrap().movetime.unwrap();
            if negative {
                assert_eq!(movetime, 0, "movetime {v}");
            } else {
                assert!(movetime <= i64::MAX as u64, "movetime {v}");
            }
            // movestogo: at least 1; saturates.
            let mtg = go(&format!("go movestogo {v}"));
            assert_eq!(mtg.is_err(), negative || zero, "movestogo {v}");
            // Clocks and increments: the sign is kept, the value saturates to i64.
            for key in [
                "wtime", "btime", "winc", "binc", "p1time", "p2time", "p1inc", "p2inc",
            ] {
                let l = go(&format!("go {key} {v}")).unwrap();
                let t = l.time[0].or(l.time[1]).or(l.inc[0]).or(l.inc[1]).unwrap();
                assert_eq!(t < 0, negative, "{key} {v}: {t}");
                if v.len() > 19 {
                    assert!(t == i64::MAX || t == i64::MIN, "{key} {v}: {t}");
                }
            }
            // perft and bench depths.
            assert_eq!(parse(&format!("perft {v}")).is_err(), negative, "perft {v}");
            assert_eq!(
                parse(&format!("bench {v}")).is_err(),
                negative || zero,
                "bench {v}"
            );
        }
    }

    #[test]
    fn setoption_names_and_values_with_spaces() {
        assert_eq!(
            ok("setoption name Move Overhead value 100"),
            Request::SetOption {
                name: "Move Overhead".into(),
                value: Some("100".into())
            }
        );
        assert_eq!(
            ok("setoption name GameOptions value pits=4 seeds=3"),
            Request::SetOption {
                name: "GameOptions".into(),
                value: Some("pits=4 seeds=3".into())
            }
        );
        assert_eq!(
            ok("setoption name Clear Hash"),
            Request::SetOption {
                name: "Clear Hash".into(),
                value: None
            }
        );
        assert!(parse("setoption").is_err());
        assert!(parse("setoption name").is_err());
        assert!(parse("setoption Hash 3").is_err());
    }

    #[test]
    fn queries_and_newgame() {
        assert_eq!(ok("query p1turn"), Request::Query(Query::P1Turn));
        assert_eq!(ok("query result"), Request::Query(Query::Result));
        assert!(parse("query").is_err());
        assert!(parse("query weather").is_err());
        assert_eq!(
            ok("newgame kalah pits=4"),
            Request::NewGame {
                game: "kalah".into(),
                options: vec!["pits=4".into()]
            }
        );
        assert!(parse("newgame").is_err());
    }

    #[test]
    fn never_panics_on_odd_input() {
        for (line, says) in [
            ("\u{0}", "unknown command '\u{0}' (commands: uci"),
            ("é", "unknown command 'é'"),
            ("go \u{7f}", "go: unknown parameter '\u{7f}'"),
            ("perft -1", "perft: 'depth' must be at least 0, got -1"),
            ("perft", "perft: expected a depth, e.g. 'perft 6'"),
            ("bench x", "bench: 'depth' needs a number, got 'x'"),
            (
                "setoption name value",
                "setoption: the option name is missing",
            ),
            ("go wtime", "go: 'wtime' needs a value"),
            ("debug maybe", "debug: expected 'debug on' or 'debug off'"),
            ("query p1turn extra", "query: expected 'query p1turn'"),
        ] {
            // Each is malformed: refused with a message that names the command and the word
            // at fault (or the form expected), never a panic.
            let refused = parse(line).expect_err(line).to_string();
            assert!(refused.starts_with(says), "{line:?}: {refused}");
        }
        // A position string is the game's to judge: the request only carries it.
        assert_eq!(
            parse("position fen é moves").ok(),
            Some(Some(Request::Position {
                fen: Some("é".into()),
                moves: Vec::new()
            }))
        );
    }
}
