//! Opt-in: what a learned evaluation reads of a game, and how the search keeps its first
//! layer a ply. The network itself (its file, its inference, the feature sets the games
//! share, its training and data) is `crate::nnue`.

use super::{Evaluation, Horizon, Player};
use crate::nnue::accumulator::Accumulator;
use crate::nnue::network::NetworkError;

/// The features a learned evaluation reads, and the accumulator the search keeps for it a
/// ply. The defaults are a game without a network: the search then keeps no accumulator,
/// and a network file is refused.
pub trait NetworkFeatures: Evaluation {
    /// The features a view of this game's network has (0: the game has no network). A
    /// feature is a fact of the position from one side's view (Fanorona: "my stone on my
    /// point p", "the other's stone on my point p").
    fn network_inputs(&self) -> usize {
        0
    }

    /// What a network file must be made for: the game and board (not the options that
    /// leave the features alone), e.g. `fanorona 9x5`.
    fn network_id(&self) -> String {
        String::new()
    }

    /// The active features of `pos` from `view`'s side, appended to `out` (each below
    /// [`NetworkFeatures::network_inputs`]).
    fn network_features(&self, _pos: &Self::Position, _view: Player, _out: &mut Vec<u16>) {}

    /// The output bucket of `pos` among `buckets` (a network's output neuron is chosen by
    /// the position's material: see `crate::nnue::network`). The default: the first, for a
    /// game whose networks have one bucket.
    fn network_bucket(&self, _pos: &Self::Position, _buckets: usize) -> usize {
        0
    }

    /// Evaluate with this network (a network file's bytes, checked: hostile input) from now
    /// on, or with the hand-written evaluation (`None`). The default: a game without a
    /// network refuses one.
    fn set_network(&mut self, bytes: Option<&[u8]>) -> Result<(), NetworkError> {
        match bytes {
            None => Ok(()),
            Some(_) => Err(NetworkError::NoNetwork),
        }
    }

    /// The network the game evaluates with unless told otherwise (a file embedded in the
    /// binary), if it has one for these rules.
    fn default_network(&self) -> Option<&'static [u8]> {
        None
    }

    /// Does the evaluation use an accumulator now (a network is loaded and chosen)?
    fn accumulates(&self) -> bool {
        false
    }

    /// `acc` computed from scratch for `pos`.
    fn refresh_accumulator(&self, _pos: &Self::Position, _acc: &mut Accumulator) {}

    /// `child`'s accumulator after `mv` took `before` to `after`, from `parent`'s (the
    /// accumulator of `before`). The default computes it from scratch.
    fn update_accumulator(
        &self,
        _before: &Self::Position,
        _mv: Self::Move,
        after: &Self::Position,
        _parent: &Accumulator,
        child: &mut Accumulator,
    ) {
        self.refresh_accumulator(after, child);
    }

    /// [`Evaluation::evaluate_at_horizon`](super::Evaluation::evaluate_at_horizon) with the position's accumulator at hand (when
    /// [`NetworkFeatures::accumulates`]).
    fn evaluate_accumulated(&self, pos: &Self::Position, _acc: &Accumulator) -> (i32, Horizon) {
        self.evaluate_at_horizon(pos)
    }
}
