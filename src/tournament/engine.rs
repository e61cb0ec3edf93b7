//! One engine as a child process: start it, talk to it line by line with deadlines, and
//! end it (politely with `quit`, or by killing its whole process group).
//!
//! A reader thread stamps every output line with the moment it arrived, so the clock charges
//! an engine for its own thinking, not for the runner's delay in looking at the line.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use super::config::{EngineSpec, Proto, Setup};

/// Why an engine could not go on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// The process is gone or its pipes are closed.
    Crashed(String),
    /// No expected answer before the deadline.
    Silent(String),
}

impl Failure {
    pub fn message(&self) -> &str {
        match self {
            Failure::Crashed(m) | Failure::Silent(m) => m,
        }
    }
}

enum Output {
    Line(String, Instant),
    Closed,
}

pub struct EngineProcess {
    child: Child,
    stdin: Option<ChildStdin>,
    output: Receiver<Output>,
    closed: bool,
    proto: Proto,
    /// From `id name` in the handshake.
    pub id_name: Option<String>,
}

impl EngineProcess {
    /// Start the engine, do the handshake, send its options and wait until it is ready.
    pub fn start(spec: &EngineSpec, timeout: Duration) -> Result<EngineProcess, Failure> {
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
            Failure::Crashed(format!("cannot start '{}': {e}", spec.command_line()))
        })?;
        let (Some(stdout), Some(stdin)) = (child.stdout.take(), child.stdin.take()) else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(Failure::Crashed("no pipes to the engine".to_string()));
        };
        let (tx, output) = mpsc::channel();
        std::thread::Builder::new()
            .name("engine-reader".to_string())
            .spawn(move || {
                let mut reader = BufReader::new(stdout);
                let mut buffer = Vec::new();
                loop {
                    buffer.clear();
                    match reader.read_until(b'\n', &mut buffer) {
                        Ok(0) => break,
                        Ok(_) => {
                            let at = Instant::now();
                            let text = String::from_utf8_lossy(&buffer);
                            let line = text.trim_end_matches(['\n', '\r']).to_string();
                            if tx.send(Output::Line(line, at)).is_err() {
                                return;
                            }
                        }
                        Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                        Err(_) => break,
                    }
                }
                let _ = tx.send(Output::Closed);
            })
            .map_err(|e| Failure::Crashed(format!("cannot start a reader thread: {e}")))?;
        let mut engine = EngineProcess {
            child,
            stdin: Some(stdin),
            output,
            closed: false,
            proto: spec.proto,
            id_name: None,
        };
        engine.handshake(spec, timeout)?;
        Ok(engine)
    }

    fn handshake(&mut self, spec: &EngineSpec, timeout: Duration) -> Result<(), Failure> {
        let hello = self.proto.hello();
        self.send(hello)?;
        let ok = format!("{hello}ok");
        let deadline = Instant::now() + timeout;
        loop {
            match self.next_line(deadline)? {
                Some((line, _)) => {
                    if line.trim() == ok {
                        break;
                    }
                    if let Some(name) = line.trim_start().strip_prefix("id name ") {
                        self.id_name = Some(name.trim().to_string());
                    }
                }
                None => {
                    return Err(Failure::Silent(format!(
                        "no '{ok}' within {} ms after '{hello}'",
                        timeout.as_millis()
                    )));
                }
            }
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
        match setup {
            Setup::NewGame => self.send(&format!("newgame {game_spec}"))?,
            Setup::SetOption => {
                let mut words = game_spec.split_whitespace();
                let variant = words.next().unwrap_or_default();
                let options: Vec<&str> = words.collect();
                let options = if options.is_empty() {
                    "<empty>".to_string()
                } else {
                    options.join(" ")
                };
                self.send(&format!("setoption name UCI_Variant value {variant}"))?;
                self.send(&format!("setoption name GameOptions value {options}"))?;
                let reset = match self.proto {
                    Proto::Ugi => "uginewgame",
                    Proto::Uci => "ucinewgame",
                };
                self.send(reset)?;
            }
        }
        self.ping(timeout)
    }

    /// `isready`, then wait for `readyok` (other lines before it are dropped).
    pub fn ping(&mut self, timeout: Duration) -> Result<(), Failure> {
        self.send("isready")?;
        let deadline = Instant::now() + timeout;
        loop {
            match self.next_line(deadline)? {
                Some((line, _)) if line.trim() == "readyok" => return Ok(()),
                Some(_) => {}
                None => {
                    return Err(Failure::Silent(format!(
                        "no readyok within {} ms",
                        timeout.as_millis()
                    )));
                }
            }
        }
    }

    pub fn send(&mut self, line: &str) -> Result<(), Failure> {
        let Some(stdin) = self.stdin.as_mut() else {
            return Err(Failure::Crashed("its input is closed".to_string()));
        };
        let written = writeln!(stdin, "{line}").and_then(|_| stdin.flush());
        written.map_err(|e| {
            self.stdin = None;
            Failure::Crashed(format!("{} (writing '{line}': {e})", self.exit_text()))
        })
    }

    /// The next output line, `Ok(None)` at the deadline, or `Crashed` when the output ends.
    pub fn next_line(&mut self, deadline: Instant) -> Result<Option<(String, Instant)>, Failure> {
        if self.closed {
            return Err(Failure::Crashed(self.exit_text()));
        }
        let wait = deadline.saturating_duration_since(Instant::now());
        match self.output.recv_timeout(wait) {
            Ok(Output::Line(line, at)) => Ok(Some((line, at))),
            Ok(Output::Closed) | Err(RecvTimeoutError::Disconnected) => {
                self.closed = true;
                Err(Failure::Crashed(self.exit_text()))
            }
            Err(RecvTimeoutError::Timeout) => Ok(None),
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
        let _ = self.send("quit");
        self.stdin = None;
        let until = Instant::now() + grace;
        while Instant::now() < until {
            if let Ok(Some(_)) = self.child.try_wait() {
                break;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        // Drop kills whatever is left of its process group.
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
