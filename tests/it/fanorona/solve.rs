//! Fanorona solved through the real binary: `sowfan solve` prints its values in words, with
//! its exit statuses (0 proven, 130 interrupted, 1 an error), keeps and resumes proof files
//! (and refuses hostile ones), and `go solve` answers over the protocol.

use std::time::{Duration, Instant};

use crate::support::run::{Run, signal, sowfan, start};
use crate::support::{Engine, field, fresh_dir, last_score, scaled};

fn solve(args: &[&str]) -> Run {
    sowfan("solve", args, Duration::from_secs(120))
}

#[test]
fn solve_prints_win_draw_and_loss_in_words() {
    let run = solve(&["fanorona-telo", "--hash", "16"]);
    assert_eq!(run.code, Some(0), "{}{}", run.stdout, run.stderr);
    assert_eq!(run.line("Value: "), Some("win"), "{}", run.stdout);
    let best = run.line("Best: ").expect("Best");
    assert!(["c1-b2A", "c2-b2A"].contains(&best), "{}", run.stdout);
    assert!(run.line("PV: ").is_some_and(|pv| pv.starts_with(best)));
    assert!(run.nodes() > 0);
    assert!(run.line("Time: ").is_some_and(|t| t.ends_with(" ms")));
    assert_eq!(run.line("Tbhits: "), Some("0"));
    // Every first move, in words.
    let run = solve(&["fanorona-telo", "--all-moves", "--hash", "16"]);
    assert_eq!(run.code, Some(0), "{}{}", run.stdout, run.stderr);
    for expected in ["a1-b2A: loss", "b1-b2A: loss", "c1-b2A: win", "c2-b2A: win"] {
        assert!(run.stdout.lines().any(|l| l == expected), "{}", run.stdout);
    }
    // After a losing first move, Black (to move) wins; a lost and a drawn position.
    let run = solve(&["fanorona-telo", "--moves", "a1-b2A", "--hash", "16"]);
    assert_eq!(run.line("Value: "), Some("win"), "{}", run.stdout);
    let run = solve(&["fanorona-telo", "--moves", "c1-b2A", "--hash", "16"]);
    assert_eq!(run.line("Value: "), Some("loss"), "{}", run.stdout);
    assert_eq!(run.code, Some(0));
    let run = solve(&[
        "fanorona-dimy",
        "quiet-limit=30",
        "--fen",
        "5/5/5/4B/W2WB w 0",
        "--hash",
        "64",
    ]);
    assert_eq!(run.line("Value: "), Some("draw"), "{}", run.stdout);
    assert_eq!(run.code, Some(0));
    // A finished game: its value at once.
    let run = solve(&["fanorona-telo", "--fen", "BBB/3/3 w 0", "--hash", "1"]);
    assert_eq!(run.line("Value: "), Some("loss"), "{}", run.stdout);
    // Margin games keep their numbers.
    let run = solve(&["kalah", "pits=3", "seeds=2", "--hash", "16"]);
    assert!(
        run.line("Value: ")
            .is_some_and(|v| v.starts_with(['+', '-', '0'])),
        "{}",
        run.stdout
    );
}

#[test]
fn an_interrupted_fanorona_solve_says_its_bounds_in_words_and_exits_130() {
    let mut running = start("solve", &["fanorona-dimy", "--hash", "64"]);
    // Once the interrupt is handled (sent earlier, it kills), 1.5 s of proof.
    running.await_signal_handlers(Duration::from_secs(10));
    std::thread::sleep(Duration::from_millis(1500));
    let sent = Instant::now();
    assert!(signal(running.id(), "-INT"));
    let run = running.finish(Duration::from_secs(10));
    assert!(
        sent.elapsed() < scaled(Duration::from_secs(2)),
        "{:?}",
        sent.elapsed()
    );
    assert_eq!(run.code, Some(130), "{}{}", run.stdout, run.stderr);
    let value = run.line("Value: ").expect("a Value line");
    assert!(
        value.ends_with("(stopped before the proof was complete)"),
        "{value}"
    );
    assert!(
        ["unknown", "at most draw", "at least draw"]
            .iter()
            .any(|w| value.starts_with(w)),
        "{value}"
    );
    assert!(!value.contains('+') && !value.contains('1'), "{value}");
    assert!(run.nodes() > 0);
}

#[test]
fn solve_refuses_what_it_cannot_do_with_status_1() {
    let dir = fresh_dir("pn-cli-errors");
    for args in [
        &["fanorona-telo", "--checkpoint", "0"][..],
        &["fanorona-telo", "--checkpoint", "99999999"][..],
        &[
            "fanorona-telo",
            "--proof-file",
            dir.to_str().expect("utf-8"),
        ][..],
    ] {
        let run = solve(args);
        assert_eq!(run.code, Some(1), "{args:?}: {}{}", run.stdout, run.stderr);
        assert!(
            run.stderr.starts_with("sowfan: "),
            "{args:?}: {}",
            run.stderr
        );
        assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
        assert!(run.stdout.is_empty(), "{}", run.stdout);
    }
    // Hostile proof files: empty, cut, random, another game's or position's.
    let good = dir.join("telo.proof");
    let good_text = good.to_str().expect("utf-8");
    let run = solve(&["fanorona-telo", "--hash", "4", "--proof-file", good_text]);
    assert_eq!(run.code, Some(0), "{}{}", run.stdout, run.stderr);
    assert!(run.stderr.contains("proof saved"), "{}", run.stderr);
    let bytes = std::fs::read(&good).expect("saved");
    let mut rng = crate::support::rng::Rng::new(9);
    let random: Vec<u8> = (0..3000).map(|_| rng.next() as u8).collect();
    for (name, content, why) in [
        ("empty", Vec::new(), "not a proof file"),
        ("cut", bytes[..bytes.len() / 2].to_vec(), "damaged"),
        ("random", random, "not a proof file"),
    ] {
        let bad = dir.join(format!("{name}.proof"));
        std::fs::write(&bad, &content).expect("write");
        let bad = bad.to_str().expect("utf-8");
        let run = solve(&["fanorona-telo", "--hash", "4", "--proof-file", bad]);
        assert_eq!(run.code, Some(1), "{name}: {}{}", run.stdout, run.stderr);
        assert!(run.stderr.contains(why), "{name}: {}", run.stderr);
        assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
        // The damaged file is left as it was, for its owner to look at.
        assert_eq!(std::fs::read(bad).expect("still there"), content);
    }
    for (args, why) in [
        (&["fanorona-telo", "repetition=off"][..], "is a proof for"),
        (
            &["fanorona-telo", "--moves", "c1-b2A"][..],
            "is a proof of the position",
        ),
        (&["fanorona-telo", "--hash", "8"][..], "--hash 4"),
    ] {
        let mut args = args.to_vec();
        if !args.contains(&"--hash") {
            args.extend(["--hash", "4"]);
        }
        args.extend(["--proof-file", good_text]);
        let run = solve(&args);
        assert_eq!(run.code, Some(1), "{args:?}: {}{}", run.stdout, run.stderr);
        assert!(run.stderr.contains(why), "{args:?}: {}", run.stderr);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_proof_file_is_saved_at_checkpoints_and_on_ctrl_c_and_resumed() {
    let dir = fresh_dir("pn-cli-proof");
    let file = dir.join("dimy.proof");
    let file_text = file.to_str().expect("utf-8");
    let args = [
        "fanorona-dimy",
        "--hash",
        "16",
        "--proof-file",
        file_text,
        "--checkpoint",
        "1",
    ];
    let running = start("solve", &args);
    // A checkpoint after a second: the file is there while the proof goes on.
    let deadline = Instant::now() + scaled(Duration::from_secs(20));
    while !file.exists() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(file.exists(), "no checkpoint within 20 s (scaled)");
    std::thread::sleep(Duration::from_millis(300));
    assert!(signal(running.id(), "-INT"));
    let run = running.finish(Duration::from_secs(30));
    assert_eq!(run.code, Some(130), "{}{}", run.stdout, run.stderr);
    assert!(run.stderr.contains("proof saved"), "{}", run.stderr);
    let first_nodes = run.nodes();
    // Only the proof file is left: the temporary ones were renamed.
    let names: Vec<String> = std::fs::read_dir(&dir)
        .expect("dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, vec!["dimy.proof".to_string()]);
    // Resumed: the earlier work is there.
    let mut running = start("solve", &args);
    running.await_signal_handlers(Duration::from_secs(10));
    std::thread::sleep(Duration::from_millis(1500));
    assert!(signal(running.id(), "-INT"));
    let run = running.finish(Duration::from_secs(30));
    assert_eq!(run.code, Some(130), "{}{}", run.stdout, run.stderr);
    let resumed = format!("resumed the proof in '{file_text}' ({first_nodes} nodes");
    assert!(run.stderr.contains(&resumed), "{resumed}: {}", run.stderr);
    // A finished proof resumed: nothing left to search.
    let telo = dir.join("telo.proof");
    let telo = telo.to_str().expect("utf-8");
    let first = solve(&["fanorona-telo", "--hash", "4", "--proof-file", telo]);
    let again = solve(&["fanorona-telo", "--hash", "4", "--proof-file", telo]);
    assert_eq!(again.code, Some(0), "{}{}", again.stdout, again.stderr);
    assert_eq!(again.line("Value: "), Some("win"));
    assert_eq!(again.line("Best: "), first.line("Best: "));
    assert_eq!(again.nodes(), 0, "{}", again.stdout);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn go_solve_proves_fanorona_over_the_protocol() {
    let mut engine = Engine::start(&[]);
    engine.send("newgame fanorona-telo");
    let lines = engine.ask("go solve", "bestmove");
    let last_info = last_score(&lines);
    // A win is the exact value of one point (`cp 100`), with the winning line.
    assert_eq!(field(last_info, "cp"), Some("100"), "{lines:?}");
    assert!(!last_info.contains("bound"), "{last_info}");
    let bestmove = lines.last().expect("bestmove");
    assert!(
        ["bestmove c1-b2A", "bestmove c2-b2A"].contains(&bestmove.as_str()),
        "{lines:?}"
    );
    // No line says what every position has (a value between a loss and a win).
    assert!(
        !lines.iter().any(|l| l.contains("cp -100 lowerbound")),
        "{lines:?}"
    );
    // Only a losing move allowed: a loss, and that move.
    let lines = engine.ask("go solve searchmoves a1-b2A", "bestmove");
    let last_info = last_score(&lines);
    assert_eq!(field(last_info, "cp"), Some("-100"), "{lines:?}");
    assert_eq!(lines.last().map(String::as_str), Some("bestmove a1-b2A"));
    // The position's own value is intact.
    let lines = engine.ask("go solve", "bestmove");
    let last_info = last_score(&lines);
    assert_eq!(field(last_info, "cp"), Some("100"), "{lines:?}");
    // A lost position: the value and a legal move.
    engine.send("position startpos moves c1-b2A");
    let legal = engine.legal();
    let lines = engine.ask("go solve", "bestmove");
    let last_info = last_score(&lines);
    assert_eq!(field(last_info, "cp"), Some("-100"), "{lines:?}");
    let bestmove = &lines.last().expect("bestmove")["bestmove ".len()..];
    assert!(legal.iter().any(|m| m == bestmove), "{bestmove} {legal:?}");
    // 5×5 within a node budget: "White wins" is disproven on the way (an upper bound of a
    // draw), then the budget ends it with a legal move.
    engine.send("newgame fanorona-dimy");
    let legal = engine.legal();
    let lines = engine.ask("go solve nodes 3000000", "bestmove");
    assert!(
        lines.iter().any(|l| l.contains("score cp 0 upperbound")),
        "{lines:?}"
    );
    let bestmove = &lines.last().expect("bestmove")["bestmove ".len()..];
    assert!(legal.iter().any(|m| m == bestmove), "{bestmove} {legal:?}");
}
