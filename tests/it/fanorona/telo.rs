//! Fanoron-Telo (3×3) is a win for White. The engine, as White at a modest depth, plays
//! from the start against a perfect opponent — an exact solver written here — and must
//! never lose.
//!
//! Why the check is sound:
//! - The solver works on the game graph: a state is the board and the side to move, moves
//!   come from the independent brute-force generator (`brute.rs`, itself checked
//!   against the engine by perft), and states are valued by retrograde analysis: no move =
//!   loss; a win if some move reaches a lost state, a loss if every move reaches a won
//!   state, each with its distance in plies; everything left is a draw (neither side can
//!   force an end).
//! - The draw rules only end games as draws; they cannot turn a draw into a win. A graph
//!   win is a real win as long as the winner's forced line is short: along it the distance
//!   falls at every ply, so no position repeats, and the test asserts that every distance
//!   is below the quiet-limit (100 turns), so that rule cannot intervene either. Hence the
//!   graph values are the values of the game with the engine's draw rules.
//! - Black plays *every* move of best value, not one: when Black is lost (which is what
//!   White should keep it), that is every legal move, so the test then covers every
//!   opponent, perfect or not. The games are judged by the engine's own session (its
//!   repetition and quiet-limit rules), not by the solver.

use std::collections::HashMap;

use sowfan::game::GameResult;
use sowfan::registry;
use sowfan::search::limits::Limits;
use sowfan::search::tt::TranspositionTable;
use sowfan::search::{SearchControl, SearchSettings};
use sowfan::session::Session;

use super::brute::{Board, Cell};

/// A state of the game graph: the board and the side to move.
type State = ([[Cell; 9]; 5], bool);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Value {
    /// The side to move wins in this many plies.
    Win(u32),
    /// The side to move loses in this many plies.
    Loss(u32),
    Draw,
}

fn state(board: &Board) -> State {
    (board.cells, board.white_to_move)
}

/// Moves of `board` in the game graph (no draw rule: it is not part of a state).
fn graph_moves(board: &Board) -> Vec<(String, Board)> {
    board.moves(None, false)
}

/// Every state reachable from `start`, valued by retrograde analysis.
fn solve(start: &Board) -> HashMap<State, Value> {
    let mut children: HashMap<State, Vec<State>> = HashMap::new();
    let mut stack = vec![start.clone()];
    while let Some(board) = stack.pop() {
        let key = state(&board);
        if children.contains_key(&key) {
            continue;
        }
        let moves = graph_moves(&board);
        children.insert(key, moves.iter().map(|(_, b)| state(b)).collect());
        stack.extend(moves.into_iter().map(|(_, b)| b));
    }
    let mut value: HashMap<State, Value> = HashMap::new();
    for (key, next) in &children {
        if next.is_empty() {
            value.insert(*key, Value::Loss(0));
        }
    }
    // Round k decides the states whose value is reached in k plies, from values decided in
    // earlier rounds only: so the winner's distance is the shortest, the loser's the longest.
    for round in 1.. {
        let mut decided = Vec::new();
        for (key, next) in &children {
            if value.contains_key(key) {
                continue;
            }
            let values: Vec<Option<Value>> = next.iter().map(|c| value.get(c).copied()).collect();
            if values.iter().any(|v| matches!(v, Some(Value::Loss(_)))) {
                decided.push((*key, Value::Win(round)));
            } else if values.iter().all(|v| matches!(v, Some(Value::Win(_)))) {
                decided.push((*key, Value::Loss(round)));
            }
        }
        if decided.is_empty() {
            break;
        }
        value.extend(decided);
    }
    for key in children.keys() {
        value.entry(*key).or_insert(Value::Draw);
    }
    value
}

/// How the explored games ended.
#[derive(Default, Debug)]
struct Tally {
    white_wins: u32,
    draws: u32,
    black_wins: u32,
    /// White positions (engine to move) the solver counts as won, and as not won.
    white_kept_win: u32,
    white_let_go: u32,
}

/// The engine's move in the session's position: a fresh table each time, so the choice
/// depends only on the game so far.
fn engine_move(session: &dyn Session, depth: u32) -> String {
    let tt = TranspositionTable::new(4).expect("table");
    let control = SearchControl::default();
    let summary = session
        .search(
            &Limits::depth(depth),
            &SearchSettings::default(),
            &tt,
            None,
            &control,
            &mut |_| {},
        )
        .expect("search");
    summary.bestmove
}

fn explore(moves: &mut Vec<String>, values: &HashMap<State, Value>, depth: u32, tally: &mut Tally) {
    let mut session = registry::create("fanorona-telo", &[]).expect("game");
    let texts: Vec<&str> = moves.iter().map(String::as_str).collect();
    session.set_position(None, &texts).expect("replay");
    if let Some(outcome) = session.outcome() {
        match outcome.result {
            GameResult::P1Win => tally.white_wins += 1,
            GameResult::Draw => tally.draws += 1,
            GameResult::P2Win => {
                tally.black_wins += 1;
                panic!("White lost: {} ({})", moves.join(" "), outcome.reason);
            }
        }
        return;
    }
    assert!(moves.len() < 400, "a game without end: {}", moves.join(" "));
    let board = Board::parse(3, 3, &session.fen());
    let value = values[&state(&board)];
    if board.white_to_move {
        if matches!(value, Value::Win(_)) {
            tally.white_kept_win += 1;
        } else {
            tally.white_let_go += 1;
        }
        moves.push(engine_move(session.as_ref(), depth));
        explore(moves, values, depth, tally);
        moves.pop();
        return;
    }
    // Black: every move of the best value for Black (a win, else a draw, else any move).
    let replies = graph_moves(&board);
    let rank = |b: &Board| match values[&state(b)] {
        Value::Loss(_) => 2, // White to move and lost: Black wins
        Value::Draw => 1,
        Value::Win(_) => 0,
    };
    let best = replies
        .iter()
        .map(|(_, b)| rank(b))
        .max()
        .expect("Black has a move");
    for (text, after) in &replies {
        if rank(after) == best {
            moves.push(text.clone());
            explore(moves, values, depth, tally);
            moves.pop();
        }
    }
}

#[test]
fn fanorona_telo_white_never_loses_against_a_perfect_opponent() {
    let start = Board::parse(3, 3, "BBB/B1W/WWW w 0");
    let values = solve(&start);
    assert!(
        matches!(values[&state(&start)], Value::Win(_)),
        "the solver must find the known result, a White win: {:?}",
        values[&state(&start)]
    );
    let longest = values
        .values()
        .filter_map(|v| match v {
            Value::Win(n) | Value::Loss(n) => Some(*n),
            Value::Draw => None,
        })
        .max()
        .unwrap_or(0);
    assert!(
        longest < 100,
        "forced lines must be shorter than the quiet-limit: {longest}"
    );
    let mut tally = Tally::default();
    explore(&mut Vec::new(), &values, 8, &mut tally);
    assert_eq!(tally.black_wins, 0, "{tally:?}");
    // The engine keeps the win all the way: every explored game is a White win.
    assert_eq!(tally.draws, 0, "{tally:?}");
    assert_eq!(tally.white_let_go, 0, "{tally:?}");
    assert!(tally.white_wins > 0, "{tally:?}");
}
