//! What Anywoli tells the search to order and prune its moves.

use crate::game::SearchHints;

use super::*;

impl SearchHints for Anywoli {
    fn history_key(&self, _pos: &AnywoliPosition, mv: AnywoliMove) -> Option<usize> {
        Some(mv.0 as usize) // the house sown (pass: 255)
    }

    fn order_hint(&self, pos: &AnywoliPosition, mv: AnywoliMove) -> i32 {
        if mv == AnywoliMove::PASS {
            return 0;
        }
        let start = self.house_index(pos.side, mv.0 as usize);
        match self.first_lap_gain(pos, start) {
            (true, net) => 1000 + net,
            (false, net) => 10 * net,
        }
    }
}
