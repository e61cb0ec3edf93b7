//! Pits and stores (Kalah, Afrika, Anywoli): which features a sowing board has for the
//! network, and the network a sowing game evaluates with.
//!
//! From one side's view (the viewer), one-hot:
//! - each pit's seeds, the viewer's row from its left and then the opponent's row from
//!   theirs (the board turned half a turn for the other side: the rules are the same);
//!   counts above `pit_cap` share the cap's feature;
//! - the viewer's store and the opponent's, each up to `store_cap`;
//! - the store difference (viewer's less the opponent's), clipped to ±`lead_cap`.
//!
//! A sowing turn changes most of a row, so the first layer is computed afresh for each
//! evaluated position (a few dozen columns), not kept and updated along the search: these
//! games do not accumulate (`NetworkFeatures::accumulates` is false).

use std::sync::Arc;

use crate::nnue::network::{Network, NetworkError};

/// The features' layout of a board of `pits` pits a side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SowingFeatures {
    pub pits: usize,
    pub pit_cap: u32,
    pub store_cap: u32,
    pub lead_cap: u32,
}

/// One side's view of a board: its row and store, and the opponent's.
#[derive(Clone, Copy, Debug)]
pub struct SowingView<'a, T> {
    pub own_row: &'a [T],
    pub other_row: &'a [T],
    pub own_store: u32,
    pub other_store: u32,
}

impl SowingFeatures {
    fn pit_values(&self) -> usize {
        self.pit_cap as usize + 1
    }

    fn store_values(&self) -> usize {
        self.store_cap as usize + 1
    }

    /// Features a view has.
    pub fn inputs(&self) -> usize {
        2 * self.pits * self.pit_values() + 2 * self.store_values() + 2 * self.lead_cap as usize + 1
    }

    /// The output bucket of a view's board among `buckets`: by the seeds still on the board,
    /// out of all the game's (the board's and the stores').
    #[inline]
    pub fn bucket<T: Copy + Into<u32>>(&self, view: SowingView<'_, T>, buckets: usize) -> usize {
        if buckets <= 1 {
            return 0;
        }
        let board: u32 = view
            .own_row
            .iter()
            .chain(view.other_row)
            .map(|&c| c.into())
            .sum();
        let most = board + view.own_store + view.other_store;
        Network::bucket_of(buckets, board as usize, most as usize)
    }

    /// The view's active features: one a pit, one a store, one for the difference.
    #[inline]
    pub fn features<'a, T: Copy + Into<u32>>(
        &'a self,
        view: SowingView<'a, T>,
    ) -> impl Iterator<Item = usize> + 'a {
        let values = self.pit_values();
        let pits = view
            .own_row
            .iter()
            .chain(view.other_row)
            .take(2 * self.pits)
            .enumerate()
            .map(move |(k, &count)| k * values + count.into().min(self.pit_cap) as usize);
        let stores_at = 2 * self.pits * values;
        let lead_at = stores_at + 2 * self.store_values();
        let lead = (view.own_store as i64 - view.other_store as i64)
            .clamp(-(self.lead_cap as i64), self.lead_cap as i64)
            + self.lead_cap as i64;
        pits.chain([
            stores_at + view.own_store.min(self.store_cap) as usize,
            stores_at + self.store_values() + view.other_store.min(self.store_cap) as usize,
            lead_at + lead as usize,
        ])
    }
}

/// A sowing game's learned evaluation: the layout, what a network file must be made for,
/// and the network chosen (none: the hand-written evaluation).
#[derive(Clone, Debug)]
pub struct SowingNetwork {
    pub layout: SowingFeatures,
    pub id: String,
    pub network: Option<Arc<Network>>,
}

impl SowingNetwork {
    /// No network chosen yet.
    pub fn new(layout: SowingFeatures, id: String) -> SowingNetwork {
        SowingNetwork {
            layout,
            id,
            network: None,
        }
    }

    /// Features a view has.
    pub fn inputs(&self) -> usize {
        self.layout.inputs()
    }

    /// What a network file must be made for.
    pub fn id(&self) -> String {
        self.id.clone()
    }

    /// Evaluate with this network file (checked: hostile input), or by hand (`None`).
    pub fn set(&mut self, bytes: Option<&[u8]>) -> Result<(), NetworkError> {
        self.network = Network::load(bytes, &self.id, self.layout.inputs())?;
        Ok(())
    }

    /// Choose `bytes` (a game's embedded network); a network that fails its checks is
    /// logged and the game evaluates by hand.
    pub fn set_default(&mut self, bytes: Option<&[u8]>) {
        self.network = Network::load_embedded(bytes, &self.id, self.layout.inputs());
    }

    /// The network's evaluation of a board in centipoints for the mover, whose view is
    /// `views[0]`; `None` without a network.
    #[inline]
    pub fn evaluate<T: Copy + Into<u32>>(&self, views: [SowingView<'_, T>; 2]) -> Option<i32> {
        let net = self.network.as_deref()?;
        let bucket = self.layout.bucket(views[0], net.buckets);
        let features = views.map(|view| self.layout.features(view));
        Some(net.output_afresh(features, bucket))
    }

    /// The view's output bucket among `buckets`, for training.
    pub fn bucket<T: Copy + Into<u32>>(&self, view: SowingView<'_, T>, buckets: usize) -> usize {
        self.layout.bucket(view, buckets)
    }

    /// The view's features, for training.
    pub fn push_features<T: Copy + Into<u32>>(&self, view: SowingView<'_, T>, out: &mut Vec<u16>) {
        out.extend(self.layout.features(view).map(|f| f as u16));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LAYOUT: SowingFeatures = SowingFeatures {
        pits: 3,
        pit_cap: 4,
        store_cap: 6,
        lead_cap: 2,
    };

    #[test]
    fn each_pit_and_store_turns_on_one_feature_within_the_inputs() {
        let view = SowingView {
            own_row: &[0u8, 4, 9],
            other_row: &[1u8, 2, 3],
            own_store: 7,
            other_store: 1,
        };
        let features: Vec<usize> = LAYOUT.features(view).collect();
        // 6 pits of 5 values, 2 stores of 7 values, 5 differences.
        assert_eq!(LAYOUT.inputs(), 30 + 14 + 5);
        assert_eq!(
            features,
            vec![
                0,
                5 + 4,
                10 + 4,
                15 + 1,
                20 + 2,
                25 + 3,
                30 + 6,
                37 + 1,
                44 + 4
            ]
        );
        let behind = SowingView {
            own_store: 0,
            other_store: 5,
            ..view
        };
        assert_eq!(LAYOUT.features(behind).last(), Some(44));
    }
}
