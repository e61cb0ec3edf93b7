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
        by_width!(net.width, W => {
            for view in 0..2 {
                let lanes = lanes_mut::<W>(&mut child.views[view]);
                *lanes = *network::lanes::<W>(&parent.views[view]);
                for colour in 0..2 {
                    let (old, new) = (before[colour], after[colour]);
                    for point in bits(old & !new) {
                        net.sub_w::<W>(lanes, self.feature(view, colour, point));
                    }
                    for point in bits(new & !old) {
                        net.add_w::<W>(lanes, self.feature(view, colour, point));
                    }
                }
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
}
