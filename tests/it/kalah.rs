//! Kalah rules through perft, a second implementation, and whole games through the protocol.
//!
//! Why the perft numbers in `fixtures/perft/kalah.txt` are trusted: `Reference` below is a
//! deliberately plain second implementation of Kalah (protocol.md, *Kalah*) (rows as vectors, one
//! seed at a time, an explicit "next place" function, no tables, no lap arithmetic), written apart
//! from `src/games/kalah/`. Every fixture line is checked against both implementations at every
//! depth the reference can reach within a node budget, and the engine's positions are compared with
//! the reference's, string by string, over whole trees.

use std::collections::HashMap;
use std::time::Duration;

use sowfan::game::prelude::*;
use sowfan::games::kalah::Kalah;

use crate::support::games;
use crate::support::perft_fixture::{self, Budget};
use crate::support::selfplay::protocol_game;
use crate::support::walk::{self, Node, Walk, walk};
use crate::support::{Engine, field, run_script};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Place {
    Pit(usize, usize),
    Store(usize),
}

#[derive(Clone, Debug)]
struct Rules {
    pits: usize,
    empty_capture: bool,
    end_on_move: bool,
    leftovers_none: bool,
    pie: bool,
}

#[derive(Clone, Debug)]
struct State {
    /// `rows[0]` South A.., `rows[1]` North a.., each from its owner's left.
    rows: [Vec<u32>; 2],
    stores: [u32; 2],
    turn: usize,
    north_has_moved: bool,
    swapped: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum RefMove {
    Sow(usize),
    Swap,
}

struct Reference {
    rules: Rules,
}

impl Reference {
    fn from_spec(spec: &str) -> Reference {
        let mut rules = Rules {
            pits: 6,
            empty_capture: false,
            end_on_move: false,
            leftovers_none: false,
            pie: false,
        };
        for option in spec.split_whitespace().skip(1) {
            let (key, value) = option.split_once('=').expect("key=value");
            match key {
                "pits" => rules.pits = value.parse().unwrap(),
                "seeds" => {}
                "empty-capture" => rules.empty_capture = value == "true",
                "end" => rules.end_on_move = value == "on-move",
                "leftovers" => rules.leftovers_none = value == "none",
                "pie" => rules.pie = value == "true",
                other => panic!("reference does not know option {other}"),
            }
        }
        Reference { rules }
    }

    fn start(&self, seeds: u32) -> State {
        State {
            rows: [vec![seeds; self.rules.pits], vec![seeds; self.rules.pits]],
            stores: [0, 0],
            turn: 0,
            north_has_moved: false,
            swapped: false,
        }
    }

    /// Parse the documented position string independently of the engine.
    fn parse(&self, text: &str) -> State {
        let fields: Vec<&str> = text.split_whitespace().collect();
        let (south, north) = fields[0].split_once('/').unwrap();
        let mut rows = [Vec::new(), Vec::new()];
        let mut stores = [0, 0];
        for (side, half) in [south, north].iter().enumerate() {
            let mut numbers: Vec<u32> = half.split(',').map(|n| n.parse().unwrap()).collect();
            stores[side] = numbers.pop().unwrap();
            rows[side] = numbers;
        }
        let flags = fields.get(2).copied().unwrap_or("-");
        State {
            rows,
            stores,
            turn: if fields[1] == "S" { 0 } else { 1 },
            north_has_moved: !flags.contains('p'),
            swapped: flags.contains('x'),
        }
    }

    fn format(&self, s: &State) -> String {
        let half = |side: usize| {
            let mut parts: Vec<String> = s.rows[side].iter().map(|n| n.to_string()).collect();
            parts.push(s.stores[side].to_string());
            parts.join(",")
        };
        let mut text = format!(
            "{}/{} {}",
            half(0),
            half(1),
            if s.turn == 0 { "S" } else { "N" }
        );
        if self.rules.pie {
            let flag = if !s.north_has_moved {
                "p"
            } else if s.swapped {
                "x"
            } else {
                "-"
            };
            text.push(' ');
            text.push_str(flag);
        }
        text
    }

    fn row_empty(s: &State, side: usize) -> bool {
        s.rows[side].iter().all(|&n| n == 0)
    }

    fn over(&self, s: &State) -> bool {
        if self.rules.end_on_move {
            Self::row_empty(s, s.turn)
        } else {
            Self::row_empty(s, 0) || Self::row_empty(s, 1)
        }
    }

    fn moves(&self, s: &State) -> Vec<RefMove> {
        if self.over(s) {
            return Vec::new();
        }
        let mut moves: Vec<RefMove> = (0..self.rules.pits)
            .filter(|&i| s.rows[s.turn][i] > 0)
            .map(RefMove::Sow)
            .collect();
        if self.rules.pie && s.turn == 1 && !s.north_has_moved && !s.swapped {
            moves.push(RefMove::Swap);
        }
        moves
    }

    fn next(&self, place: Place, mover: usize) -> Place {
        match place {
            Place::Pit(side, i) if i + 1 < self.rules.pits => Place::Pit(side, i + 1),
            Place::Pit(side, _) if side == mover => Place::Store(side),
            Place::Pit(side, _) => Place::Pit(1 - side, 0),
            Place::Store(side) => Place::Pit(1 - side, 0),
        }
    }

    fn play(&self, s: &State, mv: RefMove) -> State {
        let mut s = s.clone();
        let mover = s.turn;
        if mover == 1 {
            s.north_has_moved = true;
        }
        let RefMove::Sow(pit) = mv else {
            s.swapped = true;
            return s;
        };
        let mut seeds = s.rows[mover][pit];
        s.rows[mover][pit] = 0;
        let mut place = Place::Pit(mover, pit);
        while seeds > 0 {
            place = self.next(place, mover);
            match place {
                Place::Pit(side, i) => s.rows[side][i] += 1,
                Place::Store(side) => s.stores[side] += 1,
            }
            seeds -= 1;
        }
        match place {
            Place::Store(_) => {} // extra move: same player again
            Place::Pit(side, i) => {
                if side == mover && s.rows[side][i] == 1 {
                    let opposite = self.rules.pits - 1 - i;
                    let taken = s.rows[1 - side][opposite];
                    if taken > 0 || self.rules.empty_capture {
                        s.stores[mover] += taken + 1;
                        s.rows[1 - side][opposite] = 0;
                        s.rows[side][i] = 0;
                    }
                }
                s.turn = 1 - mover;
            }
        }
        if self.over(&s) && !self.rules.leftovers_none {
            for side in 0..2 {
                let left: u32 = s.rows[side].iter().sum();
                s.stores[side] += left;
                s.rows[side].iter_mut().for_each(|n| *n = 0);
            }
        }
        s
    }
}

/// The reference as the tree walks see it.
impl walk::Reference for Reference {
    type Pos = State;

    fn text(&self, s: &State) -> String {
        self.format(s)
    }

    fn moves(&self, s: &State) -> Vec<(String, State)> {
        self.moves(s)
            .into_iter()
            .map(|mv| {
                let text = match mv {
                    RefMove::Swap => "swap".to_string(),
                    RefMove::Sow(i) => {
                        let base = if s.turn == 0 { b'A' } else { b'a' };
                        ((base + i as u8) as char).to_string()
                    }
                };
                (text, self.play(s, mv))
            })
            .collect()
    }
}

fn engine_game(spec: &str) -> Kalah {
    let options: Vec<&str> = spec.split_whitespace().skip(1).collect();
    games::kalah(&options)
}

fn seeds_of(spec: &str) -> u32 {
    spec.split_whitespace()
        .find_map(|o| o.strip_prefix("seeds="))
        .map_or(4, |n| n.parse().unwrap())
}

const FIXTURE: &str = include_str!("../../fixtures/perft/kalah.txt");

#[test]
fn perft_fixture_matches_engine_and_reference() {
    let cases = perft_fixture::parse(FIXTURE);
    assert!(cases.len() >= 10);
    for case in &cases {
        let game = engine_game(&case.spec);
        let reference = Reference::from_spec(&case.spec);
        let (pos, state) = match case.fen() {
            Some(fen) => (game.parse_position(fen).unwrap(), reference.parse(fen)),
            None => (game.start_position(), reference.start(seeds_of(&case.spec))),
        };
        assert_eq!(reference.format(&state), game.format_position(&pos));
        let budget = Budget {
            reference: 3_000_000,
            engine: u64::MAX,
        };
        let reached = perft_fixture::check_line(case, &budget, &game, &pos, |depth| {
            walk::perft_by_ply(&reference, &state, depth)
        });
        assert!(reached.reference >= 3, "{}: {reached:?}", case.spec);
    }
}

/// Walk both trees together: the same legal moves (as text, in the same order), the same
/// positions after each move, every move text parses back to the same move, and the same
/// moves at the leaves too.
const WALK: Walk = Walk {
    ordered: true,
    read_back: true,
    replay_leaves: true,
    leaf_moves: true,
};

#[test]
fn positions_agree_with_reference_over_whole_trees() {
    for case in perft_fixture::parse(FIXTURE) {
        let game = engine_game(&case.spec);
        let reference = Reference::from_spec(&case.spec);
        let (pos, state) = match case.fen() {
            Some(fen) => (game.parse_position(fen).unwrap(), reference.parse(fen)),
            None => (game.start_position(), reference.start(seeds_of(&case.spec))),
        };
        // About ten thousand positions per case.
        let depth = case.counts.iter().take_while(|&&n| n <= 10_000).count();
        walk(&game, &reference, &pos, &state, depth, &WALK);
    }
}

#[test]
fn perft_through_the_protocol() {
    let out = run_script(
        &[],
        "newgame kalah\nperft 3\nposition startpos moves C\ngo perft 2\n",
        Duration::from_secs(30),
    );
    let lines: Vec<&str> = out.lines().collect();
    // One line per root move in generation order, then the total.
    assert_eq!(
        &lines[..7],
        [
            "A: 33",
            "B: 32",
            "C: 30",
            "D: 30",
            "E: 30",
            "F: 30",
            "Nodes searched: 185"
        ]
    );
    assert_eq!(lines.last(), Some(&"Nodes searched: 30"));
}

/// A whole game of `go depth 4` against itself, through the protocol: it ends, and the
/// engine's `query result` agrees with the final score.
#[test]
fn self_play_game_ends_with_the_right_result() {
    for spec in [
        "kalah",
        "kalah pits=4 seeds=3 pie=true",
        "kalah empty-capture=true end=on-move",
    ] {
        let mut engine = Engine::start(&[]);
        engine.send(&format!("newgame {spec}"));
        protocol_game(&mut engine, 400, |engine, _| {
            let lines = engine.ask("go depth 4", "bestmove ");
            assert!(lines.iter().any(|l| l.starts_with("info depth")));
            let best = lines
                .last()
                .unwrap()
                .split_whitespace()
                .nth(1)
                .unwrap()
                .to_string();
            let legal = engine.legal();
            assert!(legal.contains(&best), "{best} not in {legal:?}");
            best
        })
        .unwrap_or_else(|_| panic!("game does not end"));
        let display = engine.ask("d", "Score: ");
        let score_line = display.last().unwrap();
        let p1: u32 = field(score_line, "p1").unwrap().parse().unwrap();
        let p2: u32 = field(score_line, "p2").unwrap().parse().unwrap();
        let seeds = seeds_of(spec);
        let pits: u32 = spec
            .split_whitespace()
            .find_map(|o| o.strip_prefix("pits="))
            .map_or(6, |n| n.parse().unwrap());
        assert_eq!(p1 + p2, 2 * pits * seeds, "{spec}: {score_line}");
        let expected = match p1.cmp(&p2) {
            std::cmp::Ordering::Greater => "p1win",
            std::cmp::Ordering::Less => "p2win",
            std::cmp::Ordering::Equal => "draw",
        };
        assert_eq!(engine.query("result"), expected, "{spec}");
        // Asking for a move in a finished game: `bestmove 0000`, after a score line.
        let lines = engine.ask("go depth 4", "bestmove ");
        assert_eq!(lines.last().unwrap(), "bestmove 0000");
        assert!(lines.iter().any(|l| l.contains(" score ")));
    }
}

/// The game value of a position by plain minimax over the reference rules: the final
/// margin (South minus North, in seeds) under best play, each side maximising its margin.
fn reference_value(reference: &Reference, s: &State) -> i64 {
    let south = |s: &State, value: i64| if s.turn == 0 { value } else { -value };
    let value = walk::minimax(
        s,
        &mut HashMap::new(),
        &|s: &State| reference.format(s),
        &|s: &State| {
            let moves = reference.moves(s);
            if moves.is_empty() {
                let mut totals = [s.stores[0] as i64, s.stores[1] as i64];
                if !reference.rules.leftovers_none {
                    for (side, total) in totals.iter_mut().enumerate() {
                        *total += s.rows[side].iter().sum::<u32>() as i64;
                    }
                }
                Node::Over(south(s, totals[0] - totals[1]))
            } else {
                Node::Moves(
                    moves
                        .into_iter()
                        .map(|mv| {
                            let child = reference.play(s, mv);
                            let again = child.turn == s.turn;
                            (child, again)
                        })
                        .collect(),
                )
            }
        },
    );
    south(s, value)
}

/// Small boards solved twice: by exhaustive minimax over the reference rules, and by the
/// engine's search, which must prove the same value from the start — the exact final
/// margin, as the solver would give it, not only the winner — this checks the search's
/// handling of extra moves and of exact game ends, not only the rules.
#[test]
fn search_proves_the_values_of_small_boards() {
    use sowfan::registry;
    use sowfan::search::limits::Limits;
    use sowfan::search::tt::TranspositionTable;
    use sowfan::search::{SearchControl, SearchSettings, score};
    let tt = TranspositionTable::new(16).unwrap();
    for spec in [
        "kalah pits=1 seeds=2",
        "kalah pits=2 seeds=2",
        "kalah pits=3 seeds=1",
        "kalah pits=3 seeds=2",
        "kalah pits=3 seeds=3",
        "kalah pits=4 seeds=2",
        "kalah pits=3 seeds=3 empty-capture=true",
        "kalah pits=3 seeds=2 end=on-move leftovers=none",
        "kalah pits=3 seeds=2 pie=true",
    ] {
        let reference = Reference::from_spec(spec);
        let value = if spec.contains("pie=true") {
            pie_value(&reference, &reference.start(seeds_of(spec)))
        } else {
            reference_value(&reference, &reference.start(seeds_of(spec)))
        };
        let session = registry::create_from_spec(spec).unwrap();
        tt.clear();
        let summary = session
            .search(
                &Limits::depth(100),
                &SearchSettings::default(),
                &tt,
                None,
                &SearchControl::default(),
                &mut |_| {},
            )
            .unwrap();
        assert!(
            summary.proven,
            "{spec}: not proven at depth {}",
            summary.depth
        );
        // South (p1) is to move at the start: the search's score is p1's (with the pie
        // rule p1 may end on the North side; `pie_value` is p1's margin too).
        let engine_sign = summary.score.signum() as i64;
        // The exact margin (half-points), a draw being 0.
        let margin = score::exact_value(summary.score).unwrap_or(0);
        assert_eq!(
            engine_sign,
            value.signum(),
            "{spec}: reference margin {value}"
        );
        assert_eq!(i64::from(margin), 2 * value, "{spec}: the exact margin");
    }
}

/// The value for p1 (South, to move) of a start under the pie rule, from the reference
/// without it: South plays a whole first turn (extra moves included) to a board B with
/// North to move; North then either plays on, worth V(B) to North (B's plain minimax value
/// for its mover), or swaps (protocol.md, *Pie rule*: the board stays, the swapper owns
/// South's side, and p1, now North, moves on B, worth V(B) to p1 and so -V(B) to the
/// swapper). North takes the better, |V(B)|, so the first turn is worth -|V(B)| to p1, who
/// picks the best first turn. A first turn that ends the game is worth its final margin.
fn pie_value(pie: &Reference, start: &State) -> i64 {
    let plain = Reference {
        rules: Rules {
            pie: false,
            ..pie.rules.clone()
        },
    };
    // Boards of the reference without the pie rule (the flags play no part in its moves).
    let board = |s: &State| State {
        north_has_moved: true,
        swapped: false,
        ..s.clone()
    };
    fn first_turns(reference: &Reference, s: &State, ends: &mut Vec<State>) {
        for mv in reference.moves(s) {
            let child = reference.play(s, mv);
            if child.turn == 0 && !reference.moves(&child).is_empty() {
                first_turns(reference, &child, ends); // an extra move: South's turn goes on
            } else {
                ends.push(child);
            }
        }
    }
    let mut ends = Vec::new();
    first_turns(pie, start, &mut ends);
    assert!(!ends.is_empty());
    ends.iter()
        .map(|b| {
            // South's margin of B under plain play: North's value is its negation.
            let south = reference_value(&plain, &board(b));
            if plain.over(&board(b)) {
                south
            } else {
                assert_eq!(b.turn, 1, "a first turn ends with North to move");
                assert!(
                    pie.moves(b).contains(&RefMove::Swap),
                    "North may swap after South's first turn"
                );
                -south.abs()
            }
        })
        .max()
        .expect("a first turn")
}
