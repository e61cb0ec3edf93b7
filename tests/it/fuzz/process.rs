//! The engine process: its pipes, read and written by threads.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, Sender};
use std::time::Duration;

use crate::support::BIN;
use crate::support::run::{status_kb, wait_exit};

pub(super) enum Msg {
    Out(String),
    Err(String),
    OutClosed,
}

pub(super) struct Proc {
    pub(super) child: Child,
    input: Sender<Vec<u8>>,
    pub(super) msgs: Receiver<Msg>,
}

impl Proc {
    pub(super) fn start() -> Proc {
        let bin = std::env::var_os("SOWFAN_FUZZ_BIN").unwrap_or_else(|| BIN.into());
        let mut child = Command::new(bin)
            .env_remove("RUST_LOG")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start sowfan");
        let mut stdin = child.stdin.take().expect("stdin");
        let stdout = child.stdout.take().expect("stdout");
        let stderr = child.stderr.take().expect("stderr");
        // A writer thread: the fuzzer never blocks on a full pipe, so a hang is seen as a
        // missing answer, not as a stuck test.
        let (input, to_write) = mpsc::channel::<Vec<u8>>();
        std::thread::spawn(move || {
            for chunk in to_write {
                if stdin.write_all(&chunk).and_then(|_| stdin.flush()).is_err() {
                    break;
                }
            }
        });
        let (tx, msgs) = mpsc::channel();
        let out_tx = tx.clone();
        std::thread::spawn(move || {
            read_lines(stdout, |line| out_tx.send(Msg::Out(line)).is_ok());
            let _ = out_tx.send(Msg::OutClosed);
        });
        std::thread::spawn(move || {
            read_lines(stderr, |line| tx.send(Msg::Err(line)).is_ok());
        });
        Proc { child, input, msgs }
    }

    pub(super) fn send(&self, bytes: Vec<u8>) {
        // A dead writer (the engine is gone) shows up as a crash elsewhere.
        let _ = self.input.send(bytes);
    }

    /// Peak and current resident memory in KiB (`VmHWM`, `VmRSS`).
    pub(super) fn memory(&self) -> Option<(u64, u64)> {
        let pid = self.child.id();
        Some((status_kb(pid, "VmHWM:")?, status_kb(pid, "VmRSS:")?))
    }

    pub(super) fn wait_exit(&mut self, timeout: Duration) -> Option<ExitStatus> {
        wait_exit(&mut self.child, timeout)
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Lines (split at `\n`, lossy UTF-8) until end of file or until `each` says stop.
fn read_lines(stream: impl std::io::Read, mut each: impl FnMut(String) -> bool) {
    let mut reader = BufReader::with_capacity(1 << 16, stream);
    let mut buffer = Vec::new();
    loop {
        buffer.clear();
        match reader.read_until(b'\n', &mut buffer) {
            Ok(0) | Err(_) => return,
            Ok(_) => {
                if buffer.ends_with(b"\n") {
                    buffer.pop();
                }
                if !each(String::from_utf8_lossy(&buffer).into_owned()) {
                    return;
                }
            }
        }
    }
}
