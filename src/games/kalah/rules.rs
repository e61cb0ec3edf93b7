//! Kalah's rules: the start, the moves, the end of the game.

use crate::game::{BenchSpec, Outcome, Player, Points, Rules};
use crate::games::mancala::{self, Side};

use super::*;

impl Rules for Kalah {
    type Position = KalahPosition;

    type Move = KalahMove;

    fn spec(&self) -> String {
        self.options.spec()
    }

    fn start_position(&self) -> KalahPosition {
        let mut cells = [0u16; MAX_CELLS];
        for side in [Side::South, Side::North] {
            for cell in self.rules().row(side) {
                cells[cell] = self.seeds;
            }
        }
        KalahPosition {
            cells,
            side: Side::South,
            pie_open: self.pie,
            swapped: false,
        }
    }

    fn to_move(&self, pos: &KalahPosition) -> Player {
        if (pos.side == Side::South) != pos.swapped {
            Player::P1
        } else {
            Player::P2
        }
    }

    fn legal_moves(&self, pos: &KalahPosition, moves: &mut Vec<KalahMove>) {
        with_rules!(self, r => r.legal_moves(pos, moves))
    }

    fn play(&self, pos: &mut KalahPosition, mv: KalahMove) {
        with_rules!(self, r => r.play(pos, mv))
    }

    fn outcome(&self, pos: &KalahPosition) -> Option<Outcome> {
        with_rules!(self, r => r.outcome(pos))
    }

    fn scores(&self, pos: &KalahPosition) -> [Points; 2] {
        with_rules!(self, r => r.final_scores(pos, r.is_over(pos)))
    }

    // No `null_move`: null-move pruning lost 74 Elo at equal nodes (docs/strength.md, Kalah):
    // a Kalah position is often one where any sowing costs, so a pass is no test.
    fn hash(&self, pos: &KalahPosition) -> u64 {
        let state =
            pos.side.index() as u64 | (pos.pie_open as u64) << 1 | (pos.swapped as u64) << 2;
        mancala::hash_counts(&pos.cells[..self.rules().cell_count()], state)
    }

    fn bench(&self) -> BenchSpec {
        BenchSpec {
            depth: 14,
            positions: &[
                "0,5,5,5,5,4,2/5,5,0,6,6,5,0 S",
                "1,0,7,7,1,8,6/7,1,0,1,0,8,1 N",
                "2,1,0,0,9,2,13/0,3,2,12,1,0,5 S",
                "0,0,1,2,0,1,21/1,0,2,3,0,4,13 N",
            ],
        }
    }
}
