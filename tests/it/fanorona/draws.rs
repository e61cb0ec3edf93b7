//! Fanorona's draw rules as a game in play sees them: the repetition rule needs the history
//! of the game, which the session keeps (protocol.md, section *Fanorona*), and the
//! turns-without-capture limit counted over played moves.

use sowfan::game::GameResult;
use sowfan::game::prelude::*;
use sowfan::games::fanorona::{Fanorona, Size};
use sowfan::session::{GameSession, Session};

use crate::support::games::{at, fanorona, legal, tsivy};

/// White i1 and Black a5 shuffle back and forth: nothing can ever be captured.
const SHUFFLE: [&str; 4] = ["i1-i2", "a5-a4", "i2-i1", "a4-a5"];
const FAR_APART: &str = "B8/9/9/9/8W w 0";

fn session(options: &[&str]) -> GameSession<Fanorona> {
    GameSession::new(fanorona(Size::Tsivy, options))
}

#[test]
fn the_third_occurrence_of_a_position_at_a_turn_start_is_a_draw() {
    let mut s = session(&[]);
    let twice: Vec<&str> = SHUFFLE.to_vec();
    s.set_position(Some(FAR_APART), &twice).unwrap();
    assert!(
        s.outcome().is_none(),
        "the second occurrence is not yet a draw"
    );
    let mut thrice = twice.clone();
    thrice.extend(SHUFFLE);
    s.set_position(Some(FAR_APART), &thrice).unwrap();
    let outcome = s.outcome().unwrap();
    assert_eq!(outcome.result, GameResult::Draw);
    assert_eq!(outcome.reason, "repetition");
    assert!(s.legal_moves().is_empty());
    // repetition=2 ends at the second occurrence; repetition=off never.
    let mut s = session(&["repetition=2"]);
    s.set_position(Some(FAR_APART), &twice).unwrap();
    assert_eq!(s.outcome().unwrap().reason, "repetition");
    let mut s = session(&["repetition=off"]);
    let mut many = Vec::new();
    for _ in 0..10 {
        many.extend(SHUFFLE);
    }
    s.set_position(Some(FAR_APART), &many).unwrap();
    assert!(s.outcome().is_none());
    // The side to move is part of the position: the same board with the other side to move
    // is another position.
    let g = tsivy();
    let a = at(&g, FAR_APART);
    let b = at(&g, "B8/9/9/9/8W b 0");
    assert_ne!(g.repetition_key(&a), g.repetition_key(&b));
    // The quiet counter is not.
    assert_eq!(
        g.repetition_key(&a),
        g.repetition_key(&at(&g, "B8/9/9/9/8W w 4"))
    );
}

#[test]
fn a_hundred_turns_without_capture_is_a_draw() {
    let g = tsivy();
    let pos = at(&g, "B8/9/9/9/8W w 99");
    assert!(g.outcome(&pos).is_none());
    let mut p = pos;
    g.play(&mut p, g.parse_move(&pos, "i1-i2").unwrap());
    assert_eq!(p.quiet(), 100);
    let outcome = g.outcome(&p).unwrap();
    assert_eq!(outcome.result, GameResult::Draw);
    assert_eq!(outcome.reason, "turns without capture limit");
    assert!(legal(&g, &p).is_empty());
    // Every turn counts (both players'), and a capture resets the count.
    let mut s = session(&[]);
    let mut moves = Vec::new();
    for _ in 0..25 {
        moves.extend(SHUFFLE);
    }
    // repetition would end this first: switch it off to see the counter alone.
    let mut s_off = session(&["repetition=off"]);
    s_off.set_position(Some(FAR_APART), &moves[..99]).unwrap();
    assert!(s_off.outcome().is_none());
    s_off.set_position(Some(FAR_APART), &moves[..100]).unwrap();
    assert_eq!(
        s_off.outcome().unwrap().reason,
        "turns without capture limit"
    );
    s.set_position(Some("9/9/1BW1B4/9/9 w 7"), &["c3-d3A"])
        .unwrap();
    assert!(s.fen().ends_with(" b 0"), "{}", s.fen());
    // The limit is an option.
    let short = fanorona(Size::Tsivy, &["quiet-limit=4"]);
    assert!(short.outcome(&at(&short, "B8/9/9/9/8W w 4")).is_some());
    assert!(short.parse_position("B8/9/9/9/8W w 5").is_err());
    let never = fanorona(Size::Tsivy, &["quiet-limit=off"]);
    assert!(never.outcome(&at(&never, "B8/9/9/9/8W w 5000")).is_none());
}
