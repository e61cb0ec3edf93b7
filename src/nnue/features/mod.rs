//! The feature sets the games' networks read: what a position is, seen from one side, as a
//! list of active inputs. A game chooses one in its `network_features.rs` (its `NetworkFeatures`).

pub mod sowing;
pub mod stones;
