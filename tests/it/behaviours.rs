//! Protocol behaviours that had no test of their own (issue 48, point 4): pondering that
//! hits and misses, `MultiPV` beyond the legal moves, `searchmoves` on every board, `go solve`
//! on small Afrika and 9×5 Fanorona positions and under clocks, the exact node budget of
//! `go nodes` with one thread, and Fanorona's repetition draw as `query` and a search see it
//! (protocol.md, sections *go*, *ponderhit*, *Search output*, *go solve* and *Fanorona*).

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use crate::support::run;
use crate::support::{Engine, cp, field};

const LONG: Duration = Duration::from_secs(60);
const SHORT: Duration = Duration::from_millis(300);

/// The move of the `bestmove` line that ends `lines`.
fn bestmove(lines: &[String]) -> String {
    let last = lines.last().expect("a bestmove line");
    field(last, "bestmove")
        .unwrap_or_else(|| panic!("not a bestmove line: {last}"))
        .to_string()
}

/// The search lines (`info depth …` with a score).
fn info_lines(lines: &[String]) -> Vec<&String> {
    lines
        .iter()
        .filter(|l| l.starts_with("info depth ") && l.contains(" score "))
        .collect()
}

fn number(line: &str, key: &str) -> i64 {
    field(line, key)
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no number after '{key}' in {line}"))
}

fn pv_first(line: &str) -> &str {
    field(line, "pv").unwrap_or_else(|| panic!("no pv in {line}"))
}

/// A score as one number to compare lines by: `cp` as it is, a mate beyond every `cp`
/// (the quicker win, the slower loss first).
fn rank(line: &str) -> i64 {
    if let Some(cp) = cp(line) {
        return cp;
    }
    let mate: i64 = number(line, "mate");
    if mate > 0 {
        1_000_000 - mate
    } else {
        -1_000_000 - mate
    }
}

fn bestmove_count(lines: &[String]) -> usize {
    lines.iter().filter(|l| l.starts_with("bestmove")).count()
}

/// Pondering that hits: the `go ponder` search works (deep lines come) without answering;
/// after `ponderhit` it goes on as the normal search under the clocks it was given: its
/// depths keep growing (no restart), it completes at least one more iteration (it did not
/// just stop), and it answers with one legal `bestmove` — with the expected reply, legal
/// after it — within the time on the mover's clock (protocol.md: never more than ¾ of it;
/// the plan is about 1/25, 0.8 s here).
#[test]
fn ponder_hit_goes_on_as_the_normal_search_and_moves_in_time() {
    let mut e = Engine::start(&[]);
    e.send("setoption name Ponder value true");
    // The pondered position: South's C (an extra move), then its F; North to move.
    e.send("position startpos moves C F");
    let legal = e.legal();
    e.send("go ponder wtime 20000 btime 20000");
    let before = e.until(LONG, |l| {
        l.starts_with("bestmove") || field(l, "depth").is_some_and(|d| d == "8")
    });
    assert_eq!(
        bestmove_count(&before),
        0,
        "bestmove before ponderhit: {before:?}"
    );
    e.send("ponderhit");
    let hit = Instant::now();
    let after = e.until(LONG, |l| l.starts_with("bestmove"));
    let took = hit.elapsed();
    assert!(
        took < Duration::from_millis(15_000),
        "{took:?} after ponderhit with 20000 ms on the clock: {after:?}"
    );
    assert!(
        !info_lines(&after).is_empty(),
        "no iteration after ponderhit: the search stopped instead of going on: {after:?}"
    );
    let all: Vec<String> = before.iter().chain(&after).cloned().collect();
    let depths: Vec<i64> = info_lines(&all)
        .iter()
        .map(|l| number(l, "depth"))
        .collect();
    assert!(
        depths.windows(2).all(|w| w[0] < w[1]),
        "the search started again: {depths:?}"
    );
    let words: Vec<&str> = after.last().expect("bestmove").split_whitespace().collect();
    assert_eq!(words.len(), 4, "bestmove <move> ponder <reply>: {words:?}");
    assert_eq!(words[2], "ponder");
    assert!(legal.iter().any(|m| m == words[1]), "{words:?} {legal:?}");
    let last_info = *info_lines(&all).last().expect("an info line");
    assert_eq!(
        pv_first(last_info),
        words[1],
        "the move played is the first of the last line"
    );
    e.send(&format!("position startpos moves C F {}", words[1]));
    let replies = e.legal();
    assert!(
        replies.iter().any(|m| m == words[3]),
        "{words:?} {replies:?}"
    );
    assert_eq!(e.silent_for(SHORT), None, "one bestmove only");
}

/// Pondering that misses (the GUI's way: `stop`, then the real position and a new `go`):
/// `stop` ends the ponder search with one `bestmove` for the pondered position; the new
/// search reports lines and a `bestmove` of the new position only. The two positions (9×5
/// Fanorona after two different first moves) have no legal move in common, so a move or a
/// line left over from the ponder search cannot pass for the new one.
#[test]
fn ponder_miss_answers_the_stop_for_the_pondered_position_and_then_searches_the_new_one() {
    let mut e = Engine::start(&[]);
    e.send("newgame fanorona");
    e.send("position startpos moves f2-e3A");
    let played: BTreeSet<String> = e.legal().into_iter().collect();
    e.send("position startpos moves d3-e3W");
    let pondered: BTreeSet<String> = e.legal().into_iter().collect();
    assert!(
        played.is_disjoint(&pondered),
        "{played:?} {pondered:?}: the test needs two move sets apart"
    );
    e.send("go ponder wtime 5000 btime 5000");
    let before = e.until(LONG, |l| {
        l.starts_with("bestmove") || field(l, "depth").is_some_and(|d| d == "3")
    });
    assert_eq!(bestmove_count(&before), 0, "{before:?}");
    let stopped = e.ask("stop", "bestmove");
    let answer = bestmove(&stopped);
    assert!(pondered.contains(&answer), "{answer} {pondered:?}");
    e.send("position startpos moves f2-e3A");
    e.send("go wtime 4900 btime 5000");
    let lines = e.until(LONG, |l| l.starts_with("bestmove"));
    assert_eq!(bestmove_count(&lines), 1, "{lines:?}");
    let best = bestmove(&lines);
    assert!(
        played.contains(&best),
        "{best} not legal after f2-e3A: {played:?}"
    );
    let infos = info_lines(&lines);
    assert!(!infos.is_empty(), "{lines:?}");
    for line in infos {
        assert!(
            played.contains(pv_first(line)),
            "a line of another position: {line}"
        );
    }
    assert_eq!(e.silent_for(SHORT), None, "one bestmove each");
}

/// `MultiPV` above the number of legal moves: every depth reports exactly one line per legal
/// move, numbered 1..n, each starting with a different legal move (all of them), best first;
/// with one thread and with two. Depths 1 to 7 are all reported (unless a mate ends the
/// search sooner).
#[test]
fn multipv_beyond_the_legal_moves_reports_each_move_once_per_depth() {
    for threads in [1, 2] {
        for position in ["startpos", "startpos moves c1-b2A a2-a3W"] {
            let mut e = Engine::start(&[]);
            e.send("newgame fanorona-telo");
            e.send(&format!("setoption name Threads value {threads}"));
            e.send("setoption name MultiPV value 64");
            e.send(&format!("position {position}"));
            let legal: BTreeSet<String> = e.legal().into_iter().collect();
            assert!(legal.len() >= 3 && legal.len() < 64, "{legal:?}");
            let lines = e.ask("go depth 7", "bestmove");
            let mut by_depth: BTreeMap<i64, Vec<&String>> = BTreeMap::new();
            for line in info_lines(&lines) {
                by_depth
                    .entry(number(line, "depth"))
                    .or_default()
                    .push(line);
            }
            let context = format!("threads {threads}, {position}");
            // Every depth from 1 to 7, unless a mate ends the search sooner (protocol.md:
            // Fanorona stops at a mate; two threads may find one early in the shared table).
            let depths: Vec<i64> = by_depth.keys().copied().collect();
            let mated = by_depth
                .values()
                .last()
                .is_some_and(|group| field(group[0], "mate").is_some());
            assert!(
                depths.len() >= 3 && (depths.last() == Some(&7) || mated),
                "{context}: {lines:?}"
            );
            assert_eq!(
                depths,
                (1..=depths.len() as i64).collect::<Vec<_>>(),
                "{context}"
            );
            for (depth, group) in &by_depth {
                assert_eq!(
                    group.len(),
                    legal.len(),
                    "{context}, depth {depth}: {group:#?}"
                );
                let numbers: Vec<i64> = group.iter().map(|l| number(l, "multipv")).collect();
                let expected: Vec<i64> = (1..=legal.len() as i64).collect();
                assert_eq!(numbers, expected, "{context}, depth {depth}");
                let firsts: BTreeSet<String> =
                    group.iter().map(|l| pv_first(l).to_string()).collect();
                assert_eq!(firsts, legal, "{context}, depth {depth}: {group:#?}");
                let ranks: Vec<i64> = group.iter().map(|l| rank(l)).collect();
                assert!(
                    ranks.windows(2).all(|w| w[0] >= w[1]),
                    "{context}, depth {depth}: not best first: {group:#?}"
                );
            }
            let best = bestmove(&lines);
            let deepest = by_depth.values().last().expect("a depth");
            assert_eq!(pv_first(deepest[0]), best, "{context}");
        }
    }
}

/// `go depth N searchmoves M1 M2` on every board: the `bestmove` and the first move of every
/// line reported are among M1, M2, chosen apart from the move the same search plays
/// without the restriction.
#[test]
fn searchmoves_restricts_bestmove_and_every_pv_on_every_board() {
    for (game, depth) in [
        ("kalah", 8),
        ("afrika", 6),
        ("anywoli", 6),
        ("fanorona", 4),
        ("fanorona-dimy", 5),
        ("fanorona-telo", 6),
    ] {
        let mut e = Engine::start(&[]);
        e.send(&format!("newgame {game}"));
        let legal = e.legal();
        let free = bestmove(&e.ask(&format!("go depth {depth}"), "bestmove"));
        let chosen: Vec<String> = legal
            .iter()
            .rev()
            .filter(|m| **m != free)
            .take(2)
            .cloned()
            .collect();
        assert_eq!(chosen.len(), 2, "{game}: {legal:?}");
        e.send("ucinewgame");
        let lines = e.ask(
            &format!("go depth {depth} searchmoves {}", chosen.join(" ")),
            "bestmove",
        );
        let best = bestmove(&lines);
        assert!(
            chosen.contains(&best),
            "{game}: {best} not in {chosen:?}: {lines:?}"
        );
        let infos = info_lines(&lines);
        assert!(
            infos.iter().any(|l| number(l, "depth") == depth),
            "{game}: {lines:?}"
        );
        for line in infos {
            assert!(
                chosen.iter().any(|m| m == pv_first(line)),
                "{game}: a line outside {chosen:?}: {line}"
            );
        }
    }
}

/// `sowfan solve … --all-moves`: the value (`+6`, `win`, …) and every move's.
fn solved(args: &[&str]) -> (String, BTreeMap<String, String>) {
    let run = run::sowfan(
        "solve",
        &[args, &["--all-moves", "--hash", "64"]].concat(),
        Duration::from_secs(120),
    );
    assert_eq!(run.code, Some(0), "{}{}", run.stdout, run.stderr);
    let value = run.line("Value: ").expect("a Value line").to_string();
    let mut moves = BTreeMap::new();
    for line in run.stdout.lines() {
        if line.starts_with("Value: ") {
            break;
        }
        let (mv, v) = line
            .split_once(": ")
            .unwrap_or_else(|| panic!("not 'move: value': {line}"));
        moves.insert(mv.to_string(), v.to_string());
    }
    (value, moves)
}

/// The `score cp … wdl …` the protocol shows for a value `sowfan solve` prints.
fn exact_score(value: &str) -> String {
    let (cp, wdl) = match value {
        "win" => (100, "1000 0 0"),
        "draw" => (0, "0 1000 0"),
        "loss" => (-100, "0 0 1000"),
        points => {
            let n: i64 = points
                .parse()
                .unwrap_or_else(|_| panic!("a value: {points}"));
            let wdl = match n.signum() {
                1 => "1000 0 0",
                0 => "0 1000 0",
                _ => "0 0 1000",
            };
            (n * 100, wdl)
        }
    };
    format!("score cp {cp} wdl {wdl} ")
}

/// `go <go>` in `game` at `fen` proves the value `sowfan solve` finds, exactly (no bound),
/// and plays a move of that value; returns the `bestmove` and the value.
fn go_solve_agrees_with_the_command_line(game: &str, fen: &str, go: &str) -> (String, String) {
    let (value, moves) = solved(&[game, "--fen", fen]);
    let mut e = Engine::start(&[]);
    e.send(&format!("newgame {game}"));
    e.send(&format!("position fen {fen}"));
    let lines = e.ask(go, "bestmove");
    let last_info = *info_lines(&lines).last().expect("an info line");
    let context = format!("{game} '{fen}', {go}");
    assert!(
        last_info.contains(&exact_score(&value)),
        "{context}: the command line says {value}: {lines:?}"
    );
    assert!(!last_info.contains("bound"), "{context}: {last_info}");
    let best = bestmove(&lines);
    assert_eq!(
        moves.get(&best),
        Some(&value),
        "{context}: {best} is not a move of value {value}: {moves:?}"
    );
    assert_eq!(pv_first(last_info), best, "{context}");
    (best, value)
}

/// `go solve` on a small Afrika position (9 stones on the board): the exact margin and a best
/// move, as `sowfan solve` finds them: North wins by 6 with f, its only move that does (the
/// others win by 4, 2 or draw). The same board with South to move too.
#[test]
fn go_solve_proves_a_small_afrika_position() {
    let north = "0,0,0,0,2,1,0,0,56/0,1,1,2,1,2,1,1,60 N";
    let (best, value) =
        go_solve_agrees_with_the_command_line("afrika", north, "go solve movetime 60000");
    assert_eq!((best.as_str(), value.as_str()), ("f", "+6"));
    let south = "0,0,0,0,2,1,0,0,56/0,1,1,2,1,2,1,1,60 S";
    go_solve_agrees_with_the_command_line("afrika", south, "go solve movetime 60000");
}

/// `go solve` on a 9×5 Fanorona endgame of four stones: White wins only by e5-d5 (its six
/// other moves lose), as `sowfan solve` finds; and a position whose win is plain (one chain
/// takes both black stones).
#[test]
fn go_solve_proves_a_small_fanorona_endgame() {
    let fen = "B3W4/3B5/9/9/3W5 w 0";
    let (best, value) =
        go_solve_agrees_with_the_command_line("fanorona", fen, "go solve movetime 60000");
    assert_eq!((best.as_str(), value.as_str()), ("e5-d5", "win"));
    let (_, moves) = solved(&["fanorona", "--fen", fen]);
    assert_eq!(
        moves.values().filter(|v| *v == "loss").count(),
        6,
        "{moves:?}"
    );
    let (best, _) = go_solve_agrees_with_the_command_line(
        "fanorona",
        "9/5B1W1/2W6/5B3/9 w 0",
        "go solve movetime 60000",
    );
    assert_eq!(best, "h4-g3A-h2W");
}

/// `go solve` under UGI clocks (`p1time`/`p2time`) instead of `movetime`: the mover's clock
/// sets the limit (100 s: the proof completes), the opponent's 1 ms none, for p1 (White,
/// North) and for p2 (Black, South) to move; the values are those of `sowfan solve`.
#[test]
fn go_solve_under_p1_p2_clocks_proves_with_the_movers_time() {
    for (game, fen, go) in [
        (
            "fanorona",
            "B3W4/3B5/9/9/3W5 w 0",
            "go solve p1time 100000 p2time 1",
        ),
        (
            "fanorona",
            "9/5B1W1/2W6/5B3/9 b 0",
            "go solve p1time 1 p2time 100000",
        ),
        (
            "afrika",
            "0,0,0,0,2,1,0,0,56/0,1,1,2,1,2,1,1,60 S",
            "go solve p1time 1 p2time 100000",
        ),
    ] {
        go_solve_agrees_with_the_command_line(game, fen, go);
    }
}

/// The lines of `go <go>` on a fresh engine (one thread) at the start of `game`.
fn search(game: &str, go: &str) -> Vec<String> {
    let mut e = Engine::start(&[]);
    e.send(&format!("newgame {game}"));
    e.ask(go, "bestmove")
}

/// `go nodes n` with one thread is exact (protocol.md, `go`): an iteration that `go depth d`
/// completes in X nodes completes under `go nodes X` (its line shows X), and not under
/// `go nodes X−1`, whose every line stays within X−1 nodes, and which still completes the
/// iterations before (the search worked to its budget).
#[test]
fn go_nodes_with_one_thread_is_an_exact_budget() {
    for (game, depth) in [
        ("kalah", 7),
        ("afrika", 7),
        ("anywoli", 7),
        ("fanorona-dimy", 6),
    ] {
        let free = search(game, &format!("go depth {depth}"));
        let line_at = |lines: &[String], d: i64| -> Option<String> {
            info_lines(lines)
                .into_iter()
                .find(|l| number(l, "depth") == d)
                .cloned()
        };
        let full = line_at(&free, depth).expect("the deepest line");
        let x = number(&full, "nodes");
        let before = number(&line_at(&free, depth - 1).expect("a line before"), "nodes");
        assert!(x > before + 1, "{game}: {free:?}");

        let budget = search(game, &format!("go nodes {x}"));
        let last = *info_lines(&budget).last().expect("an info line");
        assert_eq!(
            number(last, "depth"),
            depth,
            "{game}: go nodes {x}: {budget:?}"
        );
        assert_eq!(number(last, "nodes"), x, "{game}: go nodes {x}: {budget:?}");
        assert_eq!(bestmove(&budget), bestmove(&free), "{game}");

        let short = search(game, &format!("go nodes {}", x - 1));
        for line in info_lines(&short) {
            assert!(
                number(line, "nodes") < x,
                "{game}: go nodes {}: beyond the budget: {line}",
                x - 1
            );
        }
        let completed = line_at(&short, depth - 1).expect("the iteration before");
        assert_eq!(number(&completed, "nodes"), before, "{game}: {short:?}");
    }
}

/// White i2/i3 and Black a5/a4 shuffle on a 9×5 board far apart (White's six stones against
/// one), the position string's position coming back every four turns.
const SHUFFLE_FROM: &str = "B8/9/9/6WWW/6WWW";
const SHUFFLE: [&str; 4] = ["i2-i3", "a5-a4", "i3-i2", "a4-a5"];

/// `position fen SHUFFLE_FROM <side> 0 moves …` with the first `n` turns of the shuffle,
/// `side` moving first (White i2-i3, Black a5-a4).
fn shuffled(side: char, n: usize) -> String {
    let order: Vec<&str> = if side == 'w' {
        SHUFFLE.to_vec()
    } else {
        vec![SHUFFLE[1], SHUFFLE[0], SHUFFLE[3], SHUFFLE[2]]
    };
    let moves: Vec<&str> = order.iter().cycle().take(n).copied().collect();
    format!(
        "position fen {SHUFFLE_FROM} {side} 0 moves {}",
        moves.join(" ")
    )
}

/// The third occurrence of a position ends a Fanorona game as a draw through the protocol:
/// after seven turns (the start position has occurred twice) `query gameover` says no; the
/// eighth turn brings the start position back a third time: `query gameover` true, `query
/// result` draw, no legal move, `d` shows the reason, and `go` answers at once with the
/// proven draw (`wdl 0 1000 0`) and `bestmove 0000`. With `repetition=off` the same turns
/// end nothing.
#[test]
fn fanorona_third_repetition_is_a_draw_through_the_protocol() {
    let mut e = Engine::start(&[]);
    e.send("newgame fanorona");
    e.send(&shuffled('w', 7));
    assert_eq!(e.query("gameover"), "false");
    assert_eq!(e.query("result"), "none");
    assert_eq!(e.legal(), ["a4-a5", "a4-b4", "a4-a3"]);
    e.send(&shuffled('w', 8));
    assert_eq!(e.query("gameover"), "true");
    assert_eq!(e.query("result"), "draw");
    assert_eq!(e.query("p1turn"), "true", "White would move");
    assert!(e.legal().is_empty());
    let d = e.ask("d", "Result: ");
    assert_eq!(
        d.last().map(String::as_str),
        Some("Result: draw (repetition)"),
        "{d:?}"
    );
    let lines = e.ask("go depth 6", "bestmove");
    assert_eq!(
        lines.last().map(String::as_str),
        Some("bestmove 0000"),
        "{lines:?}"
    );
    assert!(
        lines[0].contains(" score cp 0 wdl 0 1000 0 ")
            && lines[0].ends_with("game over: draw (repetition)"),
        "{lines:?}"
    );

    let mut off = Engine::start(&[]);
    off.send("newgame fanorona repetition=off");
    let mut moves = shuffled('w', 8);
    moves.push(' ');
    moves.push_str(&SHUFFLE.join(" "));
    off.send(&moves);
    assert_eq!(off.query("gameover"), "false");
    assert_eq!(off.query("result"), "none");
}

/// A normal search (not `go solve`) scores a move that makes a position's third occurrence
/// as the draw it is: Black, a stone against six, plays it with `score cp 0` where every
/// other move loses material; White, six against one, avoids it and stays ahead, and made
/// to play it (`searchmoves`) scores it 0. With `repetition=off` the same moves keep their
/// material scores.
#[test]
fn a_search_scores_the_move_into_a_third_repetition_as_a_draw() {
    let mut e = Engine::start(&[]);
    e.send("newgame fanorona");
    // Black to move; a4-a5 brings the start position back for the third time.
    e.send(&shuffled('w', 7));
    let lines = e.ask("go depth 6", "bestmove");
    let last = *info_lines(&lines).last().expect("info");
    assert_eq!(bestmove(&lines), "a4-a5", "{lines:?}");
    assert_eq!(field(last, "cp"), Some("0"), "{last}");
    for mv in ["a4-b4", "a4-a3"] {
        let lines = e.ask(&format!("go depth 6 searchmoves {mv}"), "bestmove");
        let last = *info_lines(&lines).last().expect("info");
        assert!(rank(last) < -100, "{mv} loses material: {last}");
    }
    // White to move; i3-i2 brings the start position (Black to move) back a third time.
    e.send(&shuffled('b', 7));
    let lines = e.ask("go depth 6", "bestmove");
    let last = *info_lines(&lines).last().expect("info");
    assert_ne!(bestmove(&lines), "i3-i2", "{lines:?}");
    assert!(rank(last) > 100, "{last}");
    let lines = e.ask("go depth 6 searchmoves i3-i2", "bestmove");
    let last = *info_lines(&lines).last().expect("info");
    assert_eq!(bestmove(&lines), "i3-i2");
    assert_eq!(field(last, "cp"), Some("0"), "{lines:?}");

    // Without the rule, the same moves are just moves.
    let mut off = Engine::start(&[]);
    off.send("newgame fanorona repetition=off");
    off.send(&shuffled('b', 7));
    let lines = off.ask("go depth 6 searchmoves i3-i2", "bestmove");
    let last = *info_lines(&lines).last().expect("info");
    assert!(rank(last) > 100, "{last}");
    off.send(&shuffled('w', 7));
    let lines = off.ask("go depth 6 searchmoves a4-a5", "bestmove");
    let last = *info_lines(&lines).last().expect("info");
    assert!(rank(last) < -100, "{last}");
}
