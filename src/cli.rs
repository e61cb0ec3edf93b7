//! What every command-line tool shares: how Ctrl-C reaches it (a cancellation token), how a
//! failure becomes an exit status, how a game is named on a command line, and the progress
//! bars of long jobs. Each tool's
//! own arguments and exit-status rules live in that tool's `command` module.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use indicatif::{ProgressBar, ProgressStyle};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicPtr, Ordering};

/// A request to stop, shared by whoever asks (Ctrl-C, a test) and whatever must end (a
/// solve, a table build, a match's waits): the one stop token, which every layer that can be
/// stopped takes. Cloning shares the same request.
#[derive(Debug, Clone, Default)]
pub struct CancelToken(Arc<AtomicBool>);

impl CancelToken {
    pub fn new() -> CancelToken {
        CancelToken::default()
    }

    /// Ask to stop; true when it had already been asked.
    pub fn cancel(&self) -> bool {
        self.0.swap(true, Ordering::Relaxed)
    }

    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }

    /// The flag itself, for the solver, perft and a session's search, solve and divide: the
    /// protocol drives them too, stopped by its `SearchControl` (the stop of one search, not
    /// a request of the whole run), so they take the bare flag that both lend.
    pub fn flag(&self) -> &AtomicBool {
        &self.0
    }
}

/// Work stopped by a request ([`CancelToken`]) before its end: the one interruption error.
/// A tool's own error wraps it, and its command answers it with [`Exit::Interrupted`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("interrupted")]
pub struct Interrupted;

/// The exit statuses of the tools: the one place their numbers are written. Each command
/// (src/commands/) says which of them it gives, and when.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Exit {
    Success = 0,
    /// An error (said on stderr), or work that did not pass: a failed check, a game that
    /// could not be read.
    Failure = 1,
    /// A configuration that leaves nothing to do (`sowfan check` without an engine).
    Usage = 2,
    /// Not decided yet (`sowfan match --report` while games are still to come).
    Running = 3,
    /// Stopped by Ctrl-C or SIGTERM: the shell's convention for a run ended by SIGINT.
    Interrupted = 130,
}

impl From<Exit> for ExitCode {
    fn from(exit: Exit) -> ExitCode {
        ExitCode::from(exit as u8)
    }
}

/// The flag of the token [`cancel_on_interrupt`] gave out last, for the signal handler.
static INTERRUPT_FLAG: AtomicPtr<AtomicBool> = AtomicPtr::new(std::ptr::null_mut());

extern "C" fn on_interrupt(_: libc::c_int) {
    // Only async-signal-safe work: an atomic swap, and `_exit` on the second signal.
    let flag = INTERRUPT_FLAG.load(Ordering::SeqCst);
    // SAFETY: a non-null pointer is the flag of a token whose Arc was leaked in
    // cancel_on_interrupt, so it lives as long as the process.
    if !flag.is_null() && unsafe { (*flag).swap(true, Ordering::SeqCst) } {
        // SAFETY: `_exit` is async-signal-safe and ends the process at once.
        unsafe { libc::_exit(Exit::Interrupted as libc::c_int) };
    }
}

/// Ctrl-C (or SIGTERM) for a long tool: the first cancels the returned token (the tool
/// stops cleanly and says what it kept); a second leaves at once with status 130, the
/// shell's convention for a run ended by SIGINT. `what` names what would be lost if the
/// handler cannot be installed.
///
/// The token is cancelled in the signal handler itself, not on a thread woken later: a
/// terminal's Ctrl-C also ends the program writing into a tool's pipe, and the end of the
/// input must never be seen before the interruption (the run would look finished and exit 0).
pub fn cancel_on_interrupt(what: &str) -> CancelToken {
    let token = CancelToken::new();
    // The handler may run at any time from now on: its flag is never freed.
    let flag = Arc::into_raw(token.0.clone());
    INTERRUPT_FLAG.store(flag.cast_mut(), Ordering::SeqCst);
    for signal in [libc::SIGINT, libc::SIGTERM] {
        // SAFETY: a zeroed sigaction is valid (empty mask, no flags); the handler only does
        // async-signal-safe work; sigaction is given valid pointers.
        let installed = unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_interrupt as *const () as libc::sighandler_t;
            action.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(signal, &action, std::ptr::null_mut()) == 0
        };
        if !installed {
            log::warn!(
                "Ctrl-C will end the program at once ({what}): {}",
                std::io::Error::last_os_error()
            );
        }
    }
    token
}

/// Write `bytes` to `path` whole or not at all: to a temporary name beside it (hidden, with
/// the process id), then renamed over `path`; the temporary file is removed on failure. A
/// symbolic link is followed (its target is replaced, not the link), and a path that is
/// something else than a regular file (a device, a FIFO, a directory) is refused: renaming
/// over it would replace it.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let path = match std::fs::canonicalize(path) {
        Ok(target) => {
            if !std::fs::metadata(&target)?.is_file() {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::InvalidInput,
                    format!("'{}' is not a regular file", path.display()),
                ));
            }
            target
        }
        // A link to a file not made yet: make its target.
        Err(_) => match std::fs::read_link(path) {
            Ok(target) => match path.parent() {
                Some(dir) if target.is_relative() => dir.join(target),
                _ => target,
            },
            Err(_) => path.to_path_buf(),
        },
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let temporary = path.with_file_name(format!(".{name}.tmp-{}", std::process::id()));
    let written =
        std::fs::write(&temporary, bytes).and_then(|_| std::fs::rename(&temporary, &path));
    if written.is_err() {
        let _ = std::fs::remove_file(&temporary);
    }
    written
}

/// Why [`open_regular`] did not open a file.
#[derive(Debug, thiserror::Error)]
pub enum OpenRegularError {
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// A FIFO, a device or a folder.
    #[error("not a regular file")]
    NotRegular,
}

/// `path` opened for reading, refused at once when it is no regular file: the open does not
/// block (a FIFO that nothing writes would wait for ever, and no signal but SIGKILL would
/// end the wait), and what it opened is checked, not the path before it (which could be
/// replaced between).
pub fn open_regular(path: &Path) -> Result<std::fs::File, OpenRegularError> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)?;
    if !file.metadata()?.is_file() {
        return Err(OpenRegularError::NotRegular);
    }
    Ok(file)
}

/// Why [`open_for_appending`] did not open a file.
#[derive(Debug, thiserror::Error)]
pub enum AppendError {
    #[error("'{}' is a FIFO that nothing reads", .0.display())]
    NoReader(PathBuf),
    #[error("cannot create '{}': {source}", path.display())]
    Create {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// `path` opened for adding to its end (created when missing). A FIFO that nothing reads is
/// refused at once: opening it would wait for a reader, and no signal but SIGKILL would end
/// that wait.
pub fn open_for_appending(path: &Path) -> Result<std::fs::File, AppendError> {
    use std::os::fd::AsRawFd;
    use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
    let fifo = std::fs::metadata(path).is_ok_and(|meta| meta.file_type().is_fifo());
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .custom_flags(if fifo { libc::O_NONBLOCK } else { 0 })
        .open(path)
        .map_err(|source| match source.raw_os_error() {
            Some(libc::ENXIO) => AppendError::NoReader(path.to_path_buf()),
            _ => AppendError::Create {
                path: path.to_path_buf(),
                source,
            },
        })?;
    if fifo {
        // Writes block again, as they should.
        // SAFETY: fcntl on an open descriptor owned by `file`.
        unsafe {
            let flags = libc::fcntl(file.as_raw_fd(), libc::F_GETFL);
            if flags >= 0 {
                libc::fcntl(file.as_raw_fd(), libc::F_SETFL, flags & !libc::O_NONBLOCK);
            }
        }
    }
    Ok(file)
}

/// Why an output (named by its option) is refused before any work.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    #[error("{option} '{}' is not a regular file", path.display())]
    NotRegular { option: String, path: PathBuf },
    #[error(
        "{option} '{}' is the same file as {input}: writing it would destroy what is read; \
         give another path",
        path.display()
    )]
    OverInput {
        option: String,
        path: PathBuf,
        input: String,
    },
    #[error("{option} '{}': cannot make its lock '{}': {source}", path.display(), lock.display())]
    MakeLock {
        option: String,
        path: PathBuf,
        lock: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "{option} '{}' is in use: another sowfan {tool} writes to it (it holds '{}'); wait \
         for it to end or give another path",
        path.display(),
        lock.display()
    )]
    InUse {
        option: String,
        path: PathBuf,
        tool: String,
        lock: PathBuf,
    },
    #[error("{option} '{}': cannot lock '{}': {source}", path.display(), lock.display())]
    Lock {
        option: String,
        path: PathBuf,
        lock: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "{option} '{}': its lock '{}' keeps being replaced; is another program removing it?",
        path.display(),
        lock.display()
    )]
    LockReplaced {
        option: String,
        path: PathBuf,
        lock: PathBuf,
    },
}

/// Refuse an output (named by `option`) that exists and is no regular file once links are
/// followed: it is read back or replaced, which a device, a FIFO or a directory cannot be.
pub fn refuse_irregular(option: &str, path: &Path) -> Result<(), OutputError> {
    match std::fs::metadata(path) {
        Ok(meta) if !meta.is_file() => Err(OutputError::NotRegular {
            option: option.to_string(),
            path: path.to_path_buf(),
        }),
        _ => Ok(()),
    }
}

/// Whether `a` and `b` name the same file: the same device and inode when both exist (links
/// and other spellings included), else the same path once the directory is resolved. For
/// refusing an output that would overwrite an input, or two outputs that would mix.
pub fn same_file(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(x), Ok(y)) => (x.dev(), x.ino()) == (y.dev(), y.ino()),
        (Err(_), Err(_)) => resolved(a).is_some_and(|x| resolved(b) == Some(x)),
        _ => false,
    }
}

/// `path` with its directory resolved (links, `..`), for a file that may not exist yet.
fn resolved(path: &Path) -> Option<PathBuf> {
    let name = path.file_name()?;
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    Some(std::fs::canonicalize(parent).ok()?.join(name))
}

/// Refuse an `output` (named by `option`) that is one of the `inputs` (each named by its
/// option): writing it would destroy what is read.
pub fn refuse_output_over_input(
    output: (&str, &Path),
    inputs: &[(&str, &Path)],
) -> Result<(), OutputError> {
    for (option, input) in inputs {
        if same_file(output.1, input) {
            return Err(OutputError::OverInput {
                option: output.0.to_string(),
                path: output.1.to_path_buf(),
                input: option.to_string(),
            });
        }
    }
    Ok(())
}

/// An output file or folder that this process writes, held against every other sowfan
/// process for as long as the value lives: an advisory lock (`flock`) on a small file beside
/// the output (`.NAME.lock`) or, for a folder, inside it (`.sowfan.lock`). Every tool that
/// writes an output takes one before any work, so a second run on the same output is refused
/// at once instead of mixing its writes with the first's. The lock file is removed when a
/// holder that held it alone is done (a shared holder leaves it: others may hold it), so a
/// refused or finished run leaves the folder as it found it. One left by a killed process is
/// unlocked (the kernel drops a dead process's locks) and is taken over.
#[derive(Debug)]
pub struct OutputLock {
    file: std::fs::File,
    /// The lock file, removed at the end; `None` when held shared.
    remove: Option<PathBuf>,
}

impl OutputLock {
    /// Hold the file `output` (named by `option`, written by the tool `tool`): links are
    /// followed, so every spelling of one file takes the same lock.
    pub fn file(option: &str, output: &Path, tool: &str) -> Result<OutputLock, OutputError> {
        let target = std::fs::canonicalize(output)
            .ok()
            .or_else(|| resolved(output))
            .unwrap_or_else(|| output.to_path_buf());
        let name = target
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let lock = target.with_file_name(format!(".{name}.lock"));
        OutputLock::take(&lock, Hold::Alone, option, output, tool)
    }

    /// Hold the folder `dir` (named by `option`), whose files the tool `tool` writes: alone,
    /// or `shared` with other such holders (the slices of one table layer, built side by side,
    /// which each hold their own part alone as well).
    pub fn folder(
        option: &str,
        dir: &Path,
        tool: &str,
        shared: bool,
    ) -> Result<OutputLock, OutputError> {
        let target = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
        let hold = if shared { Hold::Shared } else { Hold::Alone };
        OutputLock::take(&target.join(".sowfan.lock"), hold, option, dir, tool)
    }

    fn take(
        lock: &Path,
        hold: Hold,
        option: &str,
        output: &Path,
        tool: &str,
    ) -> Result<OutputLock, OutputError> {
        use std::os::unix::fs::MetadataExt;
        let named = || (option.to_string(), output.to_path_buf(), lock.to_path_buf());
        // A holder that ends removes the lock file: a lock taken on the removed file is
        // worth nothing, so the file locked must still be the one at the path.
        for _ in 0..16 {
            let file = std::fs::OpenOptions::new()
                .create(true)
                .truncate(false)
                .write(true)
                .open(lock)
                .map_err(|source| {
                    let (option, path, lock) = named();
                    OutputError::MakeLock {
                        option,
                        path,
                        lock,
                        source,
                    }
                })?;
            let locked = match hold {
                Hold::Shared => file.try_lock_shared(),
                Hold::Alone => file.try_lock(),
            };
            match locked {
                Ok(()) => {}
                Err(std::fs::TryLockError::WouldBlock) => {
                    let (option, path, lock) = named();
                    return Err(OutputError::InUse {
                        option,
                        path,
                        tool: tool.to_string(),
                        lock,
                    });
                }
                Err(std::fs::TryLockError::Error(source)) => {
                    let (option, path, lock) = named();
                    return Err(OutputError::Lock {
                        option,
                        path,
                        lock,
                        source,
                    });
                }
            }
            let still_there = match (file.metadata(), std::fs::metadata(lock)) {
                (Ok(held), Ok(now)) => (held.dev(), held.ino()) == (now.dev(), now.ino()),
                _ => false,
            };
            if still_there {
                let remove = matches!(hold, Hold::Alone).then(|| lock.to_path_buf());
                return Ok(OutputLock { file, remove });
            }
        }
        let (option, path, lock) = named();
        Err(OutputError::LockReplaced { option, path, lock })
    }
}

/// How an [`OutputLock`] holds its lock file.
#[derive(Debug, Clone, Copy)]
enum Hold {
    /// Alone, the file removed at the end.
    Alone,
    /// Shared with other shared holders; the file kept.
    Shared,
}

impl Drop for OutputLock {
    fn drop(&mut self) {
        // Removed while still locked: whoever opened it meanwhile sees it gone and retries.
        if let Some(path) = &self.remove {
            let _ = std::fs::remove_file(path);
        }
        let _ = self.file.unlock();
    }
}

/// The exit status of a tool whose only failure is an error message: printed as
/// `sowfan: <message>` on stderr, status 1.
pub fn exit_status<E: std::fmt::Display>(result: Result<(), E>) -> ExitCode {
    match result {
        Ok(()) => Exit::Success.into(),
        Err(message) => {
            eprintln!("sowfan: {message}");
            Exit::Failure.into()
        }
    }
}

/// `["kalah", "pits=4"]` → `("kalah", ["pits=4"])`; no words: Kalah with its defaults.
pub fn game_words(words: &[String]) -> (&str, Vec<&str>) {
    match words.split_first() {
        Some((name, options)) => (name.as_str(), options.iter().map(String::as_str).collect()),
        None => ("kalah", Vec::new()),
    }
}

/// A progress bar of `len` steps on stderr (drawn only when stderr is a terminal), in the
/// look of every long job here: `template` is indicatif's, e.g. `"{bar:30.cyan/blue}
/// {pos}/{len} [{elapsed_precise} < {eta}]"`. A template indicatif refuses leaves the
/// default look (the bar still counts).
pub fn progress_bar(len: u64, template: &str) -> ProgressBar {
    let bar = ProgressBar::new(len);
    if let Ok(style) = ProgressStyle::with_template(template) {
        bar.set_style(style.progress_chars("=> "));
    }
    bar
}

#[cfg(test)]
mod file_tests {
    use super::*;

    fn scratch_dir() -> PathBuf {
        let dir = std::env::temp_dir().join(format!("sowfan-cli-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("scratch directory");
        dir
    }

    #[test]
    fn an_output_over_an_input_is_refused_however_spelt() {
        let dir = scratch_dir();
        let input = dir.join("games.jsonl");
        std::fs::write(&input, "{}\n").expect("scratch file");
        let link = dir.join("link.jsonl");
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(&input, &link).expect("a link");
        for output in [
            input.clone(),
            dir.join(".").join("games.jsonl"),
            link.clone(),
        ] {
            let error = refuse_output_over_input(("--output", &output), &[("--records", &input)])
                .expect_err("the same file")
                .to_string();
            assert!(error.contains("same file as --records"), "{error}");
        }
        assert!(
            refuse_output_over_input(("--output", &dir.join("new.rs")), &[("--records", &input)])
                .is_ok()
        );
        // Two spellings of a file that does not exist yet.
        assert!(same_file(&dir.join("x"), &dir.join(".").join("x")));
        assert!(!same_file(&dir.join("x"), &dir.join("y")));
    }

    #[test]
    fn writing_atomically_follows_a_link_and_refuses_what_is_no_file() {
        let dir = scratch_dir();
        let target = dir.join("target.rs");
        std::fs::write(&target, "old").expect("scratch file");
        let link = dir.join("weights.rs");
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(&target, &link).expect("a link");
        write_atomically(&link, b"new").expect("written");
        assert!(
            std::fs::symlink_metadata(&link)
                .expect("link")
                .file_type()
                .is_symlink()
        );
        assert_eq!(std::fs::read_to_string(&target).expect("read"), "new");
        // A dangling link: its target is made.
        let missing = dir.join("missing.rs");
        let dangling = dir.join("dangling.rs");
        let _ = std::fs::remove_file(&missing);
        let _ = std::fs::remove_file(&dangling);
        std::os::unix::fs::symlink("missing.rs", &dangling).expect("a link");
        write_atomically(&dangling, b"made").expect("written");
        assert_eq!(std::fs::read_to_string(&missing).expect("read"), "made");
        assert!(
            std::fs::symlink_metadata(&dangling)
                .expect("link")
                .file_type()
                .is_symlink()
        );
        let error = refuse_irregular("--output", Path::new("/dev/null"))
            .expect_err("a device")
            .to_string();
        assert!(
            error.contains("--output '/dev/null' is not a regular file"),
            "{error}"
        );
        assert!(refuse_irregular("--output", &missing).is_ok());
        let fifo = dir.join("fifo");
        let _ = std::fs::remove_file(&fifo);
        let name = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).expect("path");
        // SAFETY: a valid NUL-terminated path.
        if unsafe { libc::mkfifo(name.as_ptr(), 0o600) } == 0 {
            let error = open_for_appending(&fifo).expect_err("a FIFO nothing reads");
            assert!(matches!(error, AppendError::NoReader(_)), "{error}");
            assert!(error.to_string().contains("nothing reads"), "{error}");
        }
        let error = write_atomically(Path::new("/dev/null"), b"x").expect_err("a device");
        assert!(error.to_string().contains("not a regular file"), "{error}");
        assert!(write_atomically(&dir, b"x").is_err());
    }
    #[test]
    fn an_output_is_held_by_one_process_however_spelt_and_freed_at_the_end() {
        let dir = scratch_dir();
        let output = dir.join("held.data");
        let _ = std::fs::remove_file(&output);
        let first = OutputLock::file("--output", &output, "datagen").expect("the first");
        let error = OutputLock::file("--output", &dir.join(".").join("held.data"), "datagen")
            .expect_err("in use")
            .to_string();
        assert!(
            error.contains("is in use: another sowfan datagen"),
            "{error}"
        );
        std::fs::write(&output, b"x").expect("scratch file");
        let link = dir.join("held-link.data");
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(&output, &link).expect("a link");
        assert!(OutputLock::file("--output", &link, "train").is_err());
        drop(first);
        assert!(
            !dir.join(".held.data.lock").exists(),
            "the lock file is removed"
        );
        let again = OutputLock::file("--output", &link, "train").expect("free again");
        let folder = dir.join("tables");
        std::fs::create_dir_all(&folder).expect("a folder");
        let tables =
            OutputLock::folder("--dir", &folder, "tablebase build", false).expect("folder");
        let error = OutputLock::folder("--dir", &folder.join("."), "tablebase build", true)
            .expect_err("held")
            .to_string();
        assert!(error.contains("--dir"), "{error}");
        drop((again, tables));
        // Shared holders (the slices of a layer) keep out one that would hold it alone.
        let slice = OutputLock::folder("--dir", &folder, "tablebase build", true).expect("1");
        let other = OutputLock::folder("--dir", &folder, "tablebase build", true).expect("2");
        assert!(OutputLock::folder("--dir", &folder, "tablebase build", false).is_err());
        drop((slice, other));
        assert!(OutputLock::folder("--dir", &folder, "tablebase build", false).is_ok());
    }
}
