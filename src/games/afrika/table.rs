//! Afrika's exact values and endgame-table indexing.

use crate::game::{ExactValues, TableIndexing};
use crate::games::mancala::{self, Side};

use super::*;

impl ExactValues for Afrika {
    /// The mover's score minus the opponent's (komi included): captured stones are banked.
    fn banked_value(&self, pos: &AfrikaPosition) -> i32 {
        (self.side_points(pos, pos.side) - self.side_points(pos, pos.side.other())).halves()
    }

    fn value_at_stake(&self, pos: &AfrikaPosition) -> Option<i32> {
        Some(2 * pos.stones_on_board() as i32)
    }

    /// Every stone on the board is captured by someone (2 points of margin), unless a target
    /// ends the game with stones left over.
    fn value_step(&self) -> i32 {
        if self.target.is_some() { 2 } else { 4 }
    }

    /// The board from the mover's view; with a target the scores decide when the game ends,
    /// so they are part of the key.
    #[inline]
    fn exact_key(&self, pos: &AfrikaPosition) -> u64 {
        let view = Afrika::mover_view(pos);
        if self.target.is_some() {
            let captured = [
                pos.captured[pos.side.index()],
                pos.captured[pos.side.other().index()],
            ];
            return mancala::hash_bytes(&view, mancala::hash_bytes(&captured, 0x007A_26E7));
        }
        mancala::exact_key(&self.index, &view, false)
    }
}

impl TableIndexing for Afrika {
    /// Tables hold the stones on the board; scores and komi stay outside. With a target the
    /// scores decide when the game ends, so no table applies.
    fn table_rules(&self) -> Option<String> {
        self.target.is_none().then(|| NAME.to_string())
    }

    fn table_index(&self, pos: &AfrikaPosition, max_layer: u32) -> Option<(u32, u64)> {
        if self.target.is_some() || pos.stones_on_board() > max_layer {
            return None;
        }
        self.index.rank(&Afrika::mover_view(pos))
    }

    /// One view and one rank of the board serve both the table entry and the key.
    fn table_index_or_key(
        &self,
        pos: &AfrikaPosition,
        max_layer: Option<u32>,
    ) -> Result<(u32, u64), u64> {
        if self.target.is_some() {
            return Err(self.exact_key(pos));
        }
        let view = Afrika::mover_view(pos);
        match self.index.rank(&view) {
            Some((stones, rank)) if max_layer.is_some_and(|max| stones <= max) => {
                Ok((stones, rank))
            }
            ranked => Err(mancala::exact_key_ranked(&self.index, &view, ranked, false)),
        }
    }

    fn table_layer_size(&self, layer: u32) -> u64 {
        self.index.count(layer)
    }

    fn table_position(&self, layer: u32, index: u64) -> Option<AfrikaPosition> {
        let mut view = [0u32; CELLS];
        let (south, north) = mancala::table_rows(&self.index, layer, index, &mut view)?;
        let mut cells = [0u8; CELLS];
        for i in 0..PITS {
            cells[first_cell(Side::South) + i] = south[i] as u8;
            cells[first_cell(Side::North) + i] = north[i] as u8;
        }
        Some(AfrikaPosition {
            cells,
            captured: [0, 0],
            side: Side::South,
        })
    }
}
