//! What Kalah tells the search to order and prune its moves.

use crate::game::SearchHints;

use super::*;

impl SearchHints for Kalah {
    fn is_forcing(&self, pos: &KalahPosition, mv: KalahMove) -> bool {
        self.order_hint(pos, mv) != 0
    }

    /// Late-move and futility pruning won its SPRT at equal time here with the network,
    /// +26.1 ± 33.5 (docs/strength.md, Kalah): a sowing's order hint singles out the
    /// captures and extra moves, so the pruned moves are the quiet ones.
    fn prunes_late_moves(&self) -> bool {
        true
    }

    fn history_key(&self, _pos: &KalahPosition, mv: KalahMove) -> Option<usize> {
        Some(mv.0 as usize) // the pit sown (swap: 255)
    }

    fn order_hint(&self, pos: &KalahPosition, mv: KalahMove) -> i32 {
        with_rules!(self, r => r.order_hint(pos, mv))
    }

    /// `PitRules::proof_order`.
    fn proof_order(&self, pos: &KalahPosition) -> i32 {
        with_rules!(self, r => r.proof_order(pos))
    }
}
