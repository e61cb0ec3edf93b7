//! Afrika's hand-written evaluation: its weights and what the search does at the horizon.

use crate::game::{EvalTerm, Evaluation, eval_weights};

use super::*;

eval_weights! {
    /// Half a point of score difference, komi included: the unit.
    half_point = 50, unit = true,
        "half a point of score difference, komi included, after the captures due";
    /// A stone more in the opponent's row than in ours: only the player facing a row can
    /// capture from it (the strategy texts' "push your stones across").
    row_stone = 20, unit = false,
        "a stone of (opponent's row − own row), after the captures due";
    /// The move, after the captures due: sowing is a choice the side that must sow makes,
    /// and searches that end on its move and on the other side's disagree by about this
    /// much (the evaluation's swing between odd and even depths).
    tempo = 55, unit = false,
        "the side to sow after the captures due (+1 us, −1 them)";
}

impl Afrika {
    /// The evaluation's features from the mover's view, in the order of [`TERMS`], after
    /// the captures due ([`Afrika::after_captures_due`]).
    #[inline]
    pub(super) fn features(&self, pos: &AfrikaPosition) -> [i32; 3] {
        let us = pos.side;
        let quiet = self.after_captures_due(pos);
        let margin = self.side_points(&quiet, us) - self.side_points(&quiet, us.other());
        let rows = quiet.row_stones(us.other()) as i32 - quiet.row_stones(us) as i32;
        let tempo = if quiet.side == us { 1 } else { -1 };
        [margin.halves(), rows, tempo]
    }
}

impl Evaluation for Afrika {
    /// With a network: the network's judgement of the position after the captures due,
    /// for the side then to move (negated when that is the opponent).
    fn evaluate(&self, pos: &AfrikaPosition) -> i32 {
        if self.network.network.is_some() {
            let quiet = self.after_captures_due(pos);
            let mover = quiet.side;
            let views = [
                Afrika::network_view(&quiet, mover),
                Afrika::network_view(&quiet, mover.other()),
            ];
            if let Some(score) = self.network.evaluate(views) {
                return if mover == pos.side { score } else { -score };
            }
        }
        WEIGHTS.score(&self.features(pos))
    }

    fn eval_terms(&self) -> &'static [EvalTerm] {
        &TERMS
    }

    fn eval_features(&self, pos: &AfrikaPosition, features: &mut [i32]) {
        features.copy_from_slice(&self.features(pos));
    }

    fn stones_in_play(&self, pos: &AfrikaPosition) -> Option<u32> {
        Some(pos.stones_on_board())
    }

    /// No capture due (captures are compulsory: the mover's options are forced).
    fn is_quiet(&self, pos: &AfrikaPosition) -> bool {
        pos.smallest_capture(pos.side).is_none()
    }
}
