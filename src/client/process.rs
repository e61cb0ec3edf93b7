//! One engine as a child process: start it, talk to it line by line with deadlines, and
//! end it (politely with `quit`, or by killing its whole process group).
//!
//! A reader thread stamps every output line with the moment it arrived, so the clock charges
//! an engine for its own thinking, not for the runner's delay in looking at the line.
//!
//! Engines are hostile until proven otherwise, so everything is bounded: a line longer than
//! [`MAX_LINE_BYTES`] is cut and delivered as garbage; at most [`QUEUE_LINES`] lines wait
//! between the reader and the referee (a flooding engine is slowed down by its full pipe,
//! never by the runner's memory); every wait has a deadline that the runner checks itself,
//! however many lines arrive; writes to an engine that does not read its input give up
//! after the ready timeout; and a cancelled run (Ctrl-C, or a match that has decided)
//! ends every wait within [`CANCEL_POLL`].

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use super::spec::{EngineSpec, Proto, Setup};
use crate::cli::CancelToken;

/// The longest engine output line the runner reads (64 KiB); longer ones are garbage.
pub const MAX_LINE_BYTES: usize = 64 * 1024;
/// Lines read ahead of the referee, per engine.
pub const QUEUE_LINES: usize = 64;
/// How often a wait looks at its cancellation token.
pub const CANCEL_POLL: Duration = Duration::from_millis(20);

/// `now + after`, or a far-away moment when that is beyond what `Instant` can hold (the
/// timeouts come from the command line and may be huge).
pub fn deadline_after(after: Duration) -> Instant {
    let now = Instant::now();
    now.checked_add(after)
        .or_else(|| now.checked_add(Duration::from_secs(u32::MAX.into())))
        .unwrap_or(now)
}

/// Why an engine could not go on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// The program could not be started at all (a configuration error, not a fault in play).
    NotStarted(String),
    /// The process is gone or its pipes are closed.
    Crashed(String),
    /// No expected answer before the deadline (or it does not read its input).
    Silent(String),
    /// The run was cancelled (Ctrl-C, a match's SPRT decision) while waiting: nobody's
    /// fault.
    Cancelled,
}

/// How an engine failed to quit when told to ([`EngineProcess::quit_timed`]).
#[derive(Debug, thiserror::Error)]
pub enum QuitError {
    /// Still running after `grace`, and killed; `unwritten`: why `quit` could not be sent.
    #[error(
        "still running {} ms after 'quit'{}; killed",
        grace.as_millis(),
        unwritten
            .as_ref()
            .map_or_else(String::new, |why| format!("; 'quit' could not be written: {why}"))
    )]
    StillRunning {
        grace: Duration,
        unwritten: Option<String>,
    },
    #[error("cannot be waited for: {0}")]
    Wait(std::io::Error),
}

impl Failure {
    pub fn message(&self) -> &str {
        match self {
            Failure::NotStarted(m) | Failure::Crashed(m) | Failure::Silent(m) => m,
            Failure::Cancelled => "the match was stopped",
        }
    }
}

enum Output {
    Line(String, Instant),
    /// A line longer than [`MAX_LINE_BYTES`]: cut, and garbage whatever it began with.
    Overlong(Instant),
    Closed,
}

pub struct EngineProcess {
    child: Child,
    stdin: Option<ChildStdin>,
    output: Receiver<Output>,
    closed: bool,
    proto: Proto,
    /// How long a write may wait for an engine that does not read its input.
    write_timeout: Duration,
    /// Once cancelled, every wait and write ends with [`Failure::Cancelled`].
    cancel: CancelToken,
    /// From `id name` in the handshake.
    pub id_name: Option<String>,
}

impl EngineProcess {
    /// Start the engine, do the handshake, send its options and wait until it is ready.
    pub fn start(
        spec: &EngineSpec,
        timeout: Duration,
        cancel: CancelToken,
    ) -> Result<EngineProcess, Failure> {
        let mut engine = EngineProcess::spawn(spec, timeout, cancel)?;
        engine.handshake(spec, timeout)?;
        Ok(engine)
    }

    /// Start the program with its pipes and reader thread, and nothing else: no handshake
    /// (for `sowfan check`, which times and inspects the handshake itself). `write_timeout`
    /// bounds every later [`send`](Self::send). Only a program that cannot be started at
    /// all is an error ([`Failure::NotStarted`]).
    pub fn spawn(
        spec: &EngineSpec,
        write_timeout: Duration,
        cancel: CancelToken,
    ) -> Result<EngineProcess, Failure> {
        let mut command = Command::new(&spec.program);
        command
            .args(&spec.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        if let Some(dir) = &spec.dir {
            command.current_dir(dir);
        }
        #[cfg(unix)]
        {
            // Its own process group, so that killing a hung engine started through a
            // wrapper script also kills what the script started.
            use std::os::unix::process::CommandExt;
            command.process_group(0);
        }
        let mut child = command.spawn().map_err(|e| {
            Failure::NotStarted(format!("cannot start '{}': {e}", spec.command_line()))
        })?;
        let (Some(stdout), Some(stdin)) = (child.stdout.take(), child.stdin.take()) else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(Failure::NotStarted("no pipes to the engine".to_string()));
        };
        set_nonblocking(&stdin);
        let (tx, output) = mpsc::sync_channel(QUEUE_LINES);
        let reader = std::thread::Builder::new()
            .name("engine-reader".to_string())
            .spawn(move || read_lines(stdout, tx));
        let engine = EngineProcess {
            child,
            stdin: Some(stdin),
            output,
            closed: false,
            proto: spec.proto,
            write_timeout,
            cancel,
            id_name: None,
        };
        if let Err(e) = reader {
            // Dropping `engine` kills the process.
            return Err(Failure::NotStarted(format!(
                "cannot start a reader thread: {e}"
            )));
        }
        Ok(engine)
    }

    /// The handshake: `ugi` (or `uci`) answered by `ugiok` (`uciok`) within `timeout`, the
    /// `id name` on the way kept; then the `option.` settings, and `readyok`.
    fn handshake(&mut self, spec: &EngineSpec, timeout: Duration) -> Result<(), Failure> {
        let hello = self.proto.hello();
        self.send(hello)?;
        let ok = self.proto.hello_ok();
        let mut id_name = None;
        let answer = self.wait_for(ok, deadline_after(timeout), &mut |line| {
            if let Some(name) = line.trim_start().strip_prefix("id name ") {
                id_name = Some(name.trim().to_string());
            }
        })?;
        self.id_name = id_name;
        if answer.is_none() {
            return Err(Failure::Silent(format!(
                "no '{ok}' within {} ms after '{hello}'",
                timeout.as_millis()
            )));
        }
        for (name, value) in &spec.options {
            self.send(&format!("setoption name {name} value {value}"))?;
        }
        self.ping(timeout)
    }

    /// Set up a new game: `newgame …` or the `setoption` way, then wait for `readyok`.
    pub fn new_game(
        &mut self,
        setup: Setup,
        game_spec: &str,
        timeout: Duration,
    ) -> Result<(), Failure> {
        for line in setup.game_lines(game_spec) {
            self.send(&line)?;
        }
        if setup == Setup::SetOption {
            self.send(self.proto.new_game())?;
        }
        self.ping(timeout)
    }

    /// `isready`, then wait for `readyok` (other lines before it are dropped).
    pub fn ping(&mut self, timeout: Duration) -> Result<(), Failure> {
        self.send("isready")?;
        match self.wait_for("readyok", deadline_after(timeout), &mut |_| {})? {
            Some(_) => Ok(()),
            None => Err(Failure::Silent(format!(
                "no readyok within {} ms",
                timeout.as_millis()
            ))),
        }
    }

    /// Read up to the line that is `answer` (surrounding blanks aside) and return it with
    /// the moment it arrived; `Ok(None)` at the deadline. Every line before it is shown to
    /// `seen` (at most as many as arrive before the deadline: see
    /// [`next_line`](Self::next_line)).
    pub fn wait_for(
        &mut self,
        answer: &str,
        deadline: Instant,
        seen: &mut dyn FnMut(&str),
    ) -> Result<Option<(String, Instant)>, Failure> {
        while let Some((line, at)) = self.next_line(deadline)? {
            if line.trim() == answer {
                return Ok(Some((line, at)));
            }
            seen(&line);
        }
        Ok(None)
    }

    /// Write one line. The pipe is non-blocking: an engine that does not read its input
    /// (its pipe is full) is `Silent` after the write timeout instead of blocking the runner.
    pub fn send(&mut self, line: &str) -> Result<(), Failure> {
        self.send_bytes(line.as_bytes())
    }

    /// Write one line of raw bytes (a newline is added), which need not be UTF-8: for
    /// `sowfan check`, which sends bad lines on purpose. Bounded like [`send`](Self::send).
    pub fn send_bytes(&mut self, line_bytes: &[u8]) -> Result<(), Failure> {
        let line = &*String::from_utf8_lossy(line_bytes);
        let Some(stdin) = self.stdin.as_mut() else {
            return Err(Failure::Crashed("its input is closed".to_string()));
        };
        let mut bytes = Vec::with_capacity(line_bytes.len() + 1);
        bytes.extend_from_slice(line_bytes);
        bytes.push(b'\n');
        let deadline = deadline_after(self.write_timeout);
        let mut written = 0;
        while written < bytes.len() {
            if self.cancel.is_cancelled() {
                return Err(Failure::Cancelled);
            }
            match stdin.write(&bytes[written..]) {
                Ok(0) => {
                    self.stdin = None;
                    return Err(Failure::Crashed(format!(
                        "{} (writing '{}')",
                        self.exit_text(),
                        shorten(line)
                    )));
                }
                Ok(n) => written += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                    if Instant::now() >= deadline {
                        return Err(Failure::Silent(format!(
                            "does not read its input: '{}' could not be written within {} ms",
                            shorten(line),
                            self.write_timeout.as_millis()
                        )));
                    }
                    wait_writable(stdin, CANCEL_POLL);
                }
                Err(e) => {
                    self.stdin = None;
                    return Err(Failure::Crashed(format!(
                        "{} (writing '{}': {e})",
                        self.exit_text(),
                        shorten(line)
                    )));
                }
            }
        }
        Ok(())
    }

    /// The next output line, `Ok(None)` at the deadline, `Crashed` when the output ends,
    /// `Cancelled` when the run is cancelled. The deadline is checked before anything queued is
    /// taken, so an engine that writes without pause still meets its deadline. Overlong
    /// lines come back as an empty line (garbage to every reader).
    pub fn next_line(&mut self, deadline: Instant) -> Result<Option<(String, Instant)>, Failure> {
        if self.closed {
            return Err(Failure::Crashed(self.exit_text()));
        }
        loop {
            if self.cancel.is_cancelled() {
                return Err(Failure::Cancelled);
            }
            let now = Instant::now();
            if now >= deadline {
                return Ok(None);
            }
            let wait = (deadline - now).min(CANCEL_POLL);
            match self.output.recv_timeout(wait) {
                Ok(Output::Line(line, at)) => return Ok(Some((line, at))),
                Ok(Output::Overlong(at)) => return Ok(Some((String::new(), at))),
                Ok(Output::Closed) | Err(RecvTimeoutError::Disconnected) => {
                    self.closed = true;
                    return Err(Failure::Crashed(self.exit_text()));
                }
                Err(RecvTimeoutError::Timeout) => {}
            }
        }
    }

    /// How the process ended, for the record: `exited with code 3`, `killed by signal 9`.
    fn exit_text(&mut self) -> String {
        // The output closes a moment before the process can be reaped.
        let until = Instant::now() + Duration::from_millis(200);
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => return describe_exit(status),
                Ok(None) if Instant::now() < until => std::thread::sleep(Duration::from_millis(2)),
                Ok(None) => return "closed its output but is still running".to_string(),
                Err(e) => return format!("cannot be waited for: {e}"),
            }
        }
    }

    /// Ask the engine to quit; kill it if it has not exited within `grace`.
    pub fn quit(mut self, grace: Duration) {
        self.write_timeout = self.write_timeout.min(grace);
        let _ = self.send("quit");
        self.stdin = None;
        let until = deadline_after(grace);
        while Instant::now() < until {
            if let Ok(Some(_)) = self.child.try_wait() {
                break;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        // Drop kills whatever is left of its process group.
    }

    /// Send `quit` and time the exit, for `sowfan check`: `Ok((time from sending quit to
    /// the exit, how it exited))`, or `Err(what happened)` when it was still running after
    /// `grace` and was killed (with its process group). Unlike [`quit`](Self::quit), the
    /// engine's input stays open while it is given time, so only `quit` can end it, not
    /// the end of its input.
    pub fn quit_timed(mut self, grace: Duration) -> Result<(Duration, String), QuitError> {
        self.write_timeout = self.write_timeout.min(grace);
        let sent = Instant::now();
        let written = self.send("quit");
        let until = deadline_after(grace);
        loop {
            // Its last lines are read and dropped, so that a full pipe cannot keep it alive.
            while self.output.try_recv().is_ok() {}
            match self.child.try_wait() {
                Ok(Some(status)) => return Ok((sent.elapsed(), describe_exit(status))),
                Ok(None) if Instant::now() < until => {
                    std::thread::sleep(Duration::from_millis(2));
                }
                Ok(None) => {
                    // Drop kills whatever is left of its process group.
                    return Err(QuitError::StillRunning {
                        grace,
                        unwritten: written.err().map(|f| f.message().to_string()),
                    });
                }
                Err(e) => return Err(QuitError::Wait(e)),
            }
        }
    }

    fn kill(&mut self) {
        #[cfg(unix)]
        {
            // The group id is the child's pid (`process_group(0)`); Linux does not hand out
            // a pid while it still names a live group, so this cannot hit a stranger.
            if let Ok(pgid) = i32::try_from(self.child.id()) {
                // SAFETY: kill(2) with a negative pid signals that process group only; it
                // has no memory-safety preconditions.
                unsafe {
                    libc::kill(-pgid, libc::SIGKILL);
                }
            }
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for EngineProcess {
    fn drop(&mut self) {
        self.stdin = None;
        self.kill();
    }
}

/// The reader thread: lines (without their end) to `tx`, each stamped when it arrived; a
/// line over [`MAX_LINE_BYTES`] is skipped to its end and sent as [`Output::Overlong`]. Ends
/// at the end of the output, or when the runner no longer listens.
fn read_lines(stdout: std::process::ChildStdout, tx: mpsc::SyncSender<Output>) {
    let mut reader = BufReader::with_capacity(MAX_LINE_BYTES, stdout);
    let mut line: Vec<u8> = Vec::new();
    let mut overlong = false;
    loop {
        let buffer = match reader.fill_buf() {
            Ok([]) => break,
            Ok(buffer) => buffer,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        };
        let (chunk, complete) = match buffer.iter().position(|&b| b == b'\n') {
            Some(end) => (&buffer[..end], true),
            None => (buffer, false),
        };
        if !overlong {
            if line.len() + chunk.len() > MAX_LINE_BYTES {
                overlong = true;
                line = Vec::new();
            } else {
                line.extend_from_slice(chunk);
            }
        }
        let used = chunk.len() + usize::from(complete);
        reader.consume(used);
        if complete {
            let at = Instant::now();
            let output = if overlong {
                Output::Overlong(at)
            } else {
                let text = String::from_utf8_lossy(&line);
                Output::Line(text.trim_end_matches('\r').to_string(), at)
            };
            line.clear();
            overlong = false;
            if tx.send(output).is_err() {
                return;
            }
        }
    }
    if !line.is_empty() && !overlong {
        let text = String::from_utf8_lossy(&line).into_owned();
        let _ = tx.send(Output::Line(text, Instant::now()));
    }
    let _ = tx.send(Output::Closed);
}

#[cfg(unix)]
fn set_nonblocking(stdin: &ChildStdin) {
    use std::os::fd::AsRawFd;
    let fd = stdin.as_raw_fd();
    // SAFETY: fcntl on a file descriptor this process owns (the pipe to the child), with
    // flag arguments only; failures leave the pipe blocking, which is only slower to notice
    // a stuck engine.
    unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        if flags >= 0 {
            libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK);
        }
    }
}

#[cfg(not(unix))]
fn set_nonblocking(_stdin: &ChildStdin) {}

/// Wait until the pipe can take more bytes, at most `wait`.
#[cfg(unix)]
fn wait_writable(stdin: &ChildStdin, wait: Duration) {
    use std::os::fd::AsRawFd;
    let mut poll = libc::pollfd {
        fd: stdin.as_raw_fd(),
        events: libc::POLLOUT,
        revents: 0,
    };
    // SAFETY: one valid pollfd for a descriptor we own; the timeout is a plain number.
    unsafe {
        libc::poll(&mut poll, 1, wait.as_millis().min(1000) as i32);
    }
}

#[cfg(not(unix))]
fn wait_writable(_stdin: &ChildStdin, wait: Duration) {
    std::thread::sleep(wait);
}

/// A line for a message: at most 80 characters.
fn shorten(line: &str) -> String {
    if line.chars().count() <= 80 {
        line.to_string()
    } else {
        let head: String = line.chars().take(77).collect();
        format!("{head}...")
    }
}

fn describe_exit(status: std::process::ExitStatus) -> String {
    if let Some(code) = status.code() {
        return format!("exited with code {code}");
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return format!("killed by signal {signal}");
        }
    }
    format!("exited ({status})")
}

/// Engines may start processes that leave their process group (`setsid`, a daemonising
/// wrapper): killing the group misses them, and once the engine is gone they would belong to
/// init and run on. While a `Reaper` lives, this process is their "subreaper" (Linux
/// `PR_SET_CHILD_SUBREAPER`): such orphans become its children instead, and dropping the
/// reaper kills and reaps every child still left, at the end of the match or check, once
/// all the engines are gone. Elsewhere (or if the kernel refuses) it does nothing: escaped
/// processes run on there (README, "Speed and limits").
pub struct Reaper {
    active: bool,
}

impl Reaper {
    pub fn adopt_orphans() -> Reaper {
        #[cfg(target_os = "linux")]
        {
            // SAFETY: prctl with PR_SET_CHILD_SUBREAPER takes plain integers and only sets a
            // flag of this process.
            let set = unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) } == 0;
            if !set {
                log::warn!(
                    "engines' escaped processes cannot be adopted: {}",
                    std::io::Error::last_os_error()
                );
            }
            Reaper { active: set }
        }
        #[cfg(not(target_os = "linux"))]
        Reaper { active: false }
    }
}

impl Drop for Reaper {
    fn drop(&mut self) {
        if !self.active {
            return;
        }
        #[cfg(target_os = "linux")]
        {
            // A killed orphan's own children come to us in turn: a few rounds.
            for _ in 0..8 {
                let orphans = children_of(std::process::id());
                if orphans.is_empty() {
                    break;
                }
                for pid in orphans {
                    // SAFETY: kill and waitpid on a process that is our own child (its parent
                    // is this process, so its pid cannot be reused until we reap it here).
                    unsafe {
                        libc::kill(pid, libc::SIGKILL);
                        libc::waitpid(pid, std::ptr::null_mut(), 0);
                    }
                }
            }
        }
    }
}

/// The processes whose parent is `parent`, from /proc (field 4 of `/proc/PID/stat`, read
/// after the command name's closing parenthesis, which may itself hold spaces).
#[cfg(target_os = "linux")]
fn children_of(parent: u32) -> Vec<i32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|entry| {
            let name = entry.ok()?.file_name();
            let pid: i32 = name.to_str()?.parse().ok()?;
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            let rest = &stat[stat.rfind(')')? + 1..];
            let ppid: u32 = rest.split_whitespace().nth(1)?.parse().ok()?;
            (ppid == parent).then_some(pid)
        })
        .collect()
}
