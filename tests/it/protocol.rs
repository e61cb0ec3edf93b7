//! Protocol behaviour of the real binary, driven through pipes as a GUI or manager would.

use std::time::{Duration, Instant};

use crate::support::run;
use crate::support::{Engine, field, run_script, scaled, scaled_ms};

const SHORT: Duration = Duration::from_millis(300);
const LONG: Duration = Duration::from_secs(20);

fn bestmove_count(lines: &[String]) -> usize {
    lines.iter().filter(|l| l.starts_with("bestmove")).count()
}

#[test]
fn handshake_lists_options_and_games() {
    for (hello, ok) in [("uci", "uciok"), ("ugi", "ugiok")] {
        let mut e = Engine::start(&[]);
        let lines = e.ask(hello, ok);
        assert!(lines[0].starts_with("id name sowfan"), "{lines:?}");
        assert!(lines.iter().any(|l| l.starts_with("id author ")));
        for option in [
            "Hash",
            "Threads",
            "MultiPV",
            "Ponder",
            "UCI_Variant",
            "GameOptions",
        ] {
            assert!(
                lines
                    .iter()
                    .any(|l| l.starts_with(&format!("option name {option} type "))),
                "{option} missing: {lines:?}"
            );
        }
        let variant = lines.iter().find(|l| l.contains("UCI_Variant")).unwrap();
        assert!(variant.contains(" var kalah"), "{variant}");
        assert_eq!(lines.last().unwrap(), ok);
    }
}

#[test]
fn isready_and_stop_are_served_during_an_infinite_search() {
    let mut e = Engine::start(&[]);
    e.send("position startpos");
    e.send("go infinite");
    // The search is under way once it reports (under load its first lines may all come
    // before readyok, and none between readyok and stop).
    let mut seen = e.until(LONG, |l| {
        l.starts_with("info depth") && l.contains(" score ")
    });
    let asked = Instant::now();
    let lines = e.ask("isready", "readyok");
    assert!(asked.elapsed() < scaled(Duration::from_millis(500)));
    assert_eq!(bestmove_count(&lines), 0, "bestmove before stop: {lines:?}");
    seen.extend(lines);
    std::thread::sleep(Duration::from_millis(200));
    let stopped = Instant::now();
    let lines = e.ask("stop", "bestmove ");
    assert!(
        stopped.elapsed() < scaled(Duration::from_millis(500)),
        "{:?}",
        stopped.elapsed()
    );
    assert_eq!(bestmove_count(&seen), 0, "bestmove before stop: {seen:?}");
    assert!(
        seen.iter()
            .chain(&lines)
            .any(|l| l.starts_with("info depth") && l.contains(" score "))
    );
    assert_eq!(lines.last().unwrap().split_whitespace().count(), 2);
    // Exactly one bestmove: nothing more arrives, and a second stop is harmless.
    e.send("stop");
    assert_eq!(e.silent_for(SHORT), None);
    assert_eq!(e.ask("isready", "readyok"), ["readyok"]);
}

#[test]
fn a_proven_result_under_go_infinite_still_waits_for_stop() {
    let mut e = Engine::start(&[]);
    // North wins by force: the search proves it quickly, but must not answer before stop.
    e.send("position fen 0,0,0,0,1,1,20/0,0,0,0,2,1,20 S");
    e.send("go infinite");
    let first = e.line(Duration::from_secs(5)).unwrap();
    assert!(first.starts_with("info depth"), "{first}");
    let mut seen = vec![first];
    while let Some(line) = e.line(SHORT) {
        seen.push(line);
    }
    assert_eq!(bestmove_count(&seen), 0, "{seen:?}");
    // A proven loss in a game scored by points: its exact margin, marked by `wdl`.
    assert!(
        seen.iter().any(|l| l.contains(" wdl 0 0 1000 ")),
        "{seen:?}"
    );
    let lines = e.ask("stop", "bestmove ");
    assert_eq!(bestmove_count(&lines), 1);
}

#[test]
fn illegal_move_keeps_the_previous_position_and_names_the_move() {
    let mut e = Engine::start(&[]);
    e.send("position startpos moves C");
    let before = e.ask("d", "Fen: ");
    let lines = e.ask("position startpos moves C F zz A", "info string error");
    let error = lines.last().unwrap();
    assert!(
        error.contains("move 3") && error.contains("'zz'"),
        "{error}"
    );
    let lines = e.ask("position startpos moves C C", "info string error");
    let error = lines.last().unwrap();
    assert!(
        error.contains("move 2 'C'") && error.contains("empty"),
        "{error}"
    );
    let lines = e.ask("position startpos moves C F a a", "info string error");
    let error = lines.last().unwrap();
    assert!(
        error.contains("move 4 'a'") && error.contains("South is to move"),
        "{error}"
    );
    assert_eq!(e.ask("d", "Fen: ").last(), before.last());
    let lines = e.ask("position fen 1,2,3/4,5,6 S", "info string error");
    assert!(lines.last().unwrap().contains("position"), "{lines:?}");
    assert_eq!(e.ask("d", "Fen: ").last(), before.last());
}

#[test]
fn garbage_is_answered_and_the_engine_lives_on() {
    let mut e = Engine::start(&[]);
    for junk in [
        "hello",
        "go depth banana",
        "position",
        "setoption",
        "newgame chess",
        "newgame kalah pits=99",
        "query",
        "perft x",
        "\u{1}\u{2}\u{3}",
        "go searchmoves Z",
    ] {
        let lines = e.ask(junk, "info string ");
        assert!(
            lines.last().unwrap().starts_with("info string error: ")
                || lines.last().unwrap().starts_with("info string warning: "),
            "{junk}: {lines:?}"
        );
    }
    let lines = e.ask("setoption name NoSuchOption value 3", "info string ");
    assert!(lines.last().unwrap().contains("warning"), "{lines:?}");
    assert_eq!(e.ask("isready", "readyok"), ["readyok"]);
    // The game is still the default Kalah, at its start.
    let d = e.ask("d", "Fen: ");
    assert_eq!(d.last().unwrap(), "Fen: 4,4,4,4,4,4,0/4,4,4,4,4,4,0 S");
}

#[test]
fn non_utf8_input_is_an_error_not_an_end() {
    let out = run_script(&[], "isready\n\u{80}\u{ff}\nis\x00ready\nisready\n", LONG);
    let ready = out.lines().filter(|l| *l == "readyok").count();
    assert_eq!(ready, 2, "{out}");
}

#[test]
fn end_of_input_lets_a_finite_search_finish() {
    let out = run_script(&[], "position startpos\ngo depth 8\n", LONG);
    let last = out.lines().last().unwrap();
    assert!(last.starts_with("bestmove "), "{out}");
    assert!(out.contains("info depth 8 "), "{out}");
    // `go infinite` is stopped at the end of input.
    let out = run_script(&[], "go infinite\n", LONG);
    assert_eq!(
        out.lines().filter(|l| l.starts_with("bestmove ")).count(),
        1
    );
}

#[test]
fn commands_behind_a_finite_search_run_in_order() {
    let out = run_script(
        &[],
        "go depth 6\nposition startpos moves C\nd\nquery p1turn\ngo depth 2\n",
        LONG,
    );
    let lines: Vec<&str> = out.lines().collect();
    let first_best = lines
        .iter()
        .position(|l| l.starts_with("bestmove"))
        .unwrap();
    let fen = lines.iter().position(|l| l.starts_with("Fen: ")).unwrap();
    assert!(first_best < fen, "{out}");
    assert_eq!(lines[fen], "Fen: 4,4,0,5,5,5,1/4,4,4,4,4,4,0 S");
    assert!(out.contains("response true"));
    assert_eq!(
        lines.iter().filter(|l| l.starts_with("bestmove")).count(),
        2
    );
}

#[test]
fn game_options_survive_uginewgame_and_variant_changes() {
    let mut e = Engine::start(&[]);
    e.send("setoption name UCI_Variant value kalah");
    e.send("setoption name GameOptions value pits=4 seeds=3");
    e.send("uginewgame");
    e.send("position startpos moves A");
    let d = e.ask("d", "Fen: ");
    assert_eq!(d.last().unwrap(), "Fen: 0,4,4,4,0/3,3,3,3,0 N");
    let lines = e.ask(
        "setoption name GameOptions value pits=40",
        "info string error",
    );
    assert!(lines.last().unwrap().contains("1..12"), "{lines:?}");
    e.send("uginewgame");
    e.send("position startpos");
    assert_eq!(
        e.ask("d", "Fen: ").last().unwrap(),
        "Fen: 3,3,3,3,0/3,3,3,3,0 S"
    );
    e.send("newgame kalah");
    assert_eq!(
        e.ask("d", "Fen: ").last().unwrap(),
        "Fen: 4,4,4,4,4,4,0/4,4,4,4,4,4,0 S"
    );
}

#[test]
fn command_line_game_preselects_the_game() {
    let out = run_script(&["--game", "kalah pits=3 seeds=2"], "d\nlegal\n", LONG);
    assert!(out.contains("Fen: 2,2,2,0/2,2,2,0 S"), "{out}");
    assert!(out.contains("legal A B C"), "{out}");
    // A bad --game is refused at start with a message and a failing exit code.
    let status = run::output(&["--game", "kalah pits=0"]);
    assert!(!status.status.success());
    assert!(String::from_utf8_lossy(&status.stderr).contains("pits"));
}

#[test]
fn clocks_movetime_and_negative_time_give_a_move_in_time() {
    let mut e = Engine::start(&[]);
    e.send("position startpos");
    for (go, limit) in [
        ("go movetime 200", Duration::from_millis(600)),
        (
            "go wtime 2000 btime 2000 winc 10 binc 10",
            Duration::from_millis(1500),
        ),
        (
            "go p1time 1000 p2time 1 p1inc 0 p2inc 0",
            Duration::from_millis(1000),
        ),
        ("go wtime -500 btime 1000", Duration::from_millis(500)),
        // Only the opponent's clock (South is to move): it sets no limit, so the depth
        // decides, and the search is not cut short by the opponent's 50 ms.
        ("go depth 18 btime 50", Duration::from_secs(60)),
    ] {
        e.send(go);
        let start = Instant::now();
        let lines = e.until(LONG, |l| l.starts_with("bestmove"));
        assert!(
            start.elapsed() < scaled(limit),
            "{go}: {:?}",
            start.elapsed()
        );
        assert!(
            lines.iter().any(|l| l.contains(" score ")),
            "{go}: {lines:?}"
        );
        if go.starts_with("go depth 18") {
            assert!(
                lines.iter().any(|l| l.starts_with("info depth 18 ")),
                "the opponent's clock cut the search short: {lines:?}"
            );
        }
    }
}

#[test]
fn ponder_waits_for_ponderhit() {
    let mut e = Engine::start(&[]);
    e.send("setoption name Ponder value true");
    e.send("position startpos moves C");
    e.send("go ponder wtime 1000 btime 1000");
    std::thread::sleep(Duration::from_millis(1200));
    let mut seen = Vec::new();
    while let Some(line) = e.line(Duration::from_millis(50)) {
        seen.push(line);
    }
    assert_eq!(
        bestmove_count(&seen),
        0,
        "bestmove while pondering: {seen:?}"
    );
    e.send("ponderhit");
    let start = Instant::now();
    let lines = e.until(LONG, |l| l.starts_with("bestmove"));
    assert!(start.elapsed() < scaled(Duration::from_millis(1500)));
    // With Ponder on, the expected reply comes along.
    let best = lines.last().unwrap();
    assert!(best.contains(" ponder "), "{best}");
}

#[test]
fn multipv_reports_several_lines() {
    let mut e = Engine::start(&[]);
    e.send("setoption name MultiPV value 3");
    let lines = e.ask("go depth 5", "bestmove");
    let depth5: Vec<&String> = lines
        .iter()
        .filter(|l| l.starts_with("info depth 5 "))
        .collect();
    assert_eq!(depth5.len(), 3, "{lines:?}");
    let scores: Vec<i32> = depth5
        .iter()
        .map(|l| field(l, "cp").unwrap().parse().unwrap())
        .collect();
    assert!(scores.windows(2).all(|w| w[0] >= w[1]), "{scores:?}");
    assert_eq!(field(depth5[2], "multipv"), Some("3"));
}

#[test]
fn threads_search_gives_a_legal_move() {
    let mut e = Engine::start(&[]);
    e.send("setoption name Threads value 2");
    e.send("setoption name Hash value 8");
    let lines = e.ask("go depth 10", "bestmove");
    let best = field(lines.last().unwrap(), "bestmove")
        .unwrap()
        .to_string();
    let legal = e.ask("legal", "legal");
    assert!(legal[0].split_whitespace().any(|m| m == best));
    // The threads spread over the depths, so the reported depths may step by more than
    // one, but they only grow, end at the depth asked, and the move played is the first of
    // the deepest line reported.
    let depths: Vec<u32> = lines
        .iter()
        .filter_map(|l| field(l, "depth"))
        .map(|d| d.parse().unwrap())
        .collect();
    assert!(depths.windows(2).all(|w| w[0] < w[1]), "{lines:?}");
    assert_eq!(depths.last(), Some(&10), "{lines:?}");
    let deepest = lines
        .iter()
        .rev()
        .find(|l| field(l, "depth").is_some())
        .unwrap();
    assert_eq!(field(deepest, "pv"), Some(best.as_str()), "{lines:?}");
}

/// A timed search, one thread or two: the reported depths only grow and the move played is
/// the first of the last line reported, wherever the time ran out (a helper's deeper result
/// reported in the middle of the main thread's iteration, or a better move found by an
/// iteration cut short).
#[test]
fn timed_search_plays_the_last_line_reported() {
    for (game, threads, movetime) in [
        ("kalah", 1, 150),
        ("kalah", 2, 150),
        ("fanorona", 1, 300),
        ("fanorona", 2, 300),
        ("fanorona", 2, 700),
    ] {
        let mut e = Engine::start(&[]);
        e.send(&format!("newgame {game}"));
        e.send(&format!("setoption name Threads value {threads}"));
        e.send("setoption name Hash value 16");
        e.send("position startpos");
        let lines = e.ask(&format!("go movetime {movetime}"), "bestmove");
        let best = field(lines.last().unwrap(), "bestmove").unwrap();
        let depths: Vec<u32> = lines
            .iter()
            .filter_map(|l| field(l, "depth"))
            .map(|d| d.parse().unwrap())
            .collect();
        assert!(
            depths.windows(2).all(|w| w[0] < w[1]),
            "{game} threads {threads}: {lines:?}"
        );
        let last = lines
            .iter()
            .rev()
            .find(|l| field(l, "pv").is_some())
            .unwrap();
        assert_eq!(
            field(last, "pv"),
            Some(best),
            "{game} threads {threads}: {lines:?}"
        );
    }
}

/// The exact exchange of cutegames' generic UGI mode (which trusts the engines): the game
/// is driven by `query p1turn`, moves are read from 2-token `bestmove` lines under running
/// clocks, and at the end both engines are asked `query gameover` and `query result` and must
/// agree. Every registered game, started with `--game` as a manager would. The clocks
/// (1.5 s + 15 ms on a quiet machine) are stretched by the time scale, as a manager on a
/// loaded machine would give more time; running over the clock given still loses.
fn play_like_cutegames(game: &str) {
    let mut engines = [
        Engine::start(&["--game", game]),
        Engine::start(&["--game", game]),
    ];
    for e in engines.iter_mut() {
        e.ask("ugi", "ugiok");
        e.ask("isready", "readyok");
        e.send("uginewgame");
    }
    let mut moves: Vec<String> = Vec::new();
    let base = scaled_ms(1_500) as i64;
    let mut clock = [base, base];
    let inc = scaled_ms(15) as i64;
    loop {
        let position = if moves.is_empty() {
            "position startpos".to_string()
        } else {
            format!("position startpos moves {}", moves.join(" "))
        };
        engines[0].send(&position);
        let p1_turn = engines[0].query("p1turn") == "true";
        let us = if p1_turn { 0 } else { 1 };
        engines[us].ask("isready", "readyok");
        engines[us].send(&position);
        if engines[us].query("gameover") == "true" {
            break;
        }
        let go = format!(
            "go p1time {} p2time {} p1inc {inc} p2inc {inc}",
            clock[0], clock[1]
        );
        let start = Instant::now();
        let lines = engines[us].ask(&go, "bestmove");
        clock[us] -= start.elapsed().as_millis() as i64;
        assert!(
            clock[us] > 0,
            "{game}: engine {us} lost on time ({base} ms + {inc} ms) after {moves:?}: {lines:?}"
        );
        clock[us] += inc;
        let tokens: Vec<&str> = lines.last().unwrap().split_whitespace().collect();
        assert_eq!(tokens.len(), 2, "{game}: {tokens:?}");
        moves.push(tokens[1].to_string());
        assert!(moves.len() < 2000, "{game}: the game does not end");
    }
    let mut answers = Vec::new();
    for e in engines.iter_mut() {
        e.ask("isready", "readyok");
        e.send(&format!("position startpos moves {}", moves.join(" ")));
        answers.push((e.query("gameover"), e.query("result")));
    }
    assert_eq!(answers[0], answers[1], "{game}");
    assert_eq!(answers[0].0, "true");
    assert!(["p1win", "p2win", "draw"].contains(&answers[0].1.as_str()));
    for e in engines.iter_mut() {
        e.send("quit");
        assert!(e.wait_exit(Duration::from_secs(5)).is_some());
    }
}

#[test]
fn two_engines_play_every_game_the_way_cutegames_drives_them() {
    for entry in sowfan::registry::GAMES {
        play_like_cutegames(entry.name);
    }
}

#[test]
fn bench_node_total_is_the_same_every_run() {
    let totals: Vec<u64> = (0..2)
        .map(|_| {
            let control = sowfan::search::SearchControl::default();
            sowfan::bench::run(Some(5), &control, &mut |_| {}).nodes
        })
        .collect();
    assert!(totals[0] > 1000, "{totals:?}");
    assert_eq!(totals[0], totals[1]);
    // The command line prints the totals.
    let out = run::output(&["bench", "3"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("Nodes searched  : "), "{text}");
    assert!(text.contains("Nodes/second    : "), "{text}");
}

/// `stop` (and `ponderhit`) belong to the last `go` sent, even when that `go` is still queued
/// behind a finite search or one that has just printed its `bestmove`.
#[test]
fn stop_reaches_a_go_that_is_still_queued() {
    // Piped: the `stop` is meant for `go infinite`, not for `go depth 1` before it.
    let mut e = Engine::start(&[]);
    e.send("go depth 1\ngo infinite\nstop");
    let first = e.until(Duration::from_secs(5), |l| l.starts_with("bestmove"));
    let second = e.until(Duration::from_secs(5), |l| l.starts_with("bestmove"));
    assert_eq!(bestmove_count(&first) + bestmove_count(&second), 2);
    assert!(e.silent_for(SHORT).is_none());
    // The race: a new search and its `stop` right after a `bestmove`, many times over.
    for _ in 0..30 {
        e.send("position startpos\ngo nodes 3");
        e.until(LONG, |l| l.starts_with("bestmove"));
        e.send("position startpos moves C\ngo infinite\nstop");
        e.until(Duration::from_secs(5), |l| l.starts_with("bestmove"));
    }
    // `go ponder` answered by `ponderhit` straight away behaves as a normal search.
    e.send("go ponder wtime 200 btime 200\nponderhit");
    e.until(Duration::from_secs(5), |l| l.starts_with("bestmove"));
    assert!(e.silent_for(SHORT).is_none());
}

/// Plays `plies` moves of `game` from its start, each chosen by `go depth {depth}`, after
/// `newgame` and `isready`; returns each move with the node count of its last report.
fn self_play(engine: &mut Engine, game: &str, depth: u32, plies: usize) -> Vec<(String, String)> {
    engine.ask(&format!("newgame {game}\nisready"), "readyok");
    let mut moves: Vec<String> = Vec::new();
    let mut played = Vec::new();
    for _ in 0..plies {
        let lines = engine.ask(
            &format!(
                "position startpos moves {}\ngo depth {depth}",
                moves.join(" ")
            ),
            "bestmove",
        );
        let best = field(lines.last().expect("bestmove"), "bestmove")
            .expect("a move")
            .to_string();
        let nodes = lines
            .iter()
            .rev()
            .find_map(|l| field(l, "nodes"))
            .unwrap_or("")
            .to_string();
        played.push((best.clone(), nodes));
        if best == "(none)" {
            break;
        }
        moves.push(best);
    }
    played
}

/// After `newgame` (and `isready`) the engine searches as a new process would: the same
/// moves and node counts. `match` relies on it to play a stopped match's remaining games
/// as the unbroken match played them. (When a new game only made the old entries
/// unreadable, entries of a game over 32 searches long blocked the next game's stores, as
/// their age had come round again: a later game's searches differed from the first move
/// on in Fanorona 5×5 and from the 6th–9th in Anywoli.)
#[test]
fn a_new_game_searches_as_a_new_process_would() {
    for game in ["anywoli", "fanorona-dimy"] {
        let mut used = Engine::start(&[]);
        self_play(&mut used, game, 9, 40);
        let after_a_game = self_play(&mut used, game, 8, 40);
        let fresh = self_play(&mut Engine::start(&[]), game, 8, 40);
        assert_eq!(after_a_game, fresh, "{game}");
    }
}

/// A fixture of fixtures/protocol/, with what depends on the build and the machine filled
/// in: the version, and the `max` of `Hash` (what this machine lets the process have).
fn protocol_fixture(name: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/protocol")
        .join(name);
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .replace("<version>", env!("CARGO_PKG_VERSION"))
        .replace("<max_hash_mb>", &sowfan::memory::max_hash_mb().to_string())
}

/// The `uci` and `ugi` answers, byte for byte as they were before the options were declared
/// in one table (fixtures/protocol/handshake.<game>.txt, taken from that build): GUIs and
/// match runners parse these lines.
#[test]
fn handshake_is_byte_for_byte_the_fixture_for_every_game() {
    for game in sowfan::registry::GAMES.iter().map(|g| g.name) {
        let out = run_script(&["--game", game], "uci\nugi\n", LONG);
        let expected = protocol_fixture(&format!("handshake.{game}.txt"));
        assert_eq!(out, expected, "{game}");
    }
}

/// `setoption` of every option, with good and bad values (missing, empty, out of range,
/// any case, unknown names), and the `uci` answers after, byte for byte as before the
/// options were declared in one table (fixtures/protocol/setoption.in and .out).
#[test]
fn setoption_answers_are_byte_for_byte_the_fixture() {
    let script = protocol_fixture("setoption.in");
    let out = run_script(&[], &script, LONG);
    assert_eq!(out, protocol_fixture("setoption.out"));
}
