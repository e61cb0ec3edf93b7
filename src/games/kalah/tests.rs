use super::*;
use crate::game::prelude::*;

fn kalah(options: &[&str]) -> Kalah {
    Kalah::new(GameOptions::parse(NAME, OPTIONS, options).unwrap()).unwrap()
}

/// Every declared option is read, under its declared name and kind: a misspelt read fails
/// here (not in a user's game), and so does an option declared but never read.
#[test]
fn every_option_is_read_and_declared() {
    assert_eq!(kalah(&[]).options.unread(), Vec::<&str>::new());
}

fn play_all(game: &Kalah, moves: &[&str]) -> KalahPosition {
    let mut pos = game.start_position();
    for m in moves {
        let mv = game.parse_move(&pos, m).unwrap();
        game.play(&mut pos, mv);
    }
    pos
}

#[test]
fn start_position_string() {
    let g = kalah(&[]);
    let pos = g.start_position();
    assert_eq!(g.format_position(&pos), "4,4,4,4,4,4,0/4,4,4,4,4,4,0 S");
    assert_eq!(
        g.parse_position("4,4,4,4,4,4,0/4,4,4,4,4,4,0 S").unwrap(),
        pos
    );
    let pie = kalah(&["pie=true"]);
    assert_eq!(
        pie.format_position(&pie.start_position()),
        "4,4,4,4,4,4,0/4,4,4,4,4,4,0 S p"
    );
}

/// The solver's order among equal moves: eight times the seeds on the mover's side less
/// the opponent's, less the seeds that face the mover's empty pits, whatever the pit count
/// (6 runs `PitRules<6>`, 4 the general code).
#[test]
fn proof_order_is_the_movers_lead_at_home_less_the_seeds_facing_its_empty_pits() {
    let g = kalah(&[]);
    // South's pits A..F face North's f..a: B, D and E are empty and face e (2), c (1)
    // and b (0).
    let pos = g.parse_position("1,0,2,0,0,7,3/4,0,1,0,2,0,9 S").unwrap();
    assert_eq!(g.proof_order(&pos), 8 * (10 - 7) - 3);
    // North's a..f face F..A: b, d and f are empty and face E (0), C (2) and A (1).
    let pos = g.parse_position("1,0,2,0,0,7,3/4,0,1,0,2,0,9 N").unwrap();
    assert_eq!(g.proof_order(&pos), 8 * (7 - 10) - 3);
    // A, B and C are empty and face d (2), c (0) and b (3).
    let four = kalah(&["pits=4"]);
    let pos = four.parse_position("0,0,0,1,0/3,3,0,2,0 S").unwrap();
    assert_eq!(four.proof_order(&pos), 8 * (1 - 8) - 5);
    // A move that sows into the opponent's row lowers its mover's lead by two a seed.
    let pos = play_all(&g, &["F"]);
    assert_eq!(g.to_move(&pos), Player::P2);
    assert_eq!(g.proof_order(&pos), 8 * ((4 * 6 + 3) - (4 * 5)));
}

#[test]
fn sure_gains_follow_the_extra_moves_then_a_capture() {
    let g = kalah(&[]);
    // South sows F, E, F, D, F (each reaches the store exactly: five seeds banked), then
    // E's last seed lands in the empty F and takes North's a: seven seeds sure, of 12.
    let pos = g.parse_position("0,0,0,3,2,1,0/1,1,1,1,1,1,0 S").unwrap();
    assert_eq!(g.value_range(&pos), Some((-24 + 4 * 7, 24)));
    // The same row without the seed facing F: the chain's five seeds, no capture.
    let pos = g.parse_position("0,0,0,3,2,1,0/0,1,1,1,1,1,0 S").unwrap();
    assert_eq!(g.value_range(&pos), Some((-22 + 4 * 5, 22)));
}

#[test]
fn sowing_into_own_store_gives_an_extra_move() {
    let g = kalah(&[]);
    let pos = play_all(&g, &["C"]);
    assert_eq!(g.format_position(&pos), "4,4,0,5,5,5,1/4,4,4,4,4,4,0 S");
    assert_eq!(g.to_move(&pos), Player::P1);
}

#[test]
fn sowing_skips_the_opponent_store() {
    let g = kalah(&[]);
    let pos = g.parse_position("0,1,0,0,0,9,0/1,1,1,1,1,1,0 S").unwrap();
    let mut p = pos;
    g.play(&mut p, g.parse_move(&pos, "F").unwrap());
    // F: store, a..f (6), skip North's store, A, B (occupied: no capture).
    assert_eq!(g.format_position(&p), "1,2,0,0,0,0,1/2,2,2,2,2,2,0 N");
}

#[test]
fn capture_takes_last_seed_and_opposite_pit() {
    let g = kalah(&[]);
    // South A has 1 seed, B is empty; North e (opposite B) holds 7.
    let pos = g.parse_position("1,0,3,3,3,3,0/3,3,3,3,7,3,0 S").unwrap();
    let mut p = pos;
    g.play(&mut p, g.parse_move(&pos, "A").unwrap());
    assert_eq!(g.format_position(&p), "0,0,3,3,3,3,8/3,3,3,3,0,3,0 N");
}

#[test]
fn no_capture_when_opposite_is_empty_unless_empty_capture() {
    let board = "1,0,3,3,3,3,0/3,3,3,3,0,3,0 S";
    let g = kalah(&[]);
    let mut p = g.parse_position(board).unwrap();
    g.play(&mut p, KalahMove::pit(0));
    assert_eq!(g.format_position(&p), "0,1,3,3,3,3,0/3,3,3,3,0,3,0 N");
    let g = kalah(&["empty-capture=true"]);
    let mut p = g.parse_position(board).unwrap();
    g.play(&mut p, KalahMove::pit(0));
    assert_eq!(g.format_position(&p), "0,0,3,3,3,3,1/3,3,3,3,0,3,0 N");
}

#[test]
fn thirteen_seeds_refill_the_origin_and_capture_there() {
    let g = kalah(&[]);
    // 13 seeds from A: one lap of 13 cells ends back in A (empty after pickup).
    let pos = g.parse_position("13,1,1,1,1,1,0/1,1,1,1,1,1,0 S").unwrap();
    let mut p = pos;
    g.play(&mut p, KalahMove::pit(0));
    // Every cell but North's store got one; A's last seed captures f's 2.
    assert_eq!(g.format_position(&p), "0,2,2,2,2,2,4/2,2,2,2,2,0,0 N");
}

#[test]
fn game_ends_when_a_row_empties_and_leftovers_go_home() {
    let g = kalah(&[]);
    let pos = g.parse_position("0,0,0,0,0,1,20/1,2,3,4,5,6,6 S").unwrap();
    let mut p = pos;
    g.play(&mut p, KalahMove::pit(5));
    // Last seed in South's store: extra move, but South's row is empty: game over.
    let outcome = g.outcome(&p).unwrap();
    assert_eq!(outcome.scores, [Points::whole(21), Points::whole(27)]);
    assert_eq!(outcome.result, GameResult::P2Win);
    let mut moves = vec![];
    g.legal_moves(&p, &mut moves);
    assert!(moves.is_empty());
}

#[test]
fn leftovers_none_scores_only_stores() {
    let g = kalah(&["leftovers=none"]);
    let mut p = g.parse_position("0,0,0,0,0,1,20/1,2,3,4,5,6,6 S").unwrap();
    g.play(&mut p, KalahMove::pit(5));
    let outcome = g.outcome(&p).unwrap();
    assert_eq!(outcome.scores, [Points::whole(21), Points::whole(6)]);
    assert_eq!(outcome.result, GameResult::P1Win);
}

#[test]
fn end_on_move_waits_for_the_player_to_move() {
    let g = kalah(&["end=on-move"]);
    // South empties its row with an extra move: South is to move with nothing: over.
    let mut p = g.parse_position("0,0,0,0,0,1,20/1,2,3,4,5,6,6 S").unwrap();
    g.play(&mut p, KalahMove::pit(5));
    assert!(g.outcome(&p).is_some());
    // South empties its row and North is to move: the game goes on.
    let mut p = g.parse_position("0,0,0,0,0,2,20/1,2,3,4,5,6,6 S").unwrap();
    g.play(&mut p, KalahMove::pit(5));
    assert_eq!(g.format_position(&p), "0,0,0,0,0,0,21/2,2,3,4,5,6,6 N");
    assert!(g.outcome(&p).is_none());
    let standard = kalah(&[]);
    assert!(standard.outcome(&p).is_some());
}

#[test]
fn pie_swap_is_the_second_players_first_reply_only() {
    let g = kalah(&["pie=true"]);
    let pos = play_all(&g, &["C"]);
    // South's extra move: North has not had a turn yet, so no swap now.
    assert!(g.parse_move(&pos, "swap").is_err());
    let pos = play_all(&g, &["C", "F"]);
    assert_eq!(g.to_move(&pos), Player::P2);
    let mv = g.parse_move(&pos, "swap").unwrap();
    let mut swapped = pos;
    g.play(&mut swapped, mv);
    // Board unchanged, North still to move, but North is now P1.
    assert_eq!(swapped.cells, pos.cells);
    assert_eq!(g.to_move(&swapped), Player::P1);
    assert_eq!(g.scores(&swapped), [Points::whole(0), Points::whole(2)]);
    assert!(g.format_position(&swapped).ends_with(" N x"));
    // North moves: no swap later.
    let pos = play_all(&g, &["C", "F", "a"]);
    let pos = {
        let mut p = pos;
        let mut moves = vec![];
        g.legal_moves(&p, &mut moves);
        g.play(&mut p, moves[0]);
        p
    };
    let mut moves = vec![];
    g.legal_moves(&pos, &mut moves);
    assert!(!moves.contains(&KalahMove::SWAP));
    assert!(
        kalah(&[])
            .parse_move(&play_all(&kalah(&[]), &["C", "F"]), "swap")
            .is_err()
    );
}

#[test]
fn move_errors_say_what_is_wrong() {
    let g = kalah(&[]);
    let pos = g.start_position();
    let e = g.parse_move(&pos, "a").unwrap_err().to_string();
    assert!(e.contains("North's pit but South is to move"), "{e}");
    let e = g.parse_move(&pos, "G").unwrap_err().to_string();
    assert!(e.contains("A..F"), "{e}");
    let e = g.parse_move(&pos, "C3").unwrap_err().to_string();
    assert!(e.contains("pit letter"), "{e}");
    let p = play_all(&g, &["C"]);
    let e = g.parse_move(&p, "C").unwrap_err().to_string();
    assert!(e.contains("empty"), "{e}");
}

#[test]
fn position_strings_round_trip_and_reject_nonsense() {
    let g = kalah(&["pie=true"]);
    for text in [
        "4,4,0,5,5,5,1/4,4,4,4,4,4,0 S p",
        "0,0,3,3,3,3,8/3,3,3,3,0,3,0 N x",
        "0,0,3,3,3,3,8/3,3,3,3,0,3,0 N -",
    ] {
        let pos = g.parse_position(text).unwrap();
        assert_eq!(g.format_position(&pos), text);
    }
    let plain = kalah(&[]);
    for bad in [
        "",
        "4,4,4,4,4,4,0 S",
        "4,4,4,4,4,0/4,4,4,4,4,4,0 S",
        "4,4,4,4,4,4,0/4,4,4,4,4,4,0 X",
        "4,4,4,4,4,4,0/4,4,4,4,4,4,0 S p",
        "4,4,x,4,4,4,0/4,4,4,4,4,4,0 S",
        "4,4,4,4,4,4,0/4,4,4,4,4,4,99999 S",
        "4,4,4,4,4,4,0/4,4,4,4,4,4,0 S - extra",
    ] {
        assert!(plain.parse_position(bad).is_err(), "accepted {bad:?}");
    }
}
