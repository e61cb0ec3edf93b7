//! The contract's promise (src/game/mod.rs): a game that writes only `Rules` and `Notation`,
//! with an empty `impl` of every capability, is played, perft-counted and searched by the
//! generic code, through the same `Session` that the protocol, `sowfan match`'s referee and
//! `sowfan analyse` use. The game here is Nim (take one to three stones; who takes the last
//! wins), whose value is known: the mover loses exactly when the pile is a multiple of four.

use std::sync::atomic::AtomicBool;

use sowfan::game::{
    BenchSpec, EvalTerm, Evaluation, ExactValues, GameResult, MoveError, NetworkFeatures, Notation,
    Outcome, Player, Points, PositionError, Rules, SearchHints, TableIndexing,
};
use sowfan::search::limits::Limits;
use sowfan::search::tt::TranspositionTable;
use sowfan::search::{SearchControl, SearchSettings};
use sowfan::session::{GameSession, Session};

#[derive(Clone)]
struct Nim;

#[derive(Clone, Debug)]
struct Pile {
    stones: u8,
    mover: Player,
}

impl Rules for Nim {
    type Position = Pile;
    type Move = u8;

    fn spec(&self) -> String {
        "nim".to_string()
    }

    fn start_position(&self) -> Pile {
        Pile {
            stones: 21,
            mover: Player::P1,
        }
    }

    fn to_move(&self, pos: &Pile) -> Player {
        pos.mover
    }

    fn legal_moves(&self, pos: &Pile, moves: &mut Vec<u8>) {
        moves.clear();
        moves.extend((1..=3).filter(|&n| n <= pos.stones));
    }

    fn play(&self, pos: &mut Pile, mv: u8) {
        pos.stones -= mv;
        pos.mover = pos.mover.other();
    }

    fn outcome(&self, pos: &Pile) -> Option<Outcome> {
        // The player who took the last stone is the one not to move.
        (pos.stones == 0).then(|| Outcome {
            result: GameResult::won_by(Some(pos.mover.other())),
            scores: self.scores(pos),
            reason: "the last stone is taken",
        })
    }

    fn scores(&self, pos: &Pile) -> [Points; 2] {
        let mut scores = [Points::ZERO; 2];
        if pos.stones == 0 {
            scores[pos.mover.other().index()] = Points::whole(1);
        }
        scores
    }

    fn hash(&self, pos: &Pile) -> u64 {
        (u64::from(pos.stones) << 1 | pos.mover.index() as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
    }

    fn bench(&self) -> BenchSpec {
        BenchSpec {
            depth: 8,
            positions: &["21 p1"],
        }
    }
}

impl Notation for Nim {
    fn parse_position(&self, text: &str) -> Result<Pile, PositionError> {
        let (stones, mover) = text
            .split_once(' ')
            .ok_or_else(|| PositionError::new("expected `<stones> p1|p2`"))?;
        let stones = stones
            .parse()
            .map_err(|_| PositionError::new("stones: a number"))?;
        let mover = match mover {
            "p1" => Player::P1,
            "p2" => Player::P2,
            _ => return Err(PositionError::new("the mover: p1 or p2")),
        };
        Ok(Pile { stones, mover })
    }

    fn format_position(&self, pos: &Pile) -> String {
        format!("{} {}", pos.stones, pos.mover.name())
    }

    fn parse_move(&self, pos: &Pile, text: &str) -> Result<u8, MoveError> {
        let n: u8 = text
            .parse()
            .map_err(|_| MoveError::malformed(text, "a number of stones"))?;
        if (1..=3).contains(&n) && n <= pos.stones {
            Ok(n)
        } else {
            Err(MoveError::illegal(
                text,
                "take one to three of the stones left",
            ))
        }
    }

    fn format_move(&self, _pos: &Pile, mv: u8) -> String {
        mv.to_string()
    }

    fn render(&self, pos: &Pile) -> String {
        "o".repeat(usize::from(pos.stones))
    }
}

// The capabilities, all taken at their defaults.
impl Evaluation for Nim {}
impl NetworkFeatures for Nim {}
impl SearchHints for Nim {}
impl ExactValues for Nim {}
impl TableIndexing for Nim {}

fn session(position: &str) -> GameSession<Nim> {
    let mut session = GameSession::new(Nim);
    session
        .set_position(Some(position), &[])
        .expect("a Nim position");
    session
}

/// Nim's perft by hand: the number of move sequences of `depth` plies from `stones`.
fn nim_perft(stones: u8, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    (1..=3u8)
        .filter(|&n| n <= stones)
        .map(|n| nim_perft(stones - n, depth - 1))
        .sum()
}

#[test]
fn a_game_of_rules_and_notation_alone_is_played_counted_and_searched() {
    let never = AtomicBool::new(false);
    // Perft through the session (as `go perft` and `sowfan perft` count).
    let start = session("21 p1");
    for depth in 1..=6 {
        let mut total = 0;
        assert!(start.divide(depth, &never, &mut |_, n| total += n));
        assert_eq!(total, nim_perft(21, depth), "perft {depth}");
    }
    assert_eq!(start.legal_moves(), ["1", "2", "3"]);

    // The search finds the known value with the default evaluation (the score margin): from
    // a pile that is not a multiple of four the mover wins by leaving one.
    let tt = TranspositionTable::new(1).expect("a small hash table");
    for stones in [5u8, 6, 7, 9, 10, 11] {
        let position = format!("{stones} p1");
        let summary = session(&position)
            .search(
                &Limits::depth(24),
                &SearchSettings::default(),
                &tt,
                None,
                &SearchControl::new(false),
                &mut |_| {},
            )
            .expect("a search");
        let take: u8 = summary.bestmove.parse().expect("a move text");
        assert_eq!((stones - take) % 4, 0, "{position}: took {take}");
        assert!(
            summary.score > 0,
            "{position}: a won position scores {}",
            summary.score
        );
    }

    // A game played to its end through the session, as the match referee plays one.
    let mut game = session("21 p1");
    for mv in ["1", "3", "2", "2", "3", "1", "1", "3", "2", "2", "1"] {
        assert!(game.outcome().is_none());
        game.play_moves(&[mv]).expect("a legal move");
    }
    let outcome = game.outcome().expect("the pile is empty");
    assert_eq!(outcome.result, GameResult::P1Win);
    assert!(game.play_moves(&["1"]).is_err(), "no move after the end");
    assert!(game.play_moves(&["4"]).is_err());

    // Nothing of the capabilities is asked of it.
    let terms: &[EvalTerm] = game.eval_terms();
    assert!(terms.is_empty());
    assert_eq!(game.network_inputs(), 0);
    assert!(game.table_rules().is_none());
}
