//! What the fuzzer counts, and its report.

use std::path::PathBuf;
use std::time::Duration;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Fail {
    Panic,
    Hang,
    Crash,
    Internal,
    Mismatch,
    Missing,
    Unexpected,
    Quit,
}

#[derive(Default)]
pub(super) struct Stats {
    pub(super) lines: u64,
    pub(super) bytes: u64,
    pub(super) batches: u64,
    pub(super) mutated: u64,
    pub(super) long_lines: u64,
    pub(super) gos: u64,
    pub(super) bestmoves: u64,
    pub(super) errors: u64,
    pub(super) warnings: u64,
    pub(super) out_lines: u64,
    pub(super) out_bytes: u64,
    pub(super) stderr_lines: u64,
    pub(super) extra_stops: u64,
    pub(super) panics: u64,
    pub(super) hangs: u64,
    pub(super) crashes: u64,
    pub(super) restarts: u64,
    pub(super) internal: u64,
    pub(super) mismatches: u64,
    pub(super) missing: u64,
    pub(super) unexpected: u64,
    pub(super) quit_failures: u64,
    /// `bestmove` lines printed for the search stopped by `quit` (protocol.md: none); each
    /// is also a quit failure.
    pub(super) quit_bestmoves: u64,
    pub(super) generating: Duration,
    pub(super) awaiting_ready: Duration,
    pub(super) awaiting_batch: Duration,
    pub(super) peak_rss_kb: u64,
    pub(super) last_rss_kb: u64,
    pub(super) latencies: Vec<Duration>,
    /// From sending the line after a search that needed a `stop` to its `bestmove`.
    pub(super) stop_latencies: Vec<Duration>,
    /// Answers to read-only lines sent while an open-ended search ran: before its `bestmove`
    /// (as protocol.md says), or after it (reported in `notes`, not a failure: a race with
    /// the end of the search before is possible).
    pub(super) early_answers: u64,
    pub(super) late_answers: u64,
    /// Observations that are not failures.
    pub(super) notes: Vec<String>,
    /// Searches that did not answer until the fuzzer sent `stop` at a batch end (slow on a
    /// loaded machine, or unbounded), and the first of them.
    pub(super) stalls: u64,
    pub(super) stall_notes: Vec<String>,
    /// Lines by command: (accepted, rejected).
    pub(super) kinds: std::collections::BTreeMap<&'static str, (u64, u64)>,
    pub(super) details: Vec<String>,
    pub(super) repro: Vec<PathBuf>,
    pub(super) elapsed: Duration,
    pub(super) capped: bool,
}

impl Stats {
    pub(super) fn failures(&self) -> u64 {
        self.panics
            + self.hangs
            + self.crashes
            + self.internal
            + self.mismatches
            + self.missing
            + self.unexpected
            + self.quit_failures
    }

    pub(super) fn coverage(&self) -> String {
        let kinds: Vec<String> = self
            .kinds
            .iter()
            .map(|(k, (ok, bad))| format!("{k} {ok}/{bad}"))
            .collect();
        format!(
            "fuzz coverage (lines accepted/rejected by command): {}",
            kinds.join(", ")
        )
    }

    pub(super) fn summary(&self, seed: u64) -> String {
        let percentiles = |samples: &[Duration]| -> [f64; 3] {
            let mut l = samples.to_vec();
            l.sort();
            [0.5, 0.99, 1.0].map(|q| {
                if l.is_empty() {
                    return 0.0;
                }
                let i = ((l.len() - 1) as f64 * q).round() as usize;
                l[i].as_secs_f64() * 1000.0
            })
        };
        let ready = percentiles(&self.latencies);
        let stop = percentiles(&self.stop_latencies);
        let secs = self.elapsed.as_secs_f64();
        format!(
            "fuzz summary: seed {seed}, lines fed {} ({} mutated, {} long), bytes {} ({:.1} MiB), \
             batches {}, go {} / bestmove {}, error answers {}, warnings {}, output lines {} \
             ({:.1} MiB), stderr lines {}, extra stops {}; panics {}, hangs {}, crashes {}, \
             restarts {}, internal errors {}, mismatches {}, missing answers {}, unexpected \
             answers {}, quit failures {}, bestmoves after quit {}; peak RSS (VmHWM) {:.1} MiB, last RSS {:.1} MiB; \
             readyok latency p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms; bestmove after stop \
             ({} searches) p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms; elapsed {:.1} s ({:.0} \
             lines/s: generating {:.1} s, awaiting readyok {:.1} s, awaiting batch ends {:.1} s); \
             read-only answers during open-ended searches {} before the bestmove, {} after; \
             searches stopped by the fuzzer at a batch end {}{}",
            self.lines,
            self.mutated,
            self.long_lines,
            self.bytes,
            self.bytes as f64 / 1048576.0,
            self.batches,
            self.gos,
            self.bestmoves,
            self.errors,
            self.warnings,
            self.out_lines,
            self.out_bytes as f64 / 1048576.0,
            self.stderr_lines,
            self.extra_stops,
            self.panics,
            self.hangs,
            self.crashes,
            self.restarts,
            self.internal,
            self.mismatches,
            self.missing,
            self.unexpected,
            self.quit_failures,
            self.quit_bestmoves,
            self.peak_rss_kb as f64 / 1024.0,
            self.last_rss_kb as f64 / 1024.0,
            ready[0],
            ready[1],
            ready[2],
            self.stop_latencies.len(),
            stop[0],
            stop[1],
            stop[2],
            secs,
            self.lines as f64 / secs.max(1e-9),
            self.generating.as_secs_f64(),
            self.awaiting_ready.as_secs_f64(),
            self.awaiting_batch.as_secs_f64(),
            self.early_answers,
            self.late_answers,
            self.stalls,
            if self.capped {
                " (stopped by the time budget)"
            } else {
                ""
            },
        )
    }
}
