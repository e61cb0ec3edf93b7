//! The exact solver's transposition table: proven bounds on `final − banked` by exact key.
//!
//! Unlike the heuristic search's table there is no depth: every bound stored is a proof, valid
//! forever, so an entry only leaves to make room, the one that cost fewer nodes first. Four
//! entries share a 64-byte bucket. An entry is two words written as `key ^ data` and `data`:
//! a torn write fails the key check and reads as a miss (lock-free, as in the search's
//! table). Keys are kept whole (the games' exact keys are perfect keys for small boards), so
//! a hit is the position itself, not a hash collision.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

use super::SolverError;
use super::pn::tt::PnTt;
use crate::memory::{ZeroedArray, prefetch};

const WAYS: usize = 4;

#[derive(Default)]
#[repr(C, align(64))]
struct Bucket {
    entries: [Entry; WAYS],
}

#[derive(Default)]
struct Entry {
    check: AtomicU64,
    data: AtomicU64,
}

/// What the table knows of a position: `lower ≤ final − banked ≤ upper` (half-points), and
/// the move that proved the lower bound (an index in the legal-move list). Bounds from a
/// depth-limited search (the solver deepens step by step for its move ordering and first
/// guesses) hold for searches of at most `depth` plies; proven ones have depth [`PROVEN`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bounds {
    pub lower: i32,
    pub upper: i32,
    pub best: Option<u8>,
    pub depth: u8,
}

/// The depth of a proven bound: it holds whatever the depth of the search.
pub const PROVEN: u8 = u8::MAX;

/// Bounds are stored as i16 offsets; these stand for "nothing known".
const NO_LOWER: i16 = i16::MIN;
const NO_UPPER: i16 = i16::MAX;
const NO_MOVE: u64 = 0xFF;

pub struct SolverTt {
    buckets: ZeroedArray<Bucket>,
    /// The size asked for, which the proof-number solver's table gets too.
    megabytes: usize,
    /// The proof-number solver's table (win/draw/loss games), made when first needed: a
    /// game uses one of the two, so only one ever takes memory.
    pn: OnceLock<Result<PnTt, SolverError>>,
}

impl SolverTt {
    /// A table of `megabytes` MiB (at least one bucket); pages are touched only when used.
    pub fn new(megabytes: usize) -> Result<SolverTt, SolverError> {
        let count = (megabytes.saturating_mul(1 << 20) / std::mem::size_of::<Bucket>()).max(1);
        // SAFETY: an all-zero `Bucket` is valid (atomics), and reads as empty entries.
        let buckets = unsafe { ZeroedArray::new(count) }.map_err(|e| SolverError::TableMemory {
            megabytes,
            cause: e.to_string(),
        })?;
        Ok(SolverTt {
            buckets,
            megabytes,
            pn: OnceLock::new(),
        })
    }

    /// A table of `megabytes` MiB for solving one game: a won, drawn or lost game
    /// (`win_draw_loss`) only ever uses the proof-number solver's table, so the exact
    /// solver's gets a single bucket, and the process maps `megabytes` once, not twice (an
    /// address-space limit, `ulimit -v`, would count both).
    pub fn for_game(megabytes: usize, win_draw_loss: bool) -> Result<SolverTt, SolverError> {
        if !win_draw_loss {
            return SolverTt::new(megabytes);
        }
        let mut table = SolverTt::new(0)?;
        table.megabytes = megabytes;
        Ok(table)
    }

    /// The size asked for, in MiB (the table of the solver that runs has it).
    pub fn asked_megabytes(&self) -> usize {
        self.megabytes
    }

    /// The proof-number solver's table, of the same size, made on first use.
    pub fn pn(&self) -> Result<&PnTt, SolverError> {
        self.pn
            .get_or_init(|| PnTt::new(self.megabytes))
            .as_ref()
            .map_err(Clone::clone)
    }

    pub fn megabytes(&self) -> usize {
        (self.buckets.len() * std::mem::size_of::<Bucket>()) >> 20
    }

    #[inline]
    fn bucket(&self, key: u64) -> &Bucket {
        // Keys may be structured (perfect keys): mix before picking the bucket.
        let mixed = (key ^ (key >> 31)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let buckets = self.buckets.as_slice();
        &buckets[((mixed as u128 * buckets.len() as u128) >> 64) as usize]
    }

    /// Start loading `key`'s bucket into the cache: a node looks up all its children, so
    /// their memory latencies overlap instead of adding up.
    #[inline]
    pub fn prefetch(&self, key: u64) {
        prefetch(self.bucket(key) as *const Bucket as *const u8);
    }

    #[inline]
    pub fn probe(&self, key: u64) -> Option<Bounds> {
        self.probe_with_work(key).map(|(bounds, _)| bounds)
    }

    /// [`SolverTt::probe`], and about how many nodes the stored result took: a power of
    /// two at most that count (the table keeps its logarithm).
    #[inline]
    pub fn probe_with_work(&self, key: u64) -> Option<(Bounds, u64)> {
        for entry in &self.bucket(key).entries {
            let data = entry.data.load(Ordering::Relaxed);
            if data != 0 && entry.check.load(Ordering::Relaxed) ^ data == key {
                let work_bits = (data >> 48) & 0x7F;
                return Some((unpack(data), (1u64 << work_bits.min(63)) >> 1));
            }
        }
        None
    }

    /// Add what a search found: `lower ≤ value` and/or `value ≤ upper` (use `i32::MIN` /
    /// `i32::MAX` for none) at `depth`, merged with what the table knows of `key`: bounds of
    /// the same depth combine, deeper ones replace shallower ones. `work` (the nodes it took)
    /// decides which entry of a full bucket makes room.
    #[inline]
    pub fn store(&self, key: u64, lower: i32, upper: i32, best: Option<u8>, depth: u8, work: u64) {
        let bucket = self.bucket(key);
        let work_bits = (64 - work.leading_zeros()) as u64; // log2, 0..=64
        let mut victim = 0;
        let mut victim_work = u64::MAX;
        for (i, entry) in bucket.entries.iter().enumerate() {
            let data = entry.data.load(Ordering::Relaxed);
            if data == 0 {
                if victim_work > 0 {
                    victim = i;
                    victim_work = 0;
                }
                continue;
            }
            if entry.check.load(Ordering::Relaxed) ^ data == key {
                let old = unpack(data);
                // The move of a cut (a lower bound) is a proven refutation; the best of a
                // node where every move failed is only a guess: it does not displace one.
                let best = if lower == i32::MIN {
                    old.best.or(best)
                } else {
                    best.or(old.best)
                };
                let merged = if depth == old.depth {
                    Bounds {
                        lower: old.lower.max(lower),
                        upper: old.upper.min(upper),
                        best,
                        depth,
                    }
                } else if depth > old.depth {
                    Bounds {
                        lower,
                        upper,
                        best,
                        depth,
                    }
                } else {
                    // A shallower result only teaches a move.
                    Bounds { best, ..old }
                };
                let work = work_bits.max((data >> 48) & 0x7F);
                write(entry, key, merged, work);
                return;
            }
            // Proven entries are worth more than any heuristic one.
            let old_work =
                ((data >> 48) & 0x7F) + if unpack(data).depth == PROVEN { 64 } else { 0 };
            if old_work < victim_work {
                victim = i;
                victim_work = old_work;
            }
        }
        let bounds = Bounds {
            lower,
            upper,
            best,
            depth,
        };
        write(&bucket.entries[victim], key, bounds, work_bits);
    }

    /// Permille of entries in use (sampled): of the proof-number table once it is in use.
    pub fn hashfull(&self) -> u32 {
        if let Some(Ok(pn)) = self.pn.get() {
            return pn.hashfull();
        }
        let buckets = self.buckets.as_slice();
        let sample = buckets.len().min(250);
        let used: usize = buckets[..sample]
            .iter()
            .map(|b| {
                b.entries
                    .iter()
                    .filter(|e| e.data.load(Ordering::Relaxed) != 0)
                    .count()
            })
            .sum();
        (used * 1000 / (sample * WAYS).max(1)) as u32
    }
}

fn clamp16(value: i32, none: i16) -> i16 {
    if value == i32::MIN || value == i32::MAX {
        none
    } else {
        value.clamp(i16::MIN as i32 + 1, i16::MAX as i32 - 1) as i16
    }
}

#[inline]
fn write(entry: &Entry, key: u64, bounds: Bounds, work: u64) {
    let lower = clamp16(bounds.lower, NO_LOWER);
    let upper = clamp16(bounds.upper, NO_UPPER);
    let best = bounds.best.map_or(NO_MOVE, u64::from);
    // Bit 55 is always set so that no stored entry is all zero.
    let data = (lower as u16 as u64)
        | (upper as u16 as u64) << 16
        | best << 32
        | (bounds.depth as u64) << 40
        | (work & 0x7F) << 48
        | 1 << 55;
    entry.data.store(data, Ordering::Relaxed);
    entry.check.store(key ^ data, Ordering::Relaxed);
}

#[inline]
fn unpack(data: u64) -> Bounds {
    let lower = data as u16 as i16;
    let upper = (data >> 16) as u16 as i16;
    let best = (data >> 32) & 0xFF;
    Bounds {
        lower: if lower == NO_LOWER {
            i32::MIN
        } else {
            lower as i32
        },
        upper: if upper == NO_UPPER {
            i32::MAX
        } else {
            upper as i32
        },
        best: (best != NO_MOVE).then_some(best as u8),
        depth: (data >> 40) as u8,
    }
}

/// A proof file holds this table's buckets as they are ([`crate::solver::save`]).
impl crate::solver::proof_tt::ProofTt for SolverTt {
    const MAGIC: &'static [u8; 8] = b"SOWFANMT";
    const OLDEST_VERSION: u32 = 2;

    fn bucket_count(&self) -> usize {
        self.buckets.len()
    }

    fn bucket_words(&self, index: usize) -> [u64; 2 * WAYS] {
        let mut words = [0u64; 2 * WAYS];
        for (i, entry) in self.buckets.as_slice()[index].entries.iter().enumerate() {
            words[2 * i] = entry.check.load(Ordering::Relaxed);
            words[2 * i + 1] = entry.data.load(Ordering::Relaxed);
        }
        words
    }

    fn set_bucket_words(&self, index: usize, words: &[u64; 2 * WAYS]) {
        for (i, entry) in self.buckets.as_slice()[index].entries.iter().enumerate() {
            entry.check.store(words[2 * i], Ordering::Relaxed);
            entry.data.store(words[2 * i + 1], Ordering::Relaxed);
        }
    }

    /// Empty, or data as [`write`] makes it: bit 55 set, nothing above it.
    fn valid_entry(check: u64, data: u64) -> bool {
        (check == 0 && data == 0) || (data >> 55 == 1)
    }

    fn clear(&self) {
        for bucket in self.buckets.as_slice() {
            for entry in &bucket.entries {
                // Reading an untouched page costs no memory; only used entries are written.
                if entry.data.load(Ordering::Relaxed) != 0
                    || entry.check.load(Ordering::Relaxed) != 0
                {
                    entry.check.store(0, Ordering::Relaxed);
                    entry.data.store(0, Ordering::Relaxed);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The work a probe reports is a power of two between half the stored work and the work.
    #[test]
    fn probe_reports_about_the_stored_work() {
        let t = SolverTt::new(1).unwrap();
        for (key, work) in [(11u64, 1u64), (12, 8), (13, 100), (14, 1 << 40)] {
            t.store(key, 0, 0, None, PROVEN, work);
            let (_, reported) = t.probe_with_work(key).unwrap();
            assert!(
                reported <= work && 2 * reported > work,
                "{work} stored, {reported} read"
            );
        }
        assert_eq!(t.probe_with_work(15), None);
    }

    #[test]
    fn bounds_merge_and_keys_are_checked() {
        let t = SolverTt::new(1).unwrap();
        assert_eq!(t.probe(7), None);
        t.store(7, 4, i32::MAX, Some(2), PROVEN, 100);
        assert_eq!(
            t.probe(7),
            Some(Bounds {
                lower: 4,
                upper: i32::MAX,
                best: Some(2),
                depth: PROVEN
            })
        );
        t.store(7, i32::MIN, 10, None, PROVEN, 5);
        assert_eq!(
            t.probe(7).map(|b| (b.lower, b.upper, b.best)),
            Some((4, 10, Some(2)))
        );
        t.store(7, 6, 8, Some(1), PROVEN, 5);
        assert_eq!(
            t.probe(7).map(|b| (b.lower, b.upper, b.best)),
            Some((6, 8, Some(1)))
        );
        // A shallower, heuristic result keeps the proven bounds and only adds its move.
        t.store(7, 20, 20, Some(3), 6, 5);
        assert_eq!(
            t.probe(7).map(|b| (b.lower, b.upper, b.best, b.depth)),
            Some((6, 8, Some(3), PROVEN))
        );
        assert_eq!(t.probe(8), None);
        // Deeper replaces shallower; negative bounds and zero round-trip.
        t.store(9, -30, 0, None, 4, 1);
        t.store(9, -10, i32::MAX, None, 8, 1);
        assert_eq!(
            t.probe(9).map(|b| (b.lower, b.upper, b.depth)),
            Some((-10, i32::MAX, 8))
        );
    }

    #[test]
    fn a_full_bucket_keeps_the_costliest_entries() {
        let t = SolverTt::new(1).unwrap();
        // Find five keys of one bucket.
        let target = t.bucket(1) as *const Bucket;
        let keys: Vec<u64> = (1..)
            .filter(|&k| std::ptr::eq(t.bucket(k), target))
            .take(5)
            .collect();
        for (i, &k) in keys[..4].iter().enumerate() {
            t.store(k, 0, 0, None, PROVEN, 1 << (10 + i));
        }
        t.store(keys[4], 1, 1, None, PROVEN, 1 << 20);
        assert!(t.probe(keys[0]).is_none(), "the cheapest entry made room");
        for &k in &keys[1..] {
            assert!(t.probe(k).is_some());
        }
    }
}
