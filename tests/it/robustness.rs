//! Bad input is normal input: arbitrary text given to every parser (commands, position
//! strings, moves, game options) is answered with a value or an error, never a panic; and
//! every position string a game prints parses back to the same position.

use proptest::prelude::*;

use sowfan::protocol::request::{self, Request};
use sowfan::registry;

use crate::support::rng::Rng;
use crate::support::selfplay::session_game;

/// Text that looks like protocol input: mostly printable, often protocol words.
fn protocol_like() -> impl Strategy<Value = String> {
    let word = prop_oneof![
        Just("position".to_string()),
        Just("startpos".to_string()),
        Just("fen".to_string()),
        Just("moves".to_string()),
        Just("go".to_string()),
        Just("depth".to_string()),
        Just("setoption".to_string()),
        Just("name".to_string()),
        Just("value".to_string()),
        Just("query".to_string()),
        Just("-1".to_string()),
        Just("99999999999999999999".to_string()),
        "[A-Za-z0-9,/=.+-]{0,12}",
        any::<String>(),
    ];
    prop::collection::vec(word, 0..8).prop_map(|w| w.join(" "))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    /// Any line is parsed to what protocol.md says it means (the oracle below, written from
    /// protocol.md's "Commands" and "Numbers"), or refused with a message that names the
    /// command and the word at fault (or the form expected).
    #[test]
    fn command_parser_answers_what_protocol_md_says(line in protocol_like()) {
        check_request(&line);
    }

    #[test]
    fn games_reject_or_accept_any_position_string_and_move(text in protocol_like()) {
        for entry in registry::GAMES {
            let mut session = registry::create(entry.name, &[]).unwrap();
            let before = session.fen();
            if session.set_position(Some(&text), &[]).is_ok() {
                // Whatever was accepted prints back as a string that parses to itself.
                let fen = session.fen();
                let mut again = registry::create(entry.name, &[]).unwrap();
                again.set_position(Some(&fen), &[]).unwrap();
                prop_assert_eq!(again.fen(), fen.clone());
                // Whatever was accepted can be played from: its moves are listed (none
                // exactly when the game is over) and it is shown.
                let moves = session.legal_moves();
                prop_assert_eq!(moves.is_empty(), session.outcome().is_some(), "{}", fen);
                prop_assert!(!session.display().is_empty());
            } else {
                prop_assert_eq!(session.fen(), before);
            }
            let words: Vec<&str> = text.split_whitespace().collect();
            let mut fresh = registry::create(entry.name, &[]).unwrap();
            let start = fresh.fen();
            if fresh.set_position(None, &words).is_err() {
                // Refused moves leave the position as it was.
                prop_assert_eq!(fresh.fen(), start);
            }
        }
    }

    /// Any option words are a game with those options, or an error that names the first
    /// word at fault and says what is accepted.
    #[test]
    fn game_options_are_accepted_or_refused_by_name(text in protocol_like()) {
        let words: Vec<&str> = text.split_whitespace().collect();
        for entry in registry::GAMES {
            check_options(entry, &words, registry::create(entry.name, &words));
        }
        let created = registry::create_from_spec(&text);
        match words.split_first() {
            None => {
                let e = created.err().expect("no words: no game");
                prop_assert!(e.to_string().starts_with("no game given: expected one of kalah"), "{e}");
            }
            Some((name, options)) => match registry::find(name) {
                Ok(entry) => check_options(entry, options, created),
                Err(_) => {
                    let e = created.err().expect("an unknown game is refused").to_string();
                    prop_assert!(
                        e.starts_with(&format!("unknown game '{name}': expected one of kalah")),
                        "{e}"
                    );
                }
            },
        }
    }
}

/// What `request::parse` must give for `line`: the request, or words its error must hold.
type Want = Result<Option<Request>, Vec<String>>;

/// Tokens as protocol.md has them: runs of characters other than space and tab, the line's
/// trailing `\r`/`\n` ignored.
fn protocol_words(line: &str) -> Vec<&str> {
    line.trim_end_matches(['\r', '\n'])
        .split([' ', '\t'])
        .filter(|w| !w.is_empty())
        .collect()
}

/// protocol.md, "Numbers": an optional `-` and decimal digits, of any length (saturated
/// far beyond every field's range).
fn protocol_number(text: &str) -> Option<i128> {
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let magnitude = digits.bytes().fold(0i128, |n, b| {
        n.checked_mul(10)
            .and_then(|n| n.checked_add(i128::from(b - b'0')))
            .unwrap_or(i128::MAX)
    });
    Some(if negative { -magnitude } else { magnitude })
}

/// A count of at least `min`, saturated to `max`; the error names the field and the text.
fn protocol_count(
    text: &str,
    min: i128,
    max: i128,
    command: &str,
    key: &str,
) -> Result<i128, Vec<String>> {
    let Some(n) = protocol_number(text) else {
        return Err(vec![format!(
            "{command}: '{key}' needs a number, got '{text}'"
        )]);
    };
    if n < min {
        return Err(vec![format!(
            "{command}: '{key}' must be at least {min}, got {text}"
        )]);
    }
    Ok(n.min(max))
}

fn want_go(words: &[&str]) -> Want {
    use sowfan::search::limits::Limits;
    if words.first() == Some(&"perft") {
        return match words[1..] {
            [depth] => Ok(Some(Request::Perft(protocol_count(
                depth,
                0,
                u32::MAX.into(),
                "go perft",
                "depth",
            )? as u32))),
            _ => Err(vec!["go perft: expected a depth, e.g. 'perft 6'".into()]),
        };
    }
    let mut limits = Limits::default();
    let mut i = 0;
    while i < words.len() {
        let key = words[i];
        if let "infinite" | "solve" | "ponder" | "searchmoves" = key {
            match key {
                "infinite" => limits.infinite = true,
                "solve" => limits.solve = true,
                "ponder" => limits.ponder = true,
                _ => {
                    // Must be last: every word after it is a move.
                    if i + 1 == words.len() {
                        return Err(vec!["go: 'searchmoves' needs at least one move".into()]);
                    }
                    limits.searchmoves = words[i + 1..].iter().map(|w| w.to_string()).collect();
                    break;
                }
            }
            i += 1;
            continue;
        }
        let known = [
            "depth",
            "nodes",
            "movetime",
            "movestogo",
            "wtime",
            "p1time",
            "btime",
            "p2time",
            "winc",
            "p1inc",
            "binc",
            "p2inc",
        ];
        if !known.contains(&key) {
            return Err(vec![format!("go: unknown parameter '{key}' (depth, nodes")]);
        }
        let Some(value) = words.get(i + 1) else {
            return Err(vec![format!("go: '{key}' needs a value")]);
        };
        let clock = || protocol_count(value, i128::MIN, i64::MAX.into(), "go", key);
        match key {
            "depth" => {
                limits.depth = Some(protocol_count(value, 1, u32::MAX.into(), "go", key)? as u32)
            }
            "nodes" => {
                limits.nodes = Some(protocol_count(value, 0, u64::MAX.into(), "go", key)? as u64)
            }
            "movestogo" => {
                limits.movestogo =
                    Some(protocol_count(value, 1, u32::MAX.into(), "go", key)? as u32)
            }
            // A movetime of 0 or less: move now.
            "movetime" => limits.movetime = Some(clock()?.max(0) as u64),
            "wtime" | "p1time" => limits.time[0] = Some(clock()?.max(i64::MIN.into()) as i64),
            "btime" | "p2time" => limits.time[1] = Some(clock()?.max(i64::MIN.into()) as i64),
            "winc" | "p1inc" => limits.inc[0] = Some(clock()?.max(i64::MIN.into()) as i64),
            _ => limits.inc[1] = Some(clock()?.max(i64::MIN.into()) as i64),
        }
        i += 2;
    }
    Ok(Some(Request::Go(limits)))
}

fn want_position(words: &[&str]) -> Want {
    let usage = "position: expected 'position startpos [moves ...]'";
    let owned = |w: &[&str]| w.iter().map(|w| w.to_string()).collect::<Vec<_>>();
    let (fen, moves) = match words {
        [] => return Err(vec![usage.into()]),
        ["startpos"] => (None, Vec::new()),
        ["startpos", "moves", moves @ ..] => (None, owned(moves)),
        ["startpos", other, ..] => {
            return Err(vec![format!(
                "position: expected 'moves' after 'startpos', got '{other}'"
            )]);
        }
        ["fen", rest @ ..] => {
            let at = rest
                .iter()
                .position(|w| *w == "moves")
                .unwrap_or(rest.len());
            if at == 0 {
                return Err(vec![
                    "position: the position string after 'fen' is missing".into(),
                ]);
            }
            let moves = rest.get(at + 1..).map(owned).unwrap_or_default();
            (Some(rest[..at].join(" ")), moves)
        }
        ["moves", moves @ ..] => (None, owned(moves)),
        [other, ..] => {
            return Err(vec![
                format!("position: unknown position kind '{other}'"),
                usage["position: ".len()..].to_string(),
            ]);
        }
    };
    Ok(Some(Request::Position { fen, moves }))
}

fn want_setoption(words: &[&str]) -> Want {
    let usage = "expected 'setoption name <name> [value <value>]'".to_string();
    let Some((first, rest)) = words.split_first() else {
        return Err(vec![format!("setoption: {usage}")]);
    };
    if !first.eq_ignore_ascii_case("name") {
        return Err(vec![format!("setoption: {usage}")]);
    }
    let at = rest.iter().position(|w| w.eq_ignore_ascii_case("value"));
    let name = &rest[..at.unwrap_or(rest.len())];
    if name.is_empty() {
        return Err(vec!["setoption: the option name is missing".into(), usage]);
    }
    Ok(Some(Request::SetOption {
        name: name.join(" "),
        value: at.map(|i| rest[i + 1..].join(" ")),
    }))
}

/// The oracle: what protocol.md says `line` is.
fn want_request(line: &str) -> Want {
    use sowfan::protocol::request::Query;
    let words = protocol_words(line);
    let Some((&command, args)) = words.split_first() else {
        return Ok(None);
    };
    let bare = match command {
        "uci" => Some(Request::Uci),
        "ugi" => Some(Request::Ugi),
        "isready" => Some(Request::IsReady),
        "ucinewgame" | "uginewgame" => Some(Request::NewGameReset),
        "stop" => Some(Request::Stop),
        "ponderhit" => Some(Request::PonderHit),
        "quit" => Some(Request::Quit),
        "d" => Some(Request::Display),
        "legal" => Some(Request::Legal),
        "help" => Some(Request::Help),
        _ => None,
    };
    if let Some(request) = bare {
        if args.is_empty() {
            return Ok(Some(request));
        }
        return Err(vec![format!(
            "{command}: takes no arguments, got '{}'",
            args.join(" ")
        )]);
    }
    match command {
        "debug" => match args {
            ["on"] => Ok(Some(Request::Debug(true))),
            [] | ["off"] => Ok(Some(Request::Debug(false))),
            _ => Err(vec!["debug: expected 'debug on' or 'debug off'".into()]),
        },
        "setoption" => want_setoption(args),
        "newgame" => match args {
            [] => Err(vec![
                "newgame: expected 'newgame <game> [key=value ...]' with a game among kalah".into(),
            ]),
            [game, options @ ..] => Ok(Some(Request::NewGame {
                game: game.to_string(),
                options: options.iter().map(|o| o.to_string()).collect(),
            })),
        },
        "position" => want_position(args),
        "go" => want_go(args),
        "perft" => match args {
            [depth] => {
                Ok(Some(Request::Perft(
                    protocol_count(depth, 0, u32::MAX.into(), "perft", "depth")? as u32,
                )))
            }
            _ => Err(vec!["perft: expected a depth, e.g. 'perft 6'".into()]),
        },
        "bench" => match args {
            [] => Ok(Some(Request::Bench(None))),
            [depth] => Ok(Some(Request::Bench(Some(protocol_count(
                depth,
                1,
                u32::MAX.into(),
                "bench",
                "depth",
            )? as u32)))),
            _ => Err(vec!["bench: expected 'bench' or 'bench <depth>'".into()]),
        },
        "query" => match args {
            ["p1turn"] => Ok(Some(Request::Query(Query::P1Turn))),
            ["gameover"] => Ok(Some(Request::Query(Query::GameOver))),
            ["result"] => Ok(Some(Request::Query(Query::Result))),
            [other] => Err(vec![format!("query: unknown query '{other}'")]),
            _ => Err(vec![
                "query: expected 'query p1turn', 'query gameover' or 'query result'".into(),
            ]),
        },
        other => Err(vec![format!(
            "unknown command '{other}' (commands: uci, ugi, isready"
        )]),
    }
}

fn check_request(line: &str) {
    let got = request::parse(line);
    match (want_request(line), got) {
        (Ok(want), Ok(got)) => assert_eq!(got, want, "{line:?}"),
        (Err(words), Err(e)) => {
            let message = e.to_string();
            for w in &words {
                assert!(
                    message.contains(w.as_str()),
                    "{line:?}: '{message}' lacks '{w}'"
                );
            }
        }
        (want, got) => panic!("{line:?}: parsed as {got:?}, protocol.md says {want:?}"),
    }
}

/// `created` is `entry`'s game with option `words`, or the error for the first word at
/// fault (not key=value, an unknown key, a key given twice, a bad value), naming it and
/// what is accepted.
fn check_options(
    entry: &registry::GameEntry,
    words: &[&str],
    created: Result<Box<dyn sowfan::session::Session>, registry::RegistryError>,
) {
    let game = entry.name;
    let mut seen = Vec::new();
    let mut fault = None;
    for word in words {
        let Some((key, value)) = word.split_once('=') else {
            fault = Some(vec![format!(
                "'{word}' is not key=value (options of {game}: "
            )]);
            break;
        };
        let Some(spec) = entry.options.iter().find(|o| o.name == key) else {
            fault = Some(vec![format!(
                "{game} has no option '{key}' (options of {game}: "
            )]);
            break;
        };
        if seen.contains(&key) {
            fault = Some(vec![format!("option '{key}' is given twice")]);
            break;
        }
        seen.push(key);
        if registry::create(game, &[word]).is_err() {
            fault = Some(vec![format!(
                "bad value '{value}' for option '{key}': expected {}",
                spec.accepted()
            )]);
            break;
        }
    }
    match (fault, created) {
        (None, Ok(session)) => {
            // The game has exactly these options: its spec names each one not at its
            // default, and builds the same game again.
            let spec = session.spec();
            let again = registry::create_from_spec(&spec).expect("a game's spec is valid");
            assert_eq!(again.spec(), spec);
            for word in words {
                let alone = registry::create(game, &[word]).expect("valid alone");
                for option in alone.spec().split(' ').skip(1) {
                    assert!(
                        spec.split(' ').any(|o| o == option),
                        "{game} {words:?}: '{spec}' lacks {option}"
                    );
                }
            }
        }
        (Some(want), Err(e)) => {
            let message = e.to_string();
            for w in &want {
                assert!(
                    message.contains(w.as_str()),
                    "{game} {words:?}: '{message}' lacks '{w}'"
                );
            }
        }
        (None, Err(e)) => panic!("{game} {words:?} refused: {e}"),
        (Some(want), Ok(s)) => panic!(
            "{game} {words:?} accepted as '{}', expected {want:?}",
            s.spec()
        ),
    }
}

/// Lines the random ones rarely make, each checked against the oracle, and a few answers
/// written out in full.
#[test]
fn command_parser_answers_what_protocol_md_says_at_the_edges() {
    for line in [
        "",
        " \t ",
        "\r\n",
        "uci",
        "uci x",
        "d",
        "d \t",
        "isready\r",
        "debug",
        "debug on",
        "debug on off",
        "setoption",
        "setoption name",
        "setoption NAME Hash VALUE 3",
        "setoption name Clear Hash",
        "setoption name value 3",
        "newgame",
        "newgame kalah pits=4",
        "position",
        "position startpos",
        "position startpos moves",
        "position startpos x",
        "position fen",
        "position fen moves A",
        "position fen a b moves C d",
        "position moves A b",
        "position x",
        "go",
        "go depth",
        "go depth 0",
        "go depth -1",
        "go depth 1",
        "go depth 99999999999999999999999999999999999999999999",
        "go depth --1",
        "go depth +1",
        "go nodes 0",
        "go nodes -1",
        "go movetime -5",
        "go wtime -9223372036854775808 btime 1000",
        "go winc 99999999999999999999",
        "go p2inc -3 p1time 4",
        "go movestogo 0",
        "go infinite ponder solve",
        "go searchmoves",
        "go searchmoves A depth 3",
        "go depth 3 searchmoves A b",
        "go perft",
        "go perft 3",
        "go perft 3 4",
        "go perft -1",
        "go x",
        "perft",
        "perft 0",
        "perft 2 3",
        "perft x",
        "bench",
        "bench 0",
        "bench 3",
        "bench 3 4",
        "query",
        "query p1turn",
        "query p1turn extra",
        "query weather",
        "\u{0}",
        "é",
    ] {
        check_request(line);
    }
    assert_eq!(
        request::parse("go depth 99999999999 nodes 5 wtime -7 movetime -5").unwrap(),
        Some(Request::Go(sowfan::search::limits::Limits {
            depth: Some(u32::MAX),
            nodes: Some(5),
            movetime: Some(0),
            time: [Some(-7), None],
            ..Default::default()
        }))
    );
    let e = request::parse("go depth 0").unwrap_err().to_string();
    assert_eq!(e, "go: 'depth' must be at least 1, got 0");
}

/// Random legal games: every position reached prints a string that parses back to the same
/// position, and the game's moves print and parse back to themselves.
#[test]
fn random_games_round_trip_positions_and_moves() {
    let mut rng = Rng::new(0x0DD_BA11);
    for entry in registry::GAMES {
        for _ in 0..20 {
            let mut session = registry::create(entry.name, &[]).unwrap();
            session_game(&mut *session, |session, moves, legal| {
                // Every position after a move.
                if !moves.is_empty() {
                    let fen = session.fen();
                    let mut copy = registry::create(entry.name, &[]).unwrap();
                    copy.set_position(Some(&fen), &[]).unwrap();
                    assert_eq!(copy.fen(), fen, "{}", entry.name);
                }
                if moves.len() == 300 || legal.is_empty() {
                    return None;
                }
                Some(rng.pick(legal).clone())
            });
        }
    }
}

/// One rule for numbers in every game's position strings (protocol.md, "Numbers in position
/// strings"): plain digits only, and a counter above its limit is rejected with a message.
#[test]
fn every_game_judges_numbers_in_position_strings_alike() {
    for entry in registry::GAMES {
        let session = registry::create(entry.name, &[]).unwrap();
        let fen = session.start_fen();
        // Every number of the start position, written with a sign or a stray blank inside
        // the field, is rejected; the plain number is accepted.
        let bytes = fen.as_bytes();
        let mut i = 0;
        let mut numbers = 0;
        while i < bytes.len() {
            if !bytes[i].is_ascii_digit() {
                i += 1;
                continue;
            }
            let start = i;
            while i < bytes.len() && bytes[i].is_ascii_digit() {
                i += 1;
            }
            let number = &fen[start..i];
            for mangled in [format!("+{number}"), format!("-{number}")] {
                let text = format!("{}{}{}", &fen[..start], mangled, &fen[i..]);
                let mut s = registry::create(entry.name, &[]).unwrap();
                let e = s.set_position(Some(&text), &[]);
                assert!(e.is_err(), "{}: '{text}' was accepted", entry.name);
            }
            numbers += 1;
        }
        assert!(
            numbers > 0 || entry.name.starts_with("fanorona"),
            "{}",
            entry.name
        );
    }
    // Counters with a limit: at the limit accepted (the game is over), above it rejected.
    let cases: [(&str, &str, &str, &str); 4] = [
        (
            "anywoli",
            "quiet-limit=200",
            "2,2,2,2,2,2,2,2,2,2,2,2,0/2,2,2,2,2,2,2,2,2,2,2,2,0 S {} - -",
            "200",
        ),
        (
            "fanorona",
            "quiet-limit=100",
            "9/9/WWWW1BBBB/9/9 w {}",
            "100",
        ),
        (
            "fanorona-dimy",
            "quiet-limit=100",
            "5/5/WW1BB/5/5 w {}",
            "100",
        ),
        ("fanorona-telo", "quiet-limit=100", "3/W1B/3 w {}", "100"),
    ];
    for (game, option, template, limit) in cases {
        let limit: u64 = limit.parse().unwrap();
        let mut s = registry::create(game, &[option]).unwrap();
        let at = template.replace("{}", &limit.to_string());
        s.set_position(Some(&at), &[])
            .unwrap_or_else(|e| panic!("{game}: '{at}': {e}"));
        assert!(
            s.outcome().is_some(),
            "{game}: the quiet-limit ends the game"
        );
        for above in [limit + 1, u64::from(u32::MAX) + 1] {
            let text = template.replace("{}", &above.to_string());
            let e = s.set_position(Some(&text), &[]).unwrap_err().to_string();
            assert!(e.contains("quiet-limit is"), "{game}: '{text}': {e}");
        }
        let plus = template.replace("{}", "+1");
        assert!(s.set_position(Some(&plus), &[]).is_err(), "{game}: {plus}");
    }
}
