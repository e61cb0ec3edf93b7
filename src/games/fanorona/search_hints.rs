//! What Fanorona tells the search to order its moves.

use super::*;

impl SearchHints for Fanorona {
    fn history_key(&self, _pos: &FanoronaPosition, mv: FanoronaMove) -> Option<usize> {
        // The stone and its first step: below 45 * 16 = 720.
        let (d, kind) = mv.step(0);
        Some(mv.from() * 16 + d * 2 + usize::from(kind == StepKind::Withdrawal))
    }

    fn order_hint(&self, _pos: &FanoronaPosition, mv: FanoronaMove) -> i32 {
        if mv.is_capture() {
            // Bigger captures first; among equals, the longer chain (it ends further on).
            let captured = mv.captured() as i32;
            1000 + 32 * captured + mv.len() as i32
        } else {
            // Every paika alike: the history heuristic orders them, and the late ones are
            // searched reduced (a hint would exempt them from the reductions).
            0
        }
    }
}
