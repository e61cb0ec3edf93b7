//! Running the real binary to its end: `sowfan match`, `check`, `analyse`, `tablebase`, ….
//! Output is read while the process runs, so that a full pipe never stalls it, and a run
//! with a time limit that does not end in time is killed and fails the test with what it
//! printed so far (a hung subcommand is a failure, not a stuck test). Every limit here is a
//! quiet machine's bound, stretched by [`scaled`] on a loaded one.
//!
//! A test that interrupts a run waits until it is ready for it, never a fixed time: until
//! the program handles the signal ([`Running::await_signal_handlers`]; sent earlier, SIGINT
//! kills it at once) and, when the test needs work done first, until it prints a line that
//! says the work has started ([`Running::await_line`]).

use std::ffi::OsStr;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::sync::mpsc::{self, Receiver, Sender};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::BIN;
use super::timing::scaled;

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
    /// Every line of stdout and stderr as it comes, for [`Running::await_line`].
    lines: Receiver<String>,
}

/// Start `sowfan SUBCOMMAND ARGS` with no input.
pub fn start<S: AsRef<OsStr>>(subcommand: &str, args: &[S]) -> Running {
    start_with_env(subcommand, args, &[])
}

/// [`start`] with these environment variables set (`RUST_LOG=info` for progress lines).
pub fn start_with_env<S: AsRef<OsStr>>(
    subcommand: &str,
    args: &[S],
    env: &[(&str, &str)],
) -> Running {
    let started = Instant::now();
    let mut child = piped(&[subcommand])
        .args(args)
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("start sowfan {subcommand}: {e}"));
    let (tx, lines) = mpsc::channel();
    let out = read_all(child.stdout.take().expect("stdout"), tx.clone());
    let err = read_all(child.stderr.take().expect("stderr"), tx);
    Running {
        child,
        subcommand: subcommand.to_string(),
        started,
        out,
        err,
        lines,
    }
}

/// Run `sowfan SUBCOMMAND ARGS`; panics if it does not finish within `limit` (scaled).
pub fn sowfan<S: AsRef<OsStr>>(subcommand: &str, args: &[S], limit: Duration) -> Run {
    start(subcommand, args).finish(limit)
}

/// The whole text of `stream` (empty if it is not UTF-8), each line also sent to `lines`
/// as it comes.
fn read_all(stream: impl Read + Send + 'static, lines: Sender<String>) -> JoinHandle<String> {
    std::thread::spawn(move || {
        let mut reader = BufReader::new(stream);
        let mut bytes = Vec::new();
        loop {
            let from = bytes.len();
            match reader.read_until(b'\n', &mut bytes) {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    let line = String::from_utf8_lossy(&bytes[from..]);
                    let _ = lines.send(line.trim_end_matches(['\n', '\r']).to_string());
                }
            }
        }
        String::from_utf8(bytes).unwrap_or_default()
    })
}

impl Running {
    pub fn id(&self) -> u32 {
        self.child.id()
    }

    /// Wait until the program prints a line (stdout or stderr) that satisfies `ready`, and
    /// return it; panics when none has come within `limit` (scaled) or the program ended
    /// first.
    pub fn await_line(&mut self, limit: Duration, ready: impl Fn(&str) -> bool) -> String {
        let limit = scaled(limit);
        let deadline = Instant::now() + limit;
        let mut seen = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) if ready(&line) => return line,
                Ok(line) => seen.push(line),
                Err(_) => {
                    let _ = self.child.kill();
                    panic!(
                        "sowfan {}: no awaited line within {limit:?} (or it ended); lines so \
                         far:\n{}",
                        self.subcommand,
                        seen.join("\n")
                    );
                }
            }
        }
    }

    /// Wait until the program handles SIGINT and SIGTERM (see [`await_signal_handlers`]):
    /// true then, false when it has ended first.
    pub fn await_signal_handlers(&mut self, limit: Duration) -> bool {
        await_signal_handlers(&mut self.child, limit)
    }

    /// Wait for the end; panics if it does not come within `limit` (scaled) from now.
    pub fn finish(mut self, limit: Duration) -> Run {
        let limit = scaled(limit);
        let Some(status) = wait_until(&mut self.child, limit) else {
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
        let limit = scaled(limit);
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

/// Wait for `child` to exit; `None` if it is still running after `timeout` (scaled).
pub fn wait_exit(child: &mut Child, timeout: Duration) -> Option<ExitStatus> {
    wait_until(child, scaled(timeout))
}

/// [`wait_exit`] with `timeout` as it is.
fn wait_until(child: &mut Child, timeout: Duration) -> Option<ExitStatus> {
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

/// `sowfan ARGS`, not yet started, its stdin, stdout and stderr piped: every test that
/// starts the binary starts it from here (change a stream or the environment before
/// `spawn`).
pub fn piped<S: AsRef<OsStr>>(args: &[S]) -> Command {
    let mut command = Command::new(BIN);
    command
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command
}

/// Run `sowfan ARGS` to its end (no time limit: for quick commands) and collect its output.
pub fn output<S: AsRef<OsStr>>(args: &[S]) -> Output {
    Command::new(BIN).args(args).output().expect("run sowfan")
}

/// Run `sowfan ARGS` with `input` on stdin (written by a thread, so that a process that
/// answers before it has read everything cannot block on a full pipe) and collect its output.
pub fn output_with_input<S: AsRef<OsStr>>(args: &[S], input: &str) -> Output {
    let mut child = piped(args).spawn().expect("start sowfan");
    let mut stdin = child.stdin.take().expect("stdin");
    let input = input.to_string();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(input.as_bytes());
    });
    let output = child.wait_with_output().expect("sowfan ends");
    writer.join().expect("input written");
    output
}

/// Wait until `child` has handlers for SIGINT and SIGTERM (the `SigCgt` mask of
/// /proc/<pid>/status): from then on an interrupt is the program's to handle, while one sent
/// earlier kills it at once, whatever it was asked. True then; false when the program has
/// ended first (do not signal its id then: it may be another process's). Panics when
/// neither has happened within `limit` (scaled). Without /proc, waits `limit`.
pub fn await_signal_handlers(child: &mut Child, limit: Duration) -> bool {
    let limit = scaled(limit);
    let deadline = Instant::now() + limit;
    let wanted = (1u64 << (libc::SIGINT - 1)) | (1u64 << (libc::SIGTERM - 1));
    let status = format!("/proc/{}/status", child.id());
    while Instant::now() < deadline {
        if let Ok(Some(_)) = child.try_wait() {
            return false;
        }
        if !std::path::Path::new("/proc/self/status").exists() {
            std::thread::sleep(deadline.saturating_duration_since(Instant::now()));
            return true;
        }
        let caught = std::fs::read_to_string(&status)
            .ok()
            .and_then(|text| {
                let mask = text.lines().find_map(|l| l.strip_prefix("SigCgt:"))?;
                u64::from_str_radix(mask.trim(), 16).ok()
            })
            .unwrap_or(0);
        if caught & wanted == wanted {
            return true;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let _ = child.kill();
    panic!("the program did not handle SIGINT and SIGTERM within {limit:?}");
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
