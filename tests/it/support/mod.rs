//! What the integration tests share, written once: the pipe driver of the real binary
//! ([`Engine`]) and what reads its `info` lines, runs of its subcommands with a time limit
//! ([`run`], where every test starts the binary), the games made from option words
//! ([`games`]), a seeded random generator ([`rng`]), games played to their end
//! ([`selfplay`]), move trees walked beside a reference implementation and plain minimax
//! ([`walk`]), the perft fixture format and its budgeted check ([`perft_fixture`]), tables
//! built for a test ([`tables`]), the limits a test puts on a process ([`limits`]), the
//! knobs of the long checks ([`knob`]), the files tests read and write, and the one time
//! scale of every wall-clock bound ([`timing`]).

mod engine;
pub mod games;
pub mod limits;
pub mod perft_fixture;
pub mod rng;
pub mod run;
pub mod selfplay;
pub mod tables;
pub mod timing;
pub mod walk;

use std::path::{Path, PathBuf};

use serde_json::Value;

pub use engine::{BIN, Engine, cp, field, last_score, run_script};
pub use games::kalah;
pub use timing::{scaled, scaled_ms};

/// A whole number from the environment variable `name` (a knob of a long check, e.g.
/// `SOWFAN_FUZZ_LINES=2_000_000`; underscores allowed), `None` when unset. A value that is
/// no number fails the test: a mistyped knob must not run the default silently.
pub fn knob(name: &str) -> Option<u64> {
    let text = std::env::var(name).ok()?;
    let text = text.replace('_', "");
    Some(
        text.trim()
            .parse()
            .unwrap_or_else(|_| panic!("{name} must be a whole number, got '{text}'")),
    )
}

/// A file of the repository's `fixtures/` folder.
pub fn fixture(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(path)
}

/// Folders `sowfan-test-<name>-<pid>` that earlier test processes left in the system's
/// temporary directory, removed once per process before it makes its own: a test run's
/// folders (tables, records; about 70 MB) stay for a look after it ends, but do not pile
/// up run after run. A folder whose process still runs (`/proc/<pid>`) is kept; without
/// `/proc` nothing is removed.
fn sweep_earlier_runs() {
    static SWEPT: std::sync::Once = std::sync::Once::new();
    SWEPT.call_once(|| {
        if !Path::new("/proc/self").exists() {
            return;
        }
        let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else {
            return;
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some(name) = name.to_str() else { continue };
            let Some(pid) = name
                .strip_prefix("sowfan-test-")
                .and_then(|rest| rest.rsplit_once('-'))
                .and_then(|(_, pid)| pid.parse::<u32>().ok())
            else {
                continue;
            };
            let alive = Path::new("/proc").join(pid.to_string()).exists();
            if !alive && entry.file_type().is_ok_and(|t| t.is_dir()) {
                let _ = std::fs::remove_dir_all(entry.path());
            }
        }
    });
}

/// This process's folder `sowfan-test-<name>-<pid>` under the system's temporary directory
/// (not created), once the folders of earlier runs are swept.
fn test_dir(name: &str) -> PathBuf {
    sweep_earlier_runs();
    std::env::temp_dir().join(format!("sowfan-test-{name}-{}", std::process::id()))
}

/// A scratch file name unique to this test run (one folder per test process).
pub fn scratch(name: &str) -> PathBuf {
    let dir = test_dir("match");
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir.join(name)
}

/// A fresh, empty directory `sowfan-test-<name>-<pid>` under the system's temporary directory,
/// for a test that makes files of its own (tables, records, hostile files).
pub fn fresh_dir(name: &str) -> PathBuf {
    let dir = test_dir(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    dir
}

/// The games of a `sowfan match --records` file, in game order.
pub fn records(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).expect("records file");
    let mut games: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object a line"))
        .collect();
    games.sort_by_key(|g| g["number"].as_u64());
    games
}
