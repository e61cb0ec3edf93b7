//! Fanorona's hand-written evaluation: its weights and what the search does at the horizon.

use super::*;

eval_weights! {
    /// A stone of material difference: the unit.
    stone = 100, unit = true,
        "a stone of material difference";
    /// The mover's best immediate capture, per stone it takes (captures are compulsory and
    /// the mover strikes first: a nearly sure gain, a chain may add more).
    strike = 80, unit = false,
        "a stone the mover's best capture takes";
    /// Each further capturable target of the mover beyond the first (up to four).
    strike_target = 15, unit = false,
        "a capturable target of the mover beyond the first (up to 4)";
    /// The opponent's best capture against us, per stone (ours may be saved, or traded, by
    /// our own capture: weighed less than a strike).
    exposed = 25, unit = false,
        "a stone the opponent's best capture takes (counted negative)";
    /// Each of our stones the opponent could capture (up to four).
    exposed_target = 5, unit = false,
        "a stone of ours the opponent can capture, up to 4 (counted negative)";
    /// A stone that can step, ours minus theirs.
    mobility = 4, unit = false,
        "a stone that can step, ours minus theirs";
    /// A stone on a strong point (with diagonals), ours minus theirs.
    strong_point = 5, unit = false,
        "a stone on a strong point, ours minus theirs";
    /// In an ending (at most 3/11 of the starting stones left), a stone of the side ahead
    /// within two steps of a stone of the side behind, for the side ahead: stones apart
    /// cannot capture, and an ending is won by closing in.
    pursuit = 10, unit = false,
        "in an ending, a stone of the side ahead within two steps of the other side's (for the side ahead)";
}

impl Fanorona {
    /// The evaluation's features from the mover's view, in the order of [`TERMS`].
    #[inline]
    fn features(&self, pos: &FanoronaPosition) -> [i32; 8] {
        let g = self.g;
        let (own, enemy) = (pos.own(), pos.enemy());
        let empty = g.all & !(own | enemy);
        let material = own.count_ones() as i32 - enemy.count_ones() as i32;
        let mine = g.threats(own, enemy);
        let theirs = g.threats(enemy, own);
        let (strike, strike_targets) = if mine.longest > 0 {
            (
                mine.longest as i32,
                mine.targets.count_ones().min(4) as i32 - 1,
            )
        } else {
            (0, 0)
        };
        let mobility = g.can_step(own, empty).count_ones() as i32
            - g.can_step(enemy, empty).count_ones() as i32;
        let strong = (own & g.strong).count_ones() as i32 - (enemy & g.strong).count_ones() as i32;
        let pursuit = self.pursuit(own, enemy, material);
        [
            material,
            strike,
            strike_targets,
            -(theirs.longest as i32),
            -(theirs.targets.count_ones().min(4) as i32),
            mobility,
            strong,
            pursuit,
        ]
    }
}

impl Fanorona {
    /// The feature `pursuit`: in an ending, the stones of the side ahead within two steps of
    /// a stone of the side behind (positive when the mover is ahead, negative when behind,
    /// 0 when level or before the ending).
    #[inline]
    fn pursuit(&self, own: u64, enemy: u64, material: i32) -> i32 {
        let g = self.g;
        let stones = (own | enemy).count_ones();
        if material == 0 || 11 * stones > 3 * 2 * self.size.stones_per_side() {
            return 0;
        }
        let (ahead, behind) = if material > 0 {
            (own, enemy)
        } else {
            (enemy, own)
        };
        let near = g.neighbourhood(g.neighbourhood(behind));
        material.signum() * (ahead & near).count_ones() as i32
    }

    /// The evaluation drawn toward the draw as the quiet limit nears ([`Evaluation::eval_scale`]).
    #[inline(always)]
    pub(super) fn toward_the_quiet_draw(&self, pos: &FanoronaPosition, score: i32) -> i32 {
        let (numerator, denominator) = self.eval_scale(pos);
        (i64::from(score) * numerator / denominator) as i32
    }
}

impl Evaluation for Fanorona {
    fn evaluate(&self, pos: &FanoronaPosition) -> i32 {
        self.toward_the_quiet_draw(pos, WEIGHTS.score(&self.features(pos)))
    }

    fn eval_terms(&self) -> &'static [EvalTerm] {
        &TERMS
    }

    fn eval_features(&self, pos: &FanoronaPosition, features: &mut [i32]) {
        features.copy_from_slice(&self.features(pos));
    }

    /// Drawn toward the draw as the quiet limit nears: by half at the limit (linearly in
    /// the turns without capture). A lead that no capture has turned into stones for many
    /// turns is likely to end in the quiet-limit draw; and of two lines that keep a lead,
    /// the one whose capture comes sooner scores more, so the side ahead makes progress
    /// instead of marking time.
    #[inline(always)]
    fn eval_scale(&self, pos: &FanoronaPosition) -> (i64, i64) {
        match self.quiet_limit {
            Some(limit) if limit > 0 => {
                let (limit, quiet) = (i64::from(limit), i64::from(pos.quiet.min(limit)));
                (2 * limit - quiet, 2 * limit)
            }
            _ => (1, 1),
        }
    }

    fn stones_in_play(&self, pos: &FanoronaPosition) -> Option<u32> {
        Some(pos.stones[0].count_ones() + pos.stones[1].count_ones())
    }

    /// No capture at hand (captures are compulsory).
    fn is_quiet(&self, pos: &FanoronaPosition) -> bool {
        self.g.threats(pos.own(), pos.enemy()).longest == 0
    }

    /// A capture at hand must be played (every legal move is a capture): the search plays
    /// the captures out before it evaluates.
    fn horizon(&self, pos: &FanoronaPosition) -> Horizon {
        if self.is_quiet(pos) {
            Horizon::Quiet
        } else {
            Horizon::Forced
        }
    }

    /// One pass over the captures at hand: the feature `strike` (the mover's best capture)
    /// is positive exactly when a capture is due.
    fn evaluate_at_horizon(&self, pos: &FanoronaPosition) -> (i32, Horizon) {
        let features = self.features(pos);
        let horizon = if features[1] > 0 {
            Horizon::Forced
        } else {
            Horizon::Quiet
        };
        (
            self.toward_the_quiet_draw(pos, WEIGHTS.score(&features)),
            horizon,
        )
    }
}
