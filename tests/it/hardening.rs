//! The engine stays responsive whatever it is asked: `stop` ends perft and bench, `quit`
//! leaves at once, `Hash` never promises memory the machine lacks and clearing it never
//! blocks, any `Threads` value keeps `readyok`/`stop` fast, and clock numbers at the extremes
//! give sensible thinking times.
//!
//! Bounds here are generous (a loaded 2-core CI machine), and stretched by the time scale
//! (`support::timing`) under load; the figures measured on a quiet machine are far below
//! them and are printed with `--nocapture`.

use std::time::{Duration, Instant};

use crate::support::{Engine, run, scaled};
use sowfan::protocol::server::MAX_READY_WAIT;

const SECOND: Duration = Duration::from_secs(1);

fn ready(engine: &mut Engine) -> Duration {
    engine.timed_ask("isready", "readyok").1
}

/// `quit`, and the time until the process has exited.
fn quit_time(mut engine: Engine) -> Duration {
    let sent = Instant::now();
    engine.send("quit");
    engine
        .wait_exit(Duration::from_secs(10))
        .expect("the engine exits after quit");
    sent.elapsed()
}

#[test]
fn stop_ends_perft_and_quit_leaves_at_once() {
    let mut engine = Engine::start(&[]);
    ready(&mut engine);
    engine.send("perft 13");
    std::thread::sleep(Duration::from_millis(300));
    let stopped = engine.timed_ask("stop", "info string perft stopped").1;
    let shown = engine.timed_ask("d", "To move:").1;
    let quit = quit_time(engine);
    println!("perft 13: stop {stopped:?}, d {shown:?}, quit {quit:?}");
    assert!(stopped < scaled(SECOND / 2), "stop took {stopped:?}");
    assert!(shown < scaled(SECOND / 2), "d took {shown:?}");
    assert!(quit < scaled(SECOND / 2), "quit took {quit:?}");

    // `quit` alone, with perft running.
    let mut engine = Engine::start(&[]);
    ready(&mut engine);
    engine.send("perft 14");
    std::thread::sleep(Duration::from_millis(200));
    let quit = quit_time(engine);
    println!("perft 14 then quit: {quit:?}");
    assert!(quit < scaled(SECOND / 2), "quit took {quit:?}");
}

#[test]
fn stop_ends_bench_and_quit_leaves_at_once() {
    let mut engine = Engine::start(&[]);
    ready(&mut engine);
    engine.send("bench 60");
    std::thread::sleep(Duration::from_millis(300));
    let sent = Instant::now();
    engine.send("stop");
    let lines = engine.until(Duration::from_secs(10), |l| {
        l.starts_with("info string bench stopped")
    });
    let stopped = sent.elapsed();
    assert!(
        !lines.iter().any(|l| l.starts_with("Nodes searched")),
        "a stopped bench prints no totals: {lines:?}"
    );
    let ready_after = ready(&mut engine);
    println!("bench: stop {stopped:?}, readyok after {ready_after:?}");
    assert!(stopped < scaled(SECOND / 2), "stop took {stopped:?}");

    engine.send("bench 60");
    std::thread::sleep(Duration::from_millis(200));
    let quit = quit_time(engine);
    println!("bench then quit: {quit:?}");
    assert!(quit < scaled(SECOND / 2), "quit took {quit:?}");
}

#[test]
fn perft_reports_each_root_move_and_the_total() {
    let mut engine = Engine::start(&[]);
    let lines = engine.ask("perft 3", "Nodes searched");
    let counts: u64 = lines
        .iter()
        .filter_map(|l| l.split_once(": "))
        .filter(|(mv, _)| mv.len() == 1)
        .map(|(_, n)| n.parse::<u64>().unwrap())
        .sum();
    assert_eq!(lines.last().unwrap(), &format!("Nodes searched: {counts}"));
}

/// Physical memory in MiB, from /proc/meminfo.
fn physical_mb() -> u64 {
    let text = std::fs::read_to_string("/proc/meminfo").unwrap();
    let line = text.lines().find(|l| l.starts_with("MemTotal:")).unwrap();
    let kb: u64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
    kb / 1024
}

/// The `max` of `option name Hash` in the engine's `uci` answer.
fn uci_hash_max(engine: &mut Engine) -> u64 {
    let uci = engine.ask("uci", "uciok");
    let hash = uci
        .iter()
        .find(|l| l.starts_with("option name Hash"))
        .expect("a Hash option");
    hash.rsplit(' ').next().unwrap().parse().unwrap()
}

/// `setoption name Hash value <mb>` is refused with the most the engine can have, and the
/// 16 MB table stays.
fn refused(engine: &mut Engine, mb: u64, max: u64) -> String {
    let lines = engine.ask(&format!("setoption name Hash value {mb}"), "info string");
    let error = lines.last().unwrap().clone();
    assert!(
        error.starts_with("info string error:")
            && error.contains(&format!("at most {max} MB"))
            && error.contains("stays at 16 MB"),
        "Hash {mb}: {error}"
    );
    error
}

/// The old table is still there and works.
fn still_searches(engine: &mut Engine) {
    let lines = engine.ask("go depth 8", "bestmove");
    assert!(lines.iter().any(|l| l.contains("depth 8")), "{lines:?}");
    engine.send("setoption name Hash value 64");
    assert!(engine.silent_for(Duration::from_millis(200)).is_none());
}

/// Physical memory binds `Hash`: the whole machine's memory, and one MB more than the
/// `max` that `uci` shows, are refused. On a machine with more than 64 GiB the protocol's
/// cap (65536) is the max instead, and one more is refused as out of range.
#[test]
fn hash_larger_than_the_machine_is_refused_and_the_old_table_stays() {
    let mut engine = Engine::start(&[]);
    let total = physical_mb();
    let max = uci_hash_max(&mut engine);
    assert!(max < total, "Hash max {max} MB on a {total} MB machine");
    if total <= 65536 {
        for mb in [total, max + 1] {
            refused(&mut engine, mb, max);
        }
    } else {
        assert_eq!(max, 65536, "a {total} MB machine: the cap binds");
        let lines = engine.ask("setoption name Hash value 65537", "info string");
        assert_eq!(
            lines.last().unwrap(),
            "info string error: option 'Hash': '65537' is not a number in 1..65536"
        );
    }
    still_searches(&mut engine);
}

/// An address-space limit (`ulimit -v`, set without privileges) binds `Hash` on any
/// machine: under 3 GiB the most is 3072 MB less the reserve (2880 MB, unless physical
/// memory or a cgroup binds lower), what is above is refused naming the limit, and a table
/// that fits is accepted and used.
#[test]
fn hash_respects_the_address_space_limit() {
    let mut engine = Engine::spawn(crate::support::limits::with_address_space(
        crate::support::BIN,
        3 << 30,
    ));
    let max = uci_hash_max(&mut engine);
    assert!(
        max <= 3072 - 192,
        "Hash max {max} MB under a 3 GiB address space"
    );
    let error = refused(&mut engine, max + 1, max);
    refused(&mut engine, 3072, max);
    if max == 3072 - 192 {
        assert!(
            error.contains("the address-space limit (ulimit -v) is 3072 MB"),
            "{error}"
        );
    }
    still_searches(&mut engine);
    let fits = max / 2;
    let lines = engine.ask(
        &format!("setoption name Hash value {fits}\nisready"),
        "readyok",
    );
    assert!(lines.iter().all(|l| !l.contains("error")), "{lines:?}");
    engine.ask("go movetime 300", "bestmove");
    // Clearing needs no new memory: it empties the table in place.
    let took = engine.timed_ask("ucinewgame\nisready", "readyok").1;
    assert!(took < MAX_READY_WAIT + scaled(SECOND / 2), "{took:?}");
    engine.ask("go movetime 300", "bestmove");
    let quit = quit_time(engine);
    assert!(quit < scaled(SECOND / 2), "quit took {quit:?}");
}

/// The proof Kalah tries before a search (40 seeds or fewer in the pits, no tables) takes a
/// second table beside the hash table. Under a 1 GiB address space with `Hash` at the most
/// the process may have, it takes only what is left (a table of the `Hash` size cannot be
/// mapped: an error at every move), and the engine says nothing; with a quarter, it proves
/// the position (`wdl`).
#[test]
fn a_proof_before_the_search_never_takes_the_memory_of_the_hash() {
    let mut engine = Engine::spawn(crate::support::limits::with_address_space(
        crate::support::BIN,
        1 << 30,
    ));
    let max = uci_hash_max(&mut engine);
    // 20 seeds in the pits.
    let position = "position fen 2,1,0,3,0,2,18/1,3,2,4,0,2,10 S\ngo depth 2";
    engine.ask(
        &format!("setoption name Hash value {max}\nisready"),
        "readyok",
    );
    let lines = engine.ask(position, "bestmove");
    assert!(lines.iter().all(|l| !l.contains("error")), "{lines:?}");
    engine.ask("isready", "readyok");
    // A new engine: the old table of the first one is released in the background, and
    // until it is, its address space is not free.
    let mut engine = Engine::spawn(crate::support::limits::with_address_space(
        crate::support::BIN,
        1 << 30,
    ));
    let quarter = max / 4;
    engine.ask(
        &format!("setoption name Hash value {quarter}\nisready"),
        "readyok",
    );
    let lines = engine.ask(position, "bestmove");
    assert!(lines.iter().all(|l| !l.contains("error")), "{lines:?}");
    assert!(
        crate::support::last_score(&lines).contains(" wdl "),
        "{lines:?}"
    );
}

/// A new table of any size is ready when `isready` answers (issue 65, point 10): its pages
/// are resident, and the first moves keep a short clock (`go wtime 100` overran to 199 ms
/// when `isready` gave up waiting after 2 s). Clearing (`ucinewgame`, `newgame`, `Clear
/// Hash`, a change of options) empties a written table in place on a background thread,
/// `readyok` once it is empty (2 GB in well under a second); a table never written since it
/// was new or emptied is as new at once (the sequence of every GUI at a match's start,
/// `setoption name Hash`, `ucinewgame`, `isready`, waited 2 s there). `quit` is served at
/// once meanwhile.
#[test]
fn a_big_hash_is_ready_at_readyok_and_cleared_without_delaying_it() {
    let mut engine = Engine::start(&[]);
    let set = engine
        .timed_ask("setoption name Hash value 2048\nisready", "readyok")
        .1;
    let resident = run::status_kb(engine.id(), "VmRSS:").unwrap_or(0);
    assert!(resident > 2040 * 1024, "{resident} kB resident at readyok");
    let fresh = engine.timed_ask("ucinewgame\nisready", "readyok").1;
    assert!(
        fresh < scaled(SECOND / 10),
        "a table never written: {fresh:?}"
    );
    engine.send("newgame fanorona\nposition startpos");
    for _ in 0..3 {
        let took = engine.timed_ask("go wtime 100 btime 100", "bestmove").1;
        assert!(took < scaled(SECOND / 10), "go wtime 100 took {took:?}");
    }
    let mut worst = Duration::ZERO;
    for command in [
        "ucinewgame",
        "uginewgame",
        "newgame kalah",
        "setoption name Clear Hash",
        "newgame afrika",
        "setoption name GameOptions value komi=1",
    ] {
        let took = engine
            .timed_ask(&format!("{command}\nisready"), "readyok")
            .1;
        worst = worst.max(took);
        engine.ask("go movetime 100", "bestmove");
    }
    engine.send("ucinewgame\nisready");
    let quit = quit_time(engine);
    println!("Hash 2048: set {set:?}, worst clear+readyok {worst:?}, quit {quit:?}");
    assert!(
        worst < MAX_READY_WAIT + scaled(SECOND / 2),
        "clearing took {worst:?}"
    );
    assert!(quit < scaled(SECOND / 2), "quit took {quit:?}");
}

/// After a new `Hash`, `isready` answers once the table's pages are in place (bounded), so
/// that the first search after it keeps its movetime: when four engines of a match started
/// together, their tables' pages arrived during the first searches and a first move took
/// over 200 ms at `movetime 100`. Commands sent behind the waiting `isready` keep their order,
/// and `quit` is served at once.
#[test]
fn isready_waits_for_a_new_tables_pages_and_keeps_the_order() {
    let mut engine = Engine::start(&[]);
    let (mut lines, took) = engine.timed_ask("setoption name Hash value 256\nisready", "readyok");
    // Linux 5.14 or later supplies the pages ahead: they are resident at `readyok`.
    let resident = run::status_kb(engine.id(), "VmRSS:").unwrap_or(0);
    assert!(resident > 250 * 1024, "{resident} kB resident at readyok");
    lines.extend(engine.ask("isready\ngo movetime 50\nisready", "bestmove"));
    let answers: Vec<&str> = lines
        .iter()
        .map(|l| l.split_whitespace().next().unwrap_or(""))
        .filter(|w| *w != "info")
        .collect();
    // The last `isready` comes while the search runs: answered at once, before `bestmove`.
    assert_eq!(
        answers,
        ["readyok", "readyok", "readyok", "bestmove"],
        "{lines:?}"
    );
    assert!(took < MAX_READY_WAIT + scaled(SECOND / 2), "{took:?}");
    // The pages are in place: a new game's first search keeps its time.
    let first = engine
        .timed_ask("newgame fanorona\ngo movetime 50", "bestmove")
        .1;
    assert!(first < scaled(Duration::from_millis(140)), "{first:?}");
    // `quit` while `isready` waits for a big table's pages.
    engine.send("setoption name Hash value 4096");
    engine.send("isready");
    let quit = quit_time(engine);
    assert!(quit < scaled(SECOND / 2), "quit took {quit:?}");
}

/// A new game forgets the old entries without new memory, and a new table's pages are
/// supplied in the background: the first search of a game keeps to its movetime (when
/// every clear handed the search a fresh mapping, its page faults made the first move of
/// each game take 60-270 ms at `movetime 50` with Hash 64-256, and lose on time).
#[test]
fn the_first_search_of_a_game_keeps_its_movetime() {
    let mut engine = Engine::start(&[]);
    engine.ask("setoption name Hash value 256\nisready", "readyok");
    // The background thread has the pages supplied (~0.6 s on a slow VM): wait until they
    // are resident (where the kernel cannot supply them ahead, until the deadline).
    let deadline = Instant::now() + scaled(Duration::from_secs(5));
    while run::status_kb(engine.id(), "VmRSS:").is_some_and(|kb| kb < 250 * 1024)
        && Instant::now() < deadline
    {
        std::thread::sleep(Duration::from_millis(10));
    }
    let mut worst = Duration::ZERO;
    for command in ["newgame kalah", "uginewgame", "setoption name Clear Hash"] {
        engine.ask(&format!("{command}\nisready"), "readyok");
        worst = worst.max(engine.timed_ask("go movetime 40", "bestmove").1);
    }
    println!("Hash 256: worst first search at movetime 40: {worst:?}");
    assert!(worst < scaled(Duration::from_millis(140)), "{worst:?}");
}

#[test]
fn any_threads_value_keeps_readyok_and_stop_fast() {
    let mut engine = Engine::start(&[]);
    engine.send("setoption name Threads value 256");
    ready(&mut engine);
    let mut worst_ready = Duration::ZERO;
    let mut worst_stop = Duration::ZERO;
    for _ in 0..3 {
        engine.send("go infinite");
        for wait in [10, 100, 300] {
            std::thread::sleep(Duration::from_millis(wait));
            worst_ready = worst_ready.max(ready(&mut engine));
        }
        worst_stop = worst_stop.max(engine.timed_ask("stop", "bestmove").1);
    }
    let quit = quit_time(engine);
    println!(
        "Threads 256: worst readyok {worst_ready:?}, worst stop {worst_stop:?}, quit {quit:?}"
    );
    assert!(
        worst_ready < scaled(SECOND / 10),
        "readyok took {worst_ready:?}"
    );
    assert!(worst_stop < scaled(SECOND / 10), "stop took {worst_stop:?}");
}

#[test]
fn clock_numbers_at_the_extremes_give_sensible_times() {
    let mut engine = Engine::start(&[]);
    ready(&mut engine);
    // No time left at all: move now.
    for go in [
        "go wtime -9223372036854775779",
        "go wtime -9223372036854775808 btime 1000",
        "go p1time 0",
        "go movetime -5",
        "go movetime 0",
    ] {
        let took = engine.timed_ask(go, "bestmove").1;
        assert!(took < scaled(SECOND), "{go}: {took:?}");
    }
    // A huge increment is capped by the time left: a real think, well inside the second.
    let took = engine
        .timed_ask("go wtime 1000 winc 9223372036854775807", "bestmove")
        .1;
    println!("go wtime 1000 winc i64::MAX: {took:?}");
    assert!(
        took > Duration::from_millis(150) && took < scaled(SECOND),
        "{took:?}"
    );
    // Beyond every range: still a legal, prompt answer.
    for go in [
        "go wtime 99999999999999999999999 winc 99999999999999999999 movetime 200",
        "go depth 18446744073709551616 movetime 100",
        "go nodes 18446744073709551615 movetime 100",
        "go movestogo 4294967296 wtime 500",
    ] {
        let took = engine.timed_ask(go, "bestmove").1;
        assert!(took < scaled(SECOND), "{go}: {took:?}");
    }
}

/// In a 1 GiB memory cgroup, `Hash 2048` is refused and a table that fits is accepted and
/// used. Needs permission to create a cgroup (root, as on the CI machines); where that is
/// missing the test fails unless `SOWFAN_TEST_SKIP=cgroup` (the address-space limit above
/// checks the same refusal without privileges).
#[test]
fn hash_respects_the_memory_cgroup() {
    let Some(group) = MemoryCgroup::create(1 << 30) else {
        crate::support::limits::cannot_run_here(
            "cgroup",
            "cannot create a memory cgroup (needs root and a writable cgroup v1 memory \
             controller or cgroup v2 under /sys/fs/cgroup)",
        );
        return;
    };
    let script = format!(
        "echo $$ > {} && exec {}",
        group.procs_file(),
        crate::support::BIN
    );
    let mut engine = Engine::start_command("sh", &["-c", &script]);
    let lines = engine.ask("setoption name Hash value 2048\nisready", "readyok");
    let error = lines
        .iter()
        .find(|l| l.starts_with("info string error"))
        .unwrap_or_else(|| panic!("Hash 2048 accepted in a 1 GiB cgroup: {lines:?}"));
    assert!(
        error.contains("cgroup") && error.contains("at most"),
        "{error}"
    );
    let lines = engine.ask("setoption name Hash value 768\nisready", "readyok");
    assert!(lines.iter().all(|l| !l.contains("error")), "{lines:?}");
    engine.ask("go movetime 1500", "bestmove");
    for _ in 0..3 {
        let took = engine.timed_ask("ucinewgame\nisready", "readyok").1;
        assert!(took < scaled(SECOND / 10), "{took:?}");
        engine.ask("go movetime 500", "bestmove");
    }
    let quit = quit_time(engine);
    println!("1 GiB cgroup: Hash 2048 refused ({error}); Hash 768 used; quit {quit:?}");
}

/// A cgroup (v1 memory controller or v2) with a memory limit, removed on drop.
struct MemoryCgroup {
    dir: std::path::PathBuf,
}

impl MemoryCgroup {
    fn create(limit: u64) -> Option<MemoryCgroup> {
        let name = format!("sowfan-test-{}", std::process::id());
        let candidates = [
            ("/sys/fs/cgroup/memory", "memory.limit_in_bytes"),
            ("/sys/fs/cgroup", "memory.max"),
        ];
        for (root, file) in candidates {
            let dir = std::path::Path::new(root).join(&name);
            if std::fs::create_dir(&dir).is_err() {
                continue;
            }
            if std::fs::write(dir.join(file), limit.to_string()).is_ok() {
                return Some(MemoryCgroup { dir });
            }
            let _ = std::fs::remove_dir(&dir);
        }
        None
    }

    fn procs_file(&self) -> String {
        self.dir.join("cgroup.procs").display().to_string()
    }
}

impl Drop for MemoryCgroup {
    fn drop(&mut self) {
        // The group can only go once its processes have: wait a little for them.
        for _ in 0..100 {
            if std::fs::remove_dir(&self.dir).is_ok() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

#[test]
fn quit_during_a_search_prints_no_bestmove() {
    let mut engine = Engine::start(&[]);
    engine.send("go infinite");
    std::thread::sleep(Duration::from_millis(200));
    engine.send("quit");
    engine.wait_exit(Duration::from_secs(5)).expect("exits");
    while let Some(line) = engine.line(Duration::from_millis(100)) {
        assert!(!line.starts_with("bestmove"), "{line}");
    }
}

/// Only the opponent's clock: no limit for the mover, so the search is like `go infinite`
/// (read-only commands answered during it, ended by `stop` or the end of input).
#[test]
fn a_search_with_only_the_opponents_clock_is_open_ended() {
    let mut engine = Engine::start(&[]);
    engine.send("go btime 1000");
    std::thread::sleep(Duration::from_millis(200));
    let took = engine.timed_ask("query p1turn", "response true").1;
    assert!(took < scaled(SECOND / 2), "{took:?}");
    let took = engine.timed_ask("stop", "bestmove").1;
    assert!(took < scaled(SECOND / 2), "{took:?}");
    let out = crate::support::run_script(&[], "go btime 1000\n", Duration::from_secs(10));
    assert!(out.contains("bestmove"), "{out}");
}

#[test]
fn a_line_longer_than_a_mebibyte_is_an_error_and_nothing_else() {
    let mut engine = Engine::start(&[]);
    let long = format!("position startpos moves {}", "A ".repeat(1_100_000));
    let lines = engine.ask(&format!("{long}\nisready"), "readyok");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("info string error:") && l.contains("longer than")),
        "{lines:?}"
    );
    // The position is unchanged and the engine works.
    let lines = engine.ask("d", "To move:");
    assert!(
        lines
            .iter()
            .any(|l| l == "Fen: 4,4,4,4,4,4,0/4,4,4,4,4,4,0 S"),
        "{lines:?}"
    );
    engine.ask("go depth 3", "bestmove");
}

/// After `ponderhit`, a `go ponder` is a timed search: the end of input lets it finish.
#[test]
fn a_ponder_search_after_ponderhit_finishes_at_the_end_of_input() {
    let started = Instant::now();
    let out = crate::support::run_script(
        &[],
        "go ponder wtime 8000 btime 8000\nponderhit\n",
        Duration::from_secs(10),
    );
    assert!(out.contains("bestmove"), "{out}");
    let depth: u32 = out
        .lines()
        .filter_map(|l| crate::support::field(l, "depth"))
        .filter_map(|d| d.parse().ok())
        .max()
        .unwrap_or(0);
    assert!(
        depth >= 8 && started.elapsed() > Duration::from_millis(100),
        "stopped early: depth {depth} after {:?}",
        started.elapsed()
    );
}

/// A `go` sent right after a new game, without `isready`, waits for the table to be
/// emptied (so that it searches as a new process would) but within its own time, and an
/// `isready` behind it is answered while it searches.
#[test]
fn a_search_right_after_a_new_game_waits_for_the_clearing_within_its_time() {
    let mut engine = Engine::start(&[]);
    engine.ask("setoption name Hash value 1024\nisready", "readyok");
    let sent = Instant::now();
    let lines = engine.ask("newgame fanorona\ngo movetime 300\nisready", "readyok");
    assert!(
        lines.iter().all(|l| !l.starts_with("bestmove")),
        "readyok after the search: {lines:?}"
    );
    engine.until(Duration::from_secs(5), |l| l.starts_with("bestmove"));
    let took = sent.elapsed();
    assert!(took < scaled(Duration::from_millis(300 + 150)), "{took:?}");
    let quit = quit_time(engine);
    assert!(quit < scaled(SECOND / 2), "quit took {quit:?}");
}
