//! `sowfan match` through the real binary, with misbehaving engines from
//! `tests/fake-engines/` (a bash relay to a real sowfan that misbehaves on cue).

use std::time::{Duration, Instant};

use serde_json::Value;

use crate::support::run::{self, args, sowfan, start};
use crate::support::{BIN, records, scaled, scaled_ms, scratch};

const MISBEHAVE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fake-engines/misbehave.sh"
);

/// `--engine` words for a sowfan misbehaving as `mode` at its `at`-th move of each game.
fn bad_engine(mode: &str, at: u32, extra: &str) -> Vec<String> {
    let mut words = args(&format!(
        "--engine cmd=bash arg={MISBEHAVE} arg={BIN} arg={mode} arg={at} name=bad"
    ));
    words.extend(args(extra));
    words
}

fn good_engine(extra: &str) -> Vec<String> {
    args(&format!("--engine cmd={BIN} name=good {extra}"))
}

/// Play 4 games of `bad` against a sound sowfan and check every game went to the sound one
/// with `termination`, a reason containing `reason`, and that the match reached its end.
fn bad_engine_loses_every_game(
    name: &str,
    bad: Vec<String>,
    good_limits: &str,
    extra: &str,
    termination: &str,
    reason: &str,
) {
    let path = scratch(&format!("{name}.jsonl"));
    let mut all = bad;
    all.extend(good_engine(good_limits));
    all.extend(args(&format!(
        "--game kalah --games 4 --concurrency 2 --openings plies=2 --seed 5 --records {}",
        path.display()
    )));
    all.extend(args(extra));
    let run = sowfan("match", &all, Duration::from_secs(60));
    assert!(run.success, "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stdout
            .contains("Score of bad vs good: 0 - 4 - 0  [0.000] 4"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("Elo difference: -inf"),
        "{}",
        run.stdout
    );
    let games = records(&path);
    assert_eq!(games.len(), 4);
    for game in &games {
        let bad_seat = if game["p1"] == "bad" { "p1" } else { "p2" };
        let winner = if bad_seat == "p1" { "p2win" } else { "p1win" };
        assert_eq!(game["result"], winner, "{game}");
        assert_eq!(game["termination"], termination, "{game}");
        let text = game["reason"].as_str().unwrap_or_default();
        assert!(
            text.starts_with(bad_seat) && text.contains(reason) && !text.contains("margin) ms"),
            "expected '{reason}' in: {text}"
        );
    }
}

#[test]
fn an_illegal_move_loses_and_the_match_goes_on() {
    bad_engine_loses_every_game(
        "illegal",
        bad_engine("illegal", 2, "depth=1"),
        "depth=1",
        "",
        "illegal-move",
        "played an illegal move: '",
    );
}

#[test]
fn a_bestmove_line_without_a_move_loses() {
    bad_engine_loses_every_game(
        "malformed",
        bad_engine("malformed", 1, "depth=1"),
        "depth=1",
        "",
        "malformed-move",
        "sent a malformed bestmove line: 'bestmove'",
    );
}

#[test]
fn a_crash_loses_and_the_engine_is_restarted_for_the_next_game() {
    bad_engine_loses_every_game(
        "crash",
        bad_engine("crash", 2, "depth=1"),
        "depth=1",
        "",
        "crash",
        "crashed while thinking: exited with code 3",
    );
}

#[test]
fn a_hung_search_is_killed_after_the_move_timeout() {
    bad_engine_loses_every_game(
        "hang",
        bad_engine("hang", 2, "depth=1"),
        "depth=1",
        "--move-timeout 1000",
        "unresponsive",
        "hung: no bestmove within 1000 ms",
    );
}

#[test]
fn a_missing_readyok_loses() {
    // The timeout binds the sound engine too: 1 s on a quiet machine, scaled under load.
    let ready = scaled_ms(1000);
    bad_engine_loses_every_game(
        "noready",
        bad_engine("noready", 2, "depth=1"),
        "depth=1",
        &format!("--ready-timeout {ready}"),
        "unresponsive",
        &format!("did not answer before its move: no readyok within {ready} ms"),
    );
}

#[test]
fn a_hung_engine_under_movetime_loses_on_time() {
    bad_engine_loses_every_game(
        "hang-movetime",
        bad_engine("hang", 1, "movetime=200"),
        "depth=1",
        &format!("--ready-timeout {}", scaled_ms(1000)),
        "time-forfeit",
        // The time it had, once with its unit: "200 ms (+100 ms margin)".
        "lost on time: no move within 200 ms (+",
    );
}

#[test]
fn running_over_the_clock_loses_on_time() {
    let mut bad = bad_engine("slow", 2, "tc=0.3+0.05 timemargin=50");
    bad.push("arg=0.8".to_string());
    bad_engine_loses_every_game("slow", bad, "depth=1", "", "time-forfeit", "lost on time: ");
}

#[test]
fn junk_lines_from_an_engine_are_ignored() {
    let path = scratch("garbage.jsonl");
    let mut all = bad_engine("garbage", 1, "depth=1");
    all.extend(good_engine("depth=1"));
    all.extend(args(&format!(
        "--game kalah --games 2 --records {} --seed 1",
        path.display()
    )));
    let run = sowfan("match", &all, Duration::from_secs(60));
    assert!(run.success, "{}\n{}", run.stdout, run.stderr);
    for game in records(&path) {
        assert_eq!(game["termination"], "rules", "{game}");
    }
}

#[test]
fn the_same_seed_gives_the_same_openings_and_games() {
    let play = |seed: u64, name: &str| -> Vec<Value> {
        let path = scratch(name);
        let mut all = good_engine("depth=3");
        all.extend(args(&format!(
            "--engine cmd={BIN} name=other nodes=300 --game kalah~pits=4 --games 6 \
             --concurrency 2 --openings plies=3 --seed {seed} --records {}",
            path.display()
        )));
        let run = sowfan("match", &all, Duration::from_secs(60));
        assert!(run.success, "{}\n{}", run.stdout, run.stderr);
        records(&path)
    };
    let strip = |games: &[Value]| -> Vec<(Value, Vec<Value>, Value)> {
        games
            .iter()
            .map(|g| {
                let moves = g["moves"]
                    .as_array()
                    .map(|m| m.iter().map(|x| x["move"].clone()).collect())
                    .unwrap_or_default();
                (g["opening"].clone(), moves, g["result"].clone())
            })
            .collect()
    };
    let first = strip(&play(11, "seed-a.jsonl"));
    let again = strip(&play(11, "seed-b.jsonl"));
    let other = strip(&play(12, "seed-c.jsonl"));
    assert_eq!(first.len(), 6);
    assert_eq!(first, again);
    // Each opening is played twice, colours swapped.
    assert_eq!(first[0].0, first[1].0);
    assert_eq!(first[2].0, first[3].0);
    assert_ne!(first[0].0, first[2].0);
    let openings = |games: &[(Value, Vec<Value>, Value)]| -> Vec<Value> {
        games.iter().map(|g| g.0.clone()).collect()
    };
    assert_ne!(openings(&first), openings(&other));
}

#[test]
fn a_stopped_match_goes_on_from_its_records() {
    let command = |seed: u64, path: &std::path::Path, resume: bool| -> Vec<String> {
        let mut all = good_engine("depth=3");
        all.extend(args(&format!(
            "--engine cmd={BIN} name=other nodes=300 --game kalah~pits=4 --games 6 \
             --concurrency 2 --openings plies=3 --seed {seed} --records {}{}",
            path.display(),
            if resume { " --resume" } else { "" }
        )));
        all
    };
    let score_line = |stdout: &str| -> String {
        stdout
            .lines()
            .find(|l| l.starts_with("Score of "))
            .unwrap_or_default()
            .to_string()
    };
    let whole = scratch("resume-whole.jsonl");
    let run = sowfan(
        "match",
        &command(21, &whole, false),
        Duration::from_secs(60),
    );
    assert!(run.success, "{}\n{}", run.stdout, run.stderr);
    let all_games = records(&whole);
    assert_eq!(all_games.len(), 6);
    let whole_score = score_line(&run.stdout);
    assert!(whole_score.ends_with(" 6"), "{}", run.stdout);
    // A run stopped after games 1, 3 and 4, killed as it wrote game 5.
    let text = std::fs::read_to_string(&whole).expect("records");
    let line_of = |number: u64| -> String {
        text.lines()
            .find(|l| {
                serde_json::from_str::<Value>(l).expect("a record")["number"].as_u64()
                    == Some(number)
            })
            .expect("every game has a record")
            .to_string()
    };
    let stopped = scratch("resume-stopped.jsonl");
    let cut = &line_of(5)[..50];
    let kept = format!("{}\n{}\n{}\n", line_of(3), line_of(1), line_of(4));
    std::fs::write(&stopped, format!("{kept}{cut}")).expect("write");

    // Another seed schedules other openings: refused, the file left as it was.
    let run = sowfan(
        "match",
        &command(22, &stopped, true),
        Duration::from_secs(60),
    );
    assert!(!run.success, "{}", run.stdout);
    assert!(run.stderr.contains("--seed"), "{}", run.stderr);
    assert_eq!(
        std::fs::read_to_string(&stopped).expect("read"),
        format!("{kept}{cut}")
    );

    // Resume with the run's command line; its first line says what was found.
    let resume = |found: &str| {
        let run = sowfan(
            "match",
            &command(21, &stopped, true),
            Duration::from_secs(60),
        );
        assert!(run.success, "{}\n{}", run.stdout, run.stderr);
        assert!(run.stdout.contains(found), "{}", run.stdout);
        run
    };
    let run = resume("3 games played, 3 to play");
    assert!(run.stderr.contains("cut off"), "{}", run.stderr);
    assert!(
        run.stdout.contains("Games: 6 (3 before --resume, 3 now)"),
        "{}",
        run.stdout
    );
    let strip = |games: &[Value]| -> Vec<(Value, Value, Value, Value)> {
        games
            .iter()
            .map(|g| {
                let moves: Vec<Value> = g["moves"]
                    .as_array()
                    .map(|m| m.iter().map(|x| x["move"].clone()).collect())
                    .unwrap_or_default();
                (
                    g["number"].clone(),
                    g["opening"].clone(),
                    Value::from(moves),
                    g["result"].clone(),
                )
            })
            .collect()
    };
    assert_eq!(strip(&records(&stopped)), strip(&all_games));
    assert_eq!(score_line(&run.stdout), whole_score);

    // Nothing left to play: the same score, no game played.
    let run = resume("6 games played, 0 to play");
    assert_eq!(score_line(&run.stdout), whole_score);
    assert_eq!(records(&stopped).len(), 6);
}

#[test]
fn openings_file_and_the_setoption_way_of_choosing_the_game() {
    let openings = scratch("openings.txt");
    std::fs::write(&openings, "# two openings\nA\nstartpos moves D c\n").expect("write");
    let path = scratch("file-openings.jsonl");
    let pgn = scratch("file-openings.pgn");
    let mut all = good_engine("depth=2 proto=uci setup=setoption restart=on");
    all.extend(args(&format!(
        "--engine cmd={BIN} name=other depth=2 --game kalah~pits=4 --games 4 \
         --openings file={} --records {} --pgn {}",
        openings.display(),
        path.display(),
        pgn.display()
    )));
    let run = sowfan("match", &all, Duration::from_secs(60));
    assert!(run.success, "{}\n{}", run.stdout, run.stderr);
    let games = records(&path);
    let shape: Vec<(String, String, String)> = games
        .iter()
        .map(|g| {
            (
                g["p1"].as_str().unwrap_or_default().to_string(),
                g["opening"]["source"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string(),
                g["termination"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    let row = |p1: &str, source: &str| (p1.to_string(), source.to_string(), "rules".to_string());
    // A game of Kalah with 6 pits would have been refereed as malformed moves.
    assert_eq!(
        shape,
        vec![
            row("good", "file line 2"),
            row("other", "file line 2"),
            row("good", "file line 3"),
            row("other", "file line 3"),
        ]
    );
    assert_eq!(games[2]["opening"]["moves"], serde_json::json!(["D", "c"]));
    assert_eq!(games[0]["game"], "kalah pits=4");
    let pgn = std::fs::read_to_string(&pgn).expect("pgn");
    assert_eq!(pgn.matches("[Event \"sowfan match\"]").count(), 4);
    assert!(pgn.contains("{opening: D c}"), "{pgn}");
}

#[test]
fn sprt_stops_the_match_when_it_decides() {
    let mut all = good_engine("depth=4");
    all.extend(args(&format!(
        "--engine cmd={BIN} name=weak depth=1 --game kalah --games 400 --concurrency 2 \
         --openings plies=4 --seed 3 --sprt elo0=0 elo1=20 --quiet"
    )));
    let run = sowfan("match", &all, Duration::from_secs(120));
    assert!(run.success, "{}\n{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("H1 was accepted"), "{}", run.stdout);
    let games: u32 = run
        .stdout
        .lines()
        .find_map(|l| l.strip_prefix("Games: "))
        .and_then(|l| l.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .expect("a Games: line");
    assert!(games < 400, "{}", run.stdout);
    assert!(
        !run.stdout.contains("Finished game"),
        "--quiet: {}",
        run.stdout
    );
}

#[test]
fn three_engines_round_robin_and_gauntlet() {
    let engines = format!(
        "--engine cmd={BIN} name=e1 depth=1 --engine cmd={BIN} name=e2 depth=2 \
         --engine cmd={BIN} name=e3 depth=3 --game kalah~pits=4 --games 2"
    );
    let run = sowfan("match", &args(&engines), Duration::from_secs(60));
    assert!(run.success, "{}\n{}", run.stdout, run.stderr);
    for pair in ["e1 vs e2", "e1 vs e3", "e2 vs e3"] {
        assert!(
            run.stdout.contains(&format!("Score of {pair}: ")),
            "{}",
            run.stdout
        );
    }
    assert!(run.stdout.contains("Rank Name"), "{}", run.stdout);
    assert!(run.stdout.contains("Games: 6 "), "{}", run.stdout);
    let run = sowfan(
        "match",
        &args(&format!("{engines} --tournament gauntlet")),
        Duration::from_secs(60),
    );
    assert!(run.success, "{}\n{}", run.stdout, run.stderr);
    assert!(!run.stdout.contains("Score of e2 vs e3"), "{}", run.stdout);
    assert!(run.stdout.contains("Games: 4 "), "{}", run.stdout);
}

#[test]
fn configuration_errors_are_explained() {
    for (words, expected) in [
        (
            format!("--engine cmd={BIN} --engine cmd={BIN} depth=1 --game kalah"),
            "--engine 1: engine",
        ),
        (
            format!("--engine cmd={BIN} depth=1 --engine cmd={BIN} depth=1 --game chess"),
            "unknown game 'chess'",
        ),
        (
            format!(
                "--engine cmd=/nonexistent/engine depth=1 --engine cmd={BIN} depth=1 \
                 --game kalah"
            ),
            "engine 1 (/nonexistent/engine): cannot start",
        ),
        (
            format!("--engine cmd={BIN} depth=1 --game kalah"),
            "at least two --engine",
        ),
        (
            format!(
                "--engine cmd={BIN} depth=1 --engine cmd={BIN} depth=1 --game kalah \
                 --openings plies=3 file=x"
            ),
            "either plies= or file=",
        ),
        (
            format!("--engine cmd={BIN} depth=1 --engine cmd={BIN} depth=1 --game kalah --resume"),
            "--records",
        ),
    ] {
        let run = sowfan("match", &args(&words), Duration::from_secs(30));
        assert!(!run.success, "{words}: {}", run.stdout);
        assert!(run.stderr.contains(expected), "{words}: {}", run.stderr);
    }
}

#[test]
fn ctrl_c_stops_the_match_with_a_summary_of_the_finished_games() {
    let path = scratch("interrupted.jsonl");
    let running = start(
        "match",
        &args(&format!(
            "--engine cmd={BIN} name=a movetime=20 --engine cmd={BIN} name=b movetime=20 \
         --game kalah --games 1000 --concurrency 2 --openings plies=2 --seed 1 --records {}",
            path.display()
        )),
    );
    // Interrupt once some games have ended, so that the summary has something to show.
    let deadline = Instant::now() + scaled(Duration::from_secs(60));
    let written = || {
        std::fs::read_to_string(&path)
            .map(|text| text.lines().count())
            .unwrap_or(0)
    };
    while written() < 2 {
        assert!(
            Instant::now() < deadline,
            "no game ended within a minute (scaled)"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(run::signal(running.id(), "-INT"));
    let run = running.finish(Duration::from_secs(10));
    let stdout = run.stdout;
    assert_eq!(run.code, Some(130), "{stdout}");
    assert!(stdout.contains("Match interrupted"), "{stdout}");
    assert!(stdout.contains("Score of a vs b: "), "{stdout}");
    // The summary counts exactly the games whose records were written.
    let games = records(&path).len();
    assert!((2..1000).contains(&games), "{games} games");
    assert!(
        stdout.contains(&format!("Games: {games} in ")),
        "{games} records\n{stdout}"
    );
}

fn fake_engine(script: &str) -> String {
    format!(
        "--engine cmd=bash arg={}/tests/fake-engines/{script} name=bad",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// A flooding engine against a sound one: every game is forfeited `unresponsive` by the
/// flooder within its timeout plus a margin, the runner's memory stays small, the match
/// ends with its summary. The timeouts (2 s on a quiet machine) are scaled by the caller.
fn flooder_is_forfeited(script: &str, bad_limits: &str, timeouts: &str, reason: &str) {
    let path = scratch(&format!("{script}.jsonl"));
    let words = format!(
        "{} {bad_limits} --engine cmd={BIN} name=good depth=1 --game kalah --games 2 \
         --seed 1 {timeouts} --records {}",
        fake_engine(script),
        path.display()
    );
    let (run, took, peak_kb) =
        start("match", &args(&words)).finish_measured(Duration::from_secs(60));
    println!("{script}: match of 2 games in {took:?}, runner peak RSS {peak_kb} KiB");
    assert!(run.success, "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stdout.contains("Score of bad vs good: 0 - 2 - 0"),
        "{}",
        run.stdout
    );
    for game in records(&path) {
        assert_eq!(game["termination"], "unresponsive", "{game}");
        let text = game["reason"].as_str().unwrap_or_default();
        assert!(text.contains(reason), "expected '{reason}' in: {text}");
        assert!(
            game["duration_ms"].as_u64().unwrap() < scaled_ms(4000),
            "a {} ms timeout took too long: {game}",
            scaled_ms(2000)
        );
    }
    assert!(took < scaled(Duration::from_secs(15)), "{took:?}");
    assert!(
        peak_kb > 0 && peak_kb < 200 * 1024,
        "runner peak RSS {peak_kb} KiB"
    );
}

#[test]
fn an_engine_that_floods_from_the_start_is_forfeited_and_memory_stays_bounded() {
    let ready = scaled_ms(2000);
    flooder_is_forfeited(
        "flood-yes.sh",
        "depth=2",
        &format!("--ready-timeout {ready}"),
        &format!("no 'ugiok' within {ready} ms"),
    );
}

#[test]
fn an_engine_that_floods_info_lines_after_go_is_forfeited() {
    let (timeout, ready) = (scaled_ms(2000), scaled_ms(1000));
    flooder_is_forfeited(
        "flood-info.sh",
        "depth=2",
        &format!("--move-timeout {timeout} --ready-timeout {ready}"),
        &format!("hung: no bestmove within {timeout} ms"),
    );
}

#[test]
fn an_endless_line_is_garbage_and_the_engine_is_forfeited() {
    let (timeout, ready) = (scaled_ms(2000), scaled_ms(1000));
    flooder_is_forfeited(
        "endless-line.sh",
        "depth=2",
        &format!("--move-timeout {timeout} --ready-timeout {ready}"),
        &format!("hung: no bestmove within {timeout} ms"),
    );
}

/// Ctrl-C and SIGTERM end a match within a second even while both engines flood.
#[test]
fn interrupts_stop_a_match_at_once_while_engines_flood() {
    for signal in ["-INT", "-TERM"] {
        let words = format!(
            "{} depth=2 {} depth=2 --game kalah --games 100 --concurrency 2 \
             --move-timeout 60000 --seed 1",
            fake_engine("flood-info.sh"),
            fake_engine("flood-info.sh").replace("name=bad", "name=bad2"),
        );
        let mut running = start("match", &args(&words));
        // Ready when it handles the signal and both games in flight flood (their engines
        // have become `yes`).
        running.await_signal_handlers(Duration::from_secs(10));
        let deadline = Instant::now() + scaled(Duration::from_secs(30));
        while descendants_named(running.id(), "yes") < 2 {
            assert!(
                Instant::now() < deadline,
                "{signal}: the engines never flooded"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(run::signal(running.id(), signal));
        let (run, took, peak_kb) = running.finish_measured(Duration::from_secs(10));
        println!("{signal}: match ended {took:?} after the signal, peak RSS {peak_kb} KiB");
        assert_eq!(run.code, Some(130), "{}\n{}", run.stdout, run.stderr);
        assert!(run.stdout.contains("Match interrupted"), "{}", run.stdout);
        assert!(
            took < scaled(Duration::from_millis(1500)),
            "{signal}: {took:?}"
        );
        assert!(peak_kb < 200 * 1024, "runner peak RSS {peak_kb} KiB");
    }
}

/// How many processes named `name` (their `comm`) descend from process `root`, from /proc.
fn descendants_named(root: u32, name: &str) -> usize {
    let mut processes = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        // `pid (comm) state ppid …`; the name may hold spaces and parentheses.
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        let (Some(open), Some(close)) = (stat.find('('), stat.rfind(')')) else {
            continue;
        };
        let comm = stat[open + 1..close].to_string();
        let ppid = stat[close + 1..]
            .split_whitespace()
            .nth(1)
            .and_then(|p| p.parse::<u32>().ok())
            .unwrap_or(0);
        processes.push((pid, ppid, comm));
    }
    let parent = |pid: u32| processes.iter().find(|p| p.0 == pid).map(|p| p.1);
    processes
        .iter()
        .filter(|(_, _, comm)| comm == name)
        .filter(|(pid, _, _)| {
            let mut at = *pid;
            for _ in 0..64 {
                match parent(at) {
                    Some(up) if up == root => return true,
                    Some(up) if up > 0 => at = up,
                    _ => return false,
                }
            }
            false
        })
        .count()
}

/// Issue 65, points 8 and 10: a resumed match plays under the limit its records were played
/// under (`--max-plies` is in every record, and another limit is refused); its PGN is
/// written anew from the records (a PGN kept when the records were deleted is not added
/// to); a game that could not be recorded is not counted.
#[test]
fn a_resumed_match_keeps_its_limit_and_its_pgn_follows_the_records() {
    let records_path = scratch("limit.jsonl");
    let pgn = scratch("limit.pgn");
    let command = |games: usize, limit: &str| -> Vec<String> {
        args(&format!(
            "--engine cmd={BIN} name=a depth=1 --engine cmd={BIN} name=b depth=2 --game kalah \
             --games {games} --openings plies=2 --seed 5 --records {} --pgn {}{limit}",
            records_path.display(),
            pgn.display()
        ))
    };
    let limit = " --max-plies 6";
    let run = sowfan("match", &command(2, limit), Duration::from_secs(60));
    assert!(run.success, "{}", run.stderr);
    let written = std::fs::read_to_string(&records_path).expect("records");
    assert!(written.contains("\"max_plies\":6"), "{written}");
    for other in ["", " --max-plies 8"] {
        let mut resumed = command(4, other);
        resumed.push("--resume".to_string());
        let run = sowfan("match", &resumed, Duration::from_secs(60));
        assert!(!run.success, "{other}: {}", run.stdout);
        assert!(
            run.stderr.contains("was played with --max-plies 6"),
            "{other}: {}",
            run.stderr
        );
        assert_eq!(
            std::fs::read_to_string(&records_path).expect("records"),
            written
        );
    }
    // The records deleted, the PGN kept: the resumed match's PGN holds its own games only.
    std::fs::remove_file(&records_path).expect("deleted");
    let mut resumed = command(4, limit);
    resumed.push("--resume".to_string());
    let run = sowfan("match", &resumed, Duration::from_secs(60));
    assert!(run.success, "{}", run.stderr);
    let games_in = |text: &str| text.matches("[Game ").count();
    let pgn_text = std::fs::read_to_string(&pgn).expect("pgn");
    assert_eq!(records(&records_path).len(), 4);
    assert_eq!(games_in(&pgn_text), 4, "{pgn_text}");
    // Resumed again with nothing to play: the PGN is the records', not doubled.
    let run = sowfan("match", &resumed, Duration::from_secs(60));
    assert!(run.success, "{}", run.stderr);
    assert_eq!(games_in(&std::fs::read_to_string(&pgn).expect("pgn")), 4);

    // A records file that cannot be written: the game is not counted, the match fails.
    let run = sowfan(
        "match",
        &args(&format!(
            "--engine cmd={BIN} name=a depth=1 --engine cmd={BIN} name=b depth=1 --game kalah \
             --games 2 --records /dev/full"
        )),
        Duration::from_secs(60),
    );
    assert!(!run.success, "{}", run.stdout);
    assert!(
        run.stderr.contains("cannot write the records file"),
        "{}",
        run.stderr
    );
    assert!(
        !run.stdout
            .lines()
            .any(|l| l.starts_with("Score of") && !l.ends_with(" 0")),
        "a game that was not recorded is counted: {}",
        run.stdout
    );
}
