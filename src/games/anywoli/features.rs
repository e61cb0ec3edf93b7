//! Anywoli's learned evaluation: the network's features and its default network file.

use crate::game::{NetworkFeatures, Player};
use crate::games::mancala::Side;

use super::*;

/// Anywoli's network (see `NetworkFeatures::default_network`).
const NETWORK: &[u8] = include_bytes!("anywoli.nnue");

impl NetworkFeatures for Anywoli {
    /// Each house's seeds and the stores, from each side's view (`sowing_network`).
    fn network_inputs(&self) -> usize {
        self.network.layout.inputs()
    }

    fn network_id(&self) -> String {
        self.network.id.clone()
    }

    fn network_features(&self, pos: &AnywoliPosition, view: Player, out: &mut Vec<u16>) {
        let side = match view {
            Player::P1 => Side::South,
            Player::P2 => Side::North,
        };
        self.network
            .push_features(self.network_view(pos, side), out);
    }

    /// 12 houses of 4 seeds under the default rules: trained by `sowfan train` on `sowfan
    /// datagen` games (docs/nnue.md). Other boards and rules evaluate by hand.
    fn default_network(&self) -> Option<&'static [u8]> {
        self.options.non_default().is_empty().then_some(NETWORK)
    }

    fn set_network(&mut self, bytes: Option<&[u8]>) -> Result<(), String> {
        self.network.set(bytes)
    }
}
