//! `sowfan match --slice I/K` and `--report`: a match cut over several machines plays, slice
//! by slice, the games the match played whole plays, and the report over the slices'
//! records is the whole match's summary; records of another match are refused.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;

use crate::support::run::{Run, args, sowfan, start};
use crate::support::{BIN, fresh_dir, records, scaled};

/// The match every test cuts: 16 Kalah games at fixed nodes (one search thread: the same
/// moves in every run), random 4-ply openings from seed 7.
/// (`extra` may give another `--games`.)
fn command(extra: &str) -> Vec<String> {
    let games = if extra.contains("--games") {
        ""
    } else {
        "--games 16"
    };
    args(&format!(
        "--engine cmd={BIN} name=a nodes=500 --engine cmd={BIN} name=b nodes=300 \
         --game kalah {games} --openings plies=4 --quiet {extra}"
    ))
}

const SPRT: &str = "--sprt elo0=0 elo1=5";

fn run_match(extra: &str) -> Run {
    sowfan("match", &command(extra), Duration::from_secs(120))
}

/// Play slice `slice` (`I/K`) into `dir/name`.
fn play_slice(dir: &Path, name: &str, slice: &str, extra: &str) -> PathBuf {
    let path = dir.join(name);
    let run = run_match(&format!(
        "{extra} --slice {slice} --records {}",
        path.display()
    ));
    assert!(run.success, "{slice}: {}\n{}", run.stdout, run.stderr);
    path
}

fn report(files: &[&Path], extra: &str) -> Run {
    let names: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
    run_match(&format!("{extra} --report {}", names.join(" ")))
}

/// The lines a report shares with the summary of the match played whole.
fn result_lines(stdout: &str) -> Vec<String> {
    stdout
        .lines()
        .filter(|l| {
            [
                "Score of ",
                "Elo difference: ",
                "Ptnml(0-2): ",
                "SPRT: llr ",
            ]
            .iter()
            .any(|p| l.starts_with(p))
        })
        .map(str::to_string)
        .collect()
}

/// What makes a game that game: its number, round, players, opening, moves and result.
fn games(records: &[Value]) -> Vec<Value> {
    records
        .iter()
        .map(|g| {
            let moves: Vec<Value> = g["moves"]
                .as_array()
                .map(|m| m.iter().map(|x| x["move"].clone()).collect())
                .unwrap_or_default();
            serde_json::json!({
                "number": g["number"],
                "round": g["round"],
                "p1": g["p1"],
                "p2": g["p2"],
                "opening": g["opening"],
                "moves": moves,
                "result": g["result"],
            })
        })
        .collect()
}

#[test]
fn slices_play_the_whole_matchs_games_and_the_report_is_its_summary() {
    let dir = fresh_dir("match-slices");
    let whole_path = dir.join("whole.jsonl");
    let whole = run_match(&format!(
        "--seed 7 {SPRT} --concurrency 2 --records {}",
        whole_path.display()
    ));
    assert!(whole.success, "{}\n{}", whole.stdout, whole.stderr);
    // The SPRT did not stop the match: every game was played.
    assert!(whole.stdout.contains("Games: 16 in"), "{}", whole.stdout);
    let whole_games = games(&records(&whole_path));
    assert_eq!(whole_games.len(), 16);

    let mut slices = Vec::new();
    for index in 1..=4 {
        let path = play_slice(
            &dir,
            &format!("slice-{index}.jsonl"),
            &format!("{index}/4"),
            &format!("--seed 7 {SPRT} --concurrency {}", 1 + index % 2),
        );
        let found = records(&path);
        // Slice I plays the rounds r (from 1 in the records) with (r - 1) mod 4 = I - 1:
        // both games of each, as the whole match played them.
        let expected: Vec<_> = whole_games
            .iter()
            .filter(|g| (g["round"].as_u64().expect("a round") - 1) % 4 == index - 1)
            .cloned()
            .collect();
        assert_eq!(expected.len(), 4);
        assert_eq!(games(&found), expected, "slice {index}");
        for game in &found {
            assert_eq!(game["slice"], format!("{index}/4"), "{game}");
            assert_eq!(game["seed"], 7, "{game}");
            assert_eq!(game["match_games"], 16, "{game}");
        }
        slices.push(path);
    }
    let all: Vec<&Path> = slices.iter().map(PathBuf::as_path).collect();
    let run = report(&all, &format!("--seed 7 {SPRT}"));
    assert!(run.success, "{}\n{}", run.stdout, run.stderr);
    assert_eq!(run.code, Some(0));
    let lines = result_lines(&run.stdout);
    assert_eq!(lines.len(), 4, "{}", run.stdout);
    assert_eq!(lines, result_lines(&whole.stdout), "{}", run.stdout);
    assert!(
        run.stdout.contains("Games: 16 of 16 (slices 1-4 complete)"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("SPRT: no decision after every game"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("Status: complete"), "{}", run.stdout);
    // In any order.
    let reversed: Vec<&Path> = all.iter().rev().copied().collect();
    let again = report(&reversed, &format!("--seed 7 {SPRT}"));
    assert_eq!(result_lines(&again.stdout), lines);

    // Two slices decide an SPRT that asks less: said, with status 0.
    let decided = report(&all[..2], "--seed 7 --sprt elo0=-300 elo1=0");
    assert_eq!(
        decided.code,
        Some(0),
        "{}\n{}",
        decided.stdout,
        decided.stderr
    );
    assert!(
        decided
            .stdout
            .contains("Games: 8 of 16 (slices 1,2 complete; 3,4 not given"),
        "{}",
        decided.stdout
    );
    assert!(
        decided.stdout.contains("SPRT: H1 accepted (LLR ")
            && decided
                .stdout
                .contains("): the remaining slices can be cancelled"),
        "{}",
        decided.stdout
    );

    // A slice goes on from its records after a stop (killed as it wrote its third game).
    let text = std::fs::read_to_string(&slices[1]).expect("records");
    let lines: Vec<&str> = text.lines().collect();
    let stopped = dir.join("slice-2-stopped.jsonl");
    let kept = format!("{}\n{}\n", lines[0], lines[1]);
    std::fs::write(&stopped, format!("{kept}{}", &lines[2][..60])).expect("write");
    let resumed = run_match(&format!(
        "--seed 7 --slice 2/4 --resume --records {}",
        stopped.display()
    ));
    assert!(resumed.success, "{}\n{}", resumed.stdout, resumed.stderr);
    assert!(
        resumed.stdout.contains("2 games played, 2 to play"),
        "{}",
        resumed.stdout
    );
    assert_eq!(games(&records(&stopped)), games(&records(&slices[1])));
}

#[test]
fn the_report_reads_slices_still_being_written() {
    let dir = fresh_dir("match-slices-partial");
    let first = play_slice(&dir, "first.jsonl", "1/4", "--seed 7");
    let second = play_slice(&dir, "second.jsonl", "2/4", "--seed 7");
    // Slice 2 stopped (or still writing) in the middle of its third game's record.
    let text = std::fs::read_to_string(&second).expect("records");
    let lines: Vec<&str> = text.lines().collect();
    let partial = format!("{}\n{}\n{}", lines[0], lines[1], &lines[2][..70]);
    std::fs::write(&second, &partial).expect("write");
    let run = report(&[&first, &second], &format!("--seed 7 {SPRT}"));
    assert_eq!(run.code, Some(3), "{}\n{}", run.stdout, run.stderr);
    for expected in [
        "Games: 6 of 16 (slices 1 complete; 2 running or stopped; 3,4 not given",
        "second.jsonl' ends in a line without a newline",
        "Score of a vs b: ",
        "SPRT: running (LLR ",
        "): 10 games to come",
        "Status: running",
    ] {
        assert!(run.stdout.contains(expected), "{expected}: {}", run.stdout);
    }
    let score = run.line("Score of a vs b: ").expect("a score line");
    assert!(score.ends_with("] 6"), "{score}");
    // The file being written is not touched.
    assert_eq!(std::fs::read_to_string(&second).expect("read"), partial);

    // A slice that is running: its records are read (it holds them locked) and it goes on.
    let slow = dir.join("slow.jsonl");
    let mut running = start(
        "match",
        &args(&format!(
            "--engine cmd={BIN} name=a nodes=3000 --engine cmd={BIN} name=b nodes=3000 \
             --game kalah --games 40 --openings plies=4 --seed 3 --slice 1/2 --records {}",
            slow.display()
        )),
    );
    running.await_line(scaled(Duration::from_secs(60)), |l| {
        l.starts_with("Finished game")
    });
    let names = slow.display();
    let run = sowfan(
        "match",
        &args(&format!(
            "--engine cmd={BIN} name=a nodes=3000 --engine cmd={BIN} name=b nodes=3000 \
             --game kalah --games 40 --openings plies=4 --seed 3 --report {names}"
        )),
        Duration::from_secs(60),
    );
    // Slice 2 is not given: the match cannot be complete.
    assert_eq!(run.code, Some(3), "{}\n{}", run.stdout, run.stderr);
    let games: usize = run
        .line("Games: ")
        .and_then(|l| l.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .expect("a Games: line");
    assert!((1..=20).contains(&games), "{}", run.stdout);
    let done = running.finish(Duration::from_secs(300));
    assert!(done.success, "{}\n{}", done.stdout, done.stderr);
    assert_eq!(records(&slow).len(), 20);
}

#[test]
fn records_of_another_match_or_given_twice_are_refused_and_kept() {
    let dir = fresh_dir("match-slices-bad");
    let one = play_slice(&dir, "one.jsonl", "1/4", "--seed 7");
    let two = play_slice(&dir, "two.jsonl", "2/4", "--seed 7");
    let seed8 = play_slice(&dir, "seed8.jsonl", "2/4", "--seed 8");
    let of3 = play_slice(&dir, "of3.jsonl", "2/3", "--seed 7");
    let copy = dir.join("copy.jsonl");
    std::fs::copy(&two, &copy).expect("copy");
    // The same slice, in two files holding different games of it.
    let text = std::fs::read_to_string(&two).expect("records");
    let lines: Vec<&str> = text.lines().collect();
    let (early, late) = (dir.join("early.jsonl"), dir.join("late.jsonl"));
    std::fs::write(&early, format!("{}\n{}\n", lines[0], lines[1])).expect("write");
    std::fs::write(&late, format!("{}\n{}\n", lines[2], lines[3])).expect("write");
    let garbage = dir.join("garbage.jsonl");
    std::fs::write(&garbage, format!("{}\nnot a record\n", lines[0])).expect("write");
    let whole = dir.join("whole.jsonl");
    let run = run_match(&format!("--seed 7 --games 4 --records {}", whole.display()));
    assert!(run.success, "{}", run.stderr);
    let before: Vec<(PathBuf, Vec<u8>)> = std::fs::read_dir(&dir)
        .expect("dir")
        .map(|e| {
            let path = e.expect("entry").path();
            let bytes = std::fs::read(&path).expect("read");
            (path, bytes)
        })
        .collect();

    let d = |p: &Path| p.display().to_string();
    let cases: Vec<(String, String)> = vec![
        (
            format!("--seed 7 --report {} {}", d(&one), d(&seed8)),
            format!("'{}' line 1: game 3 was played with --seed 8", d(&seed8)),
        ),
        (
            format!("--seed 7 --report {} {}", d(&one), d(&of3)),
            "game 3 is of a match cut in 3 slices (slice 2/3), this one is cut in 4".into(),
        ),
        (
            format!("--seed 7 --games 20 --report {}", d(&one)),
            "game 1 is of a match of 16 --games, this one has 20".into(),
        ),
        (
            format!("--seed 7 --report {} {}", d(&two), d(&copy)),
            format!(
                "'{}' line 1: game 3 is also recorded in '{}' line 1",
                d(&copy),
                d(&two)
            ),
        ),
        (
            format!("--seed 7 --report {} {}", d(&early), d(&late)),
            format!(
                "'{}' line 1: the file holds slice 2/4, as '{}' does",
                d(&late),
                d(&early)
            ),
        ),
        (
            format!("--seed 7 --report {} {}", d(&one), d(&one)),
            "is given twice".into(),
        ),
        (
            format!("--seed 7 --report {}", d(&garbage)),
            format!("'{}' line 2: not a match record", d(&garbage)),
        ),
        (
            format!("--seed 7 --report {}", d(&whole)),
            "holds games of a match played whole".into(),
        ),
        (
            format!("--report {}", d(&one)),
            "--report needs --seed".into(),
        ),
        (
            format!("--slice 1/4 --records {}", d(&dir.join("new.jsonl"))),
            "--slice needs --seed".into(),
        ),
        (
            format!(
                "--seed 7 --slice 5/4 --records {}",
                d(&dir.join("new.jsonl"))
            ),
            "slice 5 is out of range; the slices of 4 are numbered 1 to 4".into(),
        ),
        (
            format!(
                "--seed 7 --slice 1/0 --records {}",
                d(&dir.join("new.jsonl"))
            ),
            "the number of slices K must be from 1".into(),
        ),
        (
            format!("--seed 7 --slice 1/4 --resume --records {}", d(&two)),
            "game 3 is of slice 2/4, this is slice 1/4".into(),
        ),
        (
            format!("--seed 7 --resume --records {}", d(&two)),
            "game 3 was played by slice 2/4".into(),
        ),
        (
            format!("--seed 7 --slice 1/4 --resume --records {}", d(&whole)),
            "game 1 was played by a match without --slice".into(),
        ),
    ];
    for (extra, expected) in &cases {
        let run = run_match(extra);
        assert!(!run.success, "{extra}: {}", run.stdout);
        assert_eq!(run.code, Some(1), "{extra}: {}", run.stderr);
        assert!(
            run.stderr.contains(expected.as_str()),
            "{extra}: {}",
            run.stderr
        );
    }
    // Another engine's name (or limits) in the report's command line.
    let other = sowfan(
        "match",
        &args(&format!(
            "--engine cmd={BIN} name=a nodes=500 --engine cmd={BIN} name=c nodes=300 \
             --game kalah --games 16 --openings plies=4 --seed 7 --report {}",
            d(&one)
        )),
        Duration::from_secs(60),
    );
    assert!(
        other
            .stderr
            .contains("game 1 was a against b, this match's is a against c"),
        "{}",
        other.stderr
    );
    let limits = sowfan(
        "match",
        &args(&format!(
            "--engine cmd={BIN} name=a nodes=501 --engine cmd={BIN} name=b nodes=300 \
             --game kalah --games 16 --openings plies=4 --seed 7 --report {}",
            d(&one)
        )),
        Duration::from_secs(60),
    );
    assert!(
        limits.stderr.contains("gave a 'nodes=500'"),
        "{}",
        limits.stderr
    );
    // Nothing was changed, nothing written.
    for (path, bytes) in before {
        assert_eq!(
            std::fs::read(&path).expect("read"),
            bytes,
            "{}",
            path.display()
        );
    }
    assert!(!dir.join("new.jsonl").exists());
}
