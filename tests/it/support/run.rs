//! Running the real binary to its end: `sowfan match`, `check`, `analyse`, `tablebase`, ….
//! Output is read while the process runs, so that a full pipe never stalls it, and a run
//! with a time limit that does not end in time is killed and fails the test with what it
//! printed so far (a hung subcommand is a failure, not a stuck test).

use std::ffi::OsStr;
use std::io::{Read, Write};
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::BIN;

/// How a run ended.
pub struct Run {
    pub stdout: String,
    pub stderr: String,
    pub success: bool,
    /// The exit status, if the process exited (not killed by a signal).
    pub code: Option<i32>,
    /// From the start to the exit.
    pub elapsed: Duration,
}

impl Run {
    /// The rest of the first stdout line that starts with `prefix` (`Value: `, …).
    pub fn line(&self, prefix: &str) -> Option<&str> {
        self.stdout.lines().find_map(|l| l.strip_prefix(prefix))
    }

    /// The count of a `sowfan solve` run's `Nodes:` line.
    pub fn nodes(&self) -> u64 {
        self.line("Nodes: ")
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("no Nodes line: {}", self.stdout))
    }
}

/// `sowfan SUBCOMMAND ARGS` started by [`start`], its output read as it comes.
pub struct Running {
    child: Child,
    subcommand: String,
    started: Instant,
    out: JoinHandle<String>,
    err: JoinHandle<String>,
}

/// Start `sowfan SUBCOMMAND ARGS` with no input.
pub fn start<S: AsRef<OsStr>>(subcommand: &str, args: &[S]) -> Running {
    let started = Instant::now();
    let mut child = Command::new(BIN)
        .arg(subcommand)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("start sowfan {subcommand}: {e}"));
    let out = read_all(child.stdout.take().expect("stdout"));
    let err = read_all(child.stderr.take().expect("stderr"));
    Running {
        child,
        subcommand: subcommand.to_string(),
        started,
        out,
        err,
    }
}

/// Run `sowfan SUBCOMMAND ARGS`; panics if it does not finish within `limit`.
pub fn sowfan<S: AsRef<OsStr>>(subcommand: &str, args: &[S], limit: Duration) -> Run {
    start(subcommand, args).finish(limit)
}

fn read_all(mut stream: impl Read + Send + 'static) -> JoinHandle<String> {
    std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stream.read_to_string(&mut text);
        text
    })
}

impl Running {
    pub fn id(&self) -> u32 {
        self.child.id()
    }

    /// Wait for the end; panics if it does not come within `limit` from now.
    pub fn finish(mut self, limit: Duration) -> Run {
        let Some(status) = wait_exit(&mut self.child, limit) else {
            let _ = self.child.kill();
            let _ = self.child.wait();
            panic!(
                "sowfan {} did not finish within {limit:?}; output so far:\n{}",
                self.subcommand,
                self.out.join().unwrap_or_default()
            );
        };
        let elapsed = self.started.elapsed();
        Run {
            stdout: self.out.join().unwrap_or_default(),
            stderr: self.err.join().unwrap_or_default(),
            success: status.success(),
            code: status.code(),
            elapsed,
        }
    }

    /// Like [`Running::finish`], also measuring the process's peak memory (read from
    /// /proc while it runs; the peak only grows) and its run time from now.
    pub fn finish_measured(mut self, limit: Duration) -> (Run, Duration, u64) {
        let started = Instant::now();
        let pid = self.child.id();
        let mut peak = 0;
        while self.child.try_wait().expect("wait").is_none() && started.elapsed() < limit {
            if let Some(kb) = status_kb(pid, "VmHWM:") {
                peak = peak.max(kb);
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let run = self.finish(Duration::from_millis(100));
        (run, started.elapsed(), peak)
    }
}

/// Wait for `child` to exit; `None` if it is still running after `timeout`.
pub fn wait_exit(child: &mut Child, timeout: Duration) -> Option<ExitStatus> {
    let deadline = Instant::now() + timeout;
    loop {
        if let Ok(Some(status)) = child.try_wait() {
            return Some(status);
        }
        if Instant::now() >= deadline {
            return None;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Run `sowfan ARGS` to its end (no time limit: for quick commands) and collect its output.
pub fn output<S: AsRef<OsStr>>(args: &[S]) -> Output {
    Command::new(BIN).args(args).output().expect("run sowfan")
}

/// Run `sowfan ARGS` with `input` on stdin (written by a thread, so that a process that
/// answers before it has read everything cannot block on a full pipe) and collect its output.
pub fn output_with_input<S: AsRef<OsStr>>(args: &[S], input: &str) -> Output {
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start sowfan");
    let mut stdin = child.stdin.take().expect("stdin");
    let input = input.to_string();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(input.as_bytes());
    });
    let output = child.wait_with_output().expect("sowfan ends");
    writer.join().expect("input written");
    output
}

/// Send `signal` (`-INT`, `-TERM`) to process `pid`; whether `kill` succeeded.
pub fn signal(pid: u32, signal: &str) -> bool {
    Command::new("kill")
        .args([signal, &pid.to_string()])
        .status()
        .is_ok_and(|status| status.success())
}

/// A memory figure of process `pid` in KiB from /proc/<pid>/status (`VmHWM:` the peak
/// resident memory, `VmRSS:` the current), if it can be read.
pub fn status_kb(pid: u32, key: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with(key))?;
    line[key.len()..].split_whitespace().next()?.parse().ok()
}

/// Words split at spaces; `~` stands for a space inside a word (`--game kalah~pits=4`).
pub fn args(text: &str) -> Vec<String> {
    text.split_whitespace()
        .map(|w| w.replace('~', " "))
        .collect()
}
