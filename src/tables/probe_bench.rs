//! How fast a probe is: the time of [`super::Tables::probe`] over a fixed, seeded sample of
//! positions the tables cover (`sowfan tablebase bench`), cold (the first time each entry
//! is read: page faults and cache misses) and warm (the same sample again, small enough to
//! stay in the caches).

use std::hint::black_box;
use std::time::{Duration, Instant};

use super::Tables;
use crate::game::Game;

/// What a probe benchmark measured.
#[derive(Debug, Clone)]
pub struct ProbeBench {
    /// Positions in the sample.
    pub positions: usize,
    /// Time a probe, on average, the first pass (cold) and the best of later passes (warm).
    pub cold: Duration,
    pub warm: Duration,
    /// Probes that found a value (all of them, unless the tables broke).
    pub answered: usize,
}

/// Probe `positions` positions drawn (seeded) from every layer of `tables`, in proportion
/// to the layers' sizes; `None` when the layers hold no position.
pub fn bench<G: Game>(
    game: &G,
    tables: &Tables,
    positions: usize,
    seed: u64,
) -> Option<ProbeBench> {
    let top = tables.max_layer();
    let sizes: Vec<u64> = (0..=top).map(|l| game.table_layer_size(l)).collect();
    let total: u64 = sizes.iter().sum();
    if total == 0 {
        return None;
    }
    let mut state = seed | 1;
    let mut next = move || {
        // xorshift64*: reproducible, no dependency.
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        state.wrapping_mul(0x2545_F491_4F6C_DD1D)
    };
    let mut sample = Vec::with_capacity(positions);
    let mut tries = 0;
    while sample.len() < positions && tries < 100 * positions.max(1) {
        tries += 1;
        let mut at = next() % total;
        let layer = sizes.iter().position(|&s| {
            if at < s {
                true
            } else {
                at -= s;
                false
            }
        })?;
        if let Some(pos) = game.table_position(layer as u32, at) {
            sample.push(pos);
        }
    }
    if sample.is_empty() {
        return None;
    }
    let pass = || {
        let started = Instant::now();
        let mut answered = 0;
        for pos in &sample {
            answered += usize::from(black_box(tables.probe(game, black_box(pos))).is_some());
        }
        (started.elapsed(), answered)
    };
    let (cold, answered) = pass();
    let warm = (0..5).map(|_| pass().0).min().unwrap_or(cold);
    let n = sample.len() as u32;
    Some(ProbeBench {
        positions: sample.len(),
        cold: cold / n,
        warm: warm / n,
        answered,
    })
}
