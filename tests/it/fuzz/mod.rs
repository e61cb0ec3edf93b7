//! A protocol fuzzer that drives the real `sowfan` binary through its pipes.
//!
//! Lines are generated from a seed: every command form of `protocol.md` (`uci`, `ugi`,
//! `isready`, `setoption` with every option and odd values, `ucinewgame`, `uginewgame`,
//! `newgame` with valid and invalid options of every game, `position startpos|fen|moves` with
//! real legal move sequences and real position strings of the current game, `go` with every
//! parameter and numbers at the extremes, `stop`, `ponderhit`, `query`, `d`, `legal`, `perft`,
//! `bench`, `help`, `debug`), then, for a fifth of them, mutated: corrupted position strings and
//! moves, byte flips, token shuffles, truncation, invalid UTF-8, NUL bytes, tabs, CRLF endings,
//! and now and then very long lines (up to 1 MiB). They go to one engine process in batches of
//! 200–1000 lines, each followed by `isready` (a `readyok` must come within 10 s) and by a sync
//! marker (an unknown `setoption` that answers with a warning once everything before it has
//! run; `stop` is sent whenever answers stall while it is awaited, so every search ends). A
//! `go` that may not end by itself (`infinite`, `ponder`, no limit, huge limits) is followed
//! by a `stop` a few lines later, and the lines after the `go` are held back until the engine
//! has answered everything before it, so that the `stop` (and any `ponderhit`, `d`, `legal`,
//! `query` sent meanwhile) reach the running search, as from a GUI.
//!
//! The fuzzer keeps an in-process model of the engine's state (the same `sowfan` library: the
//! current game, its options, the position) and checks every answer against it:
//! every `go` gets exactly one `bestmove`, a legal move (or `0000` in a finished game, a move
//! among `searchmoves` when given, a legal reply after `ponder`), preceded by an
//! `info … score …` line; `query`, `legal`, `d` (its `Fen:` line), `uci`/`ugi` (the
//! `UCI_Variant` and `GameOptions` defaults), `perft` (the total, for depth ≤ 3) and `bench`
//! (the same node count every time) answer what the model says; every rejected line gets one
//! `info string error:` and nothing else does. A panic message (stdout or stderr), an
//! `internal error`, a missing `readyok`, a batch that does not finish within 30 s, a search
//! that answers `stop` after more than 5 s, or an engine that exits is a failure; after a
//! hang or crash the engine is restarted, and the batch is written with a preamble that
//! recreates the engine's state to `target/tmp/fuzz-repro/seed<seed>-batch<n>.txt` (pipe it
//! into `sowfan`). At the end `quit` is sent during a `go infinite`: the process must exit
//! (successfully) within 5 s, and print no `bestmove` for it (protocol.md, `quit`: none is
//! printed). Reported, not failures: searches the fuzzer had to
//! stop at a batch end (slow under load, or unbounded: the line is named) and read-only
//! answers that came after the `bestmove` of the open-ended search they were sent during.
//! Peak memory is `VmHWM` from `/proc/<pid>/status`.
//!
//! Searches stay short (`go depth 1..6`, `nodes ≤ 20000`, `movetime ≤ 20`, small clocks);
//! any `go` without such a limit is followed by a `stop`. Known slow or heavy commands are
//! kept moderate, also after mutation: `Hash ≤ 64`, `Threads ≤ 4`, `perft` depth ≤ 5,
//! `bench` only with depth ≤ 3.
//!
//! Runs:
//!
//! ```text
//! cargo test --release --test it fuzz          # the CI budget: 130 000 lines or 50 s
//! SOWFAN_FUZZ_LINES=2000000 SOWFAN_FUZZ_SEED=7 \
//!     cargo test --release --test it fuzz_long -- --ignored --nocapture
//! ```
//!
//! Knobs: `SOWFAN_FUZZ_SEED` (both tests; default 1), `SOWFAN_FUZZ_LINES` (the long run's line
//! budget; default 2 000 000), `SOWFAN_FUZZ_SECONDS` (the long run's time budget; default
//! none), `SOWFAN_FUZZ_DUMP=<file>` (write every byte sent to the engine there),
//! `SOWFAN_FUZZ_BIN=<path>` (fuzz another build, e.g. `target/debug/sowfan`, whose overflow
//! checks turn silent wrap-arounds into panics). Both print one `fuzz summary:` line; the
//! long run also prints progress.
//!
//! The parts: `vocabulary.rs` (words and bytes lines are made of), `model.rs` (the engine's
//! state as the fuzzer keeps it, and what each line must be answered with), `lines.rs`
//! (random games and the protocol lines made of them), `mutate.rs` (damage to those lines),
//! `process.rs` (the engine process and its pipes), `fuzzer.rs` (batches, the matching of
//! answers, restarts and the final `quit`), `stats.rs` (what is counted and reported).

mod fuzzer;
mod lines;
mod model;
mod mutate;
mod process;
mod stats;
mod vocabulary;

use std::time::Duration;

use fuzzer::Fuzzer;
use stats::Stats;

use crate::support::knob;

// The limits below are a quiet machine's, stretched by the time scale (`support::timing`)
// where they are used.

/// `readyok` must follow `isready` within this time.
const READY_TIMEOUT: Duration = Duration::from_secs(10);
/// Everything sent in a batch must have run (its sync marker answered) within this time.
const BATCH_TIMEOUT: Duration = Duration::from_secs(30);
/// `quit` must end the process within this time.
const QUIT_TIMEOUT: Duration = Duration::from_secs(5);
/// While awaiting the sync marker, send `stop` once no answer has come for `STALL` (a long
/// or open-ended search is running), and not more often than `STOP_EVERY`.
const STALL: Duration = Duration::from_millis(100);
const STOP_EVERY: Duration = Duration::from_millis(25);
/// A search told to stop must answer within this time.
const SLOW_STOP: Duration = Duration::from_secs(5);
/// The sync marker: `setoption name fuzz-sync-<n>`, answered by an unknown-option warning.
const MARKER: &str = "fuzz-sync-";
/// Failure details kept for the report (all are counted).
const MAX_DETAILS: usize = 40;

/// `text` cut to at most `max` bytes (at a character boundary) for a report, with its length.
fn clip(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… ({} bytes)", &text[..end], text.len())
}

fn fuzz(seed: u64, lines: u64, time_cap: Option<Duration>, progress: bool) -> Stats {
    let mut fuzzer = Fuzzer::new(seed);
    fuzzer.run(lines, time_cap, progress);
    let stats = std::mem::take(&mut fuzzer.stats);
    println!("{}", stats.summary(seed));
    println!("{}", stats.coverage());
    eprintln!("{}", stats.summary(seed));
    eprintln!("{}", stats.coverage());
    for detail in &stats.details {
        eprintln!("  {detail}");
    }
    for note in stats.notes.iter().chain(&stats.stall_notes) {
        eprintln!("  note: {note}");
    }
    for path in &stats.repro {
        eprintln!("  repro: {}", path.display());
    }
    stats
}

fn assert_clean(stats: &Stats, seed: u64) {
    assert!(
        stats.failures() == 0,
        "the protocol fuzzer found {} failures (seed {seed}):\n{}\nrepro files:\n{}",
        stats.failures(),
        stats.details.join("\n"),
        stats
            .repro
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// The CI budget: 130 000 lines (about 40 s on a 2-core machine) or 50 s, whichever comes
/// first.
#[test]
fn fuzz_short() {
    let seed = knob("SOWFAN_FUZZ_SEED").unwrap_or(1);
    let stats = fuzz(seed, 130_000, Some(Duration::from_secs(50)), false);
    assert!(
        stats.bestmoves > 100,
        "too few searches: {}",
        stats.bestmoves
    );
    assert_clean(&stats, seed);
}

/// The long run: `SOWFAN_FUZZ_LINES` lines (default 2 000 000), `SOWFAN_FUZZ_SECONDS` at most.
#[test]
#[ignore = "long: SOWFAN_FUZZ_LINES (default 2000000), SOWFAN_FUZZ_SECONDS, SOWFAN_FUZZ_SEED; see tests/it/fuzz/mod.rs"]
fn fuzz_long() {
    let seed = knob("SOWFAN_FUZZ_SEED").unwrap_or(1);
    let lines = knob("SOWFAN_FUZZ_LINES").unwrap_or(2_000_000);
    let cap = knob("SOWFAN_FUZZ_SECONDS").map(Duration::from_secs);
    let stats = fuzz(seed, lines, cap, true);
    assert_clean(&stats, seed);
}
