//! `sowfan check` through the real binary: against sowfan itself in every game (every check
//! passes), and against the fake engines of `tests/fake-engines/` (the right checks fail,
//! and the checker never hangs).

use std::collections::BTreeMap;
use std::time::Duration;

use crate::support::run::{args, sowfan};
use crate::support::{BIN, scaled, scaled_ms};

const FAKES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fake-engines");

struct CheckRun {
    stdout: String,
    stderr: String,
    code: Option<i32>,
    elapsed: Duration,
    /// Check number → `ok`, `FAIL` or `skip`.
    statuses: BTreeMap<u32, String>,
}

impl CheckRun {
    /// The result line of check `id`.
    fn line(&self, id: u32) -> &str {
        self.stdout
            .lines()
            .find(|l| status_of(l).is_some_and(|(n, _)| n == id))
            .unwrap_or_else(|| panic!("no line for check {id}:\n{}", self.stdout))
    }

    /// The checks with this status.
    fn with(&self, status: &str) -> Vec<u32> {
        self.statuses
            .iter()
            .filter(|(_, s)| s.as_str() == status)
            .map(|(&id, _)| id)
            .collect()
    }
}

/// `(check number, status)` of a result line.
fn status_of(line: &str) -> Option<(u32, &str)> {
    let mut words = line.split_whitespace();
    let status = words
        .next()
        .filter(|s| ["ok", "FAIL", "skip"].contains(s))?;
    let id = words.next()?.parse().ok()?;
    Some((id, status))
}

/// Run `sowfan check ARGS`; panics if it does not finish within `limit`.
fn run_check(args: &[String], limit: Duration) -> CheckRun {
    let run = sowfan("check", args, limit);
    let statuses = run
        .stdout
        .lines()
        .filter_map(status_of)
        .map(|(id, s)| (id, s.to_string()))
        .collect();
    CheckRun {
        stdout: run.stdout,
        stderr: run.stderr,
        code: run.code,
        elapsed: run.elapsed,
        statuses,
    }
}

/// Check sowfan itself in `game`: every check passes, except `skips` (checks the game has
/// no position for). The margin for timed searches is wider than the default, since the
/// tests share a loaded machine, and it and the checker's timeout (its default, 5 s) are
/// scaled.
fn sowfan_passes(game: &str, extra: &str, skips: &[u32]) {
    let mut all = args(&format!(
        "--engine cmd={BIN} timemargin={} {extra}",
        scaled_ms(300)
    ));
    all.extend(["--game".to_string(), game.to_string()]);
    all.extend(args(&format!("--timeout {}", scaled_ms(5000))));
    let run = run_check(&all, Duration::from_secs(60));
    eprintln!("{game}: {:.1} s\n{}", run.elapsed.as_secs_f64(), run.stdout);
    assert_eq!(run.code, Some(0), "{}\n{}", run.stdout, run.stderr);
    assert_eq!(run.statuses.len(), 18, "{}", run.stdout);
    assert_eq!(run.with("FAIL"), Vec::<u32>::new(), "{}", run.stdout);
    assert_eq!(run.with("skip"), skips, "{}", run.stdout);
    assert!(
        run.stdout.contains(&format!(
            "Checks: 18, passed {}, failed 0, skipped {}",
            18 - skips.len(),
            skips.len()
        )),
        "{}",
        run.stdout
    );
    for latency in [
        "handshake",
        "isready idle",
        "isready while searching",
        "stop",
        "quit",
    ] {
        assert!(run.stdout.contains(latency), "{latency}: {}", run.stdout);
    }
}

#[test]
fn sowfan_passes_every_check_in_kalah() {
    sowfan_passes("kalah", "", &[]);
}

#[test]
fn sowfan_passes_every_check_in_afrika_which_has_no_extra_moves() {
    sowfan_passes("afrika", "", &[8]);
}

#[test]
fn sowfan_passes_every_check_in_anywoli() {
    sowfan_passes("anywoli", "", &[]);
}

#[test]
fn sowfan_passes_every_check_in_fanorona_which_has_no_extra_moves() {
    sowfan_passes("fanorona", "", &[8]);
}

#[test]
fn sowfan_passes_every_check_in_fanorona_dimy() {
    sowfan_passes("fanorona-dimy", "", &[8]);
}

#[test]
fn sowfan_passes_every_check_in_fanorona_telo() {
    sowfan_passes("fanorona-telo", "", &[8]);
}

#[test]
fn sowfan_passes_with_uci_the_setoption_way_and_game_options() {
    sowfan_passes(
        "kalah pits=4 seeds=3 pie=true",
        "proto=uci setup=setoption option.Hash=8",
        &[],
    );
}

/// The checker's timeout for the fake engines: 500 ms on a quiet machine, scaled.
fn fake_timeout() -> u64 {
    scaled_ms(500)
}

/// Check a fake engine with a short timeout ([`fake_timeout`]) and the default `timemargin`
/// (100 ms), scaled: exit status 1, within `limit`.
fn check_fake(engine: &str, limit: Duration) -> CheckRun {
    let mut all = vec!["--engine".to_string(), "cmd=bash".to_string()];
    all.extend(engine.split_whitespace().map(|w| format!("arg={w}")));
    all.push(format!("timemargin={}", scaled_ms(100)));
    all.extend(args(&format!("--game kalah --timeout {}", fake_timeout())));
    let run = run_check(&all, limit);
    eprintln!(
        "{engine}: {:.1} s\n{}",
        run.elapsed.as_secs_f64(),
        run.stdout
    );
    assert_eq!(run.code, Some(1), "{}\n{}", run.stdout, run.stderr);
    assert_eq!(run.statuses.len(), 18, "{}", run.stdout);
    run
}

fn misbehave(mode: &str, at: u32) -> String {
    format!("{FAKES}/misbehave.sh {BIN} {mode} {at}")
}

#[test]
fn an_engine_flooding_from_the_start_fails_its_handshake_and_the_run_ends_at_once() {
    let run = check_fake(&format!("{FAKES}/flood-yes.sh"), Duration::from_secs(30));
    assert_eq!(run.with("FAIL"), (1..=18).collect::<Vec<_>>());
    assert!(
        run.line(1)
            .contains(&format!("no 'ugiok' within {} ms", fake_timeout())),
        "{}",
        run.stdout
    );
    assert!(
        run.line(2).contains("not run: the handshake failed"),
        "{}",
        run.stdout
    );
    assert!(
        run.elapsed < scaled(Duration::from_secs(5)),
        "{:?}",
        run.elapsed
    );
}

/// Checks 5-13 and 17 send `go`: an engine that never answers one fails exactly those.
const GO_CHECKS: [u32; 10] = [5, 6, 7, 8, 9, 10, 11, 12, 13, 17];

#[test]
fn an_engine_flooding_info_lines_fails_every_go_check() {
    let run = check_fake(&format!("{FAKES}/flood-info.sh"), Duration::from_secs(60));
    let mut failed = GO_CHECKS.to_vec();
    // It knows no query either.
    failed.extend([14, 15]);
    failed.sort();
    assert_eq!(run.with("FAIL"), failed, "{}", run.stdout);
    assert!(
        run.line(5)
            .contains(&format!("no bestmove within {} ms", fake_timeout())),
        "{}",
        run.stdout
    );
    assert!(
        run.line(5).contains("got 'info depth 1 score cp 0'"),
        "{}",
        run.stdout
    );
}

#[test]
fn an_engine_writing_an_endless_line_fails_every_go_check() {
    let run = check_fake(&format!("{FAKES}/endless-line.sh"), Duration::from_secs(60));
    let mut failed = GO_CHECKS.to_vec();
    failed.extend([14, 15]);
    failed.sort();
    assert_eq!(run.with("FAIL"), failed, "{}", run.stdout);
    assert!(
        run.line(6)
            .contains(&format!("no bestmove within {} ms", fake_timeout())),
        "{}",
        run.stdout
    );
}

// misbehave.sh relays strictly in turn: while the engine searches it reads no input, so
// `isready` and `stop` during `go infinite` are never passed on, and check 12 (and with it
// 13) fails for every mode. The count of `go`s restarts at each `newgame` (sent by check 4
// and by every restart).

#[test]
fn an_illegal_bestmove_fails_its_check_only() {
    // The 3rd go after the new game is check 7's.
    let run = check_fake(&misbehave("illegal", 3), Duration::from_secs(60));
    assert_eq!(run.with("FAIL"), vec![7, 12, 13], "{}", run.stdout);
    assert!(
        run.line(7).contains("not a legal move here: '"),
        "{}",
        run.stdout
    );
    assert!(
        run.line(12).contains("no readyok while searching"),
        "{}",
        run.stdout
    );
}

#[test]
fn a_bestmove_without_a_move_fails_its_check() {
    // Check 5's go, and after the restart that check 12 needs, check 17's.
    let run = check_fake(&misbehave("malformed", 1), Duration::from_secs(60));
    assert_eq!(run.with("FAIL"), vec![5, 12, 13, 17], "{}", run.stdout);
    assert!(run.line(5).contains("got 'bestmove'"), "{}", run.stdout);
    assert!(
        run.line(5).contains("not 'bestmove <move>'"),
        "{}",
        run.stdout
    );
}

#[test]
fn a_crash_fails_its_check_and_a_fresh_engine_runs_the_next() {
    // Every 2nd go of a process crashes it: checks 6, 8, 10 and 11's second go.
    let run = check_fake(&misbehave("crash", 2), Duration::from_secs(60));
    assert_eq!(
        run.with("FAIL"),
        vec![6, 8, 10, 11, 12, 13],
        "{}",
        run.stdout
    );
    assert!(
        run.line(6)
            .contains("waiting for bestmove: exited with code 3"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("Engine restarts: 5"), "{}", run.stdout);
    assert_eq!(run.statuses[&18], "ok");
}

#[test]
fn a_hung_search_fails_every_go_check_within_the_timeout() {
    let run = check_fake(&misbehave("hang", 1), Duration::from_secs(60));
    assert_eq!(run.with("FAIL"), GO_CHECKS.to_vec(), "{}", run.stdout);
    assert!(
        run.line(9)
            .contains(&format!("no bestmove within {} ms", fake_timeout())),
        "{}",
        run.stdout
    );
    // go movetime 200: its 200 ms, the timemargin and the timeout.
    let movetime = 200 + scaled_ms(100) + fake_timeout();
    assert!(
        run.line(10)
            .contains(&format!("no bestmove within {movetime} ms")),
        "{}",
        run.stdout
    );
}

#[test]
fn a_missing_readyok_fails_every_check_that_waits_for_one() {
    // Silent from the 2nd isready after the new game on; check 4 (a new game) passes.
    let run = check_fake(&misbehave("noready", 1), Duration::from_secs(60));
    let failed: Vec<u32> = (2..=17).filter(|&id| id != 4).collect();
    assert_eq!(run.with("FAIL"), failed, "{}", run.stdout);
    assert!(
        run.line(2).contains(&format!(
            "waiting for readyok: nothing within {} ms",
            fake_timeout()
        )),
        "{}",
        run.stdout
    );
    assert_eq!(run.with("ok"), vec![1, 4, 18], "{}", run.stdout);
}

#[test]
fn a_second_bestmove_is_caught() {
    let run = check_fake(
        &format!("{FAKES}/double-bestmove.sh"),
        Duration::from_secs(60),
    );
    assert!(
        run.line(5).starts_with("FAIL")
            && run
                .line(5)
                .contains("a second bestmove within 150 ms: 'bestmove C'"),
        "{}",
        run.stdout
    );
    assert!(
        run.line(12)
            .contains("a bestmove before 'stop' under go infinite"),
        "{}",
        run.stdout
    );
    assert!(run.line(13).starts_with("FAIL"), "{}", run.stdout);
    assert!(run.line(13).contains("check 5: 2"), "{}", run.stdout);
    assert_eq!(run.statuses[&18], "ok");
}

#[test]
fn an_engine_that_ignores_quit_is_killed_and_fails_the_quit_check() {
    // Answers the handshake and isready, nothing else, and never exits by itself.
    let script = "while IFS= read -r c; do case $c in ugi) echo 'id name deaf'; echo ugiok;; \
                  isready) echo readyok;; esac; done; sleep 60";
    let mut all = vec![
        "--engine".to_string(),
        "cmd=bash".to_string(),
        "arg=-c".to_string(),
        format!("arg={script}"),
    ];
    all.extend(args(&format!("--timeout {}", scaled_ms(300))));
    let run = run_check(&all, Duration::from_secs(60));
    assert_eq!(run.code, Some(1), "{}", run.stdout);
    assert!(
        run.line(18)
            .contains("still running 1000 ms after 'quit'; killed"),
        "{}",
        run.stdout
    );
}

#[test]
fn configuration_errors_exit_with_status_2() {
    let run = run_check(
        &args("--engine cmd=/nonexistent/engine"),
        Duration::from_secs(10),
    );
    assert_eq!(run.code, Some(2), "{}", run.stdout);
    assert!(run.stderr.contains("cannot start"), "{}", run.stderr);
    let run = run_check(
        &args(&format!("--engine cmd={BIN} --game chess")),
        Duration::from_secs(10),
    );
    assert_eq!(run.code, Some(2));
    assert!(
        run.stderr.contains("unknown game 'chess'"),
        "{}",
        run.stderr
    );
    let run = run_check(
        &args(&format!("--engine cmd={BIN} proto=xboard")),
        Duration::from_secs(10),
    );
    assert_eq!(run.code, Some(2));
    assert!(run.stderr.contains("proto=xboard"), "{}", run.stderr);
}
