//! The proof-number solver's transposition table: for each position, the proven bounds on
//! its win/draw/loss value and the proof and disproof numbers of the question being worked
//! on, in a fixed amount of memory.
//!
//! Four 16-byte entries share a 64-byte bucket; the table holds a power of two of buckets.
//! A key is first mixed (a bijection), its top bits pick the bucket and its low 45 bits are
//! kept in the entry as a check, so that together they identify the key (whole once the
//! table has 2^19 buckets, 32 MiB; a false match in a smaller table has a chance of about
//! 2^-43 a probe). When a bucket is full, the entry whose subtree cost the fewest nodes
//! makes room: the table never grows, it forgets the cheapest work first.
//!
//! Entries are atomics read and written with relaxed ordering (plain loads and stores): one
//! solver thread writes at a time; anyone may read (a saved proof file is a snapshot).

use std::sync::atomic::{AtomicU64, Ordering};

use crate::memory::mix64 as mix;
use crate::memory::{ZeroedArray, prefetch};
use crate::solver::SolverError;

/// "Infinite" proof or disproof number: the question is decided.
pub const INF: u32 = u32::MAX;

pub(super) const WAYS: usize = 4;
/// Bits of the mixed key kept in an entry.
const CHECK_BITS: u32 = 45;
const CHECK_MASK: u64 = (1 << CHECK_BITS) - 1;
/// No move recorded.
const NO_MOVE: u8 = 0xFF;

#[derive(Default)]
#[repr(C, align(64))]
pub(super) struct Bucket {
    pub(super) entries: [Entry; WAYS],
}

/// `meta`: check (45 bits) | lower (2) | upper (2) | question (1) | work (6) | move (8);
/// `numbers`: proof number (32) | disproof number (32). All zero: empty.
#[derive(Default)]
pub(super) struct Entry {
    pub(super) meta: AtomicU64,
    pub(super) numbers: AtomicU64,
}

/// What the table knows of a position, from its mover's view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Known {
    /// Proven `lower ≤ value ≤ upper`, in half-points: -2 loss, 0 draw, 2 win.
    pub lower: i32,
    pub upper: i32,
    /// The proof and disproof numbers of `question` (`None`: no numbers kept).
    pub numbers: Option<(u32, u32)>,
    /// 1: "does the mover win?", 0: "does the mover at least draw?".
    pub question: u8,
    /// The move (index in the legal-move list) that proved `lower`.
    pub best: Option<u8>,
    /// log2 of the nodes the position's subtree has cost (the replacement priority).
    pub work: u8,
}

impl Known {
    pub const NOTHING: Known = Known {
        lower: -2,
        upper: 2,
        numbers: None,
        question: 0,
        best: None,
        work: 0,
    };
}

pub struct PnTt {
    buckets: ZeroedArray<Bucket>,
    /// log2 of the bucket count.
    bits: u32,
}

/// log2 of nodes, 0..=63: a subtree's cost as the replacement compares it.
#[inline]
pub(super) fn log2_work(nodes: u64) -> u8 {
    (64 - nodes.leading_zeros()).min(63) as u8
}

fn encode_lower(lower: i32) -> u64 {
    match lower {
        l if l >= 2 => 2,
        l if l >= 0 => 1,
        _ => 0,
    }
}

fn encode_upper(upper: i32) -> u64 {
    match upper {
        u if u <= -2 => 2,
        u if u <= 0 => 1,
        _ => 0,
    }
}

/// Decode an entry; `None` if its bits are not a valid entry (a damaged proof file).
pub(super) fn decode(meta: u64, numbers: u64) -> Option<Known> {
    let lower = match (meta >> 17) & 3 {
        0 => -2,
        1 => 0,
        2 => 2,
        _ => return None,
    };
    let upper = match (meta >> 15) & 3 {
        0 => 2,
        1 => 0,
        2 => -2,
        _ => return None,
    };
    if lower > upper {
        return None;
    }
    let best = (meta & 0xFF) as u8;
    let (proof, disproof) = ((numbers >> 32) as u32, numbers as u32);
    // Numbers kept are those of an open question: never 0 or infinite.
    let open = |n: u32| n != 0 && n != INF;
    let numbers = match (proof, disproof) {
        (0, 0) => None,
        (p, d) if open(p) && open(d) => Some((p, d)),
        _ => return None,
    };
    Some(Known {
        lower,
        upper,
        numbers,
        question: ((meta >> 14) & 1) as u8,
        best: (best != NO_MOVE).then_some(best),
        work: ((meta >> 8) & 0x3F) as u8,
    })
}

fn encode(check: u64, known: &Known) -> (u64, u64) {
    let meta = check << (64 - CHECK_BITS)
        | encode_lower(known.lower) << 17
        | encode_upper(known.upper) << 15
        | u64::from(known.question & 1) << 14
        | u64::from(known.work.min(63)) << 8
        | u64::from(known.best.unwrap_or(NO_MOVE));
    let numbers = known
        .numbers
        .map_or(0, |(p, d)| u64::from(p) << 32 | u64::from(d));
    (meta, numbers)
}

impl PnTt {
    /// A table of at most `megabytes` MiB (a power of two of buckets, at least one); pages
    /// are touched only when used.
    pub fn new(megabytes: usize) -> Result<PnTt, SolverError> {
        let most = (megabytes.saturating_mul(1 << 20) / std::mem::size_of::<Bucket>()).max(1);
        let bits = usize::BITS - 1 - most.leading_zeros();
        // SAFETY: an all-zero `Bucket` is valid (atomics) and reads as empty entries.
        let buckets =
            unsafe { ZeroedArray::new(1usize << bits) }.map_err(|e| SolverError::TableMemory {
                megabytes,
                cause: e.to_string(),
            })?;
        Ok(PnTt { buckets, bits })
    }

    /// The number of buckets (a power of two).
    pub fn bucket_count(&self) -> usize {
        self.buckets.len()
    }

    pub fn megabytes(&self) -> usize {
        (self.buckets.len() * std::mem::size_of::<Bucket>()) >> 20
    }

    pub(super) fn buckets(&self) -> &[Bucket] {
        self.buckets.as_slice()
    }

    #[inline]
    fn place(&self, key: u64) -> (&Bucket, u64) {
        let mixed = mix(key);
        // `bits` is at most 58 (buckets fit in memory), so the shift is below 64.
        let index = if self.bits == 0 {
            0
        } else {
            (mixed >> (64 - self.bits)) as usize
        };
        (&self.buckets.as_slice()[index], mixed & CHECK_MASK)
    }

    #[inline]
    pub fn prefetch(&self, key: u64) {
        let (bucket, _) = self.place(key);
        prefetch(bucket as *const Bucket as *const u8);
    }

    #[inline]
    pub fn probe(&self, key: u64) -> Option<Known> {
        let (bucket, check) = self.place(key);
        for entry in &bucket.entries {
            let meta = entry.meta.load(Ordering::Relaxed);
            if meta >> (64 - CHECK_BITS) != check {
                continue;
            }
            let numbers = entry.numbers.load(Ordering::Relaxed);
            if meta == 0 && numbers == 0 {
                continue;
            }
            return decode(meta, numbers);
        }
        None
    }

    /// Write what is known of `key`, replacing its entry or, in a full bucket, the one whose
    /// subtree cost the fewest nodes (an open question before a decided one of equal cost).
    #[inline]
    pub fn store(&self, key: u64, known: &Known) {
        let (bucket, check) = self.place(key);
        let (meta, numbers) = encode(check, known);
        let mut victim = &bucket.entries[0];
        let mut victim_cost = u32::MAX;
        for entry in &bucket.entries {
            let old_meta = entry.meta.load(Ordering::Relaxed);
            let old_numbers = entry.numbers.load(Ordering::Relaxed);
            let empty = old_meta == 0 && old_numbers == 0;
            if !empty && old_meta >> (64 - CHECK_BITS) == check {
                victim = entry;
                break;
            }
            let cost = if empty {
                0
            } else {
                // Decided positions are facts: worth a little more than open ones.
                let decided = old_meta & (0xF << 15) != 0;
                1 + 2 * ((old_meta >> 8) & 0x3F) as u32 + u32::from(decided)
            };
            if cost < victim_cost {
                victim = entry;
                victim_cost = cost;
            }
        }
        victim.meta.store(meta, Ordering::Relaxed);
        victim.numbers.store(numbers, Ordering::Relaxed);
    }

    /// Forget everything (a proof file that failed half-way through loading).
    pub fn clear(&self) {
        for bucket in self.buckets.as_slice() {
            for entry in &bucket.entries {
                // Reading an untouched page costs no memory; only used entries are written.
                if entry.meta.load(Ordering::Relaxed) != 0
                    || entry.numbers.load(Ordering::Relaxed) != 0
                {
                    entry.meta.store(0, Ordering::Relaxed);
                    entry.numbers.store(0, Ordering::Relaxed);
                }
            }
        }
    }

    /// How many entries are in use (a scan of the whole table).
    pub fn entries_in_use(&self) -> u64 {
        let used = |e: &Entry| {
            e.meta.load(Ordering::Relaxed) != 0 || e.numbers.load(Ordering::Relaxed) != 0
        };
        self.buckets
            .as_slice()
            .iter()
            .map(|b| b.entries.iter().filter(|e| used(e)).count() as u64)
            .sum()
    }

    /// Permille of entries in use (sampled).
    pub fn hashfull(&self) -> u32 {
        let buckets = self.buckets.as_slice();
        let sample = buckets.len().min(250);
        let used: usize = buckets[..sample]
            .iter()
            .map(|b| {
                b.entries
                    .iter()
                    .filter(|e| {
                        e.meta.load(Ordering::Relaxed) != 0
                            || e.numbers.load(Ordering::Relaxed) != 0
                    })
                    .count()
            })
            .sum();
        (used * 1000 / (sample * WAYS).max(1)) as u32
    }
}

/// A proof file holds this table's buckets as they are ([`crate::solver::save`]).
impl crate::solver::proof_tt::ProofTt for PnTt {
    const MAGIC: &'static [u8; 8] = b"SOWFANPN";
    const OLDEST_VERSION: u32 = 1;

    fn bucket_count(&self) -> usize {
        PnTt::bucket_count(self)
    }

    fn bucket_words(&self, index: usize) -> [u64; 2 * WAYS] {
        let mut words = [0u64; 2 * WAYS];
        for (i, entry) in self.buckets()[index].entries.iter().enumerate() {
            words[2 * i] = entry.meta.load(Ordering::Relaxed);
            words[2 * i + 1] = entry.numbers.load(Ordering::Relaxed);
        }
        words
    }

    fn set_bucket_words(&self, index: usize, words: &[u64; 2 * WAYS]) {
        for (i, entry) in self.buckets()[index].entries.iter().enumerate() {
            entry.meta.store(words[2 * i], Ordering::Relaxed);
            entry.numbers.store(words[2 * i + 1], Ordering::Relaxed);
        }
    }

    fn valid_entry(meta: u64, numbers: u64) -> bool {
        (meta == 0 && numbers == 0) || decode(meta, numbers).is_some()
    }

    fn clear(&self) {
        PnTt::clear(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_round_trip_and_keys_are_checked() {
        let t = PnTt::new(1).unwrap();
        assert_eq!(t.bucket_count(), 1 << 14);
        assert_eq!(t.probe(7), None);
        let k = Known {
            lower: 0,
            upper: 2,
            numbers: Some((5, 1 << 31)),
            question: 1,
            best: Some(3),
            work: 17,
        };
        t.store(7, &k);
        assert_eq!(t.probe(7), Some(k));
        assert_eq!(t.probe(8), None);
        for (lower, upper) in [(-2, -2), (-2, 0), (0, 0), (2, 2), (-2, 2), (0, 2)] {
            let k = Known {
                lower,
                upper,
                numbers: None,
                best: None,
                ..k
            };
            t.store(9, &k);
            assert_eq!(t.probe(9), Some(k));
        }
        // Key 0 and an entry of default bounds with numbers are seen.
        let k = Known {
            numbers: Some((1, 1)),
            ..Known::NOTHING
        };
        t.store(0, &k);
        assert_eq!(t.probe(0), Some(k));
    }

    #[test]
    fn bad_bits_are_refused() {
        assert!(decode(3 << 17, 0).is_none());
        assert!(decode(3 << 15, 0).is_none());
        // lower win, upper draw
        assert!(decode(2 << 17 | 1 << 15, 0).is_none());
        assert!(decode(0, 1 << 32).is_none());
        assert!(decode(0, u64::from(INF) << 32 | 1).is_none());
        assert!(decode(0, 1 << 32 | 1).is_some());
    }

    #[test]
    fn a_full_bucket_keeps_the_costliest_entries() {
        let t = PnTt::new(1).unwrap();
        let target = t.place(1).0 as *const Bucket;
        let keys: Vec<u64> = (1..)
            .filter(|&k| std::ptr::eq(t.place(k).0, target))
            .take(6)
            .collect();
        for (i, &key) in keys[..4].iter().enumerate() {
            let k = Known {
                numbers: Some((1, 1)),
                work: 10 + i as u8,
                ..Known::NOTHING
            };
            t.store(key, &k);
        }
        let big = Known {
            numbers: Some((1, 1)),
            work: 20,
            ..Known::NOTHING
        };
        t.store(keys[4], &big);
        assert!(t.probe(keys[0]).is_none(), "the cheapest entry made room");
        for &key in &keys[1..5] {
            assert!(t.probe(key).is_some());
        }
        // A new position always finds room (the search must be able to record its path).
        let tiny = Known {
            numbers: Some((1, 1)),
            work: 0,
            ..Known::NOTHING
        };
        t.store(keys[5], &tiny);
        assert!(t.probe(keys[5]).is_some());
        assert!(t.probe(keys[1]).is_none());
        t.clear();
        assert!(keys.iter().all(|&k| t.probe(k).is_none()));
    }
}
