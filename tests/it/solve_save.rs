//! `sowfan solve` for long proofs (issue 20): the peak resident memory reported and bounded
//! by the hash, the exact solver's proof saved and resumed (`--save`, `--resume`,
//! `--proof-file`) with hostile files refused, and a proof split by first move
//! (`--split I/K --part-file`) whose parts combine (`--combine`) into what `--all-moves`
//! prints, bad parts refused with a reason and status 1.

use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use sowfan::game::prelude::*;
use sowfan::solver::save::{self, ProofFileError, ProofIdentity, ProofWork, RootProof};
use sowfan::solver::tt::SolverTt;
use sowfan::solver::{self, SolveSettings};

use crate::support::run::{Run, signal, sowfan, start};
use crate::support::{fresh_dir, kalah, scaled};

fn solve_run(args: &[&str]) -> Run {
    sowfan("solve", args, Duration::from_secs(120))
}

fn text(path: &Path) -> &str {
    path.to_str().expect("utf-8")
}

/// The peak of a `Memory:` line, in MiB.
fn peak_mib(run: &Run) -> u64 {
    let memory = run.line("Memory: peak resident ").expect("a Memory line");
    memory
        .split_whitespace()
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no peak in '{memory}'"))
}

/// What lies beyond the hash and the tables: the program, its threads' stacks, the
/// solver's per-ply buffers and a proof file's 1 MiB buffer. 64 MiB is the reserve
/// src/memory.rs keeps back for all that is not the table when it caps --hash.
const BEYOND_THE_HASH_MIB: u64 = 64;

#[test]
fn solve_reports_a_peak_memory_within_the_hash_and_the_reserve() {
    for (args, hash) in [
        (&["kalah", "pits=5", "seeds=3", "--hash", "16"][..], 16),
        (
            &["kalah", "pits=4", "seeds=3", "--hash", "64", "--all-moves"][..],
            64,
        ),
        (&["fanorona-telo", "--hash", "4", "--all-moves"][..], 4),
    ] {
        let run = solve_run(args);
        assert_eq!(run.code, Some(0), "{args:?}: {}{}", run.stdout, run.stderr);
        let memory = run.line("Memory: ").expect("Memory line");
        assert!(
            memory.ends_with(&format!("(hash {hash} MiB, tables mapped 0 MiB)")),
            "{memory}"
        );
        let peak = peak_mib(&run);
        assert!(
            peak > 0 && peak <= hash + BEYOND_THE_HASH_MIB,
            "{args:?}: peak {peak} MiB beyond {hash} + {BEYOND_THE_HASH_MIB} MiB"
        );
    }
}

#[test]
fn an_exact_proof_is_saved_resumed_and_never_written_over_by_mistake() {
    let dir = fresh_dir("solve-save");
    let file = dir.join("k53.proof");
    let game = ["kalah", "pits=5", "seeds=3", "--hash", "16"];
    let first = solve_run(&[&game[..], &["--save", text(&file)]].concat());
    assert_eq!(first.code, Some(0), "{}{}", first.stdout, first.stderr);
    assert!(first.stderr.contains("proof saved"), "{}", first.stderr);
    assert!(first.line("Value: ").is_some(), "{}", first.stdout);
    // Resumed: the same value and line, from the table, in a few nodes.
    let again = solve_run(&[&game[..], &["--resume", text(&file)]].concat());
    assert_eq!(again.code, Some(0), "{}{}", again.stdout, again.stderr);
    assert_eq!(again.line("Value: "), first.line("Value: "));
    assert_eq!(again.line("PV: "), first.line("PV: "));
    assert!(
        again.stderr.contains("resumed the proof"),
        "{}",
        again.stderr
    );
    assert!(
        again.nodes() * 100 < first.nodes(),
        "{} vs {}",
        again.nodes(),
        first.nodes()
    );
    // --proof-file: resumed when there, kept saving; every move's value kept in the file.
    let all = solve_run(&[&game[..], &["--proof-file", text(&file), "--all-moves"]].concat());
    assert_eq!(all.code, Some(0), "{}{}", all.stdout, all.stderr);
    let moves_again =
        solve_run(&[&game[..], &["--proof-file", text(&file), "--all-moves"]].concat());
    assert_eq!(
        moves_again.stdout.lines().take(5).collect::<Vec<_>>(),
        all.stdout.lines().take(5).collect::<Vec<_>>()
    );
    assert!(moves_again.nodes() < 100, "{}", moves_again.stdout);
    // A saved proof is not written over by a new one, and --resume needs its file.
    let saved = std::fs::read(&file).expect("saved");
    for (args, why) in [
        (vec!["--save", text(&file)], "a file is there already"),
        (vec!["--resume", "/nonexistent/none.proof"], "no such file"),
    ] {
        let run = solve_run(&[&game[..], &args[..]].concat());
        assert_eq!(run.code, Some(1), "{args:?}: {}{}", run.stdout, run.stderr);
        assert!(run.stderr.contains(why), "{args:?}: {}", run.stderr);
        assert!(run.stdout.is_empty(), "{}", run.stdout);
    }
    assert_eq!(std::fs::read(&file).expect("kept"), saved);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn hostile_exact_proof_files_are_refused_with_a_reason() {
    let dir = fresh_dir("solve-save-hostile");
    let good = dir.join("good.proof");
    let game = ["kalah", "pits=4", "seeds=3", "--hash", "4"];
    let run = solve_run(&[&game[..], &["--save", text(&good)]].concat());
    assert_eq!(run.code, Some(0), "{}{}", run.stdout, run.stderr);
    let bytes = std::fs::read(&good).expect("saved");
    let mut rng = crate::support::rng::Rng::new(20);
    let mut cases: Vec<(String, Vec<u8>, &str)> = vec![
        ("empty".into(), Vec::new(), "not a proof file"),
        ("cut".into(), bytes[..bytes.len() / 2].to_vec(), "damaged"),
        (
            "a byte short".into(),
            bytes[..bytes.len() - 1].to_vec(),
            "damaged",
        ),
        ("a byte more".into(), [&bytes[..], &[7]].concat(), "damaged"),
        (
            "random".into(),
            (0..4000).map(|_| rng.next() as u8).collect(),
            "not a proof file",
        ),
    ];
    for _ in 0..30 {
        let mut flipped = bytes.clone();
        let at = 12 + rng.below(flipped.len() - 12);
        flipped[at] ^= 1 << rng.below(8);
        cases.push((format!("bit flipped at {at}"), flipped, "proof file"));
    }
    for (name, content, why) in &cases {
        let bad = dir.join("bad.proof");
        std::fs::write(&bad, content).expect("write");
        let run = solve_run(&[&game[..], &["--resume", text(&bad)]].concat());
        assert_eq!(run.code, Some(1), "{name}: {}{}", run.stdout, run.stderr);
        assert!(run.stderr.contains(why), "{name}: {}", run.stderr);
        assert!(!run.stderr.contains("panicked"), "{name}: {}", run.stderr);
        assert!(run.stdout.is_empty(), "{name}: {}", run.stdout);
    }
    // Another game, position, table size or solver: named as such.
    let telo = dir.join("telo.proof");
    let run = solve_run(&["fanorona-telo", "--hash", "4", "--save", text(&telo)]);
    assert_eq!(run.code, Some(0), "{}{}", run.stdout, run.stderr);
    for (args, file, why) in [
        (
            &["kalah", "pits=4", "seeds=2", "--hash", "4"][..],
            &good,
            "is a proof for",
        ),
        (
            &["kalah", "pits=4", "seeds=3", "--hash", "4", "--moves", "A"][..],
            &good,
            "is a proof of the position",
        ),
        (
            &["kalah", "pits=4", "seeds=3", "--hash", "8"][..],
            &good,
            "--hash 4",
        ),
        (&game[..], &telo, "proof-number solver"),
        (
            &["fanorona-telo", "--hash", "4"][..],
            &good,
            "exact (MTD(f)) solver",
        ),
    ] {
        let run = solve_run(&[args, &["--resume", text(file)]].concat());
        assert_eq!(run.code, Some(1), "{args:?}: {}{}", run.stdout, run.stderr);
        assert!(run.stderr.contains(why), "{args:?}: {}", run.stderr);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_stopped_exact_proof_is_saved_and_resumed_to_the_same_value() {
    let dir = fresh_dir("solve-save-stop");
    let file = dir.join("k54.proof");
    let args = [
        "kalah",
        "pits=5",
        "seeds=4",
        "--hash",
        "16",
        "--checkpoint",
        "1",
    ];
    let running = start("solve", &[&args[..], &["--save", text(&file)]].concat());
    let deadline = Instant::now() + scaled(Duration::from_secs(30));
    while !file.exists() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(file.exists(), "no checkpoint within 30 s (scaled)");
    assert!(signal(running.id(), "-TERM"));
    let first = running.finish(Duration::from_secs(60));
    // Stopped (130), or done already on a fast machine (0): saved either way.
    assert!(
        matches!(first.code, Some(130 | 0)),
        "{}{}",
        first.stdout,
        first.stderr
    );
    assert!(first.stderr.contains("proof saved"), "{}", first.stderr);
    let names: Vec<String> = std::fs::read_dir(&dir)
        .expect("dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, vec!["k54.proof".to_string()], "temporary files left");
    let resumed =
        solve_run(&[&args[..], &["--resume", text(&file), "--save", text(&file)]].concat());
    assert_eq!(
        resumed.code,
        Some(0),
        "{}{}",
        resumed.stdout,
        resumed.stderr
    );
    // Kalah(5,4): a win by 10 for the first player (the margin of perfect play).
    assert_eq!(resumed.line("Value: "), Some("+10"), "{}", resumed.stdout);
    let earlier = format!("({} nodes", first.nodes());
    assert!(
        resumed.stderr.contains(&earlier),
        "{earlier}: {}",
        resumed.stderr
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The exact solver stopped by a node limit, its table saved and loaded into a new one:
/// the resumed proof gives the same value with fewer nodes than a proof from scratch.
#[test]
fn a_resumed_exact_proof_costs_fewer_nodes_than_one_from_scratch() {
    let g = kalah(&["pits=5", "seeds=3"]);
    let root = g.start_position();
    let settings = |node_limit| SolveSettings {
        threads: 1,
        tables: None,
        guess: None,
        want_pv: false,
        node_limit,
        deadline: None,
    };
    let stop = AtomicBool::new(false);
    let fresh_table = SolverTt::new(8).expect("table");
    let fresh = solver::solve(&g, &root, &fresh_table, &settings(None), &stop, &|_| {});
    assert_eq!(fresh.lower, fresh.upper);
    let first_table = SolverTt::new(8).expect("table");
    let first = solver::solve(
        &g,
        &root,
        &first_table,
        &settings(Some(fresh.nodes / 2)),
        &stop,
        &|_| {},
    );
    assert!(
        first.lower < first.upper,
        "stopped before the proof was complete"
    );
    let dir = fresh_dir("solve-save-lib");
    let path = dir.join("half.proof");
    let identity = ProofIdentity {
        spec: g.spec(),
        root: g.format_position(&root),
        root_hash: g.hash(&root),
    };
    let work = ProofWork {
        nodes: first.nodes,
        millis: 1,
    };
    let root_proof = RootProof {
        lower: first.lower,
        upper: first.upper,
        moves: vec![None; 5],
    };
    save::save(&path, &identity, work, &root_proof, &first_table).expect("save");
    let resumed_table = SolverTt::new(8).expect("table");
    let saved = save::load(&path, &identity, &resumed_table)
        .expect("load")
        .expect("a file");
    assert_eq!(saved.work, work);
    assert_eq!(saved.root, root_proof);
    let resumed = solver::solve(&g, &root, &resumed_table, &settings(None), &stop, &|_| {});
    assert_eq!((resumed.lower, resumed.upper), (fresh.lower, fresh.upper));
    assert!(
        resumed.nodes < fresh.nodes,
        "resumed {} nodes, from scratch {}",
        resumed.nodes,
        fresh.nodes
    );
    // The file of another table size, or loaded as a proof-number table, is refused.
    let error =
        save::load(&path, &identity, &SolverTt::new(16).expect("table")).expect_err("other size");
    assert!(matches!(error, ProofFileError::OtherSize { .. }), "{error}");
    let pn = sowfan::solver::pn::tt::PnTt::new(8).expect("table");
    let error = save::load(&path, &identity, &pn).expect_err("other solver");
    assert!(
        matches!(error, ProofFileError::OtherSolver { .. }),
        "{error}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The lines `sowfan solve … --all-moves` prints for every move, and its `Value:`.
fn move_lines(run: &Run) -> Vec<&str> {
    run.stdout
        .lines()
        .take_while(|l| !l.starts_with("Best:"))
        .collect()
}

#[test]
fn a_proof_split_by_first_move_combines_into_the_all_moves_values() {
    let dir = fresh_dir("solve-split");
    for (game, parts) in [
        (&["kalah", "pits=4", "seeds=3", "--hash", "16"][..], 3),
        (&["kalah", "pits=6", "seeds=2", "--hash", "16"][..], 2),
        (&["fanorona-telo", "--hash", "4"][..], 2),
    ] {
        let direct = solve_run(&[game, &["--all-moves"]].concat());
        assert_eq!(direct.code, Some(0), "{}{}", direct.stdout, direct.stderr);
        let mut files = Vec::new();
        for i in 1..=parts {
            let file = dir.join(format!("part-{i}.txt"));
            let split = format!("{i}/{parts}");
            let run = solve_run(&[game, &["--split", &split, "--part-file", text(&file)]].concat());
            assert_eq!(run.code, Some(0), "{split}: {}{}", run.stdout, run.stderr);
            assert!(run.line("Value: ").is_none(), "a part proves no root value");
            files.push(file);
        }
        let mut args = game.to_vec();
        args.push("--combine");
        args.extend(files.iter().map(|f| text(f)));
        let combined = solve_run(&args);
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
        for f in &files {
            std::fs::remove_file(f).expect("part");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_part_files_are_refused_with_a_reason_and_status_1() {
    let dir = fresh_dir("solve-split-bad");
    let game = ["kalah", "pits=4", "seeds=3", "--hash", "4"];
    let part = |spec: &[&str], split: &str, name: &str| {
        let file = dir.join(name);
        let run = solve_run(&[spec, &["--split", split, "--part-file", text(&file)]].concat());
        assert_eq!(run.code, Some(0), "{}{}", run.stdout, run.stderr);
        file
    };
    let one = part(&game, "1/2", "one.txt");
    let two = part(&game, "2/2", "two.txt");
    let other_game = part(
        &["kalah", "pits=4", "seeds=2", "--hash", "4"],
        "2/2",
        "other.txt",
    );
    let other_position = part(&[&game[..], &["--moves", "B"]].concat(), "2/2", "moved.txt");
    let good = std::fs::read_to_string(&two).expect("part");
    let cut = dir.join("cut.txt");
    std::fs::write(&cut, &good[..good.len() - 10]).expect("write");
    let edited = dir.join("edited.txt");
    std::fs::write(&edited, good.replacen("move: ", "move: X", 1)).expect("write");
    let garbage = dir.join("garbage.txt");
    std::fs::write(&garbage, "\u{0}\u{1}garbage\n").expect("write");
    let big = dir.join("big.txt");
    std::fs::write(&big, "x".repeat(2 << 20)).expect("write");
    for (files, why) in [
        (
            vec![&one, &other_game],
            "is a part of a proof for 'kalah pits=4 seeds=2'",
        ),
        (
            vec![&one, &other_position],
            "is a part of a proof of the position",
        ),
        (vec![&one], "no part holds the moves"),
        (vec![&one, &two, &one], "is in two parts"),
        (vec![&one, &cut], "damaged"),
        (vec![&one, &edited], "damaged"),
        (vec![&one, &garbage], "is not a part file"),
        (vec![&one, &big], "is not a part file"),
        (vec![&one, &dir], "is not a regular file"),
        (
            vec![&one, &dir.join("none.txt")],
            "cannot read the part file",
        ),
    ] {
        let mut args = game.to_vec();
        args.push("--combine");
        args.extend(files.iter().map(|f| text(f)));
        let run = solve_run(&args);
        assert_eq!(run.code, Some(1), "{files:?}: {}{}", run.stdout, run.stderr);
        assert!(run.stderr.contains(why), "{why}: {}", run.stderr);
        assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
        assert!(run.stdout.is_empty(), "{}", run.stdout);
    }
    // A bad split is refused before any work.
    for split in ["0/2", "3/2", "x"] {
        let run = solve_run(&[&game[..], &["--split", split]].concat());
        assert_eq!(run.code, Some(1), "{split}: {}", run.stderr);
        assert!(run.stderr.contains("--split"), "{}", run.stderr);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The parts of standard Kalah(6,5)'s first moves (fixtures/solved/kalah-6-5,
/// docs/tablebases.md) are files `--combine` accepts (checksum, game, position), hold the
/// values the docs record, and combine into the start's value, +10 by B (Rawlings 2015).
#[test]
fn the_kalah_6_5_parts_on_file_hold_their_recorded_values() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/solved/kalah-6-5");
    // (move, value in the part file's half-points, South's margin in points)
    let recorded = [
        ("A", "-20", "-10"),
        ("B", "20", "+10"),
        ("C", "4", "+2"),
        ("D", "4", "+2"),
        ("E", "4", "+2"),
        ("F", "0", "0"),
    ];
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .expect("fixtures/solved/kalah-6-5")
        .map(|e| e.expect("entry").path().to_string_lossy().into_owned())
        .collect();
    files.sort();
    for (mv, half_points, _) in recorded {
        let holding: Vec<&String> = files
            .iter()
            .filter(|f| {
                std::fs::read_to_string(f)
                    .expect("part")
                    .lines()
                    .any(|l| l == format!("move: {mv} {half_points}"))
            })
            .collect();
        assert_eq!(
            holding.len(),
            1,
            "{mv} {half_points} in exactly one part: {files:?}"
        );
    }
    let mut args = vec!["kalah", "pits=6", "seeds=5", "--combine"];
    args.extend(files.iter().map(String::as_str));
    let combined = solve_run(&args);
    assert_eq!(combined.code, Some(0), "{}", combined.stderr);
    for (mv, _, points) in recorded {
        assert_eq!(
            combined.line(&format!("{mv}: ")),
            Some(points),
            "{}",
            combined.stdout
        );
    }
    assert_eq!(combined.line("Value: "), Some("+10"), "{}", combined.stdout);
    assert_eq!(combined.line("Best: "), Some("B"), "{}", combined.stdout);
}
