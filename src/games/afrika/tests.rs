use super::evaluation::WEIGHTS;
use super::*;
use crate::game::GameResult;
use crate::game::prelude::*;

fn afrika(options: &[&str]) -> Afrika {
    Afrika::new(GameOptions::parse(NAME, OPTIONS, options).unwrap()).unwrap()
}

/// Every declared option is read, under its declared name and kind: a misspelt read fails
/// here (not in a user's game), and so does an option declared but never read.
#[test]
fn every_option_is_read_and_declared() {
    assert_eq!(afrika(&[]).options.unread(), Vec::<&str>::new());
}

/// Afrika evaluating by hand (`Eval classic`), whose terms the tests check.
fn hand_written() -> Afrika {
    let mut g = afrika(&[]);
    g.set_network(None).unwrap();
    g
}

fn position(game: &Afrika, text: &str) -> AfrikaPosition {
    game.parse_position(text)
        .unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn legal(game: &Afrika, pos: &AfrikaPosition) -> Vec<String> {
    let mut moves = Vec::new();
    game.legal_moves(pos, &mut moves);
    moves.iter().map(|&m| game.format_move(pos, m)).collect()
}

/// Play `text` (which must parse) and return the new position string.
fn after(game: &Afrika, pos: &str, text: &str) -> String {
    let mut p = position(game, pos);
    let mv = game
        .parse_move(&p, text)
        .unwrap_or_else(|e| panic!("{text}: {e}"));
    game.play(&mut p, mv);
    game.format_position(&p)
}

#[test]
fn start_position_north_to_move_eight_stones_everywhere() {
    let g = afrika(&[]);
    let pos = g.start_position();
    assert_eq!(
        g.format_position(&pos),
        "8,8,8,8,8,8,8,8,0/8,8,8,8,8,8,8,8,0 N"
    );
    assert_eq!(g.to_move(&pos), Player::P1);
    assert_eq!(legal(&g, &pos), ["a", "b", "c", "d", "e", "f", "g", "h"]);
    assert_eq!(pos.stones_on_board(), STONES);
}

#[test]
fn sowing_runs_counter_clockwise_into_the_opponents_row() {
    let g = afrika(&[]);
    // North e (8 stones): f g h, then South A..E.
    assert_eq!(
        after(&g, "8,8,8,8,8,8,8,8,0/8,8,8,8,8,8,8,8,0 N", "e"),
        "9,9,9,9,9,8,8,8,0/8,8,8,8,0,9,9,9,0 S"
    );
    // South G (8 stones): H, then North a..g.
    assert_eq!(
        after(&g, "8,8,8,8,8,8,8,8,0/8,8,8,8,8,8,8,8,0 S", "G"),
        "8,8,8,8,8,8,0,9,0/9,9,9,9,9,9,9,8,0 N"
    );
}

#[test]
fn sixteen_or_more_stones_skip_the_origin() {
    let g = afrika(&[]);
    // 15 stones from A: B..H and a..h, ending just before A; A stays empty.
    assert_eq!(
        after(&g, "15,0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0,0 S", "A"),
        "0,1,1,1,1,1,1,1,0/1,1,1,1,1,1,1,1,0 N"
    );
    // 16 stones: the 16th skips A and lands in B.
    assert_eq!(
        after(&g, "16,0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0,0 S", "A"),
        "0,2,1,1,1,1,1,1,0/1,1,1,1,1,1,1,1,0 N"
    );
    // 32 stones from North c: two full laps of the other 15 pits, then d and e.
    assert_eq!(
        after(&g, "0,0,0,0,0,0,0,0,0/0,0,32,0,0,0,0,0,0 N", "c"),
        "2,2,2,2,2,2,2,2,0/2,2,0,3,3,2,2,2,0 S"
    );
}

#[test]
fn capture_is_compulsory_and_is_the_whole_turn() {
    let g = afrika(&[]);
    // South's B is empty and faces North's g (5): South must capture it, nothing else.
    let pos = "8,0,8,8,8,8,8,8,0/8,8,8,8,8,8,5,8,0 S";
    let p = position(&g, pos);
    assert_eq!(legal(&g, &p), ["xg"]);
    let e = g.parse_move(&p, "A").unwrap_err().to_string();
    assert!(e.contains("compulsory") && e.contains("xg"), "{e}");
    // The capture takes g's stones and nothing else moves; North is to move.
    assert_eq!(
        after(&g, pos, "xg"),
        "8,0,8,8,8,8,8,8,5/8,8,8,8,8,8,0,8,0 N"
    );
}

#[test]
fn the_smallest_capturable_pit_must_be_taken() {
    let g = afrika(&[]);
    // North's a, c, d are empty, facing South's H (6), F (2), E (9).
    let pos = "8,8,8,8,9,2,8,6,0/0,8,0,0,8,8,8,8,0 N";
    let p = position(&g, pos);
    assert_eq!(legal(&g, &p), ["xF"]);
    let e = g.parse_move(&p, "xH").unwrap_err().to_string();
    assert!(e.contains("smallest") && e.contains("xF"), "{e}");
    assert!(g.parse_move(&p, "xE").is_err());
}

#[test]
fn ties_for_the_smallest_let_the_player_choose() {
    let g = afrika(&[]);
    // North's a and c are empty, facing South's H (3) and F (3); E (3) faces full d.
    let pos = "8,8,8,8,3,3,8,3,0/0,8,0,8,8,8,8,8,0 N";
    let p = position(&g, pos);
    assert_eq!(legal(&g, &p), ["xF", "xH"]);
    assert_eq!(
        after(&g, pos, "xF"),
        "8,8,8,8,3,0,8,3,0/0,8,0,8,8,8,8,8,3 S"
    );
    assert_eq!(
        after(&g, pos, "xH"),
        "8,8,8,8,3,3,8,0,0/0,8,0,8,8,8,8,8,3 S"
    );
}

#[test]
fn capture_only_from_an_own_empty_pit_facing_stones() {
    let g = afrika(&[]);
    // South's C is empty but faces North's f, also empty: no capture, South sows.
    let pos = "1,1,0,1,1,1,1,1,0/1,1,1,1,1,0,1,1,0 S";
    let p = position(&g, pos);
    assert_eq!(legal(&g, &p), ["A", "B", "D", "E", "F", "G", "H"]);
    let e = g.parse_move(&p, "xf").unwrap_err().to_string();
    assert!(e.contains("empty"), "{e}");
    // An opponent pit facing a full own pit cannot be captured.
    let e = g.parse_move(&p, "xa").unwrap_err().to_string();
    assert!(e.contains("holds 1"), "{e}");
    // Captures name the opponent's pits only.
    let e = g.parse_move(&p, "xA").unwrap_err().to_string();
    assert!(e.contains("own pit"), "{e}");
    // Sowing never captures: B's last stone into C (empty, facing empty f) stays there.
    assert_eq!(after(&g, pos, "B"), "1,0,1,1,1,1,1,1,0/1,1,1,1,1,0,1,1,0 N");
}

#[test]
fn a_player_with_an_empty_row_captures() {
    let g = afrika(&[]);
    let pos = "0,0,0,0,0,0,0,0,60/0,4,0,2,0,0,0,2,60 S";
    let p = position(&g, pos);
    assert_eq!(legal(&g, &p), ["xd", "xh"]);
}

#[test]
fn a_legal_move_exists_while_the_board_is_not_empty() {
    // Every position with one or two stones on the board, either side to move.
    let g = afrika(&[]);
    let mut moves = Vec::new();
    for a in 0..CELLS {
        for b in a..CELLS {
            for side in [Side::South, Side::North] {
                let mut cells = [0u8; CELLS];
                cells[a] += 1;
                cells[b] += 1;
                let pos = AfrikaPosition {
                    cells,
                    captured: [63, 63],
                    side,
                };
                g.legal_moves(&pos, &mut moves);
                assert!(!moves.is_empty(), "{}", g.format_position(&pos));
                assert!(g.outcome(&pos).is_none());
            }
        }
    }
    // And along random games from the start.
    let mut seed = 12345u64;
    for _ in 0..200 {
        let mut pos = g.start_position();
        while g.outcome(&pos).is_none() {
            g.legal_moves(&pos, &mut moves);
            assert!(!moves.is_empty(), "{}", g.format_position(&pos));
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let mv = moves[(seed >> 33) as usize % moves.len()];
            g.play(&mut pos, mv);
        }
        assert!(pos.board_is_empty());
        assert_eq!(pos.captured[0] as u32 + pos.captured[1] as u32, STONES);
    }
}

#[test]
fn the_game_ends_when_the_board_is_empty() {
    let g = afrika(&[]);
    let pos = "0,0,0,0,0,0,0,0,63/0,0,0,0,0,0,0,1,64 S";
    let p = position(&g, pos);
    assert!(g.outcome(&p).is_none());
    let end = position(&g, &after(&g, pos, "xh"));
    let outcome = g.outcome(&end).unwrap();
    assert_eq!(outcome.scores, [Points::whole(64), Points::whole(64)]);
    assert_eq!(outcome.result, GameResult::Draw);
    assert_eq!(outcome.reason, "the board is empty");
    assert!(legal(&g, &end).is_empty());
    assert!(g.parse_move(&end, "A").is_err());
}

#[test]
fn komi_goes_to_south_in_halves() {
    let g = afrika(&["komi=2.5"]);
    let end = position(&g, "0,0,0,0,0,0,0,0,64/0,0,0,0,0,0,0,0,64 N");
    let outcome = g.outcome(&end).unwrap();
    assert_eq!(
        outcome.scores,
        [Points::whole(64), Points::from_halves(133)]
    );
    assert_eq!(outcome.result, GameResult::P2Win);
    assert_eq!(outcome.scores[1].to_string(), "66.5");
    let close = position(&g, "0,0,0,0,0,0,0,0,62/0,0,0,0,0,0,0,0,66 N");
    assert_eq!(g.outcome(&close).unwrap().result, GameResult::P1Win);
    // Komi counts while the game goes on, too.
    let start = g.start_position();
    assert_eq!(g.scores(&start), [Points::ZERO, Points::from_halves(5)]);
    assert_eq!(g.spec(), "afrika komi=2.5");
}

#[test]
fn target_ends_the_game_as_soon_as_a_score_reaches_it() {
    let g = afrika(&["target=65"]);
    let pos = "0,0,3,0,0,0,0,0,60/0,2,0,0,0,0,1,0,62 N";
    let p = position(&g, pos);
    assert!(g.outcome(&p).is_none());
    // North takes C (3): 65 stones, the game ends with stones still on the board.
    assert_eq!(legal(&g, &p), ["xC"]);
    let end = position(&g, &after(&g, pos, "xC"));
    let outcome = g.outcome(&end).unwrap();
    assert_eq!(outcome.result, GameResult::P1Win);
    assert_eq!(outcome.reason, "North reached the target");
    assert!(legal(&g, &end).is_empty());
    // Without the target the same position plays on.
    let plain = afrika(&[]);
    assert!(plain.outcome(&end).is_none());
    // Komi counts towards the target: South at 63 stones + 2.5 has 65.5.
    let g = afrika(&["target=65", "komi=2.5"]);
    let south = position(&g, "0,0,0,0,0,0,0,0,63/0,1,0,0,0,0,0,0,64 N");
    let outcome = g.outcome(&south).unwrap();
    assert_eq!(outcome.result, GameResult::P2Win);
    assert_eq!(outcome.reason, "South reached the target");
}

#[test]
fn move_texts_are_case_sensitive_and_errors_say_what_is_wrong() {
    let g = afrika(&[]);
    let start = g.start_position();
    for (text, expect) in [
        ("A", "South's pit but North is to move"),
        ("i", "a..h"),
        ("XA", "lower-case x"),
        ("xa", "own pit"),
        ("xA", "holds 8"),
        ("", "is not a move"),
        ("e4", "is not a move"),
        ("x", "is not a move"),
    ] {
        let e = g.parse_move(&start, text).unwrap_err().to_string();
        assert!(e.contains(expect), "{text}: {e}");
    }
    let p = position(&g, "8,8,8,8,8,8,8,8,0/0,8,8,8,8,8,8,8,8 N");
    let e = g.parse_move(&p, "a").unwrap_err().to_string();
    assert!(e.contains("xH"), "{e}");
}

#[test]
fn position_strings_round_trip_and_reject_nonsense() {
    let g = afrika(&[]);
    for text in [
        "8,8,8,8,8,8,8,8,0/8,8,8,8,8,8,8,8,0 N",
        "2,0,11,13,12,12,2,0,13/14,16,0,0,1,0,1,0,24 S",
        "0,0,0,0,0,0,0,0,64/0,0,0,0,0,0,0,0,64 N",
        "0,0,0,0,0,0,0,128,0/0,0,0,0,0,0,0,0,0 S",
    ] {
        let pos = position(&g, text);
        assert_eq!(g.format_position(&pos), text);
    }
    for (bad, expect) in [
        ("", "expected 2 fields"),
        ("8,8,8,8,8,8,8,8,0/8,8,8,8,8,8,8,8,0", "expected 2 fields"),
        (
            "8,8,8,8,8,8,8,8,0/8,8,8,8,8,8,8,8,0 N extra",
            "expected 2 fields",
        ),
        ("8,8,8,8,8,8,8,8,0 N", "'/'"),
        ("8,8,8,8,8,8,8,8/8,8,8,8,8,8,8,8,0 N", "expected 9"),
        ("8,8,8,8,8,8,8,8,0/8,8,8,8,8,8,8,8,0 X", "N or S"),
        ("8,8,8,8,8,8,8,8,1/8,8,8,8,8,8,8,8,0 N", "129 stones"),
        ("8,8,8,8,-8,8,8,8,0/8,8,8,8,8,8,8,8,0 N", "'-8'"),
        ("8,8,8,8,8,8,8,8,0/8,8,8,8,8,8,8,999,0 N", "999"),
    ] {
        let e = g.parse_position(bad).unwrap_err().to_string();
        assert!(e.contains(expect), "{bad:?}: {e}");
    }
}

#[test]
fn evaluation_counts_the_forced_capture_of_the_side_to_move() {
    let g = hand_written();
    // South must take North's g (5) now: worth about five stones to South.
    let p = position(&g, "8,0,8,8,8,8,8,8,0/8,8,8,8,8,8,5,8,0 S");
    let eval = g.evaluate(&p);
    assert!(eval > 300, "{eval}");
    let mut flipped = p;
    flipped.side = Side::North;
    assert!(g.evaluate(&flipped) < eval);
}

#[test]
fn evaluation_favours_stones_in_the_opponents_row() {
    let g = hand_written();
    // Same material, North to move and no capture either way: North's stones mostly
    // sit in South's row, where only North can capture them.
    let p = position(&g, "9,9,9,9,9,9,9,9,0/7,7,7,7,7,7,7,7,0 N");
    assert_eq!(g.evaluate(&p), 16 * WEIGHTS.row_stone + WEIGHTS.tempo);
}

#[test]
fn the_tempo_goes_to_the_side_that_sows_after_the_captures_due() {
    let g = afrika(&[]);
    // Nothing to capture: North sows next, and has the tempo.
    let quiet = position(&g, "8,8,8,8,8,8,8,8,0/8,8,8,8,8,8,8,8,0 N");
    assert_eq!(g.features(&quiet)[2], 1);
    // South must capture North's g first; then North sows: the tempo is North's, so
    // South's view counts it against South.
    let capture = position(&g, "8,0,8,8,8,8,8,8,0/8,8,8,8,8,8,5,8,0 S");
    assert_eq!(g.features(&capture)[2], -1);
}

#[test]
fn order_hint_puts_the_move_that_saves_a_threatened_pit_first() {
    // The hint is the hand-written evaluation's, whichever evaluates.
    for g in [hand_written(), afrika(&[])] {
        // South to sow. North's a is empty and faces South's H (10): every South move
        // but H leaves H to be captured; sowing H empties it and fills a (and threatens
        // it).
        let p = position(&g, "1,1,1,1,1,1,0,10,0/0,0,8,8,8,8,8,8,0 S");
        let mut moves = Vec::new();
        g.legal_moves(&p, &mut moves);
        assert_eq!(moves.len(), 7);
        let save = g.order_hint(&p, AfrikaMove::Sow(7));
        for &mv in &moves {
            if mv != AfrikaMove::Sow(7) {
                let hint = g.order_hint(&p, mv);
                // At least two points better (the weights are tuned, the margin
                // follows).
                assert!(
                    save > hint + 4 * WEIGHTS.half_point,
                    "H {save}, {mv:?} {hint}"
                );
            }
        }
    }
}

#[test]
fn hashes_differ_for_side_and_captured_stones() {
    let g = afrika(&[]);
    let a = position(&g, "8,8,8,8,8,8,8,8,0/8,8,8,8,8,8,8,8,0 N");
    let b = position(&g, "8,8,8,8,8,8,8,8,0/8,8,8,8,8,8,8,8,0 S");
    let c = position(&g, "8,8,8,8,8,8,8,0,8/8,8,8,8,8,8,8,8,0 N");
    let d = position(&g, "8,8,8,8,8,8,8,0,0/8,8,8,8,8,8,8,8,8 N");
    let hashes = [a, b, c, d].map(|p| g.hash(&p));
    for i in 0..4 {
        for j in i + 1..4 {
            assert_ne!(hashes[i], hashes[j]);
        }
    }
}
