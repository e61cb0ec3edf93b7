//! Fanorona's rules: the start, the turns, the end of the game.

use super::*;

impl Rules for Fanorona {
    type Position = FanoronaPosition;

    type Move = FanoronaMove;

    fn spec(&self) -> String {
        self.options.spec()
    }

    fn start_position(&self) -> FanoronaPosition {
        self.start
    }

    fn to_move(&self, pos: &FanoronaPosition) -> Player {
        pos.side
    }

    fn legal_moves(&self, pos: &FanoronaPosition, moves: &mut Vec<FanoronaMove>) {
        moves.clear();
        let (own, enemy) = (pos.own(), pos.enemy());
        if own == 0 || enemy == 0 || self.quiet_limit_reached(pos) {
            return;
        }
        moves::generate(self.g, own, enemy, self.chain_rules(pos), moves);
    }

    fn count_legal_moves(&self, pos: &FanoronaPosition, _scratch: &mut Vec<FanoronaMove>) -> usize {
        let (own, enemy) = (pos.own(), pos.enemy());
        if own == 0 || enemy == 0 || self.quiet_limit_reached(pos) {
            return 0;
        }
        moves::count(self.g, own, enemy, self.chain_rules(pos))
    }

    fn play(&self, pos: &mut FanoronaPosition, mv: FanoronaMove) {
        let me = pos.side.index();
        let [white, black] = &mut pos.stones;
        let (own, enemy) = if me == WHITE {
            (white, black)
        } else {
            (black, white)
        };
        moves::apply(self.g, own, enemy, mv);
        pos.quiet = if mv.is_capture() {
            0
        } else {
            pos.quiet.saturating_add(1)
        };
        pos.first_pending &= !(1 << me);
        pos.side = pos.side.other();
    }

    fn outcome(&self, pos: &FanoronaPosition) -> Option<Outcome> {
        let (own, enemy) = (pos.own(), pos.enemy());
        let lost = |reason| {
            Some(Outcome {
                result: GameResult::won_by(Some(pos.side.other())),
                scores: self.scores(pos),
                reason,
            })
        };
        if own == 0 {
            return lost("no stones left");
        }
        if enemy == 0 {
            // Only from a position string: the side not to move has already lost.
            return Some(Outcome {
                result: GameResult::won_by(Some(pos.side)),
                scores: self.scores(pos),
                reason: "no stones left",
            });
        }
        let empty = self.g.all & !(own | enemy);
        if self.g.can_step(own, empty) == 0 {
            return lost("no legal move");
        }
        if self.quiet_limit_reached(pos) {
            return Some(Outcome {
                result: GameResult::Draw,
                scores: self.scores(pos),
                reason: "turns without capture limit",
            });
        }
        None
    }

    /// Stones each player has captured (start count minus the opponent's stones).
    fn scores(&self, pos: &FanoronaPosition) -> [Points; 2] {
        let start = self.size.stones_per_side() as i32;
        [
            Points::whole(start - pos.stones[BLACK].count_ones() as i32),
            Points::whole(start - pos.stones[WHITE].count_ones() as i32),
        ]
    }

    // No `null_move`: null-move pruning lost 35 to 82 Elo (docs/strength.md, Fanorona):
    // a paika often gives the opponent a capture, so passing would be the best move and is
    // no test of the position.
    fn hash(&self, pos: &FanoronaPosition) -> u64 {
        // The quiet counter changes the game only when a limit is set; the points use bits
        // 0..45, so the state fits above them.
        let quiet = if self.quiet_limit.is_some() {
            pos.quiet.min(2047) as u64
        } else {
            0
        };
        let state = pos.side.index() as u64 | (pos.first_pending as u64) << 1 | quiet << 3;
        mix(mix(pos.stones[WHITE] ^ 0x9e37_79b9_7f4a_7c15) ^ pos.stones[BLACK] ^ state << 50)
    }

    fn repetition_limit(&self) -> Option<u32> {
        self.repetition
    }

    /// Board and side to move (plus the first-capture-single state, which differs only
    /// before a side's first turn); not the quiet counter.
    fn repetition_key(&self, pos: &FanoronaPosition) -> u64 {
        let state = pos.side.index() as u64 | (pos.first_pending as u64) << 1;
        mix(mix(pos.stones[WHITE] ^ 0x2545_f491_4f6c_dd1d) ^ pos.stones[BLACK] ^ state << 50)
    }

    /// A capture can never be undone, so only positions since the last one can repeat.
    fn reversible_plies(&self, pos: &FanoronaPosition) -> usize {
        pos.quiet as usize
    }

    fn repetition_outcome(&self, pos: &FanoronaPosition) -> Outcome {
        Outcome {
            result: GameResult::Draw,
            scores: self.scores(pos),
            reason: "repetition",
        }
    }

    fn bench(&self) -> BenchSpec {
        // Positions reached in play (see fixtures/perft/fanorona.txt).
        match self.size {
            Size::Tsivy => BenchSpec {
                depth: 7,
                positions: &[
                    "BB2BBBB1/BBBWB1B2/BW4WBW/WWWBWBWW1/WWWW2WWW w 0",
                    "1B2BBBBB/1B4BBB/W2W1BWBW/4B4/1W1W3WW b 0",
                    "BB7/1B1B3W1/B1B2W3/1B5WW/6W1W w 5",
                ],
            },
            Size::Dimy => BenchSpec {
                depth: 9,
                positions: &[
                    "BB1B1/BB3/2B1W/W2W1/1WWW1 w 0",
                    "1B1BB/2BBB/2W1W/2WWW/W2WW b 0",
                ],
            },
            Size::Telo => BenchSpec {
                depth: 12,
                positions: &["BB1/BWW/1WW b 0"],
            },
        }
    }
}
