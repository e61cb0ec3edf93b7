//! Anywoli through perft against a second implementation of the rules, random positions
//! move by move, and self-play games to the end.
//!
//! Why the perft numbers in `fixtures/perft/anywoli.txt` are trusted: [`reference`] is a
//! deliberately plain implementation of Anywoli (protocol.md, *Anywoli*) written for this test
//! (vectors, one seed at a time, every lap end of a turn kept in a list for the loop guard),
//! sharing no code with the engine. The tree walk of `support/walk.rs` runs both side by side over
//! the whole tree and compares, at every node, the legal move texts (in order), the position
//! string, the end of the game with its scores, and that every move text parses back to the move
//! itself.

use std::cell::RefCell;

use sowfan::game::prelude::*;
use sowfan::game::{GameResult, Outcome, Points};
use sowfan::games::anywoli::{self, Anywoli, AnywoliPosition};
use sowfan::registry;
use sowfan::search::limits::Limits;
use sowfan::search::tt::TranspositionTable;
use sowfan::search::{SearchControl, SearchSettings};
use sowfan::session::{GameSession, Session};

use crate::support::games;
use crate::support::perft_fixture::{self, Budget, PerftLine};
use crate::support::rng::Rng;
use crate::support::selfplay::{protocol_game, session_game};
use crate::support::walk::{self, Walk};
use crate::support::{Engine, field};

const FIXTURE: &str = include_str!("../../fixtures/perft/anywoli.txt");

/// The rules again, as plainly as possible; only the position-string format is shared
/// with the engine (so that positions can be compared as text).
mod reference {
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum Move {
        Pass,
        /// A board index (South's houses first, then North's).
        House(usize),
    }

    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct Pos {
        pub board: Vec<u32>,
        /// 0 = South, 1 = North.
        pub store: [u32; 2],
        pub mover: usize,
        pub quiet: u32,
        pub last: Option<usize>,
        pub first_final: Option<usize>,
    }

    pub struct Rules {
        pub n: usize,
        pub seeds: u32,
        pub first_final_rule: bool,
        pub quiet_limit: Option<u32>,
    }

    /// What happened in a turn, for the test's own statistics.
    #[derive(Default, Debug)]
    pub struct Stats {
        pub loop_guards: u64,
        /// Loop guards where the repeated lap end was not the turn's first.
        pub late_loop_guards: u64,
        pub extra_moves: u64,
        pub passes: u64,
        pub long_laps: u64,
    }

    const SIDES: [&str; 2] = ["S", "N"];

    impl Rules {
        pub fn from_spec(spec: &str) -> Rules {
            let mut rules = Rules {
                n: 12,
                seeds: 4,
                first_final_rule: false,
                quiet_limit: Some(200),
            };
            for token in spec.split_whitespace().skip(1) {
                let (key, value) = token.split_once('=').unwrap();
                match key {
                    "houses" => rules.n = value.parse().unwrap(),
                    "seeds" => rules.seeds = value.parse().unwrap(),
                    "last-four" => rules.first_final_rule = value == "first-final-capture",
                    "quiet-limit" => rules.quiet_limit = value.parse().ok(),
                    "repetition" => {} // a history rule: not part of perft
                    other => panic!("reference does not know option {other}"),
                }
            }
            rules
        }

        pub fn start(&self) -> Pos {
            Pos {
                board: vec![self.seeds; 2 * self.n],
                store: [0, 0],
                mover: 0,
                quiet: 0,
                last: None,
                first_final: None,
            }
        }

        pub fn parse(&self, text: &str) -> Pos {
            if text == "startpos" {
                return self.start();
            }
            let f: Vec<&str> = text.split_whitespace().collect();
            let (south, north) = f[0].split_once('/').unwrap();
            let mut board = Vec::new();
            let mut store = [0; 2];
            for (side, row) in [south, north].into_iter().enumerate() {
                let counts: Vec<u32> = row.split(',').map(|c| c.parse().unwrap()).collect();
                board.extend_from_slice(&counts[..self.n]);
                store[side] = counts[self.n];
            }
            let side = |t: &str| SIDES.iter().position(|s| *s == t);
            Pos {
                board,
                store,
                mover: side(f[1]).unwrap(),
                quiet: f.get(2).map_or(0, |q| q.parse().unwrap()),
                last: f.get(3).and_then(|t| side(t)),
                first_final: f.get(4).and_then(|t| side(t)),
            }
        }

        pub fn show(&self, p: &Pos) -> String {
            let row = |side: usize| {
                let mut v: Vec<String> = p.board[side * self.n..(side + 1) * self.n]
                    .iter()
                    .map(|c| c.to_string())
                    .collect();
                v.push(p.store[side].to_string());
                v.join(",")
            };
            let who = |s: Option<usize>| s.map_or("-", |s| SIDES[s]);
            format!(
                "{}/{} {} {} {} {}",
                row(0),
                row(1),
                SIDES[p.mover],
                p.quiet,
                who(p.last),
                who(p.first_final)
            )
        }

        fn own_rows(&self, p: &Pos) -> [u32; 2] {
            let mut s = p.store;
            for (i, c) in p.board.iter().enumerate() {
                s[i / self.n] += c;
            }
            s
        }

        /// Final scores (South, North) once the game is over.
        pub fn result(&self, p: &Pos) -> Option<[u32; 2]> {
            let on_board: u32 = p.board.iter().sum();
            if on_board == 0 {
                return Some(p.store);
            }
            if on_board == 4 {
                let holder = if self.first_final_rule {
                    p.first_final.or(p.last)
                } else {
                    p.last
                };
                return Some(match holder {
                    Some(h) => {
                        let mut s = p.store;
                        s[h] += 4;
                        s
                    }
                    None => self.own_rows(p),
                });
            }
            if self.quiet_limit.is_some_and(|limit| p.quiet >= limit) {
                return Some(self.own_rows(p));
            }
            None
        }

        /// Legal moves with their texts.
        pub fn moves(&self, p: &Pos) -> Vec<(String, Move)> {
            if self.result(p).is_some() {
                return vec![];
            }
            let base = if p.mover == 0 { b'A' } else { b'a' };
            let mut moves = vec![];
            for i in 0..self.n {
                if p.board[p.mover * self.n + i] > 0 {
                    moves.push((
                        ((base + i as u8) as char).to_string(),
                        Move::House(p.mover * self.n + i),
                    ));
                }
            }
            if moves.is_empty() {
                moves.push(("pass".to_string(), Move::Pass));
            }
            moves
        }

        pub fn play(&self, p: &Pos, mv: Move, stats: &mut Stats) -> Pos {
            let mut q = p.clone();
            let Move::House(start) = mv else {
                stats.passes += 1;
                q.mover = 1 - p.mover;
                q.quiet += 1;
                return q;
            };
            let size = q.board.len();
            let mut captured = false;
            let mut again = false;
            let mut lap_ends: Vec<(Vec<u32>, usize)> = vec![];
            let mut from = start;
            loop {
                let mut hand = q.board[from];
                if hand as usize >= size {
                    stats.long_laps += 1;
                }
                q.board[from] = 0;
                let mut at = from;
                while hand > 0 {
                    at = (at + 1) % size;
                    q.board[at] += 1;
                    hand -= 1;
                    if q.board[at] == 4 {
                        // The last seed's four is the mover's; any other, the house owner's.
                        let to = if hand == 0 { p.mover } else { at / self.n };
                        q.store[to] += 4;
                        q.board[at] = 0;
                        q.last = Some(to);
                        captured = true;
                        if hand == 0 {
                            again = true;
                            if q.first_final.is_none() {
                                q.first_final = Some(p.mover);
                            }
                        }
                    }
                }
                if again || q.board[at] == 1 {
                    break;
                }
                let state = (q.board.clone(), at);
                if let Some(k) = lap_ends.iter().position(|s| *s == state) {
                    stats.loop_guards += 1;
                    if k > 0 {
                        stats.late_loop_guards += 1;
                    }
                    break;
                }
                lap_ends.push(state);
                from = at;
            }
            if again {
                stats.extra_moves += 1;
            } else {
                q.mover = 1 - p.mover;
            }
            q.quiet = if captured { 0 } else { p.quiet + 1 };
            q
        }
    }
}

fn game(spec: &str) -> Anywoli {
    let tokens: Vec<&str> = spec.split_whitespace().collect();
    assert_eq!(tokens[0], anywoli::NAME);
    games::anywoli(&tokens[1..])
}

fn engine_position(g: &Anywoli, text: &str) -> AnywoliPosition {
    if text == "startpos" {
        g.start_position()
    } else {
        g.parse_position(text).unwrap()
    }
}

/// The reference rules as the tree walk sees them, counting what happens in the turns it
/// plays.
struct Walked<'a> {
    rules: &'a reference::Rules,
    stats: RefCell<&'a mut reference::Stats>,
}

impl walk::Reference for Walked<'_> {
    type Pos = reference::Pos;

    fn text(&self, p: &reference::Pos) -> String {
        self.rules.show(p)
    }

    fn moves(&self, p: &reference::Pos) -> Vec<(String, reference::Pos)> {
        let mut stats = self.stats.borrow_mut();
        self.rules
            .moves(p)
            .into_iter()
            .map(|(text, mv)| {
                let after = self.rules.play(p, mv, &mut stats);
                (text, after)
            })
            .collect()
    }

    fn check_end(&self, p: &reference::Pos, outcome: Option<&Outcome>, text: &str) {
        let outcome = outcome.map(|o| (o.scores, o.result));
        let expected = self.rules.result(p).map(|s| {
            let scores = s.map(|x| Points::whole(x as i32));
            (scores, GameResult::from_scores(scores))
        });
        assert_eq!(outcome, expected, "end of game differs at {text}");
    }
}

/// Check the engine against the reference at `pos`, then below it to `depth` (the reference
/// lists the moves in the engine's order); returns the nodes at each ply below `pos`.
fn check_tree(
    g: &Anywoli,
    rules: &reference::Rules,
    pos: &AnywoliPosition,
    rpos: &reference::Pos,
    depth: usize,
    stats: &mut reference::Stats,
) -> Vec<u64> {
    let reference = Walked {
        rules,
        stats: RefCell::new(stats),
    };
    // Position strings are not read back here: that would double the time, and
    // robustness.rs reads back every position of random games of every game.
    let how = Walk {
        ordered: true,
        read_back: false,
        replay_leaves: true,
        leaf_moves: false,
    };
    walk::walk(g, &reference, pos, rpos, depth, &how)
}

fn fixture() -> Vec<PerftLine> {
    perft_fixture::parse(FIXTURE)
}

/// Leaves checked against the reference in the normal run (fewer in the slow dev profile);
/// the ignored test below checks every number.
const REFERENCE_BUDGET: u64 = if cfg!(debug_assertions) {
    60_000
} else {
    300_000
};
/// Leaves counted by the engine's own perft in the normal run.
const ENGINE_BUDGET: u64 = if cfg!(debug_assertions) {
    1_200_000
} else {
    5_000_000
};

fn check_fixture(reference_budget: u64, engine_budget: u64) -> reference::Stats {
    let mut stats = reference::Stats::default();
    let lines = fixture();
    assert!(lines.len() >= 6, "fixture has {} lines", lines.len());
    for line in &lines {
        let g = game(&line.spec);
        let rules = reference::Rules::from_spec(&line.spec);
        let pos = engine_position(&g, &line.position);
        let rpos = rules.parse(&line.position);
        let budget = Budget {
            reference: reference_budget,
            engine: engine_budget,
        };
        perft_fixture::check_line(line, &budget, &g, &pos, |depth| {
            check_tree(&g, &rules, &pos, &rpos, depth, &mut stats)
        });
    }
    stats
}

#[test]
fn perft_fixture_agrees_with_the_reference_rules() {
    let stats = check_fixture(REFERENCE_BUDGET, ENGINE_BUDGET);
    // The fixture's positions are chosen so that the walk meets every rule.
    assert!(stats.extra_moves > 0, "{stats:?}");
    assert!(stats.passes > 0, "{stats:?}");
    assert!(stats.long_laps > 0, "{stats:?}");
    assert!(stats.loop_guards > 0, "{stats:?}");
}

/// Every number of the fixture, by both implementations (minutes in release mode):
/// `cargo test --release --test it anywoli_full -- --ignored`.
#[test]
#[ignore = "long: every count of fixtures/perft/anywoli.txt by the reference and the engine; see CONTRIBUTING.md"]
fn anywoli_full_perft_fixture() {
    let stats = check_fixture(u64::MAX, u64::MAX);
    eprintln!("{stats:?}");
}

#[test]
fn random_positions_agree_move_by_move() {
    // Small boards are where relays cycle: the loop guard is met often there.
    let mut rng = Rng::new(0x05EE_DA11);
    let mut stats = reference::Stats::default();
    for round in 0..40000 {
        let houses = 2 + rng.below(5);
        let spec = match round % 3 {
            0 => format!("anywoli houses={houses}"),
            1 => format!("anywoli houses={houses} last-four=first-final-capture"),
            _ => format!("anywoli houses={houses} quiet-limit=5"),
        };
        let g = game(&spec);
        let rules = reference::Rules::from_spec(&spec);
        let mut rpos = rules.start();
        // Few seeds cycle most; many make long laps.
        let seeds = if round % 2 == 0 {
            1 + rng.below(4 * houses)
        } else {
            1 + rng.below(16 * houses)
        };
        rpos.board.iter_mut().for_each(|c| *c = 0);
        for _ in 0..seeds {
            let house = rng.below(2 * houses);
            rpos.board[house] += 1;
        }
        rpos.store = [4 * rng.below(5) as u32, 4 * rng.below(5) as u32];
        rpos.mover = rng.below(2);
        rpos.quiet = rng.below(6) as u32;
        let who = |r: usize| [None, Some(0), Some(1)][r];
        rpos.last = who(1 + rng.below(2));
        rpos.first_final = who(rng.below(3));
        let pos = g.parse_position(&rules.show(&rpos)).unwrap();
        check_tree(&g, &rules, &pos, &rpos, 2, &mut stats);
    }
    assert!(stats.late_loop_guards > 30, "{stats:?}");
    assert!(stats.long_laps > 100, "{stats:?}");
}

/// Self-play with `go depth 3` from varied openings: every game ends, and the scores
/// account for every seed.
#[test]
fn self_play_games_end_with_every_seed_counted() {
    let variants = [
        ("anywoli", 96),
        ("anywoli houses=7", 56),
        ("anywoli houses=13 seeds=2", 52),
        ("anywoli last-four=first-final-capture", 96),
        ("anywoli houses=7 repetition=2 quiet-limit=30", 56),
        ("anywoli houses=5 seeds=3 quiet-limit=off", 30),
        // 14 seeds never come down to 0 or 4: only the quiet limit ends these.
        ("anywoli houses=7 seeds=1 quiet-limit=25 repetition=off", 14),
    ];
    let tt = TranspositionTable::new(4).unwrap();
    let settings = SearchSettings::default();
    let mut rng = Rng::new(0xA11_0A11);
    for (spec, total) in variants {
        for game_no in 0..6 {
            let mut session = registry::create_from_spec(spec).unwrap();
            tt.clear();
            let moves = session_game(&mut *session, |session, moves, legal| {
                if session.outcome().is_some() {
                    return None;
                }
                assert!(moves.len() < 3000, "{spec}: game {game_no} does not end");
                let mv = if moves.len() < 2 + game_no {
                    rng.pick(legal).clone()
                } else {
                    let control = SearchControl::default();
                    let summary = session
                        .search(
                            &Limits::depth(3),
                            &settings,
                            &tt,
                            None,
                            &control,
                            &mut |_| {},
                        )
                        .unwrap();
                    summary.bestmove
                };
                assert!(legal.contains(&mv), "{spec}: {mv} not in {legal:?}");
                Some(mv)
            });
            let outcome = session.outcome().unwrap();
            let sum = outcome.scores[0] + outcome.scores[1];
            assert_eq!(
                sum,
                Points::whole(total),
                "{spec}: {outcome:?} after {moves:?}"
            );
            assert_eq!(outcome.result, GameResult::from_scores(outcome.scores));
        }
    }
}

/// The protocol: a game to its end through the real binary, `query` and `d` agreeing.
#[test]
fn protocol_plays_to_the_end_and_reports_the_result() {
    let mut engine = Engine::start(&[]);
    engine.send("newgame anywoli houses=7");
    protocol_game(&mut engine, 3000, |engine, _| {
        let p1 = engine.query("p1turn") == "true";
        let lines = engine.ask("go depth 3", "bestmove");
        let best = field(lines.last().unwrap(), "bestmove")
            .unwrap()
            .to_string();
        let legal = engine.legal();
        assert!(legal.contains(&best), "{best} {legal:?}");
        // South (p1) moves with upper-case letters, North with lower-case (or pass).
        if best != "pass" {
            assert_eq!(p1, best.chars().all(|c| c.is_ascii_uppercase()), "{best}");
        }
        best
    })
    .unwrap_or_else(|moves| panic!("game does not end: {moves:?}"));
    let result = engine.query("result");
    let d = engine.ask("d", "Result:");
    let score = d.iter().find(|l| l.starts_with("Score:")).unwrap();
    let p1: i32 = field(score, "p1").unwrap().parse().unwrap();
    let p2: i32 = field(score, "p2").unwrap().parse().unwrap();
    assert_eq!(p1 + p2, 56, "{d:?}");
    let expected = match p1.cmp(&p2) {
        std::cmp::Ordering::Greater => "p1win",
        std::cmp::Ordering::Less => "p2win",
        std::cmp::Ordering::Equal => "draw",
    };
    assert_eq!(result, expected);
    assert!(
        d.last()
            .unwrap()
            .starts_with(&format!("Result: {expected}")),
        "{d:?}"
    );
    let bestmove = engine.ask("go depth 3", "bestmove");
    assert_eq!(bestmove.last().unwrap(), "bestmove 0000");
}

fn anywoli_with(options: &[&str]) -> Anywoli {
    games::anywoli(options)
}

/// The repetition rule needs the game's history, which the session keeps.
#[test]
fn third_repetition_ends_the_game_with_each_side_taking_its_row() {
    // One seed on Yit-Nuri-sized rows would take long; one house a side repeats fast.
    let g = anywoli_with(&["houses=1"]);
    assert_eq!(g.repetition_limit(), Some(3));
    let mut session = GameSession::new(g.clone());
    session
        .set_position(Some("1,5/0,6 S"), &["A", "a", "A"])
        .unwrap();
    assert!(session.outcome().is_none());
    session
        .set_position(Some("1,5/0,6 S"), &["A", "a", "A", "a"])
        .unwrap();
    let outcome = session.outcome().unwrap();
    // Third time South to move with A=1: South takes its row's seed.
    assert_eq!(outcome.scores, [Points::whole(6), Points::whole(6)]);
    assert_eq!(outcome.result, GameResult::Draw);
    assert!(session.legal_moves().is_empty());
    assert!(
        session
            .set_position(Some("1,5/0,6 S"), &["A", "a", "A", "a", "A"])
            .is_err()
    );
    // The key is board and side: a different counter or store does not matter.
    let a = g.parse_position("1,5/0,6 S 0 - -").unwrap();
    let b = g.parse_position("1,5/0,6 S 7 N -").unwrap();
    assert_eq!(g.repetition_key(&a), g.repetition_key(&b));
    assert_eq!(g.reversible_plies(&b), 7);
    let n = g.parse_position("1,5/0,6 N").unwrap();
    assert_ne!(g.repetition_key(&a), g.repetition_key(&n));
    // repetition=2 ends at the second occurrence; off never.
    let g2 = anywoli_with(&["houses=1", "repetition=2"]);
    let mut session = GameSession::new(g2);
    session
        .set_position(Some("1,5/0,6 S"), &["A", "a"])
        .unwrap();
    assert!(session.outcome().is_some());
    let off = anywoli_with(&["houses=1", "repetition=off"]);
    assert_eq!(off.repetition_limit(), None);
}
