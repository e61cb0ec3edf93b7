//! Drive the real `sowfan` binary through its stdin/stdout, as a GUI would. Every wait
//! here (`timeout`, `wait`) is a quiet machine's bound, stretched by
//! [`scaled`](super::timing::scaled) on a loaded one.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use super::timing::scaled;

pub const BIN: &str = env!("CARGO_BIN_EXE_sowfan");

/// A running engine with line-by-line access to its output.
pub struct Engine {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
}

impl Engine {
    pub fn start(args: &[&str]) -> Engine {
        Engine::start_command(BIN, args)
    }

    /// Any program speaking the protocol (e.g. sowfan started through a shell).
    pub fn start_command(program: &str, args: &[&str]) -> Engine {
        let mut command = Command::new(program);
        command.args(args);
        Engine::spawn(command)
    }

    /// `command` (a program speaking the protocol, its arguments and environment, e.g. with
    /// limits from [`super::limits`]), its stdin and stdout piped to this driver.
    pub fn spawn(mut command: Command) -> Engine {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start sowfan");
        let stdout = child.stdout.take().expect("stdout");
        let stdin = child.stdin.take();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Engine {
            child,
            stdin,
            lines,
        }
    }

    pub fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{line}").expect("write to engine");
        stdin.flush().expect("flush");
    }

    /// The next line, or `None` after `timeout` (scaled) or when the engine has exited.
    pub fn line(&self, timeout: Duration) -> Option<String> {
        self.next_line(scaled(timeout))
    }

    /// The next line, or `None` after `timeout` (as it is) or when the engine has exited.
    fn next_line(&self, timeout: Duration) -> Option<String> {
        match self.lines.recv_timeout(timeout) {
            Ok(line) => Some(line),
            Err(RecvTimeoutError::Timeout) | Err(RecvTimeoutError::Disconnected) => None,
        }
    }

    /// Lines up to and including the first that satisfies `done`; panics after `timeout`
    /// (scaled).
    pub fn until(&self, timeout: Duration, done: impl Fn(&str) -> bool) -> Vec<String> {
        let timeout = scaled(timeout);
        let deadline = Instant::now() + timeout;
        let mut seen = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.next_line(left) {
                Some(line) => {
                    let stop = done(&line);
                    seen.push(line);
                    if stop {
                        return seen;
                    }
                }
                None => panic!("no matching line within {timeout:?}; got {seen:#?}"),
            }
        }
    }

    /// Send a command and return the output up to a line starting with `prefix`.
    pub fn ask(&mut self, command: &str, prefix: &str) -> Vec<String> {
        self.send(command);
        self.until(Duration::from_secs(60), |l| l.starts_with(prefix))
    }

    /// Send a command, and return the output up to a line starting with `prefix` and the
    /// time from sending to that line.
    pub fn timed_ask(&mut self, command: &str, prefix: &str) -> (Vec<String>, Duration) {
        let sent = Instant::now();
        let lines = self.ask(command, prefix);
        (lines, sent.elapsed())
    }

    /// The single `response …` answer to a `query`.
    pub fn query(&mut self, what: &str) -> String {
        let lines = self.ask(&format!("query {what}"), "response ");
        lines.last().expect("a line")["response ".len()..].to_string()
    }

    /// The legal moves, as `legal` lists them.
    pub fn legal(&mut self) -> Vec<String> {
        let lines = self.ask("legal", "legal");
        let line = lines.last().expect("a legal line");
        line.split_whitespace()
            .skip(1)
            .map(str::to_string)
            .collect()
    }

    /// Nothing more arrives within `wait` (scaled).
    pub fn silent_for(&self, wait: Duration) -> Option<String> {
        self.line(wait)
    }

    /// The engine's process id (to signal it).
    pub fn id(&self) -> u32 {
        self.child.id()
    }

    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// Wait for the process to exit; `None` if it is still running after `timeout` (scaled).
    pub fn wait_exit(&mut self, timeout: Duration) -> Option<std::process::ExitStatus> {
        super::run::wait_exit(&mut self.child, timeout)
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Pipe a whole script into a fresh engine, close stdin, and return everything it printed.
/// Panics if the engine does not exit by itself within `timeout` (scaled).
pub fn run_script(args: &[&str], script: &str, timeout: Duration) -> String {
    let mut engine = Engine::start(args);
    {
        let stdin = engine.stdin.as_mut().expect("stdin");
        stdin.write_all(script.as_bytes()).expect("write script");
    }
    engine.close_stdin();
    let status = engine
        .wait_exit(timeout)
        .unwrap_or_else(|| panic!("engine did not exit within {timeout:?}"));
    assert!(status.success(), "engine exited with {status}");
    let mut out = String::new();
    while let Some(line) = engine.line(Duration::from_millis(200)) {
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// The value after `key` in an `info`-style line (`score cp 12` → `cp`, `nodes 5` → `5`).
pub fn field<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let mut words = line.split_whitespace();
    while let Some(w) = words.next() {
        if w == key {
            return words.next();
        }
    }
    None
}

/// The last line of a search's output that reports a score (`info … score …`): what the
/// search concluded. Panics, showing the lines, when none does.
pub fn last_score<S: AsRef<str>>(lines: &[S]) -> &str {
    lines
        .iter()
        .map(AsRef::as_ref)
        .rfind(|l| l.starts_with("info ") && l.contains(" score "))
        .unwrap_or_else(|| {
            let all: Vec<&str> = lines.iter().map(AsRef::as_ref).collect();
            panic!("no info line with a score in {all:#?}")
        })
}

/// The `cp` value of an `info` line, `None` when its score is not in cp (a mate) or absent.
pub fn cp(line: &str) -> Option<i64> {
    field(line, "cp").map(|v| {
        v.parse()
            .unwrap_or_else(|_| panic!("cp is no number in {line}"))
    })
}
