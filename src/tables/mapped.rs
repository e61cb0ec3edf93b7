//! Table files read safely: opened only when they are regular files, and mapped under a
//! guard so that a file changing under its mapping never kills the process.
//!
//! **Opening.** A path is looked at (`stat`) before it is opened and the opened file again
//! (`fstat`): anything but a regular file (a FIFO, a device, a directory named like a layer)
//! is refused. The open itself is non-blocking (`O_NONBLOCK`), so even a FIFO put there
//! between the two looks cannot hang the caller; on a regular file the flag changes nothing.
//!
//! **Mapping.** A mapped file that is truncated (or rewritten in place, which truncates
//! first) makes every read of a page past its new end raise SIGBUS, whose default action
//! ends the process: a GUI would lose its engine in the middle of a game. Copying every
//! layer at open would cost gigabytes for big tables, and re-checking sizes before each read
//! cannot close the window between check and read. So the process installs one SIGBUS
//! handler (once, at the first mapping) that looks the faulting address up in a fixed-size,
//! lock-free registry of the mapped table ranges (registered at open, removed before
//! unmapping). For an address inside a registered range it sets that file's health flag
//! (shared by all the layers of one [`super::Tables`]), maps anonymous zero pages over the
//! whole range (`MAP_FIXED`), and returns: the faulting read retries and reads a zero, and
//! the probe, which checks the flag after its read, answers "not covered". The search goes
//! on without tables and stays correct. A fault outside every registered range (a real bug)
//! restores the default action and returns, so the retried access ends the process as
//! before; a SIGBUS sent by `kill` is raised again with the default action.
//!
//! A file rewritten in place to the same size is not a fault: each file keeps its open
//! descriptor and the (size, modification time) it had at open, and [`MappedFile::changed`]
//! compares them (one `fstat`), which [`super::Tables::failure`] does for every layer, so a
//! consumer asking before a search learns of it and the tables stop answering.

use std::fs::{File, OpenOptions};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU8, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Once};

use memmap2::Mmap;

/// Why a set of tables stopped answering, shared by its layers and the SIGBUS handler.
#[derive(Debug, Default)]
pub struct Health {
    /// Set once the tables must not be used (by the handler, the probe or a check).
    pub(super) broken: AtomicBool,
    /// The consumer was told (see [`super::Tables::new_failure`]).
    pub(super) reported: AtomicBool,
    /// What happened, when known outside the signal handler.
    pub(super) reason: Mutex<Option<String>>,
}

impl Health {
    /// Mark broken with `reason`, keeping the first reason given.
    pub(super) fn fail(&self, reason: String) {
        let mut slot = self.reason.lock().unwrap_or_else(|e| e.into_inner());
        if slot.is_none() {
            *slot = Some(reason);
        }
        self.broken.store(true, Ordering::SeqCst);
    }

    pub(super) fn reason(&self) -> Option<String> {
        self.reason
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }
}

/// Why a path was not opened as a table file.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    #[error("not a regular file ({0}); table files are regular files")]
    NotRegular(&'static str),
    #[error("{0}")]
    Io(#[from] std::io::Error),
    #[error("more than {SLOTS} table files mapped at once; open fewer table directories")]
    TooMany,
    #[error("{0}")]
    Changed(String),
}

fn kind(file_type: std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if file_type.is_dir() {
        "a directory"
    } else if file_type.is_fifo() {
        "a FIFO"
    } else if file_type.is_char_device() {
        "a character device"
    } else if file_type.is_block_device() {
        "a block device"
    } else if file_type.is_socket() {
        "a socket"
    } else {
        "not a file"
    }
}

/// What identifies the content of an open file: it changes when the file is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stamp {
    size: u64,
    mtime: (i64, i64),
    ctime: (i64, i64),
}

impl Stamp {
    fn of(meta: &std::fs::Metadata) -> Stamp {
        Stamp {
            size: meta.size(),
            mtime: (meta.mtime(), meta.mtime_nsec()),
            ctime: (meta.ctime(), meta.ctime_nsec()),
        }
    }
}

/// A table file's bytes: mapped and guarded, or (empty files, which cannot be mapped) none.
pub struct MappedFile {
    path: PathBuf,
    /// Kept open for [`MappedFile::changed`].
    file: File,
    stamp: Stamp,
    map: Option<Mmap>,
    /// The registry slot guarding `map`.
    slot: Option<usize>,
    health: Arc<Health>,
}

impl MappedFile {
    /// Open `path` if it is a regular file, map it and guard the mapping; a fault in it sets
    /// `health` broken.
    pub fn open(path: &Path, health: &Arc<Health>) -> Result<MappedFile, OpenError> {
        // Look before opening: a FIFO or a device is never opened at all.
        let meta = std::fs::metadata(path)?;
        if !meta.file_type().is_file() {
            return Err(OpenError::NotRegular(kind(meta.file_type())));
        }
        let file = OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
            .open(path)?;
        // And look again at what was opened: the path may have changed in between.
        let meta = file.metadata()?;
        if !meta.file_type().is_file() {
            return Err(OpenError::NotRegular(kind(meta.file_type())));
        }
        let stamp = Stamp::of(&meta);
        let (map, slot) = if stamp.size == 0 {
            (None, None)
        } else {
            install_handler();
            // SAFETY: a read-only map of a regular file. The file may change under it (table
            // files are written under a temporary name and renamed, but anyone may truncate
            // or overwrite one): reads past a new end raise SIGBUS, which the registered
            // guard below turns into zero pages and a broken flag (module comment).
            let map = unsafe { Mmap::map(&file) }?;
            let start = map.as_ptr() as usize;
            let len = map.len().div_ceil(page_size()) * page_size();
            let slot = register(start, start + len, &health.broken).ok_or(OpenError::TooMany)?;
            (Some(map), Some(slot))
        };
        Ok(MappedFile {
            path: path.to_path_buf(),
            file,
            stamp,
            map,
            slot,
            health: Arc::clone(health),
        })
    }

    /// The same file held in memory instead of mapped: its bytes read (not through the
    /// mapping, so that the file's pages never count as the process's) into anonymous
    /// memory in huge pages where the system gives them, then made read-only. A probe of
    /// a big table set then costs no page fault and, in huge pages, seldom a miss of the
    /// address-translation cache: a proof over 2.6 GB of tables probes them all over, and a
    /// mapping in pages of 4 KiB pays a page walk for nearly every probe. Memory the
    /// process cannot get, or a file that changed since it was opened (now, or while it is
    /// read), is an error; the copy is then not made.
    pub fn to_memory(&self) -> Result<MappedFile, OpenError> {
        let file = self.file.try_clone()?;
        if let Some(reason) = self.changed() {
            return Err(OpenError::Changed(reason));
        }
        let map = match &self.map {
            None => None,
            Some(mapped) => {
                let mut copy = memmap2::MmapOptions::new().len(mapped.len()).map_anon()?;
                // Only a hint: without huge pages the copy is still a copy.
                let _ = copy.advise(memmap2::Advice::HugePage);
                use std::os::unix::fs::FileExt;
                file.read_exact_at(&mut copy, 0).map_err(|e| {
                    if e.kind() == std::io::ErrorKind::UnexpectedEof {
                        OpenError::Changed(format!(
                            "'{}' shrank while it was read",
                            self.path.display()
                        ))
                    } else {
                        OpenError::Io(e)
                    }
                })?;
                Some(copy.make_read_only()?)
            }
        };
        if let Some(reason) = self.changed() {
            return Err(OpenError::Changed(reason));
        }
        Ok(MappedFile {
            path: self.path.clone(),
            file,
            stamp: self.stamp,
            map,
            slot: None, // memory of its own: nothing to guard
            health: Arc::clone(&self.health),
        })
    }

    /// Held in memory of its own ([`MappedFile::to_memory`]), not mapped from the file.
    pub fn in_memory(&self) -> bool {
        self.slot.is_none()
    }

    /// The file's bytes as mapped (zeros where it faulted).
    #[inline]
    pub fn bytes(&self) -> &[u8] {
        match &self.map {
            Some(map) => map,
            None => &[],
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// A read of this file faulted (it shrank under the mapping).
    pub fn faulted(&self) -> bool {
        self.slot
            .is_some_and(|slot| REGISTRY[slot].hit.load(Ordering::SeqCst))
    }

    /// The health this file reports to.
    pub fn health(&self) -> &Arc<Health> {
        &self.health
    }

    /// What went wrong with this file since it was opened, if anything: a fault under the
    /// mapping, or the file written (size or times changed; one `fstat`).
    pub fn changed(&self) -> Option<String> {
        if self.faulted() {
            return Some(format!(
                "'{}' shrank while in use (truncated or rewritten in place)",
                self.path.display()
            ));
        }
        match self.file.metadata() {
            Ok(meta) if Stamp::of(&meta) == self.stamp => None,
            Ok(meta) => Some(format!(
                "'{}' was written while in use (now {} bytes, was {})",
                self.path.display(),
                meta.size(),
                self.stamp.size
            )),
            Err(e) => Some(format!("'{}': {e}", self.path.display())),
        }
    }
}

impl Drop for MappedFile {
    fn drop(&mut self) {
        // Out of the registry before the map is unmapped (the fields drop after this).
        if let Some(slot) = self.slot {
            release(slot);
        }
    }
}

/// How many table files may be mapped at once (every layer of every table set open).
pub const SLOTS: usize = 4096;

const FREE: u8 = 0;
const CLAIMED: u8 = 1;
const ACTIVE: u8 = 2;

/// One guarded range: `start..end`, the flag to set on a fault, whether it faulted.
struct Slot {
    state: AtomicU8,
    start: AtomicUsize,
    end: AtomicUsize,
    flag: AtomicPtr<AtomicBool>,
    hit: AtomicBool,
}

#[allow(clippy::declare_interior_mutable_const)]
const EMPTY: Slot = Slot {
    state: AtomicU8::new(FREE),
    start: AtomicUsize::new(0),
    end: AtomicUsize::new(0),
    flag: AtomicPtr::new(std::ptr::null_mut()),
    hit: AtomicBool::new(false),
};

static REGISTRY: [Slot; SLOTS] = [EMPTY; SLOTS];

fn register(start: usize, end: usize, flag: &AtomicBool) -> Option<usize> {
    for (i, slot) in REGISTRY.iter().enumerate() {
        if slot
            .state
            .compare_exchange(FREE, CLAIMED, Ordering::Acquire, Ordering::Relaxed)
            .is_ok()
        {
            slot.start.store(start, Ordering::Relaxed);
            slot.end.store(end, Ordering::Relaxed);
            slot.flag.store(
                flag as *const AtomicBool as *mut AtomicBool,
                Ordering::Relaxed,
            );
            slot.hit.store(false, Ordering::Relaxed);
            slot.state.store(ACTIVE, Ordering::Release);
            return Some(i);
        }
    }
    None
}

fn release(slot: usize) {
    let slot = &REGISTRY[slot];
    slot.state.store(CLAIMED, Ordering::SeqCst);
    slot.flag.store(std::ptr::null_mut(), Ordering::SeqCst);
    slot.hit.store(false, Ordering::SeqCst);
    slot.state.store(FREE, Ordering::SeqCst);
}

fn page_size() -> usize {
    // SAFETY: sysconf has no preconditions; -1 (error) falls back to 4 KiB.
    let size = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    usize::try_from(size)
        .ok()
        .filter(|&s| s > 0)
        .unwrap_or(4096)
}

fn install_handler() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        // SAFETY: a zeroed sigaction is a valid value (empty mask, no flags); the handler
        // has the SA_SIGINFO signature and only does async-signal-safe work (atomics,
        // mmap, sigaction, raise).
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_sigbus as *const () as usize;
            action.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
            libc::sigemptyset(&mut action.sa_mask);
            if libc::sigaction(libc::SIGBUS, &action, std::ptr::null_mut()) != 0 {
                log::warn!(
                    "cannot guard table mappings (sigaction: {}): a table file truncated \
                     while in use ends the process",
                    std::io::Error::last_os_error()
                );
            }
        }
    });
}

extern "C" fn on_sigbus(signal: libc::c_int, info: *mut libc::siginfo_t, _: *mut libc::c_void) {
    // SAFETY: the kernel passes a valid siginfo for an SA_SIGINFO handler.
    let (code, address) = unsafe { ((*info).si_code, (*info).si_addr() as usize) };
    // si_code > 0: raised by the kernel for an access (not sent by kill or raise).
    if code > 0 {
        for slot in &REGISTRY {
            if slot.state.load(Ordering::Acquire) != ACTIVE {
                continue;
            }
            let start = slot.start.load(Ordering::Relaxed);
            let end = slot.end.load(Ordering::Relaxed);
            if !(start..end).contains(&address) {
                continue;
            }
            let flag = slot.flag.load(Ordering::SeqCst);
            if !flag.is_null() {
                // SAFETY: the flag lives in the Health the mapping's owner holds; the slot is
                // released before that owner (and so the flag) can go.
                unsafe { (*flag).store(true, Ordering::SeqCst) };
            }
            slot.hit.store(true, Ordering::SeqCst);
            // SAFETY: start..end is exactly a registered, page-aligned table mapping, still
            // mapped (released before unmapping); zero pages replace it so the read retries
            // and completes.
            let zeros = unsafe {
                libc::mmap(
                    start as *mut libc::c_void,
                    end - start,
                    libc::PROT_READ,
                    libc::MAP_FIXED | libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                    -1,
                    0,
                )
            };
            if zeros != libc::MAP_FAILED {
                return;
            }
            break;
        }
    }
    // Not a table's fault: the default action, as if this handler were not there.
    // SAFETY: signal and raise are async-signal-safe.
    unsafe {
        libc::signal(signal, libc::SIG_DFL);
        if code <= 0 {
            libc::raise(signal);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Cut `path` to `len` bytes in place, as someone else might under a mapping.
    fn truncate(path: &Path, len: u64) {
        let file = std::fs::OpenOptions::new().write(true).open(path).unwrap();
        file.set_len(len).unwrap();
    }

    #[test]
    fn a_file_truncated_under_its_map_reads_zeros_and_breaks_its_health() {
        let dir = std::env::temp_dir().join(format!("sowfan-mapped-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("layer-000.sftb");
        std::fs::write(&path, vec![7u8; 5 * 4096]).unwrap();
        let health = Arc::new(Health::default());
        let file = MappedFile::open(&path, &health).unwrap();
        assert_eq!(file.bytes()[4 * 4096], 7);
        assert!(file.changed().is_none());
        truncate(&path, 100);
        // A read past the new end: SIGBUS, handled.
        let byte = unsafe { std::ptr::read_volatile(&file.bytes()[4 * 4096]) };
        assert_eq!(byte, 0);
        assert!(health.broken.load(Ordering::SeqCst));
        assert!(file.faulted());
        assert!(file.changed().is_some_and(|m| m.contains("shrank")));
        drop(file);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A copy in memory holds the file's bytes, no longer depends on the file, and is refused
    /// for a file written since it was opened.
    #[test]
    fn a_copy_in_memory_holds_the_bytes_and_refuses_a_changed_file() {
        let dir = std::env::temp_dir().join(format!("sowfan-memory-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("layer-000.sftb");
        let bytes: Vec<u8> = (0..3 * 4096 + 17).map(|i| (i % 251) as u8).collect();
        std::fs::write(&path, &bytes).unwrap();
        let health = Arc::new(Health::default());
        let file = MappedFile::open(&path, &health).unwrap();
        assert!(!file.in_memory());
        let copy = file.to_memory().unwrap();
        assert!(copy.in_memory());
        assert_eq!(copy.bytes(), &bytes[..]);
        drop(file);
        assert_eq!(copy.bytes(), &bytes[..], "the copy outlives the mapping");
        // Truncated after opening: the copy is refused, and the copy made before is not
        // read from the file (no fault), though the change is reported.
        let file = MappedFile::open(&path, &health).unwrap();
        truncate(&path, 100);
        let e = file.to_memory().err();
        assert!(
            matches!(&e, Some(OpenError::Changed(m)) if m.contains("was written")),
            "{e:?}"
        );
        assert_eq!(copy.bytes()[3 * 4096], bytes[3 * 4096]);
        assert!(copy.changed().is_some());
        assert!(!health.broken.load(Ordering::SeqCst));
        drop(file);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn only_regular_files_open() {
        let dir = std::env::temp_dir().join(format!("sowfan-mapped-dir-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("layer-001.sftb")).unwrap();
        let health = Arc::new(Health::default());
        let e = MappedFile::open(&dir.join("layer-001.sftb"), &health).err();
        assert!(
            matches!(e, Some(OpenError::NotRegular("a directory"))),
            "{e:?}"
        );
        let e = MappedFile::open(Path::new("/dev/zero"), &health).err();
        assert!(matches!(e, Some(OpenError::NotRegular(_))), "{e:?}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
