//! Bad input is normal input: arbitrary text given to every parser (commands, position
//! strings, moves, game options) is answered with a value or an error, never a panic; and
//! every position string a game prints parses back to the same position.

use proptest::prelude::*;

use sowfan::protocol::command;
use sowfan::registry;

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
        let _ = command::parse(&line);
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
    let mut rng = proptest::test_runner::TestRng::deterministic_rng(
        proptest::test_runner::RngAlgorithm::ChaCha,
    );
    for entry in registry::GAMES {
        for _ in 0..20 {
            let mut session = registry::create(entry.name, &[]).unwrap();
            let mut moves: Vec<String> = Vec::new();
            for _ in 0..300 {
                let legal = session.legal_moves();
                if legal.is_empty() {
                    break;
                }
                let mv = legal[rng.next_u32() as usize % legal.len()].clone();
                moves.push(mv);
                let refs: Vec<&str> = moves.iter().map(String::as_str).collect();
                session.set_position(None, &refs).unwrap();
                let fen = session.fen();
                let mut copy = registry::create(entry.name, &[]).unwrap();
                copy.set_position(Some(&fen), &[]).unwrap();
                assert_eq!(copy.fen(), fen, "{}", entry.name);
            }
        }
    }
}
