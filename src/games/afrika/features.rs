//! Afrika's learned evaluation: the network's features and its default network file.

use crate::game::{NetworkFeatures, Player};
use crate::games::mancala::Side;

use super::*;

/// Afrika's network (see `NetworkFeatures::default_network`).
const NETWORK: &[u8] = include_bytes!("afrika.nnue");

impl NetworkFeatures for Afrika {
    /// Each pit's stones and the captures, from each side's view (`sowing_network`).
    fn network_inputs(&self) -> usize {
        NETWORK_LAYOUT.inputs()
    }

    fn network_id(&self) -> String {
        self.network.id.clone()
    }

    fn network_features(&self, pos: &AfrikaPosition, view: Player, out: &mut Vec<u16>) {
        let side = match view {
            Player::P1 => Side::North,
            Player::P2 => Side::South,
        };
        self.network
            .push_features(Afrika::network_view(pos, side), out);
    }

    /// Under the default rules (no komi, no target): trained by `sowfan train` on `sowfan
    /// datagen` games (docs/nnue.md).
    fn default_network(&self) -> Option<&'static [u8]> {
        self.options.non_default().is_empty().then_some(NETWORK)
    }

    fn set_network(&mut self, bytes: Option<&[u8]>) -> Result<(), String> {
        self.network.set(bytes)
    }
}
