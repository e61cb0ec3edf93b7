//! The proof-number solver (src/solver/pn/) against plain minimax: a memoised recursion over
//! (board, side to move, quiet counter) with the quiet-limit draw, on positions without
//! history (so the repetition rule is ignored: see the solver's module doc for why it does
//! not change their values). Moves come from the independent generator of `brute.rs`.
//!
//! Checked: Fanoron-Telo from the start (a White win) and after every first move; several
//! hundred random small 5×5 positions under repetition=3 and repetition=off (the same
//! values); the best move keeps the value and a winning line wins when played out with the
//! repetition rule; stopped proofs keep bounds that hold; a proof stopped, saved, loaded
//! and resumed reaches the same value with fewer new nodes; proof files that are damaged
//! or belong to something else are refused without a panic.

use std::collections::HashMap;
use std::sync::atomic::AtomicBool;

use sowfan::game::GameResult;
use sowfan::game::prelude::*;
use sowfan::games::fanorona::{Fanorona, FanoronaPosition, Size};
use sowfan::session::{GameSession, Session};
use sowfan::solver::pn::file::{self, ProofFileError, ProofIdentity, ProofWork};
use sowfan::solver::pn::tt::PnTt;
use sowfan::solver::pn::{self, DRAW, LOSS, WIN};
use sowfan::solver::{self, Progress, Solution, SolveSettings, tt::SolverTt};

use super::brute::{Board, Cell};
use crate::support::fresh_dir;
use crate::support::games::fanorona;
use crate::support::rng::Rng;

fn dims(size: Size) -> (usize, usize) {
    match size {
        Size::Tsivy => (9, 5),
        Size::Dimy => (5, 5),
        Size::Telo => (3, 3),
    }
}

fn settings(node_limit: Option<u64>) -> SolveSettings<'static> {
    SolveSettings {
        threads: 1,
        tables: None,
        guess: None,
        want_pv: true,
        node_limit,
        deadline: None,
    }
}

type Key = ([[Cell; 9]; 5], bool, u32);

fn count(board: &Board, cell: Cell) -> usize {
    board.cells.iter().flatten().filter(|&&c| c == cell).count()
}

/// The value for the side to move (+2 win, 0 draw, −2 loss) with perfect play, the game
/// ending as a draw once `limit` turns in a row went by without a capture (a loss takes
/// precedence: a side with no stones or no move has lost).
fn minimax(board: &Board, limit: u32, memo: &mut HashMap<Key, i32>) -> i32 {
    let key = (board.cells, board.white_to_move, board.quiet);
    if let Some(&v) = memo.get(&key) {
        return v;
    }
    let (me, enemy) = if board.white_to_move {
        (Cell::White, Cell::Black)
    } else {
        (Cell::Black, Cell::White)
    };
    let value = if count(board, me) == 0 {
        LOSS
    } else if count(board, enemy) == 0 {
        WIN
    } else if board.moves(None, false).is_empty() {
        LOSS
    } else if board.quiet >= limit {
        DRAW
    } else {
        board
            .moves(Some(limit), false)
            .iter()
            .map(|(_, child)| -minimax(child, limit, memo))
            .max()
            .expect("moves")
    };
    memo.insert(key, value);
    value
}

fn board_of(g: &Fanorona, pos: &FanoronaPosition) -> Board {
    let (files, ranks) = dims(g.size());
    Board::parse(files, ranks, &g.format_position(pos))
}

fn solve_with(
    g: &Fanorona,
    pos: &FanoronaPosition,
    tt: &SolverTt,
    limit: Option<u64>,
) -> Solution<sowfan::games::fanorona::FanoronaMove> {
    solver::solve(
        g,
        pos,
        tt,
        &settings(limit),
        &AtomicBool::new(false),
        &|_| {},
    )
}

/// Check a proven solution of `pos` (value `expected`) further: the best move keeps the
/// value (by minimax), and a won position's line, played in a session that keeps the
/// repetition rule, ends in a win for the side to move.
fn check_solution(
    g: &Fanorona,
    pos: &FanoronaPosition,
    solution: &Solution<sowfan::games::fanorona::FanoronaMove>,
    limit: u32,
    memo: &mut HashMap<Key, i32>,
) {
    let text = g.format_position(pos);
    let value = solution.lower;
    let Some(best) = solution.best else {
        assert!(g.outcome(pos).is_some(), "{text}: no best move");
        return;
    };
    let mut child = *pos;
    g.play(&mut child, best);
    let kept = -minimax(&board_of(g, &child), limit, memo);
    assert_eq!(
        kept, value,
        "{text}: best move {best:?} does not keep {value}"
    );
    if value == WIN {
        let mut session = GameSession::new(g.clone());
        let moves: Vec<String> = {
            let mut p = *pos;
            solution
                .pv
                .iter()
                .map(|&mv| {
                    let t = g.format_move(&p, mv);
                    g.play(&mut p, mv);
                    t
                })
                .collect()
        };
        let texts: Vec<&str> = moves.iter().map(String::as_str).collect();
        session
            .set_position(Some(&text), &texts)
            .unwrap_or_else(|e| panic!("{text}: the line {moves:?} does not replay: {e:?}"));
        let outcome = session
            .outcome()
            .unwrap_or_else(|| panic!("{text}: the winning line {moves:?} does not end"));
        let winner = if g.to_move(pos) == sowfan::game::Player::P1 {
            GameResult::P1Win
        } else {
            GameResult::P2Win
        };
        assert_eq!(outcome.result, winner, "{text}: {moves:?} ends {outcome:?}");
    }
}

#[test]
fn telo_is_a_white_win_and_every_first_move_agrees_with_minimax() {
    for options in [&[][..], &["repetition=off"][..]] {
        let g = fanorona(Size::Telo, options);
        let start = g.start_position();
        let tt = SolverTt::new(16).expect("table");
        let mut memo = HashMap::new();
        let solution = solve_with(&g, &start, &tt, None);
        assert_eq!((solution.lower, solution.upper), (WIN, WIN), "{options:?}");
        assert_eq!(minimax(&board_of(&g, &start), 100, &mut memo), WIN);
        check_solution(&g, &start, &solution, 100, &mut memo);
        assert_eq!(solution.threads, 1);
        // Every first move, with a fresh table (no help from the root's proof).
        let tt = SolverTt::new(16).expect("table");
        let values = solver::solve_moves(
            &g,
            &start,
            &[],
            &tt,
            &settings(None),
            &AtomicBool::new(false),
        );
        assert_eq!(values.moves.len(), 4);
        for (mv, value) in values.moves {
            let mut child = start;
            g.play(&mut child, mv);
            let expected = -minimax(&board_of(&g, &child), 100, &mut memo);
            assert_eq!(
                value,
                Some(expected),
                "{options:?} {}",
                g.format_move(&start, mv)
            );
        }
    }
}

/// A random 5×5 position: 1..=3 stones a side, either side to move, a counter below the
/// quiet-limit.
fn random_dimy(g: &Fanorona, rng: &mut Rng, limit: u32) -> FanoronaPosition {
    let mut cells = ['.'; 25];
    let mut points: Vec<usize> = (0..25).collect();
    rng.shuffle(&mut points);
    let white = 1 + rng.below(3);
    let black = 1 + rng.below(3);
    for (i, &p) in points.iter().take(white + black).enumerate() {
        cells[p] = if i < white { 'W' } else { 'B' };
    }
    let ranks: Vec<String> = (0..5)
        .rev()
        .map(|rank| cells[rank * 5..rank * 5 + 5].iter().collect())
        .collect();
    let side = if rng.one_in(2) { "w" } else { "b" };
    let quiet = rng.below(limit as usize);
    let text = format!("{} {side} {quiet}", ranks.join("/"));
    g.parse_position(&text)
        .unwrap_or_else(|e| panic!("{text}: {e}"))
}

#[test]
fn random_small_dimy_positions_agree_with_minimax_with_and_without_repetition() {
    let mut rng = Rng::new(20_261_202);
    let mut tally = [0usize; 3];
    for limit in [8u32, 12] {
        let limit_option = format!("quiet-limit={limit}");
        let with = fanorona(Size::Dimy, &[&limit_option]);
        let without = fanorona(Size::Dimy, &[&limit_option, "repetition=off"]);
        // A tiny table for one (entries are pushed out all the time), a roomy one for the
        // other: the values must not care.
        let tt_with = SolverTt::new(1).expect("table");
        let tt_without = SolverTt::new(64).expect("table");
        let mut memo = HashMap::new();
        for _ in 0..160 {
            let pos = random_dimy(&with, &mut rng, limit);
            let text = with.format_position(&pos);
            let expected = minimax(&board_of(&with, &pos), limit, &mut memo);
            tally[(expected / 2 + 1) as usize] += 1;
            for (g, tt) in [(&with, &tt_with), (&without, &tt_without)] {
                let solution = solve_with(g, &pos, tt, None);
                assert_eq!(
                    (solution.lower, solution.upper),
                    (expected, expected),
                    "{} {text}",
                    g.spec()
                );
                check_solution(g, &pos, &solution, limit, &mut memo);
            }
        }
    }
    // The sample holds every kind of value.
    assert!(
        tally.iter().all(|&n| n >= 20),
        "losses, draws, wins: {tally:?}"
    );
}

#[test]
fn stopped_proofs_keep_bounds_that_hold() {
    let mut rng = Rng::new(77);
    let limit = 12;
    let g = fanorona(Size::Dimy, &["quiet-limit=12"]);
    let mut memo = HashMap::new();
    for _ in 0..40 {
        let pos = random_dimy(&g, &mut rng, limit);
        let text = g.format_position(&pos);
        let expected = minimax(&board_of(&g, &pos), limit, &mut memo);
        for nodes in [1u64, 3, 10, 30, 100, 300, 1000] {
            let tt = SolverTt::new(4).expect("table");
            let reports = std::sync::Mutex::new(Vec::<Progress>::new());
            let report = |p: &Progress| reports.lock().expect("lock").push(*p);
            let solution = solver::solve(
                &g,
                &pos,
                &tt,
                &settings(Some(nodes)),
                &AtomicBool::new(false),
                &report,
            );
            assert!(
                solution.lower <= expected && expected <= solution.upper,
                "{text}, {nodes} nodes: [{}, {}] but the value is {expected}",
                solution.lower,
                solution.upper
            );
            // Reports only narrow the bounds, and the last is the answer.
            let reports = reports.into_inner().expect("lock");
            for pair in reports.windows(2) {
                assert!(pair[0].lower <= pair[1].lower && pair[1].upper <= pair[0].upper);
            }
            if let Some(last) = reports.last() {
                assert_eq!((last.lower, last.upper), (solution.lower, solution.upper));
            }
            if solution.lower > LOSS {
                // A proven lower bound comes with the move that proved it.
                let best = solution.best.expect("a move for a lower bound");
                let mut child = pos;
                g.play(&mut child, best);
                assert!(-minimax(&board_of(&g, &child), limit, &mut memo) >= solution.lower);
            }
        }
    }
    // A stop flag raised before the start: nothing is searched beyond the first checks.
    let tt = SolverTt::new(4).expect("table");
    let start = g.start_position();
    let solution = solver::solve(
        &g,
        &start,
        &tt,
        &settings(None),
        &AtomicBool::new(true),
        &|_| {},
    );
    assert!(solution.lower <= solution.upper);
    assert!(solution.nodes <= 1024, "{}", solution.nodes);
}

/// A draw (with quiet-limit=20) whose proof takes some ten thousands of nodes: both
/// questions are asked.
const RESUME_POSITION: &str = "W2BW/1B3/5/2W2/4W w 0";

fn identity(g: &Fanorona, pos: &FanoronaPosition) -> ProofIdentity {
    ProofIdentity {
        spec: g.spec(),
        root: g.format_position(pos),
        root_hash: g.hash(pos),
    }
}

fn pn_solve(
    g: &Fanorona,
    pos: &FanoronaPosition,
    table: &PnTt,
    nodes: Option<u64>,
) -> Solution<sowfan::games::fanorona::FanoronaMove> {
    let settings = SolveSettings {
        want_pv: false,
        ..settings(nodes)
    };
    pn::solve_restricted(
        g,
        pos,
        &[],
        table,
        &settings,
        &AtomicBool::new(false),
        &|_| {},
        None,
    )
}

#[test]
fn a_proof_stopped_saved_and_resumed_needs_fewer_new_nodes() {
    let g = fanorona(Size::Dimy, &["quiet-limit=20"]);
    let pos = g.parse_position(RESUME_POSITION).expect("position");
    let fresh_table = PnTt::new(16).expect("table");
    let fresh = pn_solve(&g, &pos, &fresh_table, None);
    assert_eq!((fresh.lower, fresh.upper), (DRAW, DRAW), "proven");
    assert!(
        fresh.nodes > 10_000,
        "a proof worth resuming: {}",
        fresh.nodes
    );
    let mut memo = HashMap::new();
    assert_eq!(fresh.lower, minimax(&board_of(&g, &pos), 20, &mut memo));

    let dir = fresh_dir("pn-resume");
    let path = dir.join("dimy.proof");
    let first_table = PnTt::new(16).expect("table");
    let stopped = pn_solve(&g, &pos, &first_table, Some(fresh.nodes / 2));
    assert_ne!(stopped.lower, stopped.upper, "stopped before the end");
    let work = ProofWork {
        nodes: stopped.nodes,
        millis: 1,
    };
    let buckets = file::save(&path, &identity(&g, &pos), work, &first_table).expect("save");
    assert!(buckets > 0);
    let no_temporary = std::fs::read_dir(&dir)
        .expect("dir")
        .all(|e| e.expect("entry").file_name() == "dimy.proof");
    assert!(no_temporary, "only the proof file is left");

    let resumed_table = PnTt::new(16).expect("table");
    let loaded = file::load(&path, &identity(&g, &pos), &resumed_table).expect("load");
    assert_eq!(loaded, Some(work));
    let resumed = pn_solve(&g, &pos, &resumed_table, None);
    assert_eq!((resumed.lower, resumed.upper), (fresh.lower, fresh.upper));
    assert!(
        resumed.nodes < fresh.nodes,
        "resumed {} new nodes, fresh {}",
        resumed.nodes,
        fresh.nodes
    );
    // Saved again when done: a run that finds everything in the table.
    file::save(&path, &identity(&g, &pos), work, &resumed_table).expect("save");
    let again_table = PnTt::new(16).expect("table");
    file::load(&path, &identity(&g, &pos), &again_table).expect("load");
    let again = pn_solve(&g, &pos, &again_table, None);
    assert_eq!((again.lower, again.upper), (fresh.lower, fresh.upper));
    assert_eq!(again.nodes, 0, "the root's value is in the table");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn hostile_proof_files_are_refused_with_a_reason() {
    let g = fanorona(Size::Dimy, &["quiet-limit=20"]);
    let pos = g.parse_position(RESUME_POSITION).expect("position");
    let dir = fresh_dir("pn-hostile");
    let path = dir.join("good.proof");
    let table = PnTt::new(1).expect("table");
    pn_solve(&g, &pos, &table, Some(3000));
    file::save(&path, &identity(&g, &pos), ProofWork::default(), &table).expect("save");
    let good = std::fs::read(&path).expect("read");
    assert!(good.len() > 200);
    // Absent: a new proof.
    let target = PnTt::new(1).expect("table");
    assert_eq!(
        file::load(&dir.join("none.proof"), &identity(&g, &pos), &target).expect("absent"),
        None
    );
    let mut rng = Rng::new(5);
    let mut cases: Vec<(String, Vec<u8>)> = vec![
        ("empty".into(), Vec::new()),
        ("magic only".into(), good[..8].to_vec()),
        ("header cut".into(), good[..30].to_vec()),
        ("one byte short".into(), good[..good.len() - 1].to_vec()),
        ("a record short".into(), good[..good.len() - 72].to_vec()),
        ("one byte more".into(), [&good[..], &[0]].concat()),
        (
            "random bytes".into(),
            (0..5000).map(|_| rng.next() as u8).collect(),
        ),
        (
            "random after the magic".into(),
            [
                &b"SOWFANPN"[..],
                &(0..5000).map(|_| rng.next() as u8).collect::<Vec<_>>(),
            ]
            .concat(),
        ),
    ];
    // Huge lengths in the header: never allocated.
    let mut huge = good.clone();
    huge[12..16].copy_from_slice(&u32::MAX.to_le_bytes());
    cases.push(("huge spec length".into(), huge));
    for _ in 0..40 {
        let mut flipped = good.clone();
        let at = rng.below(flipped.len());
        flipped[at] ^= 1 << rng.below(8);
        cases.push((format!("bit flipped at {at}"), flipped));
    }
    for (name, bytes) in &cases {
        let bad = dir.join("bad.proof");
        std::fs::write(&bad, bytes).expect("write");
        let target = PnTt::new(1).expect("table");
        let result = file::load(&bad, &identity(&g, &pos), &target);
        let error = result.expect_err(name);
        let text = error.to_string();
        assert!(text.contains("bad.proof"), "{name}: {text}");
        // Whatever failed, nothing of it is left in the table.
        assert_eq!(target.entries_in_use(), 0, "{name}: {text}");
    }
    // Another game, position or table size: named as such.
    let other_game = fanorona(Size::Dimy, &["quiet-limit=21"]);
    let other_game_pos = other_game
        .parse_position(RESUME_POSITION)
        .expect("position");
    let error =
        file::load(&path, &identity(&other_game, &other_game_pos), &table).expect_err("other game");
    assert!(matches!(error, ProofFileError::OtherGame { .. }), "{error}");
    let mut other_pos = pos;
    let mut moves = Vec::new();
    g.legal_moves(&pos, &mut moves);
    g.play(&mut other_pos, moves[0]);
    let error = file::load(&path, &identity(&g, &other_pos), &table).expect_err("other position");
    assert!(
        matches!(error, ProofFileError::OtherPosition { .. }),
        "{error}"
    );
    let error = file::load(&path, &identity(&g, &pos), &PnTt::new(2).expect("table"))
        .expect_err("other size");
    assert!(matches!(error, ProofFileError::OtherSize { .. }), "{error}");
    assert!(error.to_string().contains("--hash 1"), "{error}");
    // A directory is not a proof file.
    let error = file::load(&dir, &identity(&g, &pos), &table).expect_err("directory");
    assert!(matches!(error, ProofFileError::NotAFile { .. }), "{error}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A state of the game graph: board and side to move.
type State = ([[Cell; 9]; 5], bool);

/// Values of the game graph of `start` (board and side to move, no draw rule): retrograde
/// analysis, a position nobody can force to an end being a draw (play that goes round
/// forever).
fn graph_values(start: &Board) -> HashMap<State, i32> {
    let key = |b: &Board| (b.cells, b.white_to_move);
    let mut children: HashMap<State, Vec<State>> = HashMap::new();
    let mut stack = vec![start.clone()];
    while let Some(board) = stack.pop() {
        if children.contains_key(&key(&board)) {
            continue;
        }
        let moves = board.moves(None, false);
        children.insert(key(&board), moves.iter().map(|(_, b)| key(b)).collect());
        stack.extend(moves.into_iter().map(|(_, b)| b));
    }
    let mut value: HashMap<_, i32> = HashMap::new();
    for (k, next) in &children {
        if next.is_empty() {
            value.insert(*k, LOSS);
        }
    }
    loop {
        let mut decided = Vec::new();
        for (k, next) in &children {
            if value.contains_key(k) {
                continue;
            }
            let values: Vec<Option<i32>> = next.iter().map(|c| value.get(c).copied()).collect();
            if values.contains(&Some(LOSS)) {
                decided.push((*k, WIN));
            } else if values.iter().all(|v| *v == Some(WIN)) {
                decided.push((*k, LOSS));
            }
        }
        if decided.is_empty() {
            break;
        }
        value.extend(decided);
    }
    for k in children.keys() {
        value.entry(*k).or_insert(DRAW);
    }
    value
}

/// With `quiet-limit=off` the positions form cycles: the solver's guard (a repetition on
/// the search path is a draw for that path, and nothing that rests on one is kept as a
/// proof) must give the values of the game where going round forever is a draw.
#[test]
fn telo_without_a_quiet_limit_has_the_values_of_its_cyclic_graph() {
    let g = fanorona(Size::Telo, &["quiet-limit=off", "repetition=off"]);
    let start = g.start_position();
    let values = graph_values(&board_of(&g, &start));
    assert_eq!(values[&(board_of(&g, &start).cells, true)], WIN);
    let tt = SolverTt::new(4).expect("table");
    let mut tally = [0usize; 3];
    for ((cells, white), expected) in &values {
        let board = Board {
            cells: *cells,
            white_to_move: *white,
            ..board_of(&g, &start)
        };
        let pos = g.parse_position(&board.format(false)).expect("a position");
        let solution = solve_with(&g, &pos, &tt, None);
        assert_eq!(
            (solution.lower, solution.upper),
            (*expected, *expected),
            "{}",
            board.format(false)
        );
        tally[(expected / 2 + 1) as usize] += 1;
    }
    assert!(tally.iter().all(|&n| n > 0), "{tally:?}");
}

/// Endgame tables (built here, up to 5 stones under quiet-limit=12) are exact leaves: with
/// them the values are those of minimax still, and they answer (`tbhits`).
#[test]
fn endgame_tables_are_exact_leaves_of_the_proof() {
    let dir = fresh_dir("pn-tables");
    let run = crate::support::run::sowfan(
        "tablebase",
        &[
            "build",
            "fanorona-dimy",
            "quiet-limit=12",
            "--pieces",
            "5",
            "--dir",
            dir.to_str().expect("utf-8"),
        ],
        std::time::Duration::from_secs(120),
    );
    assert!(run.success, "{}{}", run.stdout, run.stderr);
    let g = fanorona(Size::Dimy, &["quiet-limit=12"]);
    let tables = sowfan::tables::Tables::open(&g, &dir)
        .expect("tables")
        .expect("some layers");
    let tt = SolverTt::new(16).expect("table");
    let with_tables = SolveSettings {
        tables: Some(&tables),
        ..settings(None)
    };
    let mut rng = Rng::new(31);
    let mut memo = HashMap::new();
    let mut tbhits = 0;
    for _ in 0..60 {
        // 2 to 6 stones: some covered at once, some after a capture or two.
        let pos = random_dimy(&g, &mut rng, 12);
        let text = g.format_position(&pos);
        let expected = minimax(&board_of(&g, &pos), 12, &mut memo);
        let solution = solver::solve(
            &g,
            &pos,
            &tt,
            &with_tables,
            &AtomicBool::new(false),
            &|_| {},
        );
        assert_eq!(
            (solution.lower, solution.upper),
            (expected, expected),
            "{text}"
        );
        tbhits += solution.tbhits;
    }
    assert!(tbhits > 0);
    let _ = std::fs::remove_dir_all(&dir);
}
