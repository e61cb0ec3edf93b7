//! Anywoli's learned evaluation: which feature set it reads (pits and stores,
//! `crate::nnue::features::sowing`) and its default network file.

use crate::game::{NetworkFeatures, Player};
use crate::games::mancala::Side;
use crate::nnue::network::NetworkError;

use super::*;

/// Anywoli's network (see `NetworkFeatures::default_network`).
const NETWORK: &[u8] = include_bytes!("../../nnue/networks/anywoli.nnue");

impl NetworkFeatures for Anywoli {
    /// Each house's seeds and the stores, from each side's view (`crate::nnue::features::sowing`).
    fn network_inputs(&self) -> usize {
        self.network.inputs()
    }

    fn network_id(&self) -> String {
        self.network.id()
    }

    fn network_features(&self, pos: &AnywoliPosition, view: Player, out: &mut Vec<u16>) {
        let side = match view {
            Player::P1 => Side::South,
            Player::P2 => Side::North,
        };
        self.network
            .push_features(self.network_view(pos, side), out);
    }

    /// By the seeds on the board (either side's view counts the same).
    fn network_bucket(&self, pos: &AnywoliPosition, buckets: usize) -> usize {
        self.network
            .bucket(self.network_view(pos, Side::South), buckets)
    }

    /// 12 houses of 4 seeds under the default rules: trained by `sowfan train` on `sowfan
    /// datagen` games (docs/nnue.md). Other boards and rules evaluate by hand.
    fn default_network(&self) -> Option<&'static [u8]> {
        self.options.non_default().is_empty().then_some(NETWORK)
    }

    fn set_network(&mut self, bytes: Option<&[u8]>) -> Result<(), NetworkError> {
        self.network.set(bytes)
    }
}
