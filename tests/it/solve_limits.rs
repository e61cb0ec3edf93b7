//! `sowfan solve` and `go solve` under hostile options and limits: memory and threads
//! refused up front, `go` limits and `searchmoves` honoured, the end of input obeyed, no
//! sentinel bound ever shown, interrupted runs with their exit status, refused threads
//! never a panic.

use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::support::run::{signal, sowfan, start};
use crate::support::{BIN, Engine, cp, field, last_score, scaled};

/// No line shows the solver's "unbounded" stand-in (±2^24 half-points: ±8388608 points,
/// ±838860800 cp) or anything near it.
fn assert_no_sentinel(text: &str) {
    for line in text.lines() {
        assert!(
            !line.contains("8388608") && !line.contains("838860"),
            "a sentinel bound leaked: {line}"
        );
        if let Some(score) = cp(line) {
            assert!(score.abs() < 100_000, "an impossible score: {line}");
        }
    }
}

#[test]
fn solve_hash_beyond_the_cap_is_refused_at_once() {
    let (run, elapsed, peak_kb) =
        start("solve", &["--hash", "1000000"]).finish_measured(Duration::from_secs(10));
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    assert!(run.stderr.contains("--hash"), "{}", run.stderr);
    assert!(run.stdout.is_empty(), "{}", run.stdout);
    assert!(elapsed < scaled(Duration::from_secs(3)), "{elapsed:?}");
    assert!(peak_kb < 100_000, "peak {peak_kb} KiB");
    // 0 MB is no table either.
    let run = sowfan("solve", &["--hash", "0"], Duration::from_secs(10));
    assert_eq!(run.code, Some(1), "{}", run.stderr);
}

#[test]
fn solve_threads_are_capped() {
    for threads in ["100000", "0", "257"] {
        let run = sowfan(
            "solve",
            &["kalah", "pits=4", "seeds=3", "--threads", threads],
            Duration::from_secs(10),
        );
        assert_eq!(run.code, Some(1), "--threads {threads}: {}", run.stderr);
        assert!(run.stderr.contains("--threads"), "{}", run.stderr);
    }
    // The most allowed: solved with the processors there are, with a warning beyond them.
    let run = sowfan(
        "solve",
        &["kalah", "pits=4", "seeds=3", "--threads", "256"],
        Duration::from_secs(60),
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(run.stdout.contains("Value: +6"), "{}", run.stdout);
    let processors = std::thread::available_parallelism().map_or(1, |n| n.get());
    if processors < 256 {
        assert!(run.stderr.contains("warning"), "{}", run.stderr);
    }
}

/// Ctrl-C or SIGTERM: within a second, status 130, the real work done, no sentinel bound
/// (Anywoli cannot say what is at stake: its first bounds are "unbounded").
#[test]
fn an_interrupted_solve_exits_130_with_its_real_work() {
    for (args, sig) in [
        (&["kalah"][..], "-INT"),
        (&["anywoli", "repetition=off"][..], "-TERM"),
        (&["anywoli", "repetition=off", "--all-moves"][..], "-INT"),
    ] {
        let mut running = start("solve", args);
        // Sent before its handler is in place, the signal would kill the solve at once; then
        // the proof runs on its own clock (its `Time:` line) for 800 ms.
        running.await_signal_handlers(Duration::from_secs(10));
        std::thread::sleep(Duration::from_millis(800));
        let sent = Instant::now();
        assert!(signal(running.id(), sig));
        let run = running.finish(Duration::from_secs(5));
        assert!(
            sent.elapsed() < scaled(Duration::from_secs(1)),
            "{args:?}: {:?}",
            sent.elapsed()
        );
        assert_eq!(
            run.code,
            Some(130),
            "{args:?}: {}{}",
            run.stdout,
            run.stderr
        );
        assert!(run.stdout.contains("Value: "), "{}", run.stdout);
        assert_no_sentinel(&run.stdout);
        let nodes: u64 = run
            .stdout
            .lines()
            .find_map(|l| l.strip_prefix("Nodes: "))
            .and_then(|n| n.parse().ok())
            .expect("a Nodes line");
        let ms: u64 = run
            .stdout
            .lines()
            .find_map(|l| l.strip_prefix("Time: "))
            .and_then(|t| t.trim_end_matches(" ms").parse().ok())
            .expect("a Time line");
        assert!(nodes > 0 && ms >= 500, "{args:?}: {}", run.stdout);
    }
}

#[test]
fn go_solve_honours_movetime_nodes_and_clocks() {
    let mut engine = Engine::start(&[]);
    // Kalah(6,4) from the start: far beyond a quick proof.
    let (lines, took) = engine.timed_ask("go solve movetime 200", "bestmove");
    assert!(
        took < scaled(Duration::from_millis(1000)),
        "{took:?}: {lines:?}"
    );
    let info = last_score(&lines);
    assert!(info.contains(" score "), "{info}");
    assert_no_sentinel(&lines.join("\n"));
    let (lines, took) = engine.timed_ask("go solve nodes 20000", "bestmove");
    assert!(took < scaled(Duration::from_secs(5)), "{took:?}");
    let info = last_score(&lines);
    let nodes: u64 = field(info, "nodes")
        .and_then(|n| n.parse().ok())
        .expect("nodes");
    assert!(nodes < 40_000, "{info}");
    // 2 s on the clock: the planned time of a move (about 2000/25 ms), not the whole proof.
    let (lines, took) = engine.timed_ask("go solve wtime 2000 btime 2000", "bestmove");
    assert!(
        took < scaled(Duration::from_millis(1000)),
        "{took:?}: {lines:?}"
    );
    let legal = engine.legal();
    let bestmove = lines.last().expect("bestmove")["bestmove ".len()..].to_string();
    assert!(legal.contains(&bestmove), "{bestmove} {legal:?}");
}

#[test]
fn go_solve_searchmoves_proves_only_those_moves() {
    let mut engine = Engine::start(&[]);
    engine.send("newgame kalah pits=4 seeds=3");
    // The values of the moves: A −6, B +6, C +2, D −2 (README, "Exact play").
    for (moves, best, value) in [("A", "A", -600), ("A D", "D", -200), ("C A", "C", 200)] {
        let lines = engine.ask(&format!("go solve searchmoves {moves}"), "bestmove");
        assert_eq!(
            lines.last().unwrap(),
            &format!("bestmove {best}"),
            "{lines:?}"
        );
        let last_info = last_score(&lines);
        assert_eq!(cp(last_info), Some(value), "{last_info}");
        assert!(!last_info.contains("bound"), "{last_info}");
    }
    // The restricted values never entered the table: the position's own value is intact.
    let lines = engine.ask("go solve", "bestmove");
    assert_eq!(lines.last().unwrap(), "bestmove B", "{lines:?}");
    let last_info = last_score(&lines);
    assert_eq!(cp(last_info), Some(600), "{last_info}");
}

/// A GUI that goes away closes the engine's input: neither `go solve` nor `go infinite` may
/// run on as an orphan.
#[test]
fn the_end_of_input_ends_go_solve_and_go_infinite() {
    for go in ["go solve", "go infinite", "go solve searchmoves C"] {
        let mut engine = Engine::start(&[]);
        engine.send(go);
        std::thread::sleep(Duration::from_millis(300));
        let closed = Instant::now();
        engine.close_stdin();
        let status = engine.wait_exit(Duration::from_secs(3));
        assert!(
            status.is_some(),
            "{go}: still running 3 s after the end of input"
        );
        assert!(
            closed.elapsed() < scaled(Duration::from_millis(1500)),
            "{go}: {:?}",
            closed.elapsed()
        );
        let mut lines = Vec::new();
        while let Some(line) = engine.line(Duration::from_millis(200)) {
            lines.push(line);
        }
        assert_eq!(
            lines.iter().filter(|l| l.starts_with("bestmove ")).count(),
            1,
            "{go}: {lines:?}"
        );
        assert_no_sentinel(&lines.join("\n"));
    }
}

#[test]
fn anywoli_go_solve_never_shows_a_sentinel() {
    let mut engine = Engine::start(&[]);
    engine.send("newgame anywoli repetition=off");
    let (lines, _) = engine.timed_ask("go solve movetime 300", "bestmove");
    assert_no_sentinel(&lines.join("\n"));
    assert!(lines.iter().any(|l| l.contains(" score ")), "{lines:?}");
    engine.send("go solve");
    std::thread::sleep(Duration::from_millis(500));
    let lines = engine.ask("stop", "bestmove");
    assert_no_sentinel(&lines.join("\n"));
    assert!(lines.iter().any(|l| l.contains(" score ")), "{lines:?}");
}

/// Run `sowfan args` with at most `processes` processes and threads
/// ([`crate::support::limits::with_few_threads`]), `input` on stdin: its exit code and
/// everything it printed. `None` where no cap can be arranged.
fn run_with_few_threads(
    processes: u32,
    args: &[&str],
    input: &str,
) -> Option<(Option<i32>, String)> {
    let mut child = crate::support::limits::with_few_threads(processes, BIN)?
        .args(args)
        .env("RUST_BACKTRACE", "0")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start sowfan with few threads");
    let mut stdin = child.stdin.take().expect("stdin");
    let input = input.to_string();
    let writer = std::thread::spawn(move || {
        use std::io::Write;
        let _ = stdin.write_all(input.as_bytes());
    });
    let read = |stream: Option<Box<dyn std::io::Read + Send>>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut stream) = stream {
                let _ = stream.read_to_end(&mut bytes);
            }
            bytes
        })
    };
    let stdout = read(child.stdout.take().map(|s| Box::new(s) as _));
    let stderr = read(child.stderr.take().map(|s| Box::new(s) as _));
    // Killed through its handle when it runs too long: the process is not reaped before,
    // so its id cannot be another process's.
    let status = match crate::support::run::wait_exit(&mut child, Duration::from_secs(30)) {
        Some(status) => status,
        None => {
            let _ = child.kill();
            child.wait().ok()?
        }
    };
    let _ = writer.join();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&stdout.join().unwrap_or_default()),
        String::from_utf8_lossy(&stderr.join().unwrap_or_default())
    );
    for wrapper in ["setpriv:", "unshare:", "prlimit:"] {
        assert!(
            !text.contains(wrapper),
            "the cap failed to start sowfan: {text}"
        );
    }
    Some((status.code(), text))
}

/// Threads the system refuses (`ulimit -u`) are fewer threads or a clear error, never a
/// panic (status 101): in `sowfan solve`, the protocol's search and `go solve`.
#[test]
fn refused_threads_never_panic() {
    for processes in 1..=5 {
        let Some((code, text)) = run_with_few_threads(
            processes,
            &[
                "solve",
                "kalah",
                "pits=4",
                "seeds=3",
                "--threads",
                "2",
                "--hash",
                "1",
            ],
            "",
        ) else {
            crate::support::limits::cannot_run_here("nproc", crate::support::limits::NO_THREAD_CAP);
            return;
        };
        assert_ne!(code, Some(101), "solve, {processes} processes: {text}");
        assert!(!text.contains("panicked"), "{text}");
        if code == Some(0) {
            assert!(text.contains("Value: +6"), "{text}");
        }
        let script = "setoption name Threads value 2\nnewgame kalah pits=4 seeds=3\n\
                      go depth 4\ngo solve nodes 50000\nisready\n";
        let (code, text) = run_with_few_threads(processes, &[], script).expect("as before");
        assert_ne!(code, Some(101), "protocol, {processes} processes: {text}");
        assert!(!text.contains("panicked"), "{text}");
        if processes >= 2 {
            // The reader thread started: every `go` has its `bestmove`.
            assert_eq!(
                text.lines().filter(|l| l.starts_with("bestmove ")).count(),
                2,
                "{processes} processes: {text}"
            );
        }
    }
}

/// An engine that starts a process outside its process group (`setsid`): `sowfan check`
/// adopts it as the engine's orphan (a subreaper) and kills it at the end of the run.
#[cfg(target_os = "linux")]
#[test]
fn check_kills_what_an_engine_started_outside_its_group() {
    let dir = crate::support::fresh_dir("escape");
    let pidfile = dir.join("escaped.pid");
    let fake = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fake-engines/escape.sh");
    let engine = format!("cmd={fake} {} {BIN}", pidfile.display());
    let run = sowfan(
        "check",
        &["--engine", &engine, "--game", "kalah"],
        Duration::from_secs(60),
    );
    let pid: u32 = std::fs::read_to_string(&pidfile)
        .ok()
        .and_then(|t| t.trim().parse().ok())
        .unwrap_or_else(|| panic!("the engine wrote no pid: {}{}", run.stdout, run.stderr));
    let alive = |pid: u32| {
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .is_ok_and(|stat| !stat.contains(") Z "))
    };
    let deadline = Instant::now() + scaled(Duration::from_secs(2));
    while alive(pid) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    let escaped = alive(pid);
    if escaped {
        signal(pid, "-KILL");
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        !escaped,
        "the escaped process {pid} outlived the check:\n{}",
        run.stdout
    );
    assert_eq!(run.code, Some(0), "{}{}", run.stdout, run.stderr);
}

/// A finite search still runs to its end after the input ends, but not once nobody reads
/// its output either (the GUI has gone): the engine then leaves at once.
#[test]
fn a_finite_search_ends_when_the_gui_has_gone() {
    use std::io::Write;
    let mut child = crate::support::run::piped::<&str>(&[])
        .stderr(Stdio::null())
        .spawn()
        .expect("start sowfan");
    let mut stdin = child.stdin.take().expect("stdin");
    writeln!(stdin, "go nodes 1000000000000").expect("write");
    stdin.flush().expect("flush");
    std::thread::sleep(Duration::from_millis(300));
    let gone = Instant::now();
    drop(stdin);
    drop(child.stdout.take());
    let status = crate::support::run::wait_exit(&mut child, Duration::from_secs(3));
    if status.is_none() {
        let _ = child.kill();
        let _ = child.wait();
    }
    assert!(
        status.is_some(),
        "still searching 3 s after its GUI went away"
    );
    assert!(
        gone.elapsed() < scaled(Duration::from_secs(1)),
        "{:?}",
        gone.elapsed()
    );
}
