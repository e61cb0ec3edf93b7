//! Afrika's learned evaluation: which feature set it reads (pits and stores,
//! `crate::nnue::features::sowing`) and its default network file.

use crate::game::{NetworkFeatures, Player};
use crate::games::mancala::Side;
use crate::nnue::network::NetworkError;

use super::*;

/// Afrika's network (see `NetworkFeatures::default_network`).
const NETWORK: &[u8] = include_bytes!("../../nnue/networks/afrika.nnue");

impl NetworkFeatures for Afrika {
    /// Each pit's stones and the captures, from each side's view (`crate::nnue::features::sowing`).
    fn network_inputs(&self) -> usize {
        self.network.inputs()
    }

    fn network_id(&self) -> String {
        self.network.id()
    }

    fn network_features(&self, pos: &AfrikaPosition, view: Player, out: &mut Vec<u16>) {
        let side = match view {
            Player::P1 => Side::North,
            Player::P2 => Side::South,
        };
        self.network
            .push_features(Afrika::network_view(pos, side), out);
    }

    /// By the stones on the board (either side's view counts the same).
    fn network_bucket(&self, pos: &AfrikaPosition, buckets: usize) -> usize {
        self.network
            .bucket(Afrika::network_view(pos, Side::North), buckets)
    }

    /// Under the default rules (no komi, no target): trained by `sowfan train` on `sowfan
    /// datagen` games (docs/nnue.md).
    fn default_network(&self) -> Option<&'static [u8]> {
        self.options.non_default().is_empty().then_some(NETWORK)
    }

    fn set_network(&mut self, bytes: Option<&[u8]>) -> Result<(), NetworkError> {
        self.network.set(bytes)
    }
}
