//! Limits a test puts on a process it starts (its address space, its number of threads),
//! and the rule for a check that a machine cannot make: it fails, saying what is missing,
//! unless `SOWFAN_TEST_SKIP` names it (CONTRIBUTING.md, "Checks a machine may lack"). A
//! check never passes by doing nothing.

use std::process::Command;
use std::sync::OnceLock;

/// Names the checks to leave out on a machine that cannot make them, comma-separated:
/// `cgroup` (a memory cgroup of the test's own), `nproc` (a cap on a process's threads),
/// `slurm` (a one-node Slurm, started as root).
pub const SKIP_VAR: &str = "SOWFAN_TEST_SKIP";

/// A check this machine cannot make (`why`): the test fails, unless [`SKIP_VAR`] names
/// `check`, when it says so on stderr and returns.
pub fn cannot_run_here(check: &str, why: &str) {
    let listed = std::env::var(SKIP_VAR).unwrap_or_default();
    if listed.split(',').any(|c| c.trim() == check) {
        eprintln!("left out ({SKIP_VAR} names '{check}'): {why}");
        return;
    }
    panic!(
        "{why}. This check cannot run on this machine: run the tests where it can (as root, \
         as CI does), or set {SKIP_VAR}={check} to leave it out knowingly"
    );
}

/// `program` with an address-space limit (`ulimit -v`, RLIMIT_AS) of `bytes`, set in the
/// child before it runs `program`. Lowering one's own limit needs no privilege.
pub fn with_address_space(program: &str, bytes: u64) -> Command {
    use std::os::unix::process::CommandExt;
    let mut command = Command::new(program);
    // SAFETY: between fork and exec the child only calls setrlimit (async-signal-safe) on a
    // value of its own, and reads errno.
    unsafe {
        command.pre_exec(move || {
            let limit = libc::rlimit {
                rlim_cur: bytes,
                rlim_max: bytes,
            };
            if libc::setrlimit(libc::RLIMIT_AS, &limit) == 0 {
                Ok(())
            } else {
                Err(std::io::Error::last_os_error())
            }
        });
    }
    command
}

/// The words that start a program whose user may have only N processes and threads
/// (`prlimit --nproc=N` follows). RLIMIT_NPROC binds neither root nor, reliably, a user
/// whose other processes come and go, so the program runs in a user namespace of its own
/// (where the count starts at one), as user `nobody` when the tests run as root. Where user
/// namespaces are not allowed (some containers), root falls back to `nobody` alone (its
/// other processes, usually none, count too).
fn thread_cap_prefix() -> Option<&'static [&'static str]> {
    static FOUND: OnceLock<Option<&'static [&'static str]>> = OnceLock::new();
    *FOUND.get_or_init(|| {
        const NOBODY: [&str; 4] = [
            "setpriv",
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
        ];
        // SAFETY: geteuid has no preconditions.
        let root = unsafe { libc::geteuid() } == 0;
        let candidates: &[&'static [&'static str]] = if root {
            &[
                &[
                    NOBODY[0], NOBODY[1], NOBODY[2], NOBODY[3], "unshare", "--user", "prlimit",
                ],
                &[NOBODY[0], NOBODY[1], NOBODY[2], NOBODY[3], "prlimit"],
            ]
        } else {
            &[&["unshare", "--user", "prlimit"]]
        };
        candidates.iter().copied().find(|prefix| {
            Command::new(prefix[0])
                .args(&prefix[1..])
                .args(["--nproc=64", "true"])
                .output()
                .is_ok_and(|o| o.status.success())
        })
    })
}

/// `program` run so that it can have at most `processes` processes and threads (what the
/// system answers `ulimit -u` with: a thread it cannot start), if this machine allows it
/// (see [`thread_cap_prefix`]); `None` otherwise.
pub fn with_few_threads(processes: u32, program: &str) -> Option<Command> {
    let prefix = thread_cap_prefix()?;
    let mut command = Command::new(prefix[0]);
    command
        .args(&prefix[1..])
        .arg(format!("--nproc={processes}"))
        .arg(program);
    Some(command)
}

/// Why [`with_few_threads`] found no way here.
pub const NO_THREAD_CAP: &str = "cannot cap a process's threads here: needs user namespaces \
     (`unshare --user`) or root with setpriv and prlimit";
