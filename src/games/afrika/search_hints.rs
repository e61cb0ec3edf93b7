//! What Afrika tells the search to order and prune its moves.

use crate::game::{Evaluation, Rules, SearchHints};

use super::evaluation::WEIGHTS;
use super::*;

impl SearchHints for Afrika {
    /// A pass when no capture is due (a capture is compulsory): the other side moves on
    /// the same board.
    fn null_move(&self, pos: &AfrikaPosition) -> Option<AfrikaPosition> {
        if !self.is_quiet(pos) {
            return None;
        }
        let mut passed = *pos;
        passed.side = passed.side.other();
        Some(passed)
    }

    fn history_key(&self, _pos: &AfrikaPosition, mv: AfrikaMove) -> Option<usize> {
        Some(match mv {
            AfrikaMove::Sow(i) => i as usize,
            AfrikaMove::Capture(i) => PITS + i as usize,
        })
    }

    fn order_hint(&self, pos: &AfrikaPosition, mv: AfrikaMove) -> i32 {
        // The hand-written evaluation after the move, forced replies included. It costs an
        // evaluation per move but halves the nodes of a fixed-depth search (measured on the
        // published game). Also with the network chosen: ordering by the network's dearer
        // evaluation lost 46 Elo at equal time (docs/strength.md, Afrika).
        let mut after = *pos;
        self.play(&mut after, mv);
        -WEIGHTS.score(&self.features(&after))
    }

    /// Every sowing is quiet (a capture is a move of its own, compulsory, and is the only
    /// kind of move where one is due): the hint ranks the sowings by the evaluation after
    /// them, and the late ones are reduced (+26 at equal time, docs/strength.md).
    fn hint_ranks_quiet_moves(&self) -> bool {
        true
    }

    /// Afrika's first root move holds most of an iteration's nodes (80–98 % in seven of
    /// eight iterations of the position measured), so two threads splitting the rest gain
    /// little, while a thread a depth ahead fills the table for the next: 1.72× against
    /// 1.04× in time to depth over the same positions.
    fn threads_split_root_moves(&self) -> bool {
        false
    }
}
