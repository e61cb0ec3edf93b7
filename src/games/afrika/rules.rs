//! Afrika's rules: the start, the moves, the end of the game.

use crate::game::{BenchSpec, GameResult, Outcome, Player, Points, Rules};
use crate::games::mancala::{self, Side};

use super::*;

impl Rules for Afrika {
    type Position = AfrikaPosition;

    type Move = AfrikaMove;

    fn spec(&self) -> String {
        self.options.spec()
    }

    fn start_position(&self) -> AfrikaPosition {
        AfrikaPosition {
            cells: [START_STONES; CELLS],
            captured: [0, 0],
            side: Side::North,
        }
    }

    fn to_move(&self, pos: &AfrikaPosition) -> Player {
        Afrika::player_of(pos.side)
    }

    fn legal_moves(&self, pos: &AfrikaPosition, moves: &mut Vec<AfrikaMove>) {
        moves.clear();
        if self.end_reason(pos).is_some() {
            return;
        }
        let side = pos.side;
        if let Some(smallest) = pos.smallest_capture(side) {
            let first = first_cell(side.other());
            for i in 0..PITS {
                let c = first + i;
                if pos.cells[c] == smallest && pos.cells[opposite(c)] == 0 {
                    moves.push(AfrikaMove::Capture(i as u8));
                }
            }
        } else {
            let first = first_cell(side);
            for i in 0..PITS {
                if pos.cells[first + i] != 0 {
                    moves.push(AfrikaMove::Sow(i as u8));
                }
            }
        }
    }

    fn play(&self, pos: &mut AfrikaPosition, mv: AfrikaMove) {
        let side = pos.side;
        match mv {
            AfrikaMove::Capture(i) => {
                let c = first_cell(side.other()) + i as usize;
                pos.captured[side.index()] += pos.cells[c];
                pos.cells[c] = 0;
            }
            AfrikaMove::Sow(i) => Afrika::sow(pos, side, i as usize),
        }
        pos.side = side.other();
    }

    fn outcome(&self, pos: &AfrikaPosition) -> Option<Outcome> {
        let reason = self.end_reason(pos)?;
        let scores = self.scores(pos);
        Some(Outcome {
            result: GameResult::from_scores(scores),
            scores,
            reason,
        })
    }

    fn scores(&self, pos: &AfrikaPosition) -> [Points; 2] {
        [
            self.side_points(pos, Side::North),
            self.side_points(pos, Side::South),
        ]
    }

    fn hash(&self, pos: &AfrikaPosition) -> u64 {
        let mut counts = [0u16; CELLS + 2];
        for (count, &c) in counts.iter_mut().zip(pos.cells.iter().chain(&pos.captured)) {
            *count = c as u16;
        }
        mancala::hash_counts(&counts, pos.side.index() as u64)
    }

    fn bench(&self) -> BenchSpec {
        BenchSpec {
            depth: 14,
            positions: &[
                // From the published De Leo - Gering game after 10, 20, 26 and 40 plies.
                "1,13,12,11,0,0,4,3,11/14,13,12,1,4,13,2,1,13 N",
                "0,1,13,0,0,0,4,3,28/14,13,0,0,0,14,0,0,38 N",
                "1,1,0,3,2,2,0,5,44/15,0,2,2,2,0,2,2,45 N",
                "1,3,0,3,1,4,1,0,49/0,2,4,0,3,3,2,0,52 N",
            ],
        }
    }
}
