//! The first layer of a learned evaluation for one position, as the search keeps it a ply.
//!
//! It sits at the bottom of the crate's layers, beside the `Game` contract, because the
//! contract's [`NetworkFeatures`](crate::game::NetworkFeatures) names it: a game fills it,
//! the search keeps one per ply, and [`network`](super::network) reads it. Its width is the
//! widest first layer a network may have ([`network::MAX_WIDTH`](super::network::MAX_WIDTH)
//! is this constant); a narrower network uses its first lanes only.

/// The widest first layer of a learned evaluation.
pub const ACCUMULATOR_WIDTH: usize = 256;

/// A learned evaluation's first layer for one position, from each side's view (`views[0]`:
/// P1's; `views[1]`: P2's). The search keeps one per ply and updates it move by move
/// ([`NetworkFeatures::update_accumulator`](crate::game::NetworkFeatures::update_accumulator));
/// a game without a network never touches it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(align(64))]
pub struct Accumulator {
    pub views: [[i16; ACCUMULATOR_WIDTH]; 2],
}

impl Default for Accumulator {
    fn default() -> Accumulator {
        Accumulator {
            views: [[0; ACCUMULATOR_WIDTH]; 2],
        }
    }
}
