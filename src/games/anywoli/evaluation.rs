//! Anywoli's hand-written evaluation: its weights and what the search does at the horizon.

use crate::game::{EvalTerm, Evaluation, eval_weights};

use super::*;

eval_weights! {
    /// A seed of store difference: the unit.
    store = 100, unit = true,
        "a seed of store difference";
    /// A seed in one's own row: it comes home if the game ends by the endless-play rules,
    /// and fours made there mid-lap go to the row's owner.
    row_seed = 20, unit = false,
        "a seed of (own row − opponent's row)";
    /// A house of three in one's own row: any seed passing through makes a four for its
    /// owner; a final seed there is the opponent's target, counted by `threat`.
    own_three = 60, unit = false,
        "a house of three in one's own row (own − opponent's)";
    /// The player to move can end a first lap on a three: four seeds and an extra move.
    threat = 250, unit = false,
        "the mover can end a first lap on a three";
}

impl Anywoli {
    /// The evaluation's features from the mover's view, in the order of [`TERMS`].
    #[inline]
    fn features(&self, pos: &AnywoliPosition) -> [i32; 4] {
        let us = pos.side;
        let them = us.other();
        let stores = pos.stores[us.index()] as i32 - pos.stores[them.index()] as i32;
        let mut rows = 0;
        let mut threes = 0;
        for (side, sign) in [(us, 1), (them, -1)] {
            for &count in self.row(pos, side) {
                rows += sign * count as i32;
                if count == FOUR - 1 {
                    threes += sign;
                }
            }
        }
        let first = self.house_index(us, 0);
        let threat = (0..self.houses).any(|i| {
            let seeds = pos.houses[first + i] as usize;
            seeds > 0 && seeds < self.width && {
                let land = (first + i + seeds) % self.width;
                pos.houses[land] == FOUR - 1
            }
        });
        [stores, rows, threes, threat as i32]
    }
}

impl Evaluation for Anywoli {
    fn evaluate(&self, pos: &AnywoliPosition) -> i32 {
        let views = [
            self.network_view(pos, pos.side),
            self.network_view(pos, pos.side.other()),
        ];
        match self.network.evaluate(views) {
            Some(score) => score,
            None => WEIGHTS.score(&self.features(pos)),
        }
    }

    fn eval_terms(&self) -> &'static [EvalTerm] {
        &TERMS
    }

    fn eval_features(&self, pos: &AnywoliPosition, features: &mut [i32]) {
        features.copy_from_slice(&self.features(pos));
    }

    fn stones_in_play(&self, pos: &AnywoliPosition) -> Option<u32> {
        Some(self.board_seeds(pos))
    }

    /// The mover cannot end a lap on a three (no four and extra move at hand).
    fn is_quiet(&self, pos: &AnywoliPosition) -> bool {
        self.features(pos)[3] == 0
    }
}
