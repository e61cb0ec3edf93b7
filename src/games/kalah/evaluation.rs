//! Kalah's hand-written evaluation: its weights and what the search does at the horizon.

use crate::game::{EvalTerm, Evaluation, Horizon, eval_weights};

use super::*;

eval_weights! {
    /// A seed of store difference: the unit.
    store = 100, unit = true,
        "a seed of store difference";
    /// A seed of row difference (only when leftovers go to their owner).
    row_seed = 25, unit = false,
        "a seed of row difference (leftovers=owner only)";
    /// A pit of the mover's that reaches the store exactly: an extra move at hand.
    extra_move = 30, unit = false,
        "a pit of the mover's that reaches its store exactly";
}

impl<const P: usize> PitRules<'_, P> {
    /// The evaluation's features from the mover's view, in the order of [`TERMS`].
    #[inline]
    fn features(&self, pos: &KalahPosition) -> [i32; 3] {
        let us = pos.side;
        let them = us.other();
        let stores = pos.cells[self.store(us)] as i32 - pos.cells[self.store(them)] as i32;
        // Seeds on our side are partly ours: they come home at the end unless taken.
        let rows = if self.leftovers_to_owner {
            self.row_sum(pos, us) as i32 - self.row_sum(pos, them) as i32
        } else {
            0
        };
        // A pit that reaches the store exactly is a free extra move for whoever owns it.
        let first = self.pit_cell(us, 0);
        let extra = (0..self.n()).any(|i| pos.cells[first + i] as usize == self.n() - i);
        [stores, rows, extra as i32]
    }
}

impl Evaluation for Kalah {
    fn evaluate(&self, pos: &KalahPosition) -> i32 {
        let views = [
            self.network_view(pos, pos.side),
            self.network_view(pos, pos.side.other()),
        ];
        match self.network.evaluate(views) {
            Some(score) => score,
            None => with_rules!(self, r => WEIGHTS.score(&r.features(pos))),
        }
    }

    fn eval_terms(&self) -> &'static [EvalTerm] {
        &TERMS
    }

    fn eval_features(&self, pos: &KalahPosition, features: &mut [i32]) {
        features.copy_from_slice(&self.rules().features(pos));
    }

    fn stones_in_play(&self, pos: &KalahPosition) -> Option<u32> {
        with_rules!(self, r => r.stones_in_play(pos))
    }

    /// No extra move and no capture at hand.
    fn is_quiet(&self, pos: &KalahPosition) -> bool {
        self.horizon(pos) == Horizon::Quiet
    }

    /// `PitRules::horizon`.
    fn horizon(&self, pos: &KalahPosition) -> Horizon {
        with_rules!(self, r => r.horizon(pos))
    }
}
