//! Stones on points (Fanorona): one feature a stone, "my stone on my point p" or "the
//! other's stone on my point p", from each side's view. A turn moves one stone and captures
//! some, so a side's accumulator is kept along the search and updated by the stones that
//! left or reached a point ([`StoneFeatures::update`]); it is summed afresh only at the root.
//!
//! A side's view is the board as that side sees it: side 0 (White) as it is, side 1 (Black)
//! turned half a turn, a symmetry of every board it serves, so that both sides' features
//! mean the same thing. Sets of stones are bitboards: point `p` is bit `p`.

use crate::nnue::accumulator::Accumulator;
use crate::nnue::network::{self, Network, by_width, lanes_mut};

/// The features of a board of `points` points.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StoneFeatures {
    pub points: usize,
}

impl StoneFeatures {
    /// Features a view has: a stone of either side on any point.
    pub fn inputs(&self) -> usize {
        2 * self.points
    }

    /// The feature of a stone of side `colour` on `point`, from `view`'s side (0 or 1).
    #[inline]
    pub fn feature(&self, view: usize, colour: usize, point: usize) -> usize {
        let seen = if view == 0 {
            point
        } else {
            self.points - 1 - point
        };
        if colour == view {
            seen
        } else {
            self.points + seen
        }
    }

    /// The active features of `stones` (side 0's, side 1's) from `view`'s side.
    #[inline]
    pub fn features(&self, stones: [u64; 2], view: usize) -> impl Iterator<Item = usize> + '_ {
        (0..2).flat_map(move |colour| {
            bits(stones[colour]).map(move |point| self.feature(view, colour, point))
        })
    }

    /// The output bucket of `stones` among `buckets`: by the stones on the board, out of
    /// the most a board holds (every point but one).
    #[inline]
    pub fn bucket(&self, stones: [u64; 2], buckets: usize) -> usize {
        if buckets <= 1 {
            return 0;
        }
        let count = (stones[0].count_ones() + stones[1].count_ones()) as usize;
        Network::bucket_of(buckets, count, self.points - 1)
    }

    /// Both views of `acc` from scratch for `stones`.
    pub fn refresh(&self, net: &Network, stones: [u64; 2], acc: &mut Accumulator) {
        for view in 0..2 {
            net.refresh(&mut acc.views[view], self.features(stones, view));
        }
    }

    /// `child` from `parent` after a turn took the stones from `before` to `after`: the
    /// stones that left a point are taken off, those that reached one added.
    #[inline]
    pub fn update(
        &self,
        net: &Network,
        before: [u64; 2],
        after: [u64; 2],
        parent: &Accumulator,
        child: &mut Accumulator,
    ) {
        #[cfg(target_arch = "x86_64")]
        if network::has_avx2() {
            // SAFETY: the processor has AVX2, checked just now.
            return unsafe { self.update_avx2(net, before, after, parent, child) };
        }
        self.update_lanes(net, before, after, parent, child)
    }

    /// [`StoneFeatures::update`] built with AVX2 ([`network::has_avx2`]).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn update_avx2(
        &self,
        net: &Network,
        before: [u64; 2],
        after: [u64; 2],
        parent: &Accumulator,
        child: &mut Accumulator,
    ) {
        self.update_lanes(net, before, after, parent, child)
    }

    #[inline(always)]
    fn update_lanes(
        &self,
        net: &Network,
        before: [u64; 2],
        after: [u64; 2],
        parent: &Accumulator,
        child: &mut Accumulator,
    ) {
        by_width!(net.width, W => {
            for view in 0..2 {
                // Changed in a local, stored once: the compiler can keep it in registers.
                let mut lanes = *network::lanes::<W>(&parent.views[view]);
                for colour in 0..2 {
                    let (old, new) = (before[colour], after[colour]);
                    for point in bits(old & !new) {
                        net.sub_w::<W>(&mut lanes, self.feature(view, colour, point));
                    }
                    for point in bits(new & !old) {
                        net.add_w::<W>(&mut lanes, self.feature(view, colour, point));
                    }
                }
                *lanes_mut::<W>(&mut child.views[view]) = lanes;
            }
        });
    }
}

/// The points of a set of stones, lowest first.
fn bits(mut set: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (set != 0).then(|| {
            let point = set.trailing_zeros() as usize;
            set &= set - 1;
            point
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stone_is_seen_from_the_other_side_turned_half_a_turn() {
        let board = StoneFeatures { points: 45 };
        assert_eq!(board.inputs(), 90);
        // Side 0's stone on point 3: its own from its view, the other's from side 1's.
        assert_eq!(board.feature(0, 0, 3), 3);
        assert_eq!(board.feature(1, 0, 3), 45 + 41);
        // Side 1's stone on point 3.
        assert_eq!(board.feature(1, 1, 3), 41);
        assert_eq!(board.feature(0, 1, 3), 45 + 3);
        let features: Vec<usize> = board.features([0b1, 0b10], 1).collect();
        assert_eq!(features, vec![45 + 44, 43]);
    }

    /// A turn's update (with AVX2 where the processor has it, and without) equals both
    /// views summed afresh, whatever moved and was captured.
    #[test]
    fn an_update_equals_a_refresh_with_and_without_avx2() {
        let board = StoneFeatures { points: 45 };
        for width in [64, 128, 256] {
            let mut net = Network::zeros("test", board.inputs(), width, 1);
            for (i, w) in net.w0.iter_mut().enumerate() {
                *w = ((i * 31) % 401) as i16 - 200;
            }
            for (i, b) in net.b0.iter_mut().enumerate() {
                *b = (i % 13) as i16 - 6;
            }
            let full = (1u64 << 45) - 1;
            let mut seed = 0x9e37_79b9_7f4a_7c15u64;
            let mut random = || {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                seed
            };
            for _ in 0..200 {
                let mine = random() & full;
                let before = [mine, random() & full & !mine];
                let mine = random() & full;
                let after = [mine, random() & full & !mine];
                let mut parent = Accumulator::default();
                board.refresh(&net, before, &mut parent);
                let mut fresh = Accumulator::default();
                board.refresh(&net, after, &mut fresh);
                let mut child = Accumulator::default();
                board.update_lanes(&net, before, after, &parent, &mut child);
                assert_eq!(child, fresh, "width {width}");
                #[cfg(target_arch = "x86_64")]
                if network::has_avx2() {
                    let mut child = Accumulator::default();
                    // SAFETY: the processor has AVX2, checked just now.
                    unsafe { board.update_avx2(&net, before, after, &parent, &mut child) };
                    assert_eq!(child, fresh, "width {width}");
                }
            }
        }
    }
}
