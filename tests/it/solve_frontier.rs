//! `sowfan solve --frontier D` (issue 66): a proof split at the positions D plies from the
//! root into many parts (`--split I/K --part-file`), each run on its own, combined
//! (`--combine`) into exactly what a one-machine `--all-moves` prints; a re-run part that is
//! done already redoes nothing; bad parts refused with what they are and what to do.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::support::fresh_dir;
use crate::support::run::{Run, signal, sowfan, start};

fn solve_run(args: &[&str]) -> Run {
    sowfan("solve", args, Duration::from_secs(120))
}

fn text(path: &Path) -> &str {
    path.to_str().expect("utf-8")
}

/// The lines before `Best:` (every move's value and `Value:`).
fn move_lines(run: &Run) -> Vec<&str> {
    run.stdout
        .lines()
        .take_while(|l| !l.starts_with("Best:"))
        .collect()
}

/// The number N of `Frontier: N positions at D plies (M game ends before D)`.
fn frontier_size(game: &[&str], depth: &str) -> usize {
    let run = solve_run(&[game, &["--frontier", depth, "--frontier-size"]].concat());
    assert_eq!(run.code, Some(0), "{}{}", run.stdout, run.stderr);
    let line = run.line("Frontier: ").expect("a Frontier line");
    assert!(
        line.contains(&format!(" positions at {depth} plies (")),
        "{line}"
    );
    line.split_whitespace()
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no count in '{line}'"))
}

/// Run part `i` of `k` of `game` split at `depth` into `dir/part-I.txt`.
fn run_part(game: &[&str], depth: &str, i: usize, k: usize, dir: &Path) -> PathBuf {
    let file = dir.join(format!("part-{i}.txt"));
    let split = format!("{i}/{k}");
    let run = solve_run(
        &[
            game,
            &[
                "--frontier",
                depth,
                "--split",
                &split,
                "--part-file",
                text(&file),
            ],
        ]
        .concat(),
    );
    assert_eq!(run.code, Some(0), "{split}: {}{}", run.stdout, run.stderr);
    assert!(run.line("Value: ").is_none(), "a part proves no root value");
    file
}

fn combine(game: &[&str], files: &[PathBuf]) -> Run {
    let mut args = game.to_vec();
    args.push("--combine");
    args.extend(files.iter().map(|f| text(f)));
    solve_run(&args)
}

/// The `leaf:` lines of a part file: (index, value, position).
fn leaves(file: &Path) -> Vec<(usize, i64, String)> {
    std::fs::read_to_string(file)
        .expect("part file")
        .lines()
        .filter_map(|l| l.strip_prefix("leaf: "))
        .map(|l| {
            let mut words = l.splitn(3, ' ');
            let index = words.next().and_then(|w| w.parse().ok()).expect("index");
            let value = words.next().and_then(|w| w.parse().ok()).expect("value");
            (index, value, words.next().expect("position").to_string())
        })
        .collect()
}

/// The split proof of `game` at `depth` in `k` parts combines into what `--all-moves`
/// prints: every move's value and `Value:`, a `Best:` of that value, the parts' work
/// summed. Returns the part files.
fn split_and_combine(game: &[&str], depth: &str, k: usize, dir: &Path) -> Vec<PathBuf> {
    let total = frontier_size(game, depth);
    assert!(
        total >= 20 && k >= 20,
        "{game:?}: {total} positions, {k} parts"
    );
    let direct = solve_run(&[game, &["--all-moves"]].concat());
    assert_eq!(direct.code, Some(0), "{}{}", direct.stdout, direct.stderr);
    let files: Vec<PathBuf> = (1..=k).map(|i| run_part(game, depth, i, k, dir)).collect();
    // Every frontier position in exactly one part, part I holding I, I+K, …
    let mut all = Vec::new();
    for (i, file) in files.iter().enumerate() {
        let held: Vec<usize> = leaves(file).iter().map(|l| l.0).collect();
        assert_eq!(
            held,
            (i + 1..=total).step_by(k).collect::<Vec<_>>(),
            "{}",
            file.display()
        );
        all.extend(held);
    }
    all.sort_unstable();
    assert_eq!(all, (1..=total).collect::<Vec<_>>());
    let combined = combine(game, &files);
    assert_eq!(
        combined.code,
        Some(0),
        "{}{}",
        combined.stdout,
        combined.stderr
    );
    assert_eq!(move_lines(&combined), move_lines(&direct), "{game:?}");
    let value = combined.line("Value: ").expect("Value");
    let best = combined.line("Best: ").expect("Best");
    assert!(
        combined
            .stdout
            .lines()
            .any(|l| l == format!("{best}: {value}")),
        "{}",
        combined.stdout
    );
    let nodes: u64 = files
        .iter()
        .map(|f| {
            std::fs::read_to_string(f)
                .expect("part")
                .lines()
                .find_map(|l| l.strip_prefix("nodes: ")?.parse::<u64>().ok())
                .expect("nodes")
        })
        .sum();
    assert_eq!(combined.nodes(), nodes, "the parts' nodes summed");
    assert!(nodes > 0);
    files
}

#[test]
fn a_proof_split_at_a_frontier_combines_into_the_all_moves_values() {
    let dir = fresh_dir("solve-frontier");
    let kalah = ["kalah", "pits=4", "seeds=3", "--hash", "16"];
    // 50 positions 3 plies down, in 52 parts: the last two are empty and valid.
    let files = split_and_combine(&kalah, "3", 52, &dir);
    assert!(leaves(&files[51]).is_empty());
    // Three plies from South's move: South moves again only after an extra move, whose
    // value the combination must not negate; some frontier positions are such.
    assert!(
        files
            .iter()
            .flat_map(|f| leaves(f))
            .any(|(_, _, position)| position.ends_with(" S")),
        "no extra move within 3 plies"
    );
    // A second game, won or lost, with game ends before the frontier.
    let telo = ["fanorona-telo", "--hash", "4"];
    let telo_dir = dir.join("telo");
    std::fs::create_dir_all(&telo_dir).expect("dir");
    split_and_combine(&telo, "5", 20, &telo_dir);
    let run = solve_run(&[&telo[..], &["--frontier", "5", "--frontier-size"]].concat());
    assert!(
        run.stdout.contains("(1 game ends before 5)"),
        "{}",
        run.stdout
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A part file's text with `from` replaced by `to` and its checksum made right again, so
/// that only the checks of its content can refuse it.
fn forge(part: &str, from: &str, to: &str) -> String {
    assert!(part.contains(from), "{part} holds {from}");
    let body = part[..part.find("end: ").expect("an end line")].replacen(from, to, 1);
    let sum = sowfan::file_header::checksum(body.as_bytes());
    format!("{body}end: {sum:016x}\n")
}

#[test]
fn bad_frontier_parts_are_refused_with_what_they_are_and_what_to_do() {
    let dir = fresh_dir("solve-frontier-bad");
    let game = ["kalah", "pits=4", "seeds=3", "--hash", "4"];
    let sub = |name: &str| {
        let d = dir.join(name);
        std::fs::create_dir_all(&d).expect("dir");
        d
    };
    let parts: Vec<PathBuf> = (1..=3).map(|i| run_part(&game, "2", i, 3, &dir)).collect();
    let other_game = run_part(
        &["kalah", "pits=4", "seeds=2", "--hash", "4"],
        "2",
        1,
        3,
        &sub("seeds2"),
    );
    let other_position = run_part(
        &[&game[..], &["--moves", "B"]].concat(),
        "2",
        1,
        3,
        &sub("moved"),
    );
    let other_depth = run_part(&game, "3", 1, 3, &sub("depth3"));
    let good = std::fs::read_to_string(&parts[1]).expect("part 2");
    let write = |name: &str, content: &str| {
        let file = dir.join(name);
        std::fs::write(&file, content).expect("write");
        file
    };
    let cut = write("cut.txt", &good[..good.len() - 10]);
    let edited = write("edited.txt", &good.replacen("tbhits: 0", "tbhits: 1", 1));
    let (index, value, position) = leaves(&parts[1])[0].clone();
    let line = format!("leaf: {index} {value} {position}\n");
    let impossible = write(
        "impossible.txt",
        &forge(&good, &line, &format!("leaf: {index} 4000 {position}\n")),
    );
    let wrong_position = write(
        "wrong-position.txt",
        &forge(&good, &line, &format!("leaf: {index} {value} 1,2,3\n")),
    );
    // Another value the position can have (on Kalah's grid of 4 half-points).
    let other = if value >= 0 { value - 4 } else { value + 4 };
    let disagrees = write(
        "disagrees.txt",
        &forge(&good, &line, &format!("leaf: {index} {other} {position}\n")),
    );
    let by_move = dir.join("by-move.txt");
    let run = solve_run(
        &[
            &game[..],
            &["--split", "1/1", "--part-file", text(&by_move)],
        ]
        .concat(),
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let [one, two, three] = [&parts[0], &parts[1], &parts[2]];
    for (files, why) in [
        (
            vec![one, two, &other_game],
            "is a part of a proof for 'kalah",
        ),
        (
            vec![one, two, &other_position],
            "is a part of a proof of the position",
        ),
        (vec![one, two, &other_depth], "frontier depth"),
        (vec![one, three], "no part holds the frontier positions"),
        (vec![one, three], "--split 2/3"),
        (vec![one, three, &cut], "damaged"),
        (vec![one, three, &edited], "checksum"),
        (
            vec![one, three, &impossible],
            "which no game from that position",
        ),
        (vec![one, three, &wrong_position], "its frontier position"),
        (vec![one, two, three, &disagrees], "disagrees.txt"),
        (
            vec![one, two, three, &by_move],
            "give the parts of one split",
        ),
    ] {
        let run = combine(
            &game,
            &files.iter().map(|f| f.to_path_buf()).collect::<Vec<_>>(),
        );
        assert_eq!(run.code, Some(1), "{files:?}: {}{}", run.stdout, run.stderr);
        assert!(run.stderr.contains(why), "{why}: {}", run.stderr);
        assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
        assert!(run.stdout.is_empty(), "{}", run.stdout);
    }
    // The differing duplicate is named beside the part it contradicts.
    let run = combine(&game, &[one.clone(), two.clone(), three.clone(), disagrees]);
    assert!(run.stderr.contains("part-2.txt"), "{}", run.stderr);
    // A part given twice (or re-run with the same values) counts once.
    let run = combine(
        &game,
        &[one.clone(), two.clone(), three.clone(), two.clone()],
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(run.line("Value: ").is_some(), "{}", run.stdout);
    // --frontier with --combine must be the parts' depth.
    let mut args = game.to_vec();
    args.extend(["--frontier", "3", "--combine"]);
    args.extend(parts.iter().map(|f| text(f)));
    let run = solve_run(&args);
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    assert!(run.stderr.contains("depth 2"), "{}", run.stderr);

    // A part re-submitted when done redoes nothing: status 0, the file as it was.
    let kept = std::fs::read(two).expect("part 2");
    let again = |file: &Path, split: &str| {
        solve_run(
            &[
                &game[..],
                &[
                    "--frontier",
                    "2",
                    "--split",
                    split,
                    "--part-file",
                    text(file),
                ],
            ]
            .concat(),
        )
    };
    let run = again(two, "2/3");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(run.stderr.contains("nothing to do"), "{}", run.stderr);
    assert!(
        run.line("Nodes: ").is_none(),
        "no proof ran: {}",
        run.stdout
    );
    assert_eq!(std::fs::read(two).expect("part 2"), kept);
    // Another part's file, a damaged one, a directory: named, refused, untouched.
    for (file, split, why) in [
        (two, "3/3", "holds part 2/3 of this proof, not 3/3"),
        (&cut, "2/3", "damaged"),
        (&other_depth, "1/3", "frontier depth"),
        (&dir, "2/3", "a directory is there already"),
    ] {
        let before = std::fs::read(file).ok();
        let run = again(file, split);
        assert_eq!(run.code, Some(1), "{}{}", run.stdout, run.stderr);
        assert!(run.stderr.contains(why), "{why}: {}", run.stderr);
        assert!(
            run.stderr
                .contains(file.file_name().and_then(|n| n.to_str()).expect("name")),
            "{}",
            run.stderr
        );
        assert!(run.stdout.is_empty(), "{}", run.stdout);
        assert_eq!(std::fs::read(file).ok(), before);
    }
    // Bad command lines, refused before any work.
    for (args, why) in [
        (vec!["--frontier", "0", "--frontier-size"], "--frontier 0"),
        (vec!["--frontier", "65", "--frontier-size"], "--frontier 65"),
        (vec!["--frontier", "2", "--split", "0/3"], "--split"),
        (vec!["--frontier", "2", "--split", "1/1000001"], "--split"),
        (vec!["--frontier", "2"], "--split I/K"),
        (
            vec!["--frontier", "2", "--split", "1/3", "--part-nodes", "0"],
            "--part-nodes 0",
        ),
    ] {
        let run = solve_run(&[&game[..], &args].concat());
        assert_eq!(run.code, Some(1), "{args:?}: {}", run.stderr);
        assert!(run.stderr.contains(why), "{why}: {}", run.stderr);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_interrupted_frontier_part_writes_no_file_and_exits_130() {
    let dir = fresh_dir("solve-frontier-stop");
    let file = dir.join("part.txt");
    // Kalah(6,4) from the start is far beyond a second's proof.
    let mut running = start(
        "solve",
        &[
            "kalah",
            "--hash",
            "16",
            "--frontier",
            "1",
            "--split",
            "1/2",
            "--part-file",
            text(&file),
        ],
    );
    assert!(running.await_signal_handlers(Duration::from_secs(10)));
    std::thread::sleep(Duration::from_millis(300));
    assert!(signal(running.id(), "-TERM"));
    let run = running.finish(Duration::from_secs(5));
    assert_eq!(run.code, Some(130), "{}{}", run.stdout, run.stderr);
    assert!(
        run.stderr.contains("no part file written"),
        "{}",
        run.stderr
    );
    assert!(!file.exists());
    let left: Vec<_> = std::fs::read_dir(&dir).expect("dir").flatten().collect();
    assert!(left.is_empty(), "nothing left behind: {left:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The `open:` lines of a part file: the positions left open (their strings).
fn opens(file: &Path) -> Vec<String> {
    std::fs::read_to_string(file)
        .expect("part file")
        .lines()
        .filter_map(|l| l.strip_prefix("open: "))
        .map(|l| l.split_once(' ').expect("index and position").1.to_string())
        .collect()
}

#[test]
fn positions_that_outgrow_their_part_are_split_again_and_combine_exactly() {
    let dir = fresh_dir("solve-frontier-open");
    let game = ["kalah", "pits=4", "seeds=3", "--hash", "16"];
    let direct = solve_run(&[&game[..], &["--all-moves"]].concat());
    assert_eq!(direct.code, Some(0), "{}", direct.stderr);
    let budget = ["--part-nodes", "3000"];
    let top = sub_dir(&dir, "top");
    let mut files: Vec<PathBuf> = (1..=3)
        .map(|i| run_part(&[&game[..], &budget].concat(), "2", i, 3, &top))
        .collect();
    let mut open: Vec<String> = files.iter().flat_map(|f| opens(f)).collect();
    assert!(!open.is_empty(), "a budget of 3000 nodes leaves some open");
    // Each open position split again, one ply down, with the budget while it is shallow.
    let mut level = 0;
    while !open.is_empty() {
        level += 1;
        assert!(level <= 6, "open positions left: {open:?}");
        let mut next = Vec::new();
        for (n, position) in open.iter().enumerate() {
            let here = sub_dir(&dir, &format!("level-{level}-{n}"));
            let mut args = vec!["--fen", position.as_str()];
            if level < 3 {
                args.extend(budget);
            }
            let part = run_part(&[&game[..], &args].concat(), "1", 1, 1, &here);
            next.extend(opens(&part));
            files.push(part);
        }
        open = next;
    }
    let combined = combine(&game, &files);
    assert_eq!(
        combined.code,
        Some(0),
        "{}{}",
        combined.stdout,
        combined.stderr
    );
    assert_eq!(move_lines(&combined), move_lines(&direct));
    // Without the parts of an open position: named, with the command that splits it.
    let missing = files.pop().expect("a nested part");
    let run = combine(&game, &files);
    assert_eq!(run.code, Some(1), "{}", run.stdout);
    assert!(
        run.stderr.contains("was left open") && run.stderr.contains("--fen '"),
        "{}",
        run.stderr
    );
    // A part of a position no part left open is refused.
    files.push(missing);
    let stray = run_part(
        &[&game[..], &["--moves", "A"]].concat(),
        "1",
        1,
        1,
        &sub_dir(&dir, "stray"),
    );
    files.push(stray);
    let run = combine(&game, &files);
    assert_eq!(run.code, Some(1), "{}", run.stdout);
    assert!(
        run.stderr
            .contains("nor of a frontier position a part left open"),
        "{}",
        run.stderr
    );
    let _ = std::fs::remove_dir_all(&dir);
}

fn sub_dir(dir: &Path, name: &str) -> PathBuf {
    let d = dir.join(name);
    std::fs::create_dir_all(&d).expect("dir");
    d
}
