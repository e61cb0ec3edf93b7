use super::*;
use crate::game::prelude::*;

fn anywoli(options: &[&str]) -> Anywoli {
    Anywoli::new(GameOptions::parse(NAME, OPTIONS, options).unwrap()).unwrap()
}

/// Every declared option is read, under its declared name and kind: a misspelt read fails
/// here (not in a user's game), and so does an option declared but never read.
#[test]
fn every_option_is_read_and_declared() {
    assert_eq!(anywoli(&[]).options.unread(), Vec::<&str>::new());
}

/// Anywoli evaluating by hand (`Eval classic`), whose terms the tests check.
fn hand_written() -> Anywoli {
    let mut g = anywoli(&[]);
    g.set_network(None).unwrap();
    g
}

/// A 12-house position string from rows given as (house letter, seeds) pairs.
fn board(south: &[(char, u8)], north: &[(char, u8)], stores: [u8; 2], rest: &str) -> String {
    let row = |pairs: &[(char, u8)], base: u8, store: u8| {
        let mut counts = [0u8; 12];
        for &(letter, seeds) in pairs {
            counts[(letter as u8 - base) as usize] = seeds;
        }
        let mut text: Vec<String> = counts.iter().map(|c| c.to_string()).collect();
        text.push(store.to_string());
        text.join(",")
    };
    format!(
        "{}/{} {rest}",
        row(south, b'A', stores[0]),
        row(north, b'a', stores[1])
    )
}

fn play_text(game: &Anywoli, fen: &str, moves: &[&str]) -> AnywoliPosition {
    let mut pos = game.parse_position(fen).unwrap();
    for m in moves {
        let mv = game.parse_move(&pos, m).unwrap();
        game.play(&mut pos, mv);
    }
    pos
}

fn legal(game: &Anywoli, pos: &AnywoliPosition) -> Vec<String> {
    let mut moves = vec![];
    game.legal_moves(pos, &mut moves);
    moves.iter().map(|&m| game.format_move(pos, m)).collect()
}

#[test]
fn start_position_string() {
    let g = anywoli(&[]);
    let start = g.start_position();
    let text = "4,4,4,4,4,4,4,4,4,4,4,4,0/4,4,4,4,4,4,4,4,4,4,4,4,0 S 0 - -";
    assert_eq!(g.format_position(&start), text);
    assert_eq!(g.parse_position(text).unwrap(), start);
    // The short form leaves the counter at 0 and nobody having captured.
    let short = "4,4,4,4,4,4,4,4,4,4,4,4,0/4,4,4,4,4,4,4,4,4,4,4,4,0 S";
    assert_eq!(g.parse_position(short).unwrap(), start);
    assert_eq!(legal(&g, &start).join(" "), "A B C D E F G H I J K L");
    assert_eq!(g.to_move(&start), Player::P1);
    let nuri = anywoli(&["houses=7"]);
    assert_eq!(
        nuri.format_position(&nuri.start_position()),
        "4,4,4,4,4,4,4,0/4,4,4,4,4,4,4,0 S 0 - -"
    );
    let jani = anywoli(&["houses=13", "seeds=2"]);
    let pos = jani.start_position();
    assert_eq!(jani.total_seeds(), 52);
    assert_eq!(legal(&jani, &pos).last().unwrap(), "M");
    assert!(jani.parse_move(&pos, "M").is_ok());
}

#[test]
fn relay_sowing_picks_up_the_last_house_until_an_empty_one() {
    let g = anywoli(&[]);
    // A: B..E, E holds 5: relay F..J, then K..c, d..h, i..l and A, empty: the end.
    let pos = play_text(&g, &g.format_position(&g.start_position()), &["A"]);
    assert_eq!(
        g.format_position(&pos),
        "1,5,5,5,0,5,5,5,5,0,5,5,0/5,5,0,5,5,5,5,0,5,5,5,5,0 N 1 - -"
    );
}

#[test]
fn mid_lap_four_goes_to_the_owner_of_the_house() {
    let g = anywoli(&[]);
    // K sows L (3 -> 4: South's), a (3 -> 4: North's), b, c (empty: the end).
    let fen = board(
        &[('A', 1), ('K', 4), ('L', 3)],
        &[('a', 3), ('e', 5)],
        [0, 0],
        "S",
    );
    let pos = play_text(&g, &fen, &["K"]);
    assert_eq!(
        g.format_position(&pos),
        board(
            &[('A', 1)],
            &[('b', 1), ('c', 1), ('e', 5)],
            [4, 4],
            "N 0 N -"
        )
    );
    // Sowing continued after both captures; North, who received the last four, is the
    // last capturer; no final-seed capture yet.
    assert_eq!(pos.last_capturer, Some(Side::North));
    assert_eq!(pos.first_final, None);
}

#[test]
fn final_four_goes_to_the_mover_who_moves_again() {
    let g = anywoli(&[]);
    // L sows a (empty) and b (3 -> 4 with the last seed): South's, and South again.
    let fen = board(
        &[('A', 2), ('L', 2)],
        &[('b', 3), ('e', 5)],
        [0, 0],
        "N 7 - -",
    );
    let pos = play_text(&g, &fen.replace(" N 7", " S 7"), &["L"]);
    assert_eq!(
        g.format_position(&pos),
        board(&[('A', 2)], &[('a', 1), ('e', 5)], [4, 0], "S 0 S S")
    );
    assert_eq!(g.to_move(&pos), Player::P1);
    // A final four in one's own row is the mover's too, with the extra move.
    let fen = board(&[('A', 2)], &[('j', 2), ('l', 3), ('e', 5)], [0, 0], "N");
    let pos = play_text(&g, &fen, &["j"]);
    assert_eq!(
        g.format_position(&pos),
        board(&[('A', 2)], &[('e', 5), ('k', 1)], [0, 4], "N 0 N N")
    );
}

#[test]
fn a_lap_of_a_whole_board_or_more_sows_into_its_own_house() {
    let g = anywoli(&[]);
    // 24 seeds from A: one into every house, the 24th into A itself (empty): the end.
    let pos = play_text(&g, &board(&[('A', 24)], &[], [0, 0], "S"), &["A"]);
    assert_eq!(
        g.format_position(&pos),
        "1,1,1,1,1,1,1,1,1,1,1,1,0/1,1,1,1,1,1,1,1,1,1,1,1,0 N 1 - -"
    );
    // 25: A gets its seed mid-lap and the 25th lands in B (now 2): relays of two follow
    // round the board until B, emptied by its pick-up, receives the last seed.
    let pos = play_text(&g, &board(&[('A', 25)], &[], [0, 0], "S"), &["A"]);
    assert_eq!(
        g.format_position(&pos),
        "2,1,2,0,2,0,2,0,2,0,2,0,0/2,0,2,0,2,0,2,0,2,0,2,0,0 N 1 - -"
    );
    // On Yit Nuri's 14 houses a lap of 14 already comes back to its own house.
    let nuri = anywoli(&["houses=7"]);
    let pos = play_text(&nuri, "14,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0 S", &["A"]);
    assert_eq!(
        nuri.format_position(&pos),
        "1,1,1,1,1,1,1,0/1,1,1,1,1,1,1,0 N 1 - -"
    );
}

#[test]
fn loop_guard_ends_a_turn_at_the_first_repeated_lap_end() {
    let g = anywoli(&[]);
    // Found by search: from this board, A's relay never empties a house or makes four;
    // the end of lap 289 repeats the end of lap 1 (board and end house), so the turn
    // stops there without picking up. Checked by the independent implementation of the
    // rules in tests/it/anywoli.rs.
    let fen = "2,0,2,1,0,1,0,1,0,1,0,1,0/0,1,0,1,0,1,0,1,0,1,0,1,0 S";
    let pos = play_text(&g, fen, &["A"]);
    assert_eq!(
        g.format_position(&pos),
        "0,1,3,1,0,1,0,1,0,1,0,1,0/0,1,0,1,0,1,0,1,0,1,0,1,0 N 1 - -"
    );
    // A repetition that starts later in the turn (lap 10 repeats lap 2), after a mid-lap
    // four for North: the replay that finds the first repetition keeps the capture.
    let small = anywoli(&["houses=2"]);
    let pos = play_text(&small, "1,2,0/2,4,0 S", &["B"]);
    assert_eq!(small.format_position(&pos), "3,1,0/0,1,4 N 0 N -");
}

#[test]
fn pass_exactly_when_the_movers_row_is_empty() {
    let g = anywoli(&[]);
    let fen = board(&[], &[('a', 2), ('e', 5)], [40, 49], "S 3 N S");
    let pos = g.parse_position(&fen).unwrap();
    assert_eq!(legal(&g, &pos), vec!["pass"]);
    let e = g.parse_move(&pos, "A").unwrap_err().to_string();
    assert!(e.contains("only move is pass"), "{e}");
    let after = play_text(&g, &fen, &["pass"]);
    assert_eq!(after.side, Side::North);
    assert_eq!(after.quiet, 4);
    assert_eq!(after.houses, pos.houses);
    let e = g.parse_move(&after, "pass").unwrap_err().to_string();
    assert!(e.contains("only when the mover's row is empty"), "{e}");
    // An extra move with an empty row is a pass too.
    let fen = board(&[('L', 1)], &[('a', 3), ('e', 5)], [0, 0], "S");
    let pos = play_text(&g, &fen, &["L"]);
    assert_eq!(g.to_move(&pos), Player::P1);
    assert_eq!(legal(&g, &pos), vec!["pass"]);
}

#[test]
fn game_ends_when_the_board_is_empty() {
    let g = anywoli(&[]);
    // L: a (3 -> 4 mid-lap: North's), b (3 -> 4 last seed: South's). Nothing left.
    let fen = board(&[('L', 2)], &[('a', 3), ('b', 3)], [44, 44], "S");
    let pos = play_text(&g, &fen, &["L"]);
    let outcome = g.outcome(&pos).unwrap();
    assert_eq!(outcome.scores, [Points::whole(48), Points::whole(48)]);
    assert_eq!(outcome.result, GameResult::Draw);
    assert_eq!(outcome.reason, "the board is empty");
    assert!(legal(&g, &pos).is_empty());
    assert!(g.parse_move(&pos, "pass").is_err());
}

#[test]
fn last_four_go_to_the_last_capturer_by_default() {
    // North captured first with a final seed; South's final four leaves four (e).
    let fen = board(&[('L', 1)], &[('a', 3), ('e', 4)], [40, 44], "S 0 N N");
    let g = anywoli(&[]);
    let pos = play_text(&g, &fen, &["L"]);
    let outcome = g.outcome(&pos).unwrap();
    assert_eq!(outcome.scores, [Points::whole(48), Points::whole(44)]);
    assert_eq!(outcome.result, GameResult::P1Win);
    assert!(legal(&g, &pos).is_empty());
    // A mid-lap four, which goes to the house's owner, is a capture too: K sows L, a
    // (3 -> 4: North's) and b; four seeds are left and North, last to capture, takes them.
    let fen = board(&[('K', 3)], &[('a', 3), ('e', 2)], [40, 44], "S 0 S -");
    let pos = play_text(&g, &fen, &["K"]);
    assert_eq!(pos.last_capturer, Some(Side::North));
    let outcome = g.outcome(&pos).unwrap();
    assert_eq!(outcome.scores, [Points::whole(40), Points::whole(52)]);
}

#[test]
fn last_four_to_the_first_final_capturer_when_chosen() {
    let fen = board(&[('L', 1)], &[('a', 3), ('e', 4)], [40, 44], "S 0 N N");
    let g = anywoli(&["last-four=first-final-capture"]);
    let pos = play_text(&g, &fen, &["L"]);
    assert_eq!(pos.first_final, Some(Side::North));
    let outcome = g.outcome(&pos).unwrap();
    assert_eq!(outcome.scores, [Points::whole(44), Points::whole(48)]);
    assert_eq!(outcome.result, GameResult::P2Win);
    // The first final capture of the game is recorded and kept.
    let fen = board(&[('L', 1)], &[('a', 3), ('e', 4)], [40, 44], "S 0 N -");
    let pos = play_text(&g, &fen, &["L"]);
    assert_eq!(pos.first_final, Some(Side::South));
    assert_eq!(
        g.outcome(&pos).unwrap().scores,
        [Points::whole(48), Points::whole(44)]
    );
    // Nobody has captured with a final seed yet: the last capturer takes them.
    let fen = board(&[('K', 3)], &[('a', 3), ('e', 2)], [40, 44], "S 0 S -");
    let pos = play_text(&g, &fen, &["K"]);
    let outcome = g.outcome(&pos).unwrap();
    assert_eq!(outcome.scores, [Points::whole(40), Points::whole(52)]);
}

#[test]
fn four_left_and_nobody_ever_captured_each_side_takes_its_row() {
    let g = anywoli(&[]);
    let pos = g
        .parse_position(&board(&[('A', 3)], &[('c', 1)], [0, 0], "S"))
        .unwrap();
    let outcome = g.outcome(&pos).unwrap();
    assert_eq!(outcome.scores, [Points::whole(3), Points::whole(1)]);
    assert!(
        outcome.reason.contains("nobody has captured"),
        "{}",
        outcome.reason
    );
}

#[test]
fn quiet_limit_ends_the_game_with_each_side_taking_its_row() {
    let fen = board(
        &[('A', 1), ('F', 7)],
        &[('b', 2), ('e', 5)],
        [40, 41],
        "S 199 N -",
    );
    let g = anywoli(&[]);
    let pos = play_text(&g, &fen, &["A"]);
    assert_eq!(pos.quiet, 200);
    let outcome = g.outcome(&pos).unwrap();
    assert_eq!(outcome.scores, [Points::whole(48), Points::whole(48)]);
    assert!(legal(&g, &pos).is_empty());
    // A capture resets the counter.
    let fen = board(&[('L', 2)], &[('b', 3), ('e', 5)], [40, 41], "S 199 N -");
    assert_eq!(play_text(&g, &fen, &["L"]).quiet, 0);
    // Other limits, and none.
    let g = anywoli(&["quiet-limit=10"]);
    assert!(
        g.outcome(&g.parse_position(&fen.replace(" 199 ", " 10 ")).unwrap())
            .is_some()
    );
    let g = anywoli(&["quiet-limit=off"]);
    let pos = g.parse_position(&fen.replace(" 199 ", " 65535 ")).unwrap();
    assert!(g.outcome(&pos).is_none());
    assert_eq!(g.spec(), "anywoli quiet-limit=off");
}

#[test]
fn move_errors_say_what_is_wrong() {
    let g = anywoli(&[]);
    let pos = g.start_position();
    let e = g.parse_move(&pos, "a").unwrap_err().to_string();
    assert!(e.contains("North's house but South is to move"), "{e}");
    let e = g.parse_move(&pos, "M").unwrap_err().to_string();
    assert!(e.contains("A..L"), "{e}");
    let e = g.parse_move(&pos, "A1").unwrap_err().to_string();
    assert!(e.contains("house letter"), "{e}");
    let e = g.parse_move(&pos, "pass").unwrap_err().to_string();
    assert!(e.contains("pass is legal only"), "{e}");
    let p = play_text(&g, &g.format_position(&pos), &["A"]);
    let e = g.parse_move(&p, "c").unwrap_err().to_string();
    assert!(e.contains("empty"), "{e}");
}

#[test]
fn position_strings_round_trip_and_reject_nonsense() {
    let g = anywoli(&[]);
    for text in [
        "1,5,5,5,0,5,5,5,5,0,5,5,0/5,5,0,5,5,5,5,0,5,5,5,5,0 N 1 - -",
        "0,0,0,0,0,0,0,0,0,0,0,2,44/3,3,0,0,0,0,0,0,0,0,0,0,44 S 17 N S",
        "0,0,0,0,0,0,0,0,0,0,0,2,44/3,3,0,0,0,0,0,0,0,0,0,0,44 N 0 S -",
    ] {
        let pos = g.parse_position(text).unwrap();
        assert_eq!(g.format_position(&pos), text);
    }
    let start = "4,4,4,4,4,4,4,4,4,4,4,4,0/4,4,4,4,4,4,4,4,4,4,4,4,0";
    for (bad, why) in [
        ("", "expected 2 or 5 fields"),
        ("4,4,4,4,4,4,4,4,4,4,4,4,0 S", "needs a '/'"),
        ("4,4,4,4/4,4,4,4 S", "expected 13"),
        (&format!("{start} X"), "S or N"),
        (&format!("{start} S 0"), "expected 2 or 5 fields"),
        (&format!("{start} S x - -"), "turns without capture"),
        (&format!("{start} S -1 - -"), "turns without capture"),
        (&format!("{start} S 0 Q -"), "last capturer"),
        (&format!("{start} S 0 - N"), "cannot be '-'"),
        (&format!("{start} S 0 - - extra"), "expected 2 or 5 fields"),
        (
            "200,4,4,4,4,4,4,4,4,4,4,4,0/4,4,4,4,4,4,4,4,4,4,4,4,0 S",
            "at most 255",
        ),
        (
            "4,4,4,4,4,4,4,4,4,4,4,4,300/4,4,4,4,4,4,4,4,4,4,4,4,0 S",
            "300",
        ),
    ] {
        let e = g.parse_position(bad).unwrap_err().to_string();
        assert!(e.contains(why), "{bad:?}: {e}");
    }
}

#[test]
fn evaluation_and_move_order_know_the_threes() {
    let g = hand_written();
    // South's L (2 seeds) ends on b (3): a final four and an extra move.
    let fen = board(&[('A', 1), ('L', 2)], &[('b', 3), ('e', 5)], [10, 10], "S");
    let pos = g.parse_position(&fen).unwrap();
    let take = g.parse_move(&pos, "L").unwrap();
    let other = g.parse_move(&pos, "A").unwrap();
    assert!(g.order_hint(&pos, take) >= 1000);
    assert!(g.order_hint(&pos, take) > g.order_hint(&pos, other));
    // The same board with North to move: no threat for North, and the three is North's.
    let north = g.parse_position(&fen.replace(" S", " N")).unwrap();
    assert!(g.evaluate(&pos) > 0);
    assert!(g.evaluate(&pos) > -g.evaluate(&north));
    assert_eq!(g.evaluate(&g.start_position()), 0);
}

#[test]
fn hash_separates_what_matters() {
    let g = anywoli(&[]);
    let a = g
        .parse_position(&board(&[('A', 3)], &[('e', 5)], [40, 48], "S 3 S -"))
        .unwrap();
    let mut b = a;
    b.stores = [48, 40];
    assert_ne!(g.hash(&a), g.hash(&b));
    b = a;
    b.side = Side::North;
    assert_ne!(g.hash(&a), g.hash(&b));
    // The last capturer matters only once the game is over.
    b = a;
    b.last_capturer = Some(Side::North);
    assert_eq!(g.hash(&a), g.hash(&b));
    // The counter matters within the search horizon of the quiet limit, not before.
    b.quiet = 10;
    assert_ne!(g.hash(&a), g.hash(&b));
    let far = anywoli(&["quiet-limit=1000"]);
    assert_eq!(far.hash(&a), far.hash(&b));
    // The first final capturer matters only when it decides the last four.
    b = a;
    b.first_final = Some(Side::South);
    assert_eq!(g.hash(&a), g.hash(&b));
    let ffc = anywoli(&["last-four=first-final-capture"]);
    assert_ne!(ffc.hash(&a), ffc.hash(&b));
}

#[test]
fn bench_positions_are_games_in_progress() {
    let g = anywoli(&[]);
    for text in g.bench().positions {
        let pos = g.parse_position(text).unwrap();
        assert_eq!(g.format_position(&pos), *text);
        assert!(g.outcome(&pos).is_none(), "{text}");
        assert_eq!(
            g.board_seeds(&pos) + pos.stores.iter().map(|&s| s as u32).sum::<u32>(),
            96
        );
    }
}
