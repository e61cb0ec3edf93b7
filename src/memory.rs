//! Memory for big tables: how much the process may really have, and zeroed mappings that cost
//! nothing until touched and that are released off the protocol thread, and a cache
//! prefetch hint for the tables' probes.
//!
//! The most a table may take is judged from the smaller of physical memory, the memory
//! cgroup's limit (v1 or v2, the whole path up to the root) and the address-space rlimit,
//! less a reserve for the rest of the process: a `Hash` the machine cannot hold is refused
//! up front instead of being accepted and ending in the out-of-memory killer.

use std::path::{Path, PathBuf};
use std::ptr::NonNull;

use thiserror::Error;

/// Kept back from the memory limit for everything that is not the table (threads, buffers,
/// the program itself): a sixteenth of the limit, at least 64 MiB.
fn reserve(limit: u64) -> u64 {
    (limit / 16).max(64 << 20)
}

/// What limits the memory of this process, for messages and tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemoryLimits {
    pub physical: Option<u64>,
    pub cgroup: Option<u64>,
    pub address_space: Option<u64>,
}

impl MemoryLimits {
    /// Read from the running system.
    pub fn current() -> MemoryLimits {
        MemoryLimits {
            physical: physical_memory(),
            cgroup: cgroup_limit(),
            address_space: address_space_limit(),
        }
    }

    /// The smallest limit in bytes, with what it is (`None`: nothing known limits us).
    pub fn binding(&self) -> Option<(u64, &'static str)> {
        [
            (self.physical, "physical memory"),
            (self.cgroup, "the memory cgroup limit"),
            (self.address_space, "the address-space limit (ulimit -v)"),
        ]
        .into_iter()
        .filter_map(|(bytes, what)| bytes.map(|b| (b, what)))
        .min_by_key(|&(bytes, _)| bytes)
    }

    /// The largest table in MiB this process can hold (`None`: no known limit).
    pub fn table_limit_mb(&self) -> Option<usize> {
        let (limit, _) = self.binding()?;
        let usable = limit.saturating_sub(reserve(limit));
        Some(usize::try_from(usable >> 20).unwrap_or(usize::MAX).max(1))
    }
}

/// The largest hash table any tool accepts, in MiB, whatever the machine holds.
pub const MAX_HASH_MB: usize = 65536;

/// The most search threads any tool starts.
pub const MAX_THREADS: usize = 256;

/// A thread count given as `option` (`--threads`, `--concurrency`): 1..=[`MAX_THREADS`], or
/// an error that says so. The one check of every tool's thread counts.
pub fn check_threads(option: &str, requested: usize) -> Result<usize, ThreadsError> {
    if (1..=MAX_THREADS).contains(&requested) {
        Ok(requested)
    } else {
        Err(ThreadsError {
            option: option.to_string(),
            requested,
        })
    }
}

/// A number of threads (named by its option) out of range.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{option} {requested}: give a number of threads in 1..={MAX_THREADS}")]
pub struct ThreadsError {
    pub option: String,
    pub requested: usize,
}

/// The largest hash table in MiB this process can hold here: what the limits allow, at most
/// [`MAX_HASH_MB`].
pub fn max_hash_mb() -> usize {
    MemoryLimits::current()
        .table_limit_mb()
        .map_or(MAX_HASH_MB, |most| most.min(MAX_HASH_MB))
}

/// A hash table size refused by [`check_hash_mb`]; `what` names the setting (`--hash`).
#[derive(Debug, Error)]
pub enum HashSizeError {
    #[error("{what}: 0 MB is no table; give at least 1")]
    Zero { what: String },
    #[error("{what}: {mb} MB is more than the most, {MAX_HASH_MB} MB")]
    AboveMost { what: String, mb: usize },
    /// More than the limits let this process hold: at most `most` MiB, as `binding` (the
    /// limit that binds, of `limit_mb` MiB) less a reserve.
    #[error(
        "{what}: {mb} MB is more memory than this process can have here: at most {most} MB \
         ({binding} is {limit_mb} MB, less a reserve for the rest of the process)"
    )]
    AboveMemory {
        what: String,
        mb: usize,
        most: usize,
        binding: &'static str,
        limit_mb: u64,
    },
}

/// Refuse a hash table of `mb` MiB that this process cannot hold: the message names the
/// limit and what binds it. `what` names the setting in the message (`option 'Hash'`,
/// `--hash`). Shared by the protocol's `Hash` and the tools' `--hash`, so that one cap holds
/// everywhere.
pub fn check_hash_mb(what: &str, mb: usize) -> Result<(), HashSizeError> {
    let what = || what.to_string();
    if mb == 0 {
        return Err(HashSizeError::Zero { what: what() });
    }
    if mb > MAX_HASH_MB {
        return Err(HashSizeError::AboveMost { what: what(), mb });
    }
    let limits = MemoryLimits::current();
    if let (Some(most), Some((bytes, binding))) = (limits.table_limit_mb(), limits.binding())
        && mb > most
    {
        return Err(HashSizeError::AboveMemory {
            what: what(),
            mb,
            most,
            binding,
            limit_mb: bytes >> 20,
        });
    }
    Ok(())
}

fn physical_memory() -> Option<u64> {
    // SAFETY: sysconf has no preconditions; it returns -1 on error, checked below.
    let (pages, page_size) = unsafe {
        (
            libc::sysconf(libc::_SC_PHYS_PAGES),
            libc::sysconf(libc::_SC_PAGESIZE),
        )
    };
    if pages <= 0 || page_size <= 0 {
        return None;
    }
    (pages as u64).checked_mul(page_size as u64)
}

fn address_space_limit() -> Option<u64> {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes one `rlimit` into the valid, exclusively borrowed `limit`.
    let ok = unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut limit) } == 0;
    (ok && limit.rlim_cur != libc::RLIM_INFINITY).then_some(limit.rlim_cur)
}

fn cgroup_limit() -> Option<u64> {
    let membership = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    cgroup_limit_from(&membership, |path| std::fs::read_to_string(path).ok())
}

/// The memory limit of the cgroups listed in `membership` (the text of `/proc/self/cgroup`),
/// reading control files through `read`: the smallest limit from the process's own group up
/// to the root, under the usual mount points of cgroup v2 and of the v1 memory controller.
/// Inside a container the listed path may not exist under the mount (a cgroup namespace
/// shows the group as its root), so the mount's root files count too.
pub fn cgroup_limit_from(membership: &str, read: impl Fn(&Path) -> Option<String>) -> Option<u64> {
    let mut limits = Vec::new();
    for line in membership.lines() {
        let mut fields = line.splitn(3, ':');
        let (Some(_), Some(controllers), Some(path)) =
            (fields.next(), fields.next(), fields.next())
        else {
            continue;
        };
        let (mounts, file): (&[&str], &str) = if controllers.is_empty() {
            (&["/sys/fs/cgroup", "/sys/fs/cgroup/unified"], "memory.max")
        } else if controllers.split(',').any(|c| c == "memory") {
            (&["/sys/fs/cgroup/memory"], "memory.limit_in_bytes")
        } else {
            continue;
        };
        for mount in mounts {
            let mut dir = PathBuf::from(mount).join(path.trim_start_matches('/'));
            loop {
                if let Some(text) = read(&dir.join(file)) {
                    // v2 writes `max` for no limit; v1 writes a huge page-rounded number.
                    if let Ok(bytes) = text.trim().parse::<u64>()
                        && bytes < 1 << 62
                    {
                        limits.push(bytes);
                    }
                }
                if dir == Path::new(mount) || !dir.pop() || !dir.starts_with(mount) {
                    break;
                }
            }
        }
    }
    limits.into_iter().min()
}

/// Why a [`ZeroedArray`] could not be made.
#[derive(Debug, Error)]
pub enum MapError {
    /// `len` entries are more bytes than an address space has.
    #[error("{len} entries do not fit in memory")]
    TooLarge { len: usize },
    /// The system refused a mapping of `mib` MiB.
    #[error("cannot map {mib} MiB: {source}")]
    Refused { mib: usize, source: std::io::Error },
    #[error("the mapping is at address 0")]
    AtZero,
}

/// A zero-filled array of `T` in its own anonymous mapping: the operating system supplies
/// zero pages on first touch, so creating one costs nothing whatever its size, and large
/// ones ask for transparent huge pages (fewer TLB misses in the search, and a far cheaper
/// release). Dropping unmaps it.
pub struct ZeroedArray<T> {
    ptr: NonNull<T>,
    len: usize,
    bytes: usize,
}

// SAFETY: the array owns its memory exclusively, like a Box<[T]>.
unsafe impl<T: Send> Send for ZeroedArray<T> {}
// SAFETY: shared access only hands out `&[T]`, like a Box<[T]>.
unsafe impl<T: Sync> Sync for ZeroedArray<T> {}

impl<T> ZeroedArray<T> {
    /// # Safety
    /// The all-zero bit pattern must be a valid `T` (e.g. integers, atomics).
    pub unsafe fn new(len: usize) -> Result<ZeroedArray<T>, MapError> {
        let len = len.max(1);
        let bytes = len
            .checked_mul(std::mem::size_of::<T>())
            .filter(|&b| b > 0 && b <= isize::MAX as usize)
            .ok_or(MapError::TooLarge { len })?;
        // SAFETY: an anonymous private mapping with no address hint; the result is checked
        // against MAP_FAILED. Mappings are page-aligned, which satisfies any `T`'s alignment.
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                bytes,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                -1,
                0,
            )
        };
        if ptr == libc::MAP_FAILED {
            return Err(MapError::Refused {
                mib: bytes >> 20,
                source: std::io::Error::last_os_error(),
            });
        }
        if bytes >= 2 << 20 {
            // Only advice: without huge pages the table works the same, a little slower.
            // SAFETY: the range is exactly the mapping just created.
            unsafe {
                libc::madvise(ptr, bytes, libc::MADV_HUGEPAGE);
            }
        }
        let ptr = NonNull::new(ptr.cast::<T>()).ok_or(MapError::AtZero)?;
        Ok(ZeroedArray { ptr, len, bytes })
    }

    pub fn as_slice(&self) -> &[T] {
        // SAFETY: the mapping holds `len` zero-initialised `T`s (valid by `new`'s contract),
        // lives as long as `self`, and is only mutated through `T`'s interior mutability.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        false
    }

    /// Have the operating system supply the pages of entries `range` now, ready to be
    /// written, without changing their contents (Linux 5.14 and later). The error says why
    /// it cannot (`EINVAL`: an older kernel; out of memory): the pages then come on first
    /// touch.
    pub fn populate(&self, range: std::ops::Range<usize>) -> std::io::Result<()> {
        let size = std::mem::size_of::<T>();
        let page = 4096;
        let end = (range.end.min(self.len) * size).div_ceil(page) * page;
        let start = (range.start * size) / page * page;
        if start >= end {
            return Ok(());
        }
        let length = end.min(self.bytes) - start;
        // SAFETY: `start..start + length` lies within the mapping created in `new`, starts
        // on a page boundary, and populating pages leaves their contents unchanged.
        let result = unsafe {
            libc::madvise(
                self.ptr.as_ptr().cast::<u8>().add(start).cast(),
                length,
                libc::MADV_POPULATE_WRITE,
            )
        };
        if result == 0 {
            Ok(())
        } else {
            Err(std::io::Error::last_os_error())
        }
    }
}

impl<T> Drop for ZeroedArray<T> {
    fn drop(&mut self) {
        // SAFETY: `ptr`/`bytes` describe the mapping created in `new`, unmapped once here;
        // no reference into it outlives `self`.
        unsafe {
            libc::munmap(self.ptr.as_ptr().cast(), self.bytes);
        }
    }
}

/// Drop `value` on a background thread: releasing gigabytes of touched pages takes the
/// kernel a noticeable time, which must not delay `readyok` or the next command.
pub fn release_in_background<T: Send + 'static>(value: T) {
    let spawned = std::thread::Builder::new()
        .name("release".to_string())
        .spawn(move || drop(value));
    if let Err(e) = spawned {
        log::warn!("releasing memory on this thread: cannot start a thread: {e}");
    }
}

/// A hint to the processor to fetch the cache line at `address` (no effect elsewhere).
#[inline]
pub fn prefetch(address: *const u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: prefetching has no architectural effect and never faults, whatever the
    // address; SSE is part of the x86_64 baseline.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(address as *const i8);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = address;
}

/// Murmur3's 64-bit finaliser: a bijective mixer of 64-bit keys (hashes of positions,
/// table keys), so mixed keys differ exactly when keys do.
#[inline(always)]
pub fn mix64(mut k: u64) -> u64 {
    k ^= k >> 33;
    k = k.wrapping_mul(0xff51_afd7_ed55_8ccd);
    k ^= k >> 33;
    k = k.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    k ^ (k >> 33)
}

/// The memory this process could still take without pressing others: the system's
/// `MemAvailable` (free memory and caches it can drop, /proc/meminfo), at most the binding
/// limit of [`MemoryLimits`] less its reserve; `None` where neither is known.
pub fn available_bytes() -> Option<u64> {
    let free = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|text| status_kib(&text, "MemAvailable:"))
        .map(|kib| kib.saturating_mul(1024));
    let limit = MemoryLimits::current()
        .table_limit_mb()
        .map(|mb| (mb as u64) << 20);
    match (free, limit) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// The most memory this process has held resident so far, in bytes (`VmHWM` of
/// /proc/self/status; `None` where the system does not say, e.g. outside Linux).
pub fn peak_resident_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status_kib(&status, "VmHWM:").map(|kib| kib.saturating_mul(1024))
}

/// The value of a `Key:   N kB` line of a /proc status text, in KiB.
pub fn status_kib(status: &str, key: &str) -> Option<u64> {
    let line = status.lines().find(|l| l.starts_with(key))?;
    let mut words = line[key.len()..].split_whitespace();
    let kib = words.next()?.parse().ok()?;
    (words.next() == Some("kB")).then_some(kib)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn reader(files: &[(&str, &str)]) -> impl Fn(&Path) -> Option<String> {
        let files: HashMap<PathBuf, String> = files
            .iter()
            .map(|(p, t)| (PathBuf::from(p), t.to_string()))
            .collect();
        move |p| files.get(p).cloned()
    }

    #[test]
    fn cgroup_v2_limit_is_the_smallest_on_the_path() {
        let read = reader(&[
            ("/sys/fs/cgroup/user.slice/memory.max", "4294967296\n"),
            ("/sys/fs/cgroup/user.slice/job/memory.max", "max\n"),
            ("/sys/fs/cgroup/memory.max", "max\n"),
        ]);
        assert_eq!(
            cgroup_limit_from("0::/user.slice/job\n", &read),
            Some(4 << 30)
        );
        let read = reader(&[("/sys/fs/cgroup/unified/job/memory.max", "1073741824")]);
        assert_eq!(cgroup_limit_from("0::/job\n", &read), Some(1 << 30));
    }

    #[test]
    fn cgroup_v1_memory_controller_and_unlimited_groups() {
        let membership = "4:memory:/process_api/abc\n3:cpuset:/\n0::/\n";
        let read = reader(&[
            (
                "/sys/fs/cgroup/memory/process_api/abc/memory.limit_in_bytes",
                "1073741824\n",
            ),
            (
                "/sys/fs/cgroup/memory/memory.limit_in_bytes",
                "9223372036854771712\n",
            ),
        ]);
        assert_eq!(cgroup_limit_from(membership, &read), Some(1 << 30));
        let unlimited = reader(&[(
            "/sys/fs/cgroup/memory/memory.limit_in_bytes",
            "9223372036854771712\n",
        )]);
        assert_eq!(cgroup_limit_from(membership, &unlimited), None);
        assert_eq!(cgroup_limit_from("garbage\n::\n", &unlimited), None);
    }

    #[test]
    fn the_table_limit_keeps_a_reserve() {
        let limits = MemoryLimits {
            physical: Some(24 << 30),
            cgroup: Some(1 << 30),
            address_space: None,
        };
        assert_eq!(limits.binding(), Some((1 << 30, "the memory cgroup limit")));
        assert_eq!(limits.table_limit_mb(), Some(1024 - 64));
        let big = MemoryLimits {
            physical: Some(24105 << 20),
            cgroup: None,
            address_space: None,
        };
        let most = big.table_limit_mb().unwrap();
        assert!(most < 24000 && most > 20000, "{most}");
    }

    #[test]
    fn peak_resident_memory_is_read_from_the_status() {
        let status = "Name:\tsowfan\nVmPeak:\t  999 kB\nVmHWM:\t   20480 kB\nVmRSS:\t 1 kB\n";
        assert_eq!(status_kib(status, "VmHWM:"), Some(20480));
        assert_eq!(status_kib("VmHWM: 12", "VmHWM:"), None);
        assert_eq!(status_kib("VmHWM: x kB", "VmHWM:"), None);
        assert_eq!(status_kib("", "VmHWM:"), None);
        if cfg!(target_os = "linux") {
            assert!(peak_resident_bytes().is_some_and(|b| b > 0));
        }
    }

    #[test]
    fn zeroed_arrays_read_zero_and_are_writable() {
        use std::sync::atomic::{AtomicU64, Ordering};
        // SAFETY: zero is a valid AtomicU64.
        let a: ZeroedArray<AtomicU64> = unsafe { ZeroedArray::new(1 << 20) }.unwrap();
        assert_eq!(a.len(), 1 << 20);
        assert!(
            a.as_slice()
                .iter()
                .step_by(4099)
                .all(|x| x.load(Ordering::Relaxed) == 0)
        );
        a.as_slice()[12345].store(7, Ordering::Relaxed);
        assert_eq!(a.as_slice()[12345].load(Ordering::Relaxed), 7);
        release_in_background(a);
    }
}
