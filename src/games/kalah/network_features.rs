//! Kalah's learned evaluation: which feature set it reads (pits and stores,
//! `crate::nnue::features::sowing`) and its default network file.

use crate::game::{NetworkFeatures, Player};
use crate::games::mancala::Side;
use crate::nnue::network::NetworkError;

use super::*;

/// Kalah(6,4)'s network (see `NetworkFeatures::default_network`).
const NETWORK: &[u8] = include_bytes!("../../nnue/networks/kalah.nnue");

impl NetworkFeatures for Kalah {
    /// Each pit's seeds and the stores, from each side's view (`crate::nnue::features::sowing`).
    fn network_inputs(&self) -> usize {
        self.network.inputs()
    }

    fn network_id(&self) -> String {
        self.network.id()
    }

    fn network_features(&self, pos: &KalahPosition, view: Player, out: &mut Vec<u16>) {
        let side = if (view == Player::P1) != pos.swapped {
            Side::South
        } else {
            Side::North
        };
        self.network
            .push_features(self.network_view(pos, side), out);
    }

    /// By the seeds on the board (either side's view counts the same).
    fn network_bucket(&self, pos: &KalahPosition, buckets: usize) -> usize {
        self.network
            .bucket(self.network_view(pos, Side::South), buckets)
    }

    /// Kalah(6,4) under the default rules: trained by `sowfan train` on `sowfan datagen`
    /// games (docs/nnue.md). Other boards and rules evaluate by hand.
    fn default_network(&self) -> Option<&'static [u8]> {
        self.options.non_default().is_empty().then_some(NETWORK)
    }

    fn set_network(&mut self, bytes: Option<&[u8]>) -> Result<(), NetworkError> {
        self.network.set(bytes)
    }
}
