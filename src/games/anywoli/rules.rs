//! Anywoli's rules: the start, the moves, the end of the game.

use crate::game::{BenchSpec, Outcome, Player, Points, Rules};
use crate::games::mancala::{self, Side};

use super::*;

impl Rules for Anywoli {
    type Position = AnywoliPosition;

    type Move = AnywoliMove;

    fn spec(&self) -> String {
        self.options.spec()
    }

    fn start_position(&self) -> AnywoliPosition {
        let mut houses = [0u8; MAX_WIDTH];
        houses[..self.width].fill(self.seeds);
        AnywoliPosition {
            houses,
            stores: [0, 0],
            side: Side::South,
            quiet: 0,
            last_capturer: None,
            first_final: None,
        }
    }

    fn to_move(&self, pos: &AnywoliPosition) -> Player {
        Self::player(pos.side)
    }

    fn legal_moves(&self, pos: &AnywoliPosition, moves: &mut Vec<AnywoliMove>) {
        moves.clear();
        if self.is_over(pos) {
            return;
        }
        // Branch-free: write every house, advance only past the non-empty ones.
        let mut found = [AnywoliMove::PASS; MAX_HOUSES];
        let mut k = 0;
        for (i, &count) in self.row(pos, pos.side).iter().enumerate() {
            found[k] = AnywoliMove::house(i);
            k += (count > 0) as usize;
        }
        moves.extend_from_slice(&found[..k]);
        if k == 0 {
            moves.push(AnywoliMove::PASS);
        }
    }

    fn play(&self, pos: &mut AnywoliPosition, mv: AnywoliMove) {
        if mv == AnywoliMove::PASS {
            pos.side = pos.side.other();
            pos.quiet = pos.quiet.saturating_add(1);
            return;
        }
        let stores = pos.stores;
        let start = self.house_index(pos.side, mv.0 as usize);
        let again = self.sow_turn(pos, start);
        if !again {
            pos.side = pos.side.other();
        }
        pos.quiet = if pos.stores != stores {
            0
        } else {
            pos.quiet.saturating_add(1)
        };
    }

    fn outcome(&self, pos: &AnywoliPosition) -> Option<Outcome> {
        self.ending(pos)
            .map(|(scores, reason)| Self::outcome_of(scores, reason))
    }

    fn scores(&self, pos: &AnywoliPosition) -> [Points; 2] {
        let scores = match self.ending(pos) {
            Some((scores, _)) => scores,
            None => [pos.stores[0] as u32, pos.stores[1] as u32],
        };
        scores.map(|s| Points::whole(s as i32))
    }

    // No `null_move`: null-move pruning (a pass when no lap ends on a three) was about
    // +11 over 463 games with the hand-written evaluation, and −72.3 ± 43.4 over 190 games
    // with the network (docs/strength.md, Anywoli).
    fn hash(&self, pos: &AnywoliPosition) -> u64 {
        // The last capturer only matters once four seeds are left, when the game is over;
        // the first final capturer only under last-four=first-final-capture.
        let first_final = match self.last_four {
            LastFour::FirstFinalCapture => pos.first_final.map_or(0, |s| 1 + s.index() as u64),
            LastFour::LastCapturer => 0,
        };
        let state = pos.side.index() as u64
            | (pos.stores[0] as u64) << 1
            | (pos.stores[1] as u64) << 9
            | first_final << 17
            | self.quiet_bucket(pos) << 19;
        mancala::hash_bytes(&pos.houses[..self.width], state)
    }

    fn repetition_limit(&self) -> Option<u32> {
        self.repetition
    }

    fn repetition_key(&self, pos: &AnywoliPosition) -> u64 {
        // Board and side to move only: equal boards within a game have equal stores.
        mancala::hash_bytes(&pos.houses[..self.width], 0xA11 + pos.side.index() as u64)
    }

    fn reversible_plies(&self, pos: &AnywoliPosition) -> usize {
        // A capture takes seeds off the board for good: nothing before it can recur.
        pos.quiet as usize
    }

    fn repetition_outcome(&self, pos: &AnywoliPosition) -> Outcome {
        Self::outcome_of(
            self.own_rows(pos),
            "repeated position: each side takes its own row",
        )
    }

    fn bench(&self) -> BenchSpec {
        // From engine self-play: an opening, a middle game, an ending; and houses of 30 and
        // 26 seeds, whose laps pass over their own house.
        BenchSpec {
            depth: 10,
            positions: &[
                "1,7,3,7,1,8,0,7,7,0,1,2,0/7,2,1,9,0,9,0,8,8,1,7,0,0 S 4 - -",
                "3,1,1,12,2,1,0,3,0,1,0,1,28/1,0,2,3,2,0,2,12,2,3,3,1,12 N 0 N S",
                "0,1,0,0,1,3,2,1,1,2,1,2,32/1,2,1,1,1,1,0,1,0,1,0,1,40 N 1 S S",
                "30,0,3,1,0,5,2,0,3,1,0,0,4/0,3,2,0,1,26,0,3,1,0,2,3,6 S 0 N S",
            ],
        }
    }
}
