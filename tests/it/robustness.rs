//! Bad input is normal input: arbitrary text given to every parser (commands, position
//! strings, moves, game options) is answered with a value or an error, never a panic; and
//! every position string a game prints parses back to the same position.

use proptest::prelude::*;

use sowfan::protocol::request;
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

    #[test]
    fn command_parser_never_panics(line in protocol_like()) {
        let _ = request::parse(&line);
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
                prop_assert_eq!(again.fen(), fen);
                let _ = session.legal_moves();
                let _ = session.outcome();
                let _ = session.display();
            } else {
                prop_assert_eq!(session.fen(), before);
            }
            let words: Vec<&str> = text.split_whitespace().collect();
            let mut fresh = registry::create(entry.name, &[]).unwrap();
            let _ = fresh.set_position(None, &words);
        }
    }

    #[test]
    fn game_options_never_panic(text in protocol_like()) {
        for entry in registry::GAMES {
            let words: Vec<&str> = text.split_whitespace().collect();
            let _ = registry::create(entry.name, &words);
        }
        let _ = registry::create_from_spec(&text);
    }
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
