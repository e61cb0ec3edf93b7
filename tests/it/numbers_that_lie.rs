//! Issue 45: a number read from a file or a command line is checked against what it can
//! mean before it is used. Part files whose values no game can end with, a part file
//! written over another, unbounded thread and ply counts, shards of nothing, stones spoken
//! of as layers, and a `go solve` that played into a repetition are each refused or answered
//! rightly (the damaged tables are in `hostile_tables/consistency.rs`, the accuracy cache in
//! `accuracy.rs`).

use std::path::Path;
use std::time::Duration;

use crate::support::Engine;
use crate::support::run::{self, Run};
use crate::support::{fresh_dir, last_score, scaled};

const LIMIT: Duration = Duration::from_secs(120);

fn sowfan(subcommand: &str, args: &[&str]) -> Run {
    run::sowfan(subcommand, args, LIMIT)
}

/// `sowfan match` of two engines that are never started (the command line is refused first)
/// with `more` arguments.
fn a_match(more: &[&str]) -> Run {
    let engines = [
        "--engine", "cmd=x", "depth=1", "--engine", "cmd=y", "depth=1",
    ];
    sowfan(
        "match",
        &[&engines[..], &["--game", "kalah"], more].concat(),
    )
}

/// `sowfan tablebase build GAME... --dir DIR MORE...`.
fn build(game: &[&str], dir: &Path, more: &[&str]) -> Run {
    sowfan(
        "tablebase",
        &[&["build"], game, &["--dir", text(dir)], more].concat(),
    )
}

fn text(path: &Path) -> &str {
    path.to_str().expect("utf-8")
}

/// A part file's text with `from` replaced by `to` and its `end:` checksum made right again
/// (XXH3-64 over every byte before that line), so that only the value checks can refuse it.
fn forge(part: &str, from: &str, to: &str) -> String {
    assert!(part.contains(from), "{part} holds {from}");
    let body = part[..part.find("end: ").expect("an end line")].replace(from, to);
    let sum = sowfan::file_header::checksum(body.as_bytes());
    format!("{body}end: {sum:016x}\n")
}

/// The one part of `game` (all its moves), written by `solve --split 1/1`.
fn whole_part(game: &[&str], file: &Path) -> String {
    let run = sowfan(
        "solve",
        &[game, &["--split", "1/1", "--part-file", text(file)]].concat(),
    );
    assert_eq!(run.code, Some(0), "{}{}", run.stdout, run.stderr);
    std::fs::read_to_string(file).expect("part file")
}

#[test]
fn part_values_beyond_what_the_position_allows_are_refused() {
    let dir = fresh_dir("lying-parts");
    let kalah = ["kalah", "pits=4", "seeds=3", "--hash", "16"];
    let part = whole_part(&kalah, &dir.join("kalah.txt"));
    let value_of_c = part
        .lines()
        .find_map(|l| l.strip_prefix("move: C "))
        .expect("a line for C")
        .to_string();
    // Kalah(4,3) has 24 seeds: a margin of 2000 points, i64::MIN (which `abs()` wrapped to
    // itself, then `as i32` made 0), and a margin off the grid of reachable ones (an odd
    // number of half-points where every seed moves the margin by 2 points).
    for lie in ["4000", "-9223372036854775808", "1"] {
        let file = dir.join(format!("kalah-{}.txt", lie.len()));
        std::fs::write(
            &file,
            forge(
                &part,
                &format!("move: C {value_of_c}\n"),
                &format!("move: C {lie}\n"),
            ),
        )
        .expect("write");
        let run = sowfan("solve", &[&kalah[..], &["--combine", text(&file)]].concat());
        assert_eq!(run.code, Some(1), "{lie}: {}{}", run.stdout, run.stderr);
        assert!(run.stderr.contains("damaged"), "{lie}: {}", run.stderr);
        assert!(
            run.line("Value: ").is_none(),
            "{lie}: nothing combined: {}",
            run.stdout
        );
    }
    // The unforged part combines: the check refuses lies, not parts.
    let run = sowfan(
        "solve",
        &[&kalah[..], &["--combine", text(&dir.join("kalah.txt"))]].concat(),
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);

    // Telo is won or lost: 7 is neither a win, a draw nor a loss.
    let telo = ["fanorona-telo", "--hash", "4"];
    let part = whole_part(&telo, &dir.join("telo.txt"));
    let line = part
        .lines()
        .find(|l| l.starts_with("move: "))
        .expect("a move")
        .to_string();
    let (head, _) = line.rsplit_once(' ').expect("move and value");
    let file = dir.join("telo-7.txt");
    std::fs::write(
        &file,
        forge(&part, &format!("{line}\n"), &format!("{head} 7\n")),
    )
    .expect("write");
    let run = sowfan("solve", &[&telo[..], &["--combine", text(&file)]].concat());
    assert_eq!(run.code, Some(1), "{}{}", run.stdout, run.stderr);
    assert!(run.stderr.contains("the value 7"), "{}", run.stderr);
}

#[test]
fn a_part_file_never_replaces_what_is_there() {
    let dir = fresh_dir("part-overwrite");
    let game = ["kalah", "pits=4", "seeds=3", "--hash", "16"];
    let first = dir.join("part-1.txt");
    let run = sowfan(
        "solve",
        &[&game[..], &["--split", "1/2", "--part-file", text(&first)]].concat(),
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let kept = std::fs::read_to_string(&first).expect("part 1");
    let run = sowfan(
        "solve",
        &[&game[..], &["--split", "2/2", "--part-file", text(&first)]].concat(),
    );
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    assert!(
        run.stderr.contains("a file is there already") && run.stderr.contains("part-1.txt"),
        "{}",
        run.stderr
    );
    assert!(
        run.stdout.is_empty(),
        "refused before any proof: {}",
        run.stdout
    );
    assert_eq!(
        std::fs::read_to_string(&first).expect("part 1"),
        kept,
        "part 1 untouched"
    );
    // A directory is named as one, and so is it for --save.
    let run = sowfan(
        "solve",
        &[&game[..], &["--split", "2/2", "--part-file", text(&dir)]].concat(),
    );
    assert!(
        run.stderr.contains("a directory is there already"),
        "{}",
        run.stderr
    );
    let run = sowfan("solve", &[&game[..], &["--save", text(&dir)]].concat());
    assert_eq!(run.code, Some(1));
    assert!(
        run.stderr.contains("--save '")
            && run.stderr.contains("a directory is there already")
            && !run.stderr.contains("  "),
        "one line, no run of spaces: {}",
        run.stderr
    );
    // --combine runs no part: --part-file and --split with it are refused, not ignored.
    let run = sowfan(
        "solve",
        &[
            &game[..],
            &[
                "--combine",
                text(&first),
                "--part-file",
                text(&dir.join("x.txt")),
            ],
        ]
        .concat(),
    );
    assert_eq!(run.code, Some(1));
    assert!(
        run.stderr.contains("--combine") && run.stderr.contains("--part-file"),
        "{}",
        run.stderr
    );
}

#[test]
fn thread_counts_have_one_bound_everywhere() {
    let dir = fresh_dir("threads-bound");
    let tables = dir.join("t");
    for threads in ["0", "257", "99999", "4294967295"] {
        let run = build(
            &["kalah", "pits=3", "--seeds", "4"],
            &tables,
            &["--threads", threads],
        );
        assert_eq!(run.code, Some(1), "{threads}: {}", run.stderr);
        assert!(
            run.stderr.contains(&format!(
                "--threads {threads}: give a number of threads in 1..=256"
            )),
            "{threads}: {}",
            run.stderr
        );
        let run = sowfan("solve", &["kalah", "pits=3", "--threads", threads]);
        assert!(
            run.stderr.contains("in 1..=256"),
            "solve {threads}: {}",
            run.stderr
        );
    }
    assert!(!tables.exists(), "nothing built");
    let run = a_match(&["--concurrency", "100000"]);
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    assert!(
        run.stderr
            .contains("--concurrency 100000: give a number of threads in 1..=256"),
        "{}",
        run.stderr
    );
}

#[test]
fn opening_plies_are_bounded_and_walked_in_linear_time() {
    for plies in ["1000000000", "1001"] {
        let run = a_match(&["--openings", &format!("plies={plies}")]);
        assert_eq!(run.code, Some(1), "{}", run.stderr);
        assert!(run.stderr.contains("0..=1000"), "{plies}: {}", run.stderr);
        assert!(
            run.elapsed < scaled(Duration::from_secs(5)),
            "refused at once: {:?}",
            run.elapsed
        );
    }
}

#[test]
fn fanorona_tables_speak_of_stones() {
    let dir = fresh_dir("stones-not-layers");
    let run = build(&["fanorona-dimy", "--pieces", "4"], &dir, &[]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let info = sowfan("tablebase", &["info", "--dir", text(&dir)]);
    assert!(
        info.stdout
            .contains("every position with at most 4 in play"),
        "{}",
        info.stdout
    );
    let run = build(&["fanorona-dimy", "--pieces", "99"], &dir, &[]);
    assert_eq!(run.code, Some(1));
    assert!(
        run.stderr
            .contains("99 in play asked: tables hold at most ")
            && !run.stderr.contains("layer 2449"),
        "{}",
        run.stderr
    );
    let run = build(&["kalah", "pits=3", "--seeds", "4294967295"], &dir, &[]);
    assert_eq!(run.code, Some(1));
    assert!(
        run.elapsed < scaled(Duration::from_secs(5)),
        "{:?}",
        run.elapsed
    );
    // More slices than --shard allows, and more than the layer has entries (Kalah(3) with 2
    // seeds in play: 21 entries): both would leave slices empty.
    let run = build(
        &["fanorona-dimy", "--pieces", "4"],
        &dir,
        &["--shard", "1/1000000000"],
    );
    assert_eq!(run.code, Some(1), "{}{}", run.stdout, run.stderr);
    assert!(run.stderr.contains("K at most 4096"), "{}", run.stderr);
    let run = build(
        &["kalah", "pits=3", "--seeds", "2"],
        &dir,
        &["--shard", "1/4000"],
    );
    assert_eq!(run.code, Some(1), "{}{}", run.stdout, run.stderr);
    assert!(
        run.stderr
            .contains("entries; cut it into at most that many slices"),
        "{}",
        run.stderr
    );
    assert!(!run.stdout.contains("Done"), "{}", run.stdout);
}

/// A build is planned within `--memory` (the depth-first builder: a byte an entry) and
/// refused before it writes anything when a layer cannot fit, naming what would.
#[test]
fn table_builds_plan_their_memory_before_they_start() {
    let dir = fresh_dir("memory-plan");
    let run = build(&["kalah", "--seeds", "12"], &dir, &["--memory", "1"]);
    assert_eq!(run.code, Some(1), "{}{}", run.stdout, run.stderr);
    assert!(
        run.stderr
            .contains("needs at least 2 MiB to be built, more than the 1 MiB of --memory")
            && run
                .stderr
                .contains("build up to 11 in play (--seeds/--pieces 11)"),
        "{}",
        run.stderr
    );
    assert!(!dir.exists() || std::fs::read_dir(&dir).map_or(0, |d| d.count()) == 0);
    for wrong in ["0", "-1", "many"] {
        let run = build(&["kalah", "--seeds", "4"], &dir, &["--memory", wrong]);
        assert_eq!(run.code, Some(2), "{wrong}: {}", run.stderr);
    }
    let run = build(
        &["kalah", "--seeds", "10"],
        &dir,
        &["--memory", "18446744073709551615"],
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(
        run.stdout.contains("Memory: peak resident"),
        "{}",
        run.stdout
    );
}

#[test]
fn go_solve_values_a_move_that_repeats_for_the_third_time_as_the_draw_it_is() {
    let mut engine = Engine::start(&[]);
    engine.send("newgame fanorona-dimy");
    engine
        .send("position fen W4/5/5/5/4B w 0 moves a5-b4 e1-d1 b4-c4 d1-e1 c4-b4 e1-d1 b4-a5 d1-e1");
    let lines = engine.ask("go solve movetime 20000", "bestmove");
    let last_info = last_score(&lines);
    assert!(
        !last_info.contains("wdl 1000 0 0"),
        "no win claimed: {lines:?}"
    );
    assert!(last_info.contains("wdl 0 1000 0"), "a draw: {last_info}");
    assert_ne!(
        lines.last().map(String::as_str),
        Some("bestmove a5-b4"),
        "{lines:?}"
    );
    engine.send("quit");
}
