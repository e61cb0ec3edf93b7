//! The transposition table: a fixed array of two-word entries shared by all search threads.
//!
//! Lock-free in the usual way: an entry is `key ^ data` and `data`, written and read as two
//! relaxed atomics; a torn entry fails the key check and reads as a miss. Moves are stored as
//! their index in the position's legal-move list (move generation is deterministic), so the
//! table knows no game's move type.

use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, Ordering};
use std::sync::{Arc, Weak};

use thiserror::Error;

use crate::memory::{MapError, ZeroedArray};

/// What a stored score is: exact, or only a bound.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    Exact,
    /// The true score is at least this (a beta cut-off).
    Lower,
    /// The true score is at most this (every move failed low).
    Upper,
}

/// An entry as read from the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TtEntry {
    pub score: i32,
    pub depth: u32,
    pub bound: Bound,
    /// The best move's index in the legal-move list, if any.
    pub move_index: Option<u16>,
    /// The score is a proven game value (bound), not a heuristic one: no horizon below it.
    pub proven: bool,
}

#[derive(Default)]
struct Slot {
    check: AtomicU64,
    data: AtomicU64,
}

const NO_MOVE: u64 = 0xFFFF;
const ENTRY_BYTES: usize = std::mem::size_of::<Slot>();

pub struct TranspositionTable {
    slots: ZeroedArray<Slot>,
    generation: AtomicU8,
    /// Mixed into every key: [`forget`](Self::forget) changes it, so that no entry written
    /// before matches any key after.
    salt: AtomicU64,
    /// The background thread has had every page supplied (or has given up: the pages then
    /// come on first touch).
    populated: AtomicBool,
    /// How many resets ([`reset_in_background`](Self::reset_in_background)) have started,
    /// and the last of them to have emptied every slot: the table is empty (as new) when
    /// the two are equal. A newer reset makes an older one's thread stop.
    resets_started: AtomicU64,
    resets_done: AtomicU64,
    /// An entry may have been stored since the table was new or its last reset began: a
    /// reset of a table never written has nothing to zero.
    written: AtomicBool,
}

/// A hash table of `megabytes` MiB that could not be made.
#[derive(Debug, Error)]
#[error("cannot allocate {megabytes} MB for the hash table: {source}")]
pub struct HashTableError {
    pub megabytes: usize,
    pub source: MapError,
}

impl TranspositionTable {
    /// A table of `megabytes` MiB (at least one entry). The memory is a fresh mapping: no
    /// page is touched until a search writes to it, so any size is created at once, and an
    /// impossible size fails here (see [`crate::memory`] for the sizes the protocol allows).
    pub fn new(megabytes: usize) -> Result<TranspositionTable, HashTableError> {
        let count = (megabytes.saturating_mul(1 << 20) / ENTRY_BYTES).max(1);
        // SAFETY: the all-zero bit pattern is a valid `Slot` (two `AtomicU64`).
        let slots = unsafe { ZeroedArray::new(count) }
            .map_err(|source| HashTableError { megabytes, source })?;
        Ok(TranspositionTable {
            slots,
            generation: AtomicU8::new(0),
            salt: AtomicU64::new(0),
            populated: AtomicBool::new(false),
            resets_started: AtomicU64::new(0),
            resets_done: AtomicU64::new(0),
            written: AtomicBool::new(false),
        })
    }

    pub fn megabytes(&self) -> usize {
        (self.slots.len() * ENTRY_BYTES) >> 20
    }

    /// Empty every entry in place, on this thread (for tests and single-threaded tools; the
    /// protocol uses [`reset_in_background`](Self::reset_in_background)).
    pub fn clear(&self) {
        for slot in self.slots.as_slice() {
            slot.check.store(0, Ordering::Relaxed);
            slot.data.store(0, Ordering::Relaxed);
        }
        self.generation.store(0, Ordering::Relaxed);
        self.salt.store(0, Ordering::Relaxed);
        self.written.store(false, Ordering::Relaxed);
    }

    /// Make every entry unreadable at once, whatever the size: a new salt is mixed into the
    /// keys, so no old entry matches a key again (but with the odds of a 64-bit collision),
    /// and the generation moves on, so that the old entries are the first replaced. The
    /// first step of [`reset_in_background`](Self::reset_in_background).
    pub fn forget(&self) {
        let salt = self.salt.load(Ordering::Relaxed);
        // An odd step: every salt differs from the last 2^64 - 1 ones.
        self.salt
            .store(salt.wrapping_add(0x9E37_79B9_7F4A_7C15), Ordering::Relaxed);
        self.new_search();
    }

    /// Have the operating system supply every page of the table now, on a background
    /// thread, instead of one page fault at a time in the first search that touches them
    /// (with huge pages each fault zeroes 2 MiB and may wait for the kernel to compact
    /// memory: the first move after a new table took 4 to 10 times its movetime). The
    /// contents do not change, so a search may run meanwhile. The thread stops early when
    /// the table is dropped; `done` is called when every page is in place (or when they
    /// cannot be supplied ahead), unless the table was dropped first.
    pub fn populate_in_background(
        table: &Arc<TranspositionTable>,
        done: impl FnOnce() + Send + 'static,
    ) {
        let weak = Arc::downgrade(table);
        let spawned = std::thread::Builder::new()
            .name("hash-populate".to_string())
            .spawn(move || {
                if populate(weak) {
                    done();
                }
            });
        if let Err(e) = spawned {
            log::warn!("cannot start a thread to populate the hash table: {e}");
            table.populated.store(true, Ordering::Release);
        }
    }

    /// Are the table's pages in place (see
    /// [`populate_in_background`](Self::populate_in_background))?
    pub fn is_populated(&self) -> bool {
        self.populated.load(Ordering::Acquire)
    }

    /// No reset under way: the table is as new (but for the entries written since).
    pub fn is_emptied(&self) -> bool {
        self.resets_done.load(Ordering::Acquire) == self.resets_started.load(Ordering::Acquire)
    }

    /// Every page supplied and no reset under way: what `isready` waits for.
    pub fn is_ready(&self) -> bool {
        self.is_populated() && self.is_emptied()
    }

    /// `ucinewgame`, `newgame` and `Clear Hash`: back to the state of a new table, so that
    /// the same commands after a new game search as they would in a new process (one
    /// thread; `match` relies on it to play a stopped match's games again). The old entries
    /// are unreadable at once ([`forget`](Self::forget)); a background thread then zeroes
    /// every slot in place and puts the generation back to 0, and calls `done`, unless the
    /// table was dropped or reset again first. In place: the pages stay supplied (a fresh
    /// mapping made the first search of every game pay a page fault per page). On a
    /// thread: a table of gigabytes takes a second or more, and the protocol serves `stop`
    /// and `quit` meanwhile; a search started before the end is still right, as it only
    /// loses entries.
    ///
    /// A table that no entry was stored in since it was new or last emptied (a new `Hash`,
    /// then `ucinewgame`, as every GUI sends them) is as new already: only its generation
    /// goes back to 0, at once.
    pub fn reset_in_background(
        table: &Arc<TranspositionTable>,
        done: impl FnOnce() + Send + 'static,
    ) {
        // Cleared before the zeroing starts: an entry stored from now on marks it again.
        let written = table.written.swap(false, Ordering::AcqRel);
        if !written && table.is_emptied() {
            table.generation.store(0, Ordering::Relaxed);
            done();
            return;
        }
        table.forget();
        let reset = table.resets_started.fetch_add(1, Ordering::AcqRel) + 1;
        let weak = Arc::downgrade(table);
        let spawned = std::thread::Builder::new()
            .name("hash-clear".to_string())
            .spawn(move || {
                if empty(weak, reset) {
                    done();
                }
            });
        if let Err(e) = spawned {
            log::warn!("cannot start a thread to empty the hash table: {e}; emptying it now");
            table.clear();
            table.resets_done.fetch_max(reset, Ordering::AcqRel);
        }
    }

    /// Called once per search, so that entries from older searches are replaced first.
    pub fn new_search(&self) {
        let g = self.generation.load(Ordering::Relaxed);
        self.generation.store((g + 1) & 0x1F, Ordering::Relaxed);
    }

    #[inline]
    fn salted(&self, key: u64) -> u64 {
        key ^ self.salt.load(Ordering::Relaxed)
    }

    #[inline]
    fn slot(&self, key: u64) -> &Slot {
        let slots = self.slots.as_slice();
        let index = ((key as u128 * slots.len() as u128) >> 64) as usize;
        &slots[index]
    }

    #[inline]
    pub fn probe(&self, key: u64) -> Option<TtEntry> {
        let slot = self.slot(key);
        let key = self.salted(key);
        let data = slot.data.load(Ordering::Relaxed);
        let check = slot.check.load(Ordering::Relaxed);
        if check ^ data != key || data == 0 {
            return None;
        }
        Some(unpack(data))
    }

    #[inline]
    pub fn store(
        &self,
        key: u64,
        depth: u32,
        score: i32,
        bound: Bound,
        move_index: Option<u16>,
        proven: bool,
    ) {
        let slot = self.slot(key);
        let key = self.salted(key);
        // Read (a shared cache line) far more often than written.
        if !self.written.load(Ordering::Relaxed) {
            self.written.store(true, Ordering::Relaxed);
        }
        let generation = self.generation.load(Ordering::Relaxed) as u64;
        let old_data = slot.data.load(Ordering::Relaxed);
        let old_check = slot.check.load(Ordering::Relaxed);
        let same_key = old_check ^ old_data == key;
        let mut move_bits = move_index.map_or(NO_MOVE, |m| m as u64);
        if same_key && move_index.is_none() {
            move_bits = old_data >> 48; // keep the best move we knew
        }
        if old_data != 0 {
            let old = unpack(old_data);
            let old_generation = (old_data >> 43) & 0x1F;
            // Keep a deeper entry of this search, unless this one is exact or the same key.
            if !same_key
                && old_generation == generation
                && old.depth > depth + 2
                && bound != Bound::Exact
            {
                return;
            }
        }
        let bound_bits: u64 = match bound {
            Bound::Exact => 1,
            Bound::Lower => 2,
            Bound::Upper => 3,
        };
        let data = (score as u32 as u64)
            | (depth.min(255) as u64) << 32
            | bound_bits << 40
            | (proven as u64) << 42
            | generation << 43
            | move_bits << 48;
        slot.data.store(data, Ordering::Relaxed);
        slot.check.store(key ^ data, Ordering::Relaxed);
    }

    /// Permille of entries written by the current search (sampled).
    pub fn hashfull(&self) -> u32 {
        let generation = self.generation.load(Ordering::Relaxed) as u64;
        let slots = self.slots.as_slice();
        let sample = slots.len().min(1000);
        let used = slots[..sample]
            .iter()
            .filter(|s| {
                let data = s.data.load(Ordering::Relaxed);
                data != 0 && (data >> 43) & 0x1F == generation
            })
            .count();
        (used * 1000 / sample.max(1)) as u32
    }
}

/// The entries the populating and emptying threads handle at a time (8 MiB): between two
/// chunks they let go of the table, so that a dropped table is unmapped soon.
const CHUNK_SLOTS: usize = (8 << 20) / ENTRY_BYTES;

/// Zero the slots of reset number `reset` chunk by chunk, then the generation; `false` if
/// the table was dropped or reset again first.
fn empty(weak: Weak<TranspositionTable>, reset: u64) -> bool {
    let mut start = 0;
    while let Some(table) = weak.upgrade() {
        if table.resets_started.load(Ordering::Acquire) != reset {
            return false;
        }
        let slots = table.slots.as_slice();
        if start >= slots.len() {
            table.generation.store(0, Ordering::Relaxed);
            table.resets_done.fetch_max(reset, Ordering::AcqRel);
            return true;
        }
        let end = (start + CHUNK_SLOTS).min(slots.len());
        for slot in &slots[start..end] {
            slot.check.store(0, Ordering::Relaxed);
            slot.data.store(0, Ordering::Relaxed);
        }
        start = end;
    }
    false
}

/// Supply the table's pages chunk by chunk; `false` if the table was dropped first.
fn populate(weak: Weak<TranspositionTable>) -> bool {
    let mut start = 0;
    while let Some(table) = weak.upgrade() {
        let len = table.slots.len();
        if start >= len {
            table.populated.store(true, Ordering::Release);
            return true;
        }
        let end = (start + CHUNK_SLOTS).min(len);
        let supplied = table.slots.populate(start..end).or_else(|e| {
            // An older kernel: the pages are touched here instead.
            if e.raw_os_error() == Some(libc::EINVAL) {
                touch(&table, start..end);
                Ok(())
            } else {
                Err(e)
            }
        });
        if let Err(e) = supplied {
            log::debug!("the hash table's pages come on first touch: {e}");
            table.populated.store(true, Ordering::Release);
            return true;
        }
        start = end;
    }
    false
}

/// Where the kernel cannot supply pages ahead (`MADV_POPULATE_WRITE` is Linux 5.14+): write
/// to each page of `range` without changing it (an atomic `or` of 0, harmless beside a
/// search), so that the faults are taken here and not in a search.
fn touch(table: &TranspositionTable, range: std::ops::Range<usize>) {
    let per_page = (4096 / ENTRY_BYTES).max(1);
    for slot in table.slots.as_slice()[range].iter().step_by(per_page) {
        slot.check.fetch_or(0, Ordering::Relaxed);
    }
}

fn unpack(data: u64) -> TtEntry {
    let bound = match (data >> 40) & 3 {
        1 => Bound::Exact,
        2 => Bound::Lower,
        _ => Bound::Upper,
    };
    let move_bits = data >> 48;
    TtEntry {
        score: data as u32 as i32,
        depth: ((data >> 32) & 0xFF) as u32,
        bound,
        move_index: (move_bits != NO_MOVE).then_some(move_bits as u16),
        proven: (data >> 42) & 1 == 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn store_and_probe() {
        let tt = TranspositionTable::new(1).unwrap();
        assert_eq!(tt.probe(42), None);
        tt.store(42, 7, -1234, Bound::Lower, Some(3), false);
        let e = tt.probe(42).unwrap();
        assert_eq!(e.score, -1234);
        assert_eq!(e.depth, 7);
        assert_eq!(e.bound, Bound::Lower);
        assert_eq!(e.move_index, Some(3));
        assert!(!e.proven);
        // Same key without a move keeps the old move.
        tt.store(42, 8, 5, Bound::Exact, None, true);
        let e = tt.probe(42).unwrap();
        assert_eq!((e.score, e.move_index, e.proven), (5, Some(3), true));
        tt.clear();
        assert_eq!(tt.probe(42), None);
        tt.store(42, 8, 5, Bound::Exact, None, true);
        tt.forget();
        assert_eq!(tt.probe(42), None);
        tt.store(42, 3, 9, Bound::Upper, None, false);
        assert_eq!(tt.probe(42).map(|e| (e.score, e.depth)), Some((9, 3)));
    }

    #[test]
    fn populating_changes_no_entry() {
        let tt = Arc::new(TranspositionTable::new(4).unwrap());
        tt.store(42, 7, -1234, Bound::Lower, Some(3), false);
        assert!(!tt.is_populated());
        assert!(populate(Arc::downgrade(&tt)));
        assert!(tt.is_populated());
        let e = tt.probe(42).unwrap();
        assert_eq!((e.score, e.depth, e.move_index), (-1234, 7, Some(3)));
    }

    #[test]
    fn the_background_thread_says_when_the_pages_are_in_place() {
        let tt = Arc::new(TranspositionTable::new(16).unwrap());
        let (tx, rx) = std::sync::mpsc::channel();
        TranspositionTable::populate_in_background(&tt, move || {
            let _ = tx.send(());
        });
        rx.recv_timeout(std::time::Duration::from_secs(30)).unwrap();
        assert!(tt.is_populated());
        // A table dropped before its pages are supplied: nobody is told.
        let gone = Arc::downgrade(&Arc::new(TranspositionTable::new(1).unwrap()));
        assert!(!populate(gone));
    }

    #[test]
    fn a_reset_table_is_as_new_when_its_thread_is_done() {
        let tt = Arc::new(TranspositionTable::new(16).unwrap());
        for _ in 0..40 {
            tt.new_search();
        }
        for k in 1..1000u64 {
            tt.store(k << 40, 20, 1, Bound::Lower, Some(1), false);
        }
        assert!(tt.is_emptied());
        let (tx, rx) = std::sync::mpsc::channel();
        TranspositionTable::reset_in_background(&tt, move || {
            let _ = tx.send(());
        });
        // Unreadable at once, before the thread is done.
        assert_eq!(tt.probe(5 << 40), None);
        rx.recv_timeout(std::time::Duration::from_secs(30)).unwrap();
        assert!(tt.is_emptied());
        assert_eq!(tt.resets_done.load(Ordering::Acquire), 1);
        assert_eq!(tt.generation.load(Ordering::Relaxed), 0);
        assert!(tt.slots.as_slice().iter().all(|s| {
            s.check.load(Ordering::Relaxed) == 0 && s.data.load(Ordering::Relaxed) == 0
        }));
        // A reset overtaken by a newer one stops and tells nobody; the newer one finishes.
        tt.resets_started.fetch_add(1, Ordering::AcqRel);
        assert!(!tt.is_emptied());
        assert!(!empty(Arc::downgrade(&tt), 1));
        assert!(empty(Arc::downgrade(&tt), 2));
        assert_eq!(tt.resets_done.load(Ordering::Acquire), 2);
        // A table dropped before it is emptied: nobody is told.
        let gone = Arc::downgrade(&Arc::new(TranspositionTable::new(1).unwrap()));
        assert!(!empty(gone, 0));
    }

    #[test]
    fn a_table_never_written_is_reset_at_once_and_a_written_one_in_full() {
        let tt = Arc::new(TranspositionTable::new(1024).unwrap());
        for _ in 0..7 {
            tt.new_search();
        }
        let (tx, rx) = std::sync::mpsc::channel();
        let told = tx.clone();
        TranspositionTable::reset_in_background(&tt, move || {
            let _ = told.send(());
        });
        // Nothing to zero in 1 GB never written: as new before the call returns, no thread.
        assert!(tt.is_emptied());
        assert_eq!(tt.resets_started.load(Ordering::Acquire), 0);
        assert_eq!(tt.generation.load(Ordering::Relaxed), 0);
        rx.recv_timeout(std::time::Duration::from_secs(1)).unwrap();
        // One entry stored: the next reset zeroes the table on its thread.
        tt.store(9 << 40, 3, 1, Bound::Exact, None, false);
        TranspositionTable::reset_in_background(&tt, move || {
            let _ = tx.send(());
        });
        assert_eq!(tt.resets_started.load(Ordering::Acquire), 1);
        rx.recv_timeout(std::time::Duration::from_secs(60)).unwrap();
        assert!(tt.is_emptied());
        assert!(!tt.written.load(Ordering::Relaxed));
        let slot = tt.slot(9 << 40);
        assert_eq!(slot.data.load(Ordering::Relaxed), 0);
    }

    #[test]
    fn hashfull_counts_current_generation() {
        let tt = TranspositionTable::new(1).unwrap();
        assert_eq!(tt.hashfull(), 0);
        for k in 0..100_000u64 {
            tt.store(
                k.wrapping_mul(0x9E37_79B9_7F4A_7C15),
                1,
                0,
                Bound::Exact,
                None,
                false,
            );
        }
        assert!(tt.hashfull() > 500);
        tt.new_search();
        assert_eq!(tt.hashfull(), 0);
    }
}
