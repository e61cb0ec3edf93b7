//! Opt-in: how a game's positions map to endgame-table entries, and what an entry means.

use super::ExactValues;

/// Endgame tables (`src/tables/`): a position's layer and index, and back. The defaults are
/// a game without tables ([`TableIndexing::table_rules`] is `None`).
pub trait TableIndexing: ExactValues {
    /// The rules as far as they change table values (e.g. `kalah pits=6 empty-capture=true
    /// end=any-row leftovers=owner`): tables built for one string serve every game with the
    /// same string. `None`: this game (with these options) has no endgame tables.
    fn table_rules(&self) -> Option<String> {
        None
    }

    /// The table layer (e.g. seeds in the pits) and the index in it of `pos` seen from the
    /// mover; `None` when no table covers it (e.g. a pie swap is pending), or beyond
    /// `max_layer`. Every move keeps or lowers the layer.
    fn table_index(&self, _pos: &Self::Position, _max_layer: u32) -> Option<(u32, u64)> {
        None
    }

    /// Where the exact solver finds `pos`: `Ok` its endgame-table entry
    /// ([`TableIndexing::table_index`]) when tables up to `max_layer` cover it, else `Err` its
    /// transposition key ([`ExactValues::exact_key`](super::ExactValues::exact_key)). The solver asks this of every child it
    /// meets; a game whose table index and exact key share their work (one rank of the
    /// board) answers both in one pass. The default asks the two in turn.
    fn table_index_or_key(
        &self,
        pos: &Self::Position,
        max_layer: Option<u32>,
    ) -> Result<(u32, u64), u64> {
        match max_layer.and_then(|max| self.table_index(pos, max)) {
            Some(at) => Ok(at),
            None => Err(self.exact_key(pos)),
        }
    }

    /// How many positions a layer holds.
    fn table_layer_size(&self, _layer: u32) -> u64 {
        0
    }

    /// The position of an index, with the mover to move and nothing banked. `None` for an
    /// index no position has (a slot the indexing leaves unused, e.g. the second of two
    /// mirror images that [`TableIndexing::table_index`] never gives); its entry holds 0.
    fn table_position(&self, _layer: u32, _index: u64) -> Option<Self::Position> {
        None
    }

    /// What a table entry means (see [`TableValues`]); by default the margin to gain.
    fn table_values(&self) -> TableValues {
        TableValues::Margin
    }

    /// The highest layer that holds positions with at most `in_play` seeds (stones) in
    /// play: what `tablebase build --seeds N` builds up to. By default the layer is the
    /// number in play.
    fn table_top_layer(&self, in_play: u32) -> Option<u32> {
        Some(in_play)
    }

    /// What a layer holds, for people (`tablebase info`, build reports).
    fn table_layer_name(&self, layer: u32) -> String {
        format!("{layer} in play")
    }

    /// The stage of a layer, for building layers side by side (`tablebase build --layer`,
    /// `tablebase plan`): a position of a layer of stage `s` has children only in its own
    /// layer, in layers of stages below `s`, or at the end of the game, so the layers of one
    /// stage can be built at once, each from the lower stages alone. A stage must never be
    /// below the stage of a layer its positions reach, and lower layers come first (a move
    /// keeps or lowers the layer). The default, the layer itself, is always safe: a layer
    /// reads every layer below it.
    fn table_layer_stage(&self, layer: u32) -> u32 {
        layer
    }

    /// [`TableValues::Distance`] tables: the turns `pos` has left before the limit on
    /// turns inside a layer ends the game (e.g. quiet-limit minus the turns without a
    /// capture so far).
    fn table_turns_left(&self, _pos: &Self::Position) -> u32 {
        u32::MAX
    }

    /// [`TableValues::Distance`] tables: every position of the same layer from which one
    /// legal move leads exactly to `pos` (written to `out` after clearing it). The
    /// builder walks these backwards from the decided positions (retrograde analysis);
    /// positions may be given in any orientation ([`TableIndexing::table_index`] maps them).
    fn table_unmoves(&self, _pos: &Self::Position, out: &mut Vec<Self::Position>) {
        out.clear();
    }
}

/// What one signed byte of a game's endgame table says about its position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TableValues {
    /// The mover's final margin minus the banked margin, in whole points (Kalah, Afrika):
    /// every position's value is a function of the position alone.
    Margin,
    /// For games won or lost, not scored, where a limit on the turns in a row inside one
    /// layer draws the game (Fanorona's quiet-limit: a layer is a material, and only a
    /// capture leaves it). The byte is the value with the distance it needs: `+d` the
    /// mover wins if at least `d` turns are left (counting the turn that leaves the layer
    /// or ends the game), `-(d + 1)` the mover loses if at least `d` are left (`-1`: lost
    /// already), `0` a draw however many are left; short of the turns, a draw. A win is
    /// worth `win` half-points ([`ExactValues::final_value`]). `limit`: the turns a fresh layer
    /// starts with (at most [`MAX_TABLE_DISTANCE`]).
    Distance { limit: u32, win: i32 },
}

/// The longest distance a [`TableValues::Distance`] byte holds (its lowest value, -127,
/// is a loss in 126 turns; -128 is the builder's "unknown").
pub const MAX_TABLE_DISTANCE: u32 = 126;

impl TableValues {
    /// The value (half-points, for the mover) of a stored byte when `turns_left` turns are
    /// left (ignored for [`TableValues::Margin`]).
    #[inline]
    pub fn value(self, byte: i8, turns_left: u32) -> i32 {
        match self {
            TableValues::Margin => 2 * byte as i32,
            TableValues::Distance { win, .. } => match byte {
                0 => 0,
                d if d > 0 && d as u32 <= turns_left => win,
                d if d < 0 && (-(d as i32) - 1) as u32 <= turns_left => -win,
                _ => 0,
            },
        }
    }

    /// The turns `byte` needs to be decided (`None`: a draw, or a margin table).
    pub fn distance(self, byte: i8) -> Option<u32> {
        match self {
            TableValues::Margin => None,
            TableValues::Distance { .. } => match byte {
                0 => None,
                d if d > 0 => Some(d as u32),
                d => Some((-(d as i32) - 1) as u32),
            },
        }
    }
}
