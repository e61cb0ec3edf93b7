//! The feature sets the games' networks read: what a position is, seen from one side, as a
//! list of active inputs. A game chooses one in its `network_features.rs` (its `NetworkFeatures`).

pub mod sowing;
pub mod stones;

/// An error of another layer, kept whole (its message and source) where this folder cannot
/// name its type: a game's, or the registry's.
pub type ForeignError = Box<dyn std::error::Error + Send + Sync>;

/// What `sowfan train` ([`crate::nnue::train`]) needs of a game: its network's size and id, and
/// the features of the packed positions in training data. The registry gives one for a game
/// by name, so that training, here, imports no game and no session.
pub trait PackedFeatures {
    /// The game and its options, as after `newgame`.
    fn spec(&self) -> String;
    /// The features a view has (0: the game has no network).
    fn network_inputs(&self) -> usize;
    /// What a network file must be made for.
    fn network_id(&self) -> String;
    /// The features of a packed position, from P1's view and from P2's (cleared first),
    /// and its output bucket among `buckets`.
    fn packed_features(
        &self,
        bytes: &[u8],
        views: &mut [Vec<u16>; 2],
        buckets: usize,
    ) -> Result<usize, ForeignError>;

    /// Take exact values from the endgame tables in `dir` (to rescore training targets).
    /// The default: a game without tables refuses.
    fn use_tables(&mut self, _dir: &std::path::Path) -> Result<(), ForeignError> {
        Err(format!("{} has no endgame tables", self.spec()).into())
    }

    /// The exact value of a packed position, when the tables taken cover it. The default:
    /// none.
    fn exact_value(&mut self, _bytes: &[u8]) -> Result<Option<ExactValue>, ForeignError> {
        Ok(None)
    }
}

/// A position's value proven by the endgame tables, for the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExactValue {
    /// Half-points: the final margin, or (a game won, drawn or lost) the win's value.
    pub half_points: i32,
    /// The value is a result (won, drawn, lost), not a margin.
    pub decisive: bool,
}

/// Opens a game's [`PackedFeatures`] by its spec (as after `newgame`).
pub type FeatureOpener<'a> = &'a dyn Fn(&str) -> Result<Box<dyn PackedFeatures>, ForeignError>;
