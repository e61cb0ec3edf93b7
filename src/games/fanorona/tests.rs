//! One test (at least) per rule of Fanorona (protocol.md, section *Fanorona*), plus notation
//! and position strings. The draw rules that need a game's history (repetition, turns
//! without capture over played moves) are tested with a session in tests/it/fanorona/draws.rs.

use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};

use super::*;
use crate::game::TableIndexing;

fn game(size: Size, options: &[&str]) -> Fanorona {
    Fanorona::new(
        size,
        GameOptions::parse(size.game_name(), OPTIONS, options).unwrap(),
    )
    .unwrap()
}

/// Every declared option is read, under its declared name and kind: a misspelt read fails
/// here (not in a user's game), and so does an option declared but never read.
#[test]
fn every_option_is_read_and_declared() {
    for size in [Size::Tsivy, Size::Dimy, Size::Telo] {
        let game = game(size, &[]);
        assert_eq!(game.options.unread(), Vec::<&str>::new(), "{size:?}");
    }
}

fn tsivy() -> Fanorona {
    game(Size::Tsivy, &[])
}

fn at(g: &Fanorona, text: &str) -> FanoronaPosition {
    g.parse_position(text)
        .unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// Legal move texts, sorted.
fn legal(g: &Fanorona, pos: &FanoronaPosition) -> Vec<String> {
    let mut moves = Vec::new();
    g.legal_moves(pos, &mut moves);
    let mut texts: Vec<String> = moves.iter().map(|&m| g.format_move(pos, m)).collect();
    texts.sort();
    texts
}

/// A reproducible stream of random words for boards made up by the tests.
fn random_words(seed: u64) -> impl FnMut() -> u64 {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    move || rng.random()
}

fn after(g: &Fanorona, pos: &FanoronaPosition, text: &str) -> String {
    let mv = g
        .parse_move(pos, text)
        .unwrap_or_else(|e| panic!("{text}: {e}"));
    let mut p = *pos;
    g.play(&mut p, mv);
    g.format_position(&p)
}

fn rejected(g: &Fanorona, pos: &FanoronaPosition, text: &str) -> String {
    match g.parse_move(pos, text) {
        Ok(mv) => panic!("{text} accepted as {mv:?}"),
        Err(e) => e.to_string(),
    }
}

// ---- Board ----

#[test]
fn strong_points_have_diagonals_weak_points_do_not() {
    let g = Size::Tsivy.geometry();
    let neighbours = |name: &str| {
        let p = g.parse_point(name).unwrap();
        let mut n: Vec<String> = (0..8)
            .filter(|&d| g.step(p, d) != NONE)
            .map(|d| g.point_name(g.step(p, d) as usize))
            .collect();
        n.sort();
        n
    };
    // a1: (1 + 1) even, strong; corners and the centre are strong.
    assert_eq!(neighbours("a1"), ["a2", "b1", "b2"]);
    assert_eq!(neighbours("b1"), ["a1", "b2", "c1"]);
    assert_eq!(neighbours("e3").len(), 8);
    assert_eq!(neighbours("c2"), ["b2", "c1", "c3", "d2"]);
    assert_eq!(neighbours("i5"), ["h4", "h5", "i4"]);
    assert!(g.is_strong(g.parse_point("i1").unwrap()));
    assert!(g.is_strong(g.parse_point("a5").unwrap()));
    // Diagonal neighbours of a strong point are strong.
    for p in 0..g.points {
        for d in [1, 3, 5, 7] {
            let n = g.step(p, d);
            if n != NONE {
                assert!(g.is_strong(p) && g.is_strong(n as usize));
            }
        }
    }
    let telo = Size::Telo.geometry();
    assert_eq!(telo.strong.count_ones(), 5); // corners and centre
    assert_eq!(Size::Dimy.geometry().strong.count_ones(), 13);
}

#[test]
fn forward_directions_go_up_the_point_indices() {
    for size in [Size::Tsivy, Size::Dimy, Size::Telo] {
        let g = size.geometry();
        for (up, down) in board::FORWARD_PAIRS {
            assert!(g.delta[up] > 0);
            assert_eq!(g.delta[down], -g.delta[up]);
            assert_eq!(down, opposite(up));
        }
    }
}

/// The evaluation's threats (the first stone of every line one capture step could take, and
/// the longest such line) agree with a walk over the plain neighbour tables, for many random
/// boards of every size.
#[test]
fn threats_match_a_walk_over_the_neighbour_tables() {
    let mut random = random_words(0x2545_f491_4f6c_dd1d);
    for size in [Size::Tsivy, Size::Dimy, Size::Telo] {
        let g = size.geometry();
        let mut lines_seen = 0;
        for _ in 0..3000 {
            let (a, b) = (random(), random());
            let own = a & !b & g.all;
            let enemy = !a & b & random() & g.all;
            let holds = |q: u8| q != NONE && enemy >> q & 1 == 1;
            let (mut targets, mut longest) = (0u64, 0u32);
            for p in (0..g.points).filter(|&p| own >> p & 1 == 1) {
                for d in 0..8 {
                    let to = g.step(p, d);
                    if to == NONE || (own | enemy) >> to & 1 == 1 {
                        continue;
                    }
                    for (first, along) in [
                        (g.step(to as usize, d), d),
                        (g.step(p, opposite(d)), opposite(d)),
                    ] {
                        let mut at = first;
                        let mut length = 0;
                        while holds(at) {
                            if length == 0 {
                                targets |= 1 << at;
                            }
                            length += 1;
                            at = g.step(at as usize, along);
                        }
                        longest = longest.max(length);
                    }
                }
            }
            // On Telo's 3 × 3 a capture step takes one stone at most.
            lines_seen += usize::from(longest > u32::from(!matches!(size, Size::Telo)));
            let threats = g.threats(own, enemy);
            assert_eq!(
                (threats.targets, threats.longest),
                (targets, longest),
                "{size:?} own {own:#x} enemy {enemy:#x}"
            );
        }
        assert!(lines_seen > 100, "{size:?}: too few long lines");
    }
}

/// Chain generation's local directions and its branch-free capture sets agree with the
/// plain neighbour tables, for every point and many random boards.
#[test]
fn local_capture_sets_match_the_neighbour_tables() {
    let mut random = random_words(0x9e37_79b9_7f4a_7c15);
    for size in [Size::Tsivy, Size::Dimy, Size::Telo] {
        let g = size.geometry();
        for i in 0..8 {
            let d = board::LOCAL_DIRECTIONS[i];
            assert_eq!(board::LOCAL_DIRECTIONS[7 - i], opposite(d));
            assert_eq!(g.local_delta[i] as i32, g.delta[d]);
            if i > 0 {
                assert!(g.local_delta[i] > g.local_delta[i - 1], "landing order");
            }
        }
        for _ in 0..2000 {
            let (a, b) = (random(), random());
            let enemy = a & b & g.all;
            let free = !a & !b & g.all;
            let exclude = (random() & 0xff) as u8 & (random() & 0xff) as u8;
            for p in 0..g.points {
                let (mut approach, mut withdrawal) = (0u8, 0u8);
                for i in (0..8).filter(|i| exclude >> i & 1 == 0) {
                    let d = board::LOCAL_DIRECTIONS[i];
                    let to = g.step(p, d);
                    if to == NONE || free >> to & 1 == 0 {
                        continue;
                    }
                    assert_eq!(g.local_step(p, i), to as usize);
                    let holds = |q: u8| q != NONE && enemy >> q & 1 == 1;
                    if holds(g.step(to as usize, d)) {
                        approach |= 1 << i;
                    }
                    if holds(g.step(p, opposite(d))) {
                        withdrawal |= 1 << i;
                    }
                }
                assert_eq!(
                    g.captures(p, free, enemy, exclude),
                    (approach, withdrawal),
                    "{size:?} {p} free {free:#x} enemy {enemy:#x} exclude {exclude:#x}"
                );
            }
        }
    }
}

#[test]
fn start_positions_and_white_first() {
    let cases = [
        (
            Size::Tsivy,
            "BBBBBBBBB/BBBBBBBBB/BWBW1BWBW/WWWWWWWWW/WWWWWWWWW w 0",
            22,
        ),
        (Size::Dimy, "BBBBB/BBBBB/BW1BW/WWWWW/WWWWW w 0", 12),
        (Size::Telo, "BBB/B1W/WWW w 0", 4),
    ];
    for (size, text, stones) in cases {
        let g = game(size, &[]);
        let start = g.start_position();
        assert_eq!(g.format_position(&start), text);
        assert_eq!(start.white().count_ones(), stones);
        assert_eq!(start.black().count_ones(), stones);
        assert_eq!(g.to_move(&start), Player::P1);
        // The centre is the empty point.
        let geo = size.geometry();
        let file = (b'a' + geo.files as u8 / 2) as char;
        let centre = geo
            .parse_point(&format!("{file}{}", geo.ranks / 2 + 1))
            .unwrap();
        assert_eq!(
            (start.white() | start.black()).count_ones() as usize,
            geo.points - 1
        );
        assert_eq!((start.white() | start.black()) & (1 << centre), 0);
    }
    // rank 3 of 9×5 reads a3 black, b3 white, …, i3 white.
    let g = tsivy();
    let start = g.start_position();
    let geo = g.geometry();
    let point = |n: &str| 1u64 << geo.parse_point(n).unwrap();
    assert_ne!(start.black() & point("a3"), 0);
    assert_ne!(start.white() & point("b3"), 0);
    assert_ne!(start.white() & point("i3"), 0);
    assert_ne!(start.black() & point("f3"), 0);
}

#[test]
fn the_five_first_moves_on_nine_by_five() {
    let g = tsivy();
    assert_eq!(
        legal(&g, &g.start_position()),
        ["d2-e3A", "d3-e3A", "d3-e3W", "e2-e3A", "f2-e3A"]
    );
}

// ---- A turn ----

#[test]
fn paika_steps_to_an_adjacent_empty_point_when_nothing_can_be_captured() {
    let g = tsivy();
    let pos = at(&g, "9/9/4B4/9/W8 w 0");
    assert_eq!(legal(&g, &pos), ["a1-a2", "a1-b1", "a1-b2"]);
    assert_eq!(after(&g, &pos, "a1-b2"), "9/9/4B4/1W7/9 b 1");
    // A weak point has no diagonal paika.
    let pos = at(&g, "B8/9/9/2W6/9 w 0");
    assert_eq!(legal(&g, &pos), ["c2-b2", "c2-c1", "c2-c3", "c2-d2"]);
    assert!(rejected(&g, &pos, "c2-d3").contains("weak point"));
}

#[test]
fn approach_captures_the_whole_line_up_to_an_empty_point() {
    let g = tsivy();
    let pos = at(&g, "9/9/W1BBB1B2/9/9 w 0");
    assert_eq!(legal(&g, &pos), ["a3-b3A"]);
    assert_eq!(after(&g, &pos, "a3-b3A"), "9/9/1W4B2/9/9 b 0");
}

#[test]
fn a_captured_line_stops_at_an_own_stone_and_at_the_edge() {
    let g = tsivy();
    let pos = at(&g, "9/9/W1BBWB3/9/9 w 0");
    assert_eq!(after(&g, &pos, "a3-b3A"), "9/9/1W2WB3/9/9 b 0");
    let pos = at(&g, "9/8B/3W1BBBB/9/9 w 0");
    assert_eq!(after(&g, &pos, "d3-e3A"), "9/8B/4W4/9/9 b 0");
}

#[test]
fn approach_along_a_diagonal_of_strong_points() {
    let g = tsivy();
    let pos = at(&g, "8B/3B5/2B6/9/W8 w 0");
    assert_eq!(legal(&g, &pos), ["a1-b2A"]);
    assert_eq!(after(&g, &pos, "a1-b2A"), "8B/9/9/1W7/9 b 0");
}

#[test]
fn withdrawal_captures_the_line_behind() {
    let g = tsivy();
    let pos = at(&g, "8B/9/BBBW5/9/9 w 0");
    assert_eq!(legal(&g, &pos), ["d3-e3W"]);
    assert_eq!(after(&g, &pos, "d3-e3W"), "8B/9/4W4/9/9 b 0");
}

#[test]
fn a_step_that_captures_both_ways_is_two_moves() {
    let g = tsivy();
    let pos = at(&g, "9/9/1BW1B4/9/9 w 0");
    assert_eq!(legal(&g, &pos), ["c3-d3A", "c3-d3W"]);
    assert_eq!(after(&g, &pos, "c3-d3A"), "9/9/1B1W5/9/9 b 0");
    assert_eq!(after(&g, &pos, "c3-d3W"), "9/9/3WB4/9/9 b 0");
}

#[test]
fn capturing_is_compulsory_but_any_capture_may_be_chosen() {
    let g = tsivy();
    let pos = at(&g, "9/9/1BW1B4/9/W8 w 0");
    let why = rejected(&g, &pos, "a1-a2");
    assert!(why.contains("compulsory"), "{why}");
    assert!(!legal(&g, &pos).iter().any(|m| !m.ends_with(['A', 'W'])));
    // Start: captures of one stone (d3-e3A) and of two (e2-e3A) are both legal.
    let start = g.start_position();
    assert_eq!(after(&g, &start, "d3-e3A").matches('B').count(), 21);
    assert_eq!(after(&g, &start, "e2-e3A").matches('B').count(), 20);
}

/// c3 (white) with black on e3, d5 and b2: see the chains worked out below.
const CHAINS: &str = "3B5/9/2W1B4/1B7/9 w 0";

#[test]
fn chains_continue_with_the_same_stone_and_every_prefix_is_a_move() {
    let g = tsivy();
    let pos = at(&g, CHAINS);
    // c3-d3A takes e3, then d3-d4A takes d5; c3-d4W takes b2, then d4-d3W takes d5 or
    // d4-c5W takes e3 and c5-b5W then d5. d4-c3 (approach on b2) would return to the start.
    assert_eq!(
        legal(&g, &pos),
        [
            "c3-d3A",
            "c3-d3A-d4A",
            "c3-d4W",
            "c3-d4W-c5W",
            "c3-d4W-c5W-b5W",
            "c3-d4W-d3W"
        ]
    );
    assert_eq!(after(&g, &pos, "c3-d4W-c5W-b5W"), "1W7/9/9/9/9 b 0");
    assert_eq!(after(&g, &pos, "c3-d4W"), "3B5/3W5/4B4/9/9 b 0");
}

#[test]
fn a_chain_never_lands_on_a_point_it_occupied_this_turn() {
    let g = tsivy();
    let pos = at(&g, CHAINS);
    let why = rejected(&g, &pos, "c3-d3A-d4A-c3A");
    assert!(why.contains("already been on c3"), "{why}");
    // The same landing when it was not visited: d4-c3 captures b2 by approach.
    let pos = at(&g, "9/3W5/9/1B7/8B w 0");
    assert_eq!(legal(&g, &pos), ["d4-c3A"]);
}

#[test]
fn a_chain_never_repeats_the_direction_of_the_step_before() {
    let g = tsivy();
    // c3-d3W takes b3; d3-e3 (east again) would take f3 by approach, but is forbidden.
    let pos = at(&g, "3B5/9/1BW2B3/9/9 w 0");
    assert_eq!(legal(&g, &pos), ["c3-d3W", "c3-d3W-d4A"]);
    let why = rejected(&g, &pos, "c3-d3W-e3A");
    assert!(why.contains("same direction"), "{why}");
    // A later step may use that direction again after a turn.
    let pos = at(&g, "3B5/5B3/1BW6/9/9 w 0");
    assert_eq!(legal(&g, &pos), ["c3-d3W", "c3-d3W-d4A", "c3-d3W-d4A-e4A"]);
}

#[test]
fn same_direction_allowed_lets_a_chain_go_straight_on() {
    // c3-d3W takes b3; d3-e3 (east again) takes f3 by approach: forbidden by default,
    // a move of its own under same-direction=allowed (every other chain rule as before).
    let text = "3B5/9/1BW2B3/9/9 w 0";
    let plain = tsivy();
    let allowed = game(Size::Tsivy, &["same-direction=allowed"]);
    assert_eq!(legal(&plain, &at(&plain, text)), ["c3-d3W", "c3-d3W-d4A"]);
    let pos = at(&allowed, text);
    assert_eq!(
        legal(&allowed, &pos),
        ["c3-d3W", "c3-d3W-d4A", "c3-d3W-e3A"]
    );
    assert_eq!(after(&allowed, &pos, "c3-d3W-e3A"), "3B5/9/4W4/9/9 b 0");
    let why = rejected(&plain, &at(&plain, text), "c3-d3W-e3A");
    assert!(why.contains("same direction"), "{why}");
    assert!(why.contains("same-direction=forbidden"), "{why}");
    // A point visited this turn stays barred: d4-d3 (back south after d3-d4) lands on d3.
    let why = rejected(&allowed, &pos, "c3-d3W-d4A-d3A");
    assert!(why.contains("already been on d3"), "{why}");
    // 5×5: b3-c3W takes a3, then c3-d3A takes e3 only when allowed.
    let text = "5/5/BW2B/5/5 w 0";
    let dimy = game(Size::Dimy, &[]);
    assert_eq!(legal(&dimy, &at(&dimy, text)), ["b3-c3W"]);
    let dimy = game(Size::Dimy, &["same-direction=allowed"]);
    assert_eq!(legal(&dimy, &at(&dimy, text)), ["b3-c3W", "b3-c3W-d3A"]);
    // An approach is never followed straight on: its line took every enemy stone up to
    // the first gap, so nothing lies beyond the next point (here e3-f3 would need g3).
    let pos = at(&allowed, "9/9/1BW2B1B1/9/9 w 0");
    assert_eq!(legal(&allowed, &pos), ["c3-d3W", "c3-d3W-e3A"]);
}

#[test]
fn same_direction_is_an_option_with_two_values() {
    assert_eq!(
        game(Size::Telo, &["same-direction=allowed"]).spec(),
        "fanorona-telo same-direction=allowed"
    );
    assert_eq!(
        game(Size::Dimy, &["same-direction=forbidden"]).spec(),
        "fanorona-dimy"
    );
    for bad in [
        "same-direction=yes",
        "same-direction=",
        "same-direction=Allowed",
    ] {
        let err = GameOptions::parse("fanorona", OPTIONS, &[bad]).unwrap_err();
        assert!(
            err.to_string().contains("forbidden|allowed"),
            "{bad}: {err}"
        );
    }
    // Tables are rules of their own under the option.
    let g = game(Size::Dimy, &["quiet-limit=50", "same-direction=allowed"]);
    assert_eq!(
        g.table_rules().as_deref(),
        Some("fanorona-dimy quiet-limit=50 same-direction=allowed")
    );
}

#[test]
fn same_direction_allowed_counts_agree_with_the_moves() {
    // The fast count (perft's last ply) and the generator agree under the option, on
    // random positions of every board.
    for size in [Size::Tsivy, Size::Dimy, Size::Telo] {
        let g = game(size, &["same-direction=allowed"]);
        let plain = game(size, &[]);
        let geometry = g.geometry();
        let mut next = random_words(7 + size as u64);
        let mut moves = Vec::new();
        let mut more = 0;
        for _ in 0..3000 {
            let white = next() & next() & geometry.all;
            let black = next() & next() & geometry.all & !white;
            let pos = FanoronaPosition {
                stones: [white, black],
                side: Player::P1,
                quiet: 0,
                first_pending: 0,
            };
            g.legal_moves(&pos, &mut moves);
            let n = moves.len();
            assert_eq!(g.count_legal_moves(&pos, &mut moves), n);
            for &mv in &moves {
                let text = g.format_move(&pos, mv);
                assert_eq!(g.parse_move(&pos, &text).ok(), Some(mv), "{text}");
            }
            let m = plain.count_legal_moves(&pos, &mut moves);
            assert!(n >= m);
            more += n - m;
        }
        assert_eq!(more > 0, size != Size::Telo, "{size:?}: {more}");
    }
}

#[test]
fn only_captures_continue_a_chain() {
    let g = tsivy();
    let pos = at(&g, CHAINS);
    let why = rejected(&g, &pos, "c3-d3A-d2");
    assert!(why.contains("needs A or W"), "{why}");
    let why = rejected(&g, &pos, "c3-d3A-d2A");
    assert!(why.contains("captures nothing"), "{why}");
}

#[test]
fn first_capture_single_limits_each_sides_first_turn() {
    let g = game(Size::Tsivy, &["first-capture-single=true"]);
    let pos = at(&g, &format!("{CHAINS} wb"));
    assert_eq!(legal(&g, &pos), ["c3-d3A", "c3-d4W"]);
    let why = rejected(&g, &pos, "c3-d4W-d3W");
    assert!(why.contains("first-capture-single"), "{why}");
    // Once White has moved, White chains again; Black's first turn is still to come.
    assert_eq!(after(&g, &pos, "c3-d4W"), "3B5/3W5/4B4/9/9 b 0 b");
    let pos = at(&g, &format!("{CHAINS} b"));
    assert_eq!(legal(&g, &pos).len(), 6);
    // From the start: both sides' first turns are single captures.
    let start = g.start_position();
    assert_eq!(
        g.format_position(&start),
        format!("{} w 0 wb", Size::Tsivy.start_board())
    );
    let mut p = start;
    let mut moves = Vec::new();
    for _ in 0..2 {
        g.legal_moves(&p, &mut moves);
        assert!(moves.iter().all(|m| m.len() == 1));
        g.play(&mut p, moves[0]);
    }
    assert_eq!(p.first_pending, 0);
    // Off by default: the same black reply can chain.
    let plain = tsivy();
    let mut p = plain.start_position();
    let reply = plain.parse_move(&p, "d3-e3W").unwrap();
    plain.play(&mut p, reply);
    plain.legal_moves(&p, &mut moves);
    assert!(moves.iter().any(|m| m.len() > 1));
}

// ---- End and result ----

#[test]
fn a_player_without_stones_loses() {
    let g = tsivy();
    let pos = at(&g, "9/9/BBBW5/9/9 w 0");
    let mut p = pos;
    g.play(&mut p, g.parse_move(&pos, "d3-e3W").unwrap());
    let outcome = g.outcome(&p).unwrap();
    assert_eq!(outcome.result, GameResult::P1Win);
    assert_eq!(outcome.reason, "no stones left");
    assert_eq!(legal(&g, &p), Vec::<String>::new());
    assert!(
        g.parse_move(&p, "e3-e4")
            .unwrap_err()
            .to_string()
            .contains("over")
    );
}

#[test]
fn a_player_without_a_legal_move_loses() {
    let g = game(Size::Telo, &[]);
    // a1 is the only empty point and no white stone is next to it.
    let pos = at(&g, "WWW/BBW/1BB w 0");
    assert_eq!(legal(&g, &pos), Vec::<String>::new());
    let outcome = g.outcome(&pos).unwrap();
    assert_eq!(outcome.result, GameResult::P2Win);
    assert_eq!(outcome.reason, "no legal move");
    // Black, to move there, has moves.
    let pos = at(&g, "WWW/BBW/1BB b 0");
    assert!(g.outcome(&pos).is_none());
}

const FAR_APART: &str = "B8/9/9/9/8W w 0";

// ---- Notation ----

#[test]
fn move_notation_round_trips() {
    let g = tsivy();
    for (fen, text) in [
        ("9/9/4B4/9/W8 w 0", "a1-b2"),
        (Size::Tsivy.start_board(), "f2-e3A"),
        ("9/9/1BW1B4/9/9 w 0", "c3-d3W"),
        (CHAINS, "c3-d4W-c5W-b5W"),
    ] {
        let fen = if fen.contains(' ') {
            fen.to_string()
        } else {
            format!("{fen} w 0")
        };
        let pos = at(&g, &fen);
        let mv = g.parse_move(&pos, text).unwrap();
        assert_eq!(g.format_move(&pos, mv), text);
    }
}

#[test]
fn malformed_moves_are_explained() {
    let g = tsivy();
    let pos = at(&g, CHAINS);
    let cases = [
        ("c3d3A", "from-to"),
        ("", "from-to"),
        ("c3-", "not a point"),
        ("c3-j3A", "not a point"),
        ("c3-d6A", "not a point"),
        ("C3-d3A", "not a point"),
        ("c3-d3a", "not a point"),
        ("c3-d3X", "not a point"),
        ("c3A-d3A", "not a point"),
        ("c3-d3A-d4", "needs A or W"),
        ("c3 -d3A", "not a point"),
    ];
    for (text, expected) in cases {
        let e = g.parse_move(&pos, text).unwrap_err();
        assert!(matches!(e, MoveError::Malformed { .. }), "{text}: {e}");
        assert!(e.to_string().contains(expected), "{text}: {e}");
    }
    let illegal = [
        ("c3-e3A", "not next to"),
        ("c3-c3A", "must leave"),
        ("e3-e4A", "Black stone"),
        ("a1-a2", "empty"),
        ("c3-b2A", "occupied"),
        ("c3-c4A", "captures nothing"),
        ("c3-c4W", "captures nothing"),
        ("c3-d3", "compulsory"),
    ];
    for (text, expected) in illegal {
        let e = g.parse_move(&pos, text).unwrap_err();
        assert!(matches!(e, MoveError::Illegal { .. }), "{text}: {e}");
        assert!(e.to_string().contains(expected), "{text}: {e}");
    }
    let too_long = format!("a1{}", "-b2A-a1A".repeat(12));
    assert!(
        g.parse_move(&pos, &too_long)
            .unwrap_err()
            .to_string()
            .contains("at most")
    );
}

// ---- Position string ----

#[test]
fn position_strings_round_trip_and_errors_say_what_is_wrong() {
    let g = tsivy();
    for text in [
        CHAINS,
        "9/9/9/9/9 b 0",
        "B8/9/9/9/8W w 99",
        "1W1B1W1B1/9/9/9/WWWWWWWWW b 3",
    ] {
        assert_eq!(g.format_position(&at(&g, text)), text);
    }
    // `.` is accepted for an empty point; digits are written.
    assert_eq!(
        g.format_position(&at(&g, "B......../9/9/9/8W w 0")),
        FAR_APART
    );
    let bad = [
        ("", "expected 3 fields"),
        ("9/9/9/9 w 0", "4 ranks"),
        ("9/9/9/9/10 w 0", "unexpected '0'"),
        ("9/9/9/9/8 w 0", "has 8 points"),
        ("9/9/9/9/81W w 0", "more than 9"),
        ("9/9/9/9/8X w 0", "unexpected 'X'"),
        ("9/9/9/9/9 x 0", "w or b"),
        ("9/9/9/9/9 w -1", "must be a number 0..100"),
        ("9/9/9/9/9 w +1", "must be a number 0..100"),
        ("9/9/9/9/9 w 101", "the quiet-limit is 100"),
        ("9/9/9/9/9 w 0 wb", "first-capture-single"),
        ("WWWWWWWWW/WWWWWWWWW/WWWWW4/9/9 w 0", "at most 22"),
    ];
    for (text, expected) in bad {
        let e = g.parse_position(text).unwrap_err().to_string();
        assert!(e.contains(expected), "{text}: {e}");
    }
    let single = game(Size::Tsivy, &["first-capture-single=true"]);
    assert!(
        single
            .parse_position("9/9/9/9/9 w 0")
            .unwrap_err()
            .to_string()
            .contains("4th field")
    );
    assert!(
        single
            .parse_position("9/9/9/9/9 w 0 x")
            .unwrap_err()
            .to_string()
            .contains("wb, w, b or -")
    );
    let telo = game(Size::Telo, &[]);
    assert!(
        telo.parse_position("WWW/WW1/BBB w 0")
            .unwrap_err()
            .to_string()
            .contains("at most 4")
    );
}

#[test]
fn spec_names_the_size_and_non_default_options() {
    assert_eq!(tsivy().spec(), "fanorona");
    assert_eq!(game(Size::Dimy, &[]).spec(), "fanorona-dimy");
    assert_eq!(
        game(Size::Telo, &["quiet-limit=50", "repetition=off"]).spec(),
        "fanorona-telo repetition=off quiet-limit=50"
    );
}

// ---- Search helpers ----

#[test]
fn bigger_captures_are_ordered_first() {
    let g = tsivy();
    let pos = g.start_position();
    let hint = |text: &str| g.order_hint(&pos, g.parse_move(&pos, text).unwrap());
    assert!(hint("e2-e3A") > hint("d3-e3A"));
    assert!(hint("d3-e3A") > 0);
    let chains = at(&g, CHAINS);
    let hint = |text: &str| g.order_hint(&chains, g.parse_move(&chains, text).unwrap());
    assert!(hint("c3-d4W-c5W-b5W") > hint("c3-d4W-c5W"));
}

/// The same position with colours swapped and the board turned upside down (which keeps
/// strong points strong on 5-rank and 3-rank boards).
fn mirrored(text: &str) -> String {
    let fields: Vec<&str> = text.split_whitespace().collect();
    let board: Vec<String> = fields[0]
        .split('/')
        .rev()
        .map(|r| {
            r.chars()
                .map(|c| match c {
                    'W' => 'B',
                    'B' => 'W',
                    c => c,
                })
                .collect()
        })
        .collect();
    let side = if fields[1] == "w" { "b" } else { "w" };
    format!("{} {side} {}", board.join("/"), fields[2])
}

#[test]
fn evaluation_is_from_the_side_to_move_and_colour_blind() {
    let g = tsivy();
    for text in [
        Size::Tsivy.start_board().to_string() + " w 0",
        CHAINS.to_string(),
        "BB2BBBB1/BBBWB1B2/BW4WBW/WWWBWBWW1/WWWW2WWW w 0".to_string(),
        "1B2BBBBB/1B4BBB/W2W1BWBW/4B4/1W1W3WW b 0".to_string(),
    ] {
        let pos = at(&g, &text);
        let flipped = at(&g, &mirrored(&text));
        assert_eq!(g.evaluate(&pos), g.evaluate(&flipped), "{text}");
        assert_eq!(legal(&g, &pos).len(), legal(&g, &flipped).len(), "{text}");
    }
    // A stone up is worth about a stone.
    let up = at(&g, "B8/9/9/9/7WW w 0");
    assert!(g.evaluate(&up) >= 80, "{}", g.evaluate(&up));
    let down = at(&g, "B8/9/9/9/7WW b 0");
    assert!(g.evaluate(&down) <= -80);
}

#[test]
fn hash_tells_apart_what_matters() {
    let g = tsivy();
    let a = at(&g, FAR_APART);
    assert_ne!(g.hash(&a), g.hash(&at(&g, "B8/9/9/9/8W b 0")));
    assert_ne!(g.hash(&a), g.hash(&at(&g, "B8/9/9/9/8W w 1")));
    assert_ne!(g.hash(&a), g.hash(&at(&g, "W8/9/9/9/8B w 0")));
    assert_eq!(g.reversible_plies(&at(&g, "B8/9/9/9/8W w 17")), 17);
}

#[test]
fn render_draws_the_lines() {
    let g = game(Size::Telo, &[]);
    let picture = g.render(&g.start_position());
    assert!(picture.contains(" 3 B-B-B"), "{picture}");
    assert!(picture.contains("|\\|/|"), "{picture}");
    assert!(picture.contains("|/|\\|"), "{picture}");
    assert!(picture.contains("White"), "{picture}");
}

#[test]
fn move_encoding_holds_the_longest_chain() {
    let mut mv = FanoronaMove::chain_start(44);
    for i in 0..MAX_STEPS {
        mv = mv.with_capture(i % 8, i % 3 == 0, 1);
    }
    assert_eq!(mv.from(), 44);
    assert_eq!(mv.len(), MAX_STEPS);
    assert_eq!(mv.captured(), MAX_STEPS as u32);
    for i in 0..MAX_STEPS {
        let kind = if i % 3 == 0 {
            StepKind::Withdrawal
        } else {
            StepKind::Approach
        };
        assert_eq!(mv.step(i), (i % 8, kind));
    }
}

#[test]
fn evaluate_at_horizon_is_the_evaluation_and_the_horizon() {
    // Random games on every board: the one-pass answer equals the two asked apart.
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    let mut forced = 0;
    for g in [tsivy(), game(Size::Dimy, &[]), game(Size::Telo, &[])] {
        for _ in 0..40 {
            let mut pos = g.start_position();
            let mut moves = Vec::new();
            for _ in 0..60 {
                let (eval, horizon) = g.evaluate_at_horizon(&pos);
                assert_eq!((eval, horizon), (g.evaluate(&pos), g.horizon(&pos)));
                forced += (horizon == Horizon::Forced) as usize;
                g.legal_moves(&pos, &mut moves);
                if moves.is_empty() {
                    break;
                }
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let mv = moves[(seed >> 33) as usize % moves.len()];
                g.play(&mut pos, mv);
            }
        }
    }
    assert!(forced > 100, "only {forced} positions with a capture due");
}

#[test]
fn the_evaluation_halves_toward_the_quiet_limit() {
    let g = tsivy();
    let eval = |quiet: u32| g.evaluate(&at(&g, &format!("B8/9/9/9/7WW w {quiet}")));
    let fresh = eval(0);
    assert!(fresh >= 80, "{fresh}");
    assert_eq!(eval(50), fresh * 3 / 4);
    assert_eq!(eval(99), fresh * 101 / 200);
    // Without the quiet limit the counter changes nothing.
    let unlimited = game(Size::Tsivy, &["quiet-limit=off"]);
    let eval = |quiet: u32| unlimited.evaluate(&at(&unlimited, &format!("B8/9/9/9/7WW w {quiet}")));
    assert_eq!(eval(0), fresh);
    assert_eq!(eval(99), fresh);
}

#[test]
fn pursuit_counts_the_stones_of_the_side_ahead_near_the_other_side() {
    let g = tsivy();
    let pursuit = |text: &str| {
        let mut features = [0; 8];
        g.eval_features(&at(&g, text), &mut features);
        features[7]
    };
    // Three White stones against two Black ones (d3, i1): c1 is two steps from d3 (by d2),
    // a5 and i5 are further from both.
    assert_eq!(pursuit("W7W/9/3B5/9/2W5B w 0"), 1);
    // e3 is one step from d3.
    assert_eq!(pursuit("8W/9/3BW4/9/2W5B w 0"), 2);
    assert_eq!(pursuit("8W/9/3BW4/9/2W5B b 0"), -2, "for the side behind");
    // Level material, or too many stones for an ending: nothing.
    assert_eq!(pursuit("9/9/3BW4/9/2W5B w 0"), 0);
    let crowded = "BBBBBBBBB/BBB6/3BW4/9/WWWWWWWWW w 0";
    assert_eq!(pursuit(crowded), 0);
}

/// Every generated turn knows what it captures: the count it carries (which orders the
/// captures) is what playing it removes, on random games of every size; a parsed move
/// carries the same count, so it equals the generated one.
#[test]
fn a_turn_carries_the_stones_it_captures() {
    let mut random = random_words(0x9e37_79b9_7f4a_7c15);
    let mut captures_seen = 0;
    for size in [Size::Tsivy, Size::Dimy, Size::Telo] {
        let g = game(size, &[]);
        for _ in 0..40 {
            let mut pos = g.start_position();
            let mut moves = Vec::new();
            for _ in 0..200 {
                g.legal_moves(&pos, &mut moves);
                if moves.is_empty() {
                    break;
                }
                for &mv in &moves {
                    let mut after = pos;
                    g.play(&mut after, mv);
                    let taken = pos.enemy().count_ones() - after.own().count_ones();
                    assert_eq!(mv.captured(), taken, "{}", g.format_move(&pos, mv));
                    assert_eq!(mv.captured() > 0, mv.is_capture());
                    let text = g.format_move(&pos, mv);
                    assert_eq!(g.parse_move(&pos, &text), Ok(mv), "{text}");
                    captures_seen += usize::from(mv.is_capture());
                }
                let pick = moves[(random() % moves.len() as u64) as usize];
                g.play(&mut pos, pick);
            }
        }
    }
    assert!(captures_seen > 1000, "{captures_seen}");
}
