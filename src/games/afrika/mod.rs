//! Afrika (Ralf Gering, 2004), as protocol.md (section *Afrika*) and docs/afrika.md describe
//! it: 2×8 pits, 8 stones each, no stores; a capture (compulsory, smallest pit first) takes
//! an opponent pit facing an own empty pit and is the whole turn; otherwise the mover sows,
//! skipping the origin pit.
//!
//! Board layout (`cells`): South's pits `A..H` at `0..8`, North's pits `a..h` at `8..16`.
//! That is the counter-clockwise sowing cycle for both players (South's `H` is followed by
//! North's `a`, North's `h` by South's `A`), so sowing is "the next cells, mod 16". Pit `c`
//! faces `15 - c` (A↔h, H↔a).
//!
//! Every pit holds at most 128 stones, so the board fits a `u128` of byte lanes and a whole
//! sowing is one addition of a precomputed lane mask (no lane can carry into the next).

mod evaluation;
mod network_features;
mod notation;
mod rules;
mod search_hints;
mod table;
#[cfg(test)]
mod tests;

use crate::compositions::Compositions;
use crate::game::{NetworkFeatures, Player, Points, Rules};
use crate::games::mancala::{self, Side};
use crate::nnue::features::sowing::{SowingFeatures, SowingNetwork, SowingView};
use crate::options::{GameOptions, OptionError, OptionKind, OptionSpec};

pub const NAME: &str = "afrika";
pub const PITS: usize = 8;
const CELLS: usize = 2 * PITS;
/// Stones in the game: 8 pits × 2 rows × 8 stones.
pub const STONES: u32 = 128;
const START_STONES: u8 = 8;
/// Sowing skips the origin, so a lap is the other 15 pits.
const LAP: u8 = CELLS as u8 - 1;
/// Komi is at most half the stones either way.
const MAX_KOMI: i64 = 64;

pub const OPTIONS: &[OptionSpec] = &[
    OptionSpec {
        name: "komi",
        kind: OptionKind::Half {
            min: -MAX_KOMI,
            max: MAX_KOMI,
        },
        default: "0",
        help: "points added to the second player (South); the usual value is 2.5, which \
               makes draws impossible; a negative komi is taken from South",
    },
    OptionSpec {
        name: "target",
        kind: OptionKind::IntOrOff {
            min: 1,
            max: STONES as i64 + MAX_KOMI,
        },
        default: "off",
        help: "the game ends as soon as a player's score (komi included) reaches this \
               (65 on Super Duper Games); off: play until the board is empty",
    },
];

/// An Afrika move: sow one of the mover's pits, or capture one of the opponent's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AfrikaMove {
    /// Sow the mover's pit `i` (0-based from the mover's left: `a`/`A` = 0).
    Sow(u8),
    /// Capture the opponent's pit `i` (in the opponent's lettering: `xA`/`xa` = 0).
    Capture(u8),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct AfrikaPosition {
    cells: [u8; CELLS],
    /// Stones captured so far, indexed by `Side::index`.
    captured: [u8; 2],
    side: Side,
}

impl AfrikaPosition {
    fn board(&self) -> u128 {
        u128::from_le_bytes(self.cells)
    }

    fn board_is_empty(&self) -> bool {
        self.board() == 0
    }

    fn stones_on_board(&self) -> u32 {
        self.cells.iter().map(|&c| c as u32).sum()
    }

    /// Stones in `side`'s row.
    fn row_stones(&self, side: Side) -> u32 {
        let first = first_cell(side);
        self.cells[first..first + PITS]
            .iter()
            .map(|&c| c as u32)
            .sum()
    }

    /// The stones `side` must capture now if it is to move: the smallest opponent pit that
    /// faces one of its empty pits (`None`: no capture, so it sows).
    #[inline]
    fn smallest_capture(&self, side: Side) -> Option<u8> {
        let first = first_cell(side);
        let mut smallest = u8::MAX;
        for c in first..first + PITS {
            if self.cells[c] == 0 {
                let facing = self.cells[opposite(c)];
                if facing != 0 && facing < smallest {
                    smallest = facing;
                }
            }
        }
        (smallest != u8::MAX).then_some(smallest)
    }

    /// Take the first (in the opponent's lettering) of the smallest capturable pits.
    fn capture_first_smallest(&mut self, smallest: u8) {
        let side = self.side;
        let first = first_cell(side.other());
        for c in first..first + PITS {
            if self.cells[c] == smallest && self.cells[opposite(c)] == 0 {
                self.captured[side.index()] += smallest;
                self.cells[c] = 0;
                break;
            }
        }
        self.side = side.other();
    }
}

/// The cell of `side`'s pit `A`/`a`.
#[inline]
fn first_cell(side: Side) -> usize {
    match side {
        Side::South => 0,
        Side::North => PITS,
    }
}

/// The capture moves of `side` as a range, `xA..xH` for North.
fn capture_range(side: Side) -> String {
    let them = side.other();
    format!("x{}..x{}", them.pit_letter(0), them.pit_letter(PITS - 1))
}

#[inline]
fn opposite(cell: usize) -> usize {
    CELLS - 1 - cell
}

/// One stone in each byte lane: the `u128` that adds 1 to every pit.
const ONES: u128 = u128::from_le_bytes([1; CELLS]);

/// `RUN[origin][r]`: one stone in each of the `r` pits after `origin` (cyclically).
const RUN: [[u128; LAP as usize]; CELLS] = {
    let mut table = [[0u128; LAP as usize]; CELLS];
    let mut origin = 0;
    while origin < CELLS {
        let mut r = 1;
        while r < LAP as usize {
            let cell = (origin + r) % CELLS;
            table[origin][r] = table[origin][r - 1] | 1u128 << (8 * cell);
            r += 1;
        }
        origin += 1;
    }
    table
};

#[derive(Clone, Debug)]
pub struct Afrika {
    komi: Points,
    target: Option<Points>,
    options: GameOptions,
    /// Ranks the board seen from the mover (own row, then the opponent's): table indexes
    /// and exact keys.
    index: Compositions,
    /// The learned evaluation, when one is chosen (`setoption name Eval`).
    network: SowingNetwork,
}

/// The network's features: more than half the stones captured win.
const NETWORK_LAYOUT: SowingFeatures = SowingFeatures {
    pits: PITS,
    pit_cap: 31,
    store_cap: STONES / 2,
    lead_cap: 24,
};

impl Afrika {
    /// The game with `options`; an error when the code reads an option the table does not
    /// declare (the tests read them all).
    pub fn new(options: GameOptions) -> Result<Afrika, OptionError> {
        let mut afrika = Afrika {
            komi: options.points("komi")?,
            target: options
                .int_or_off("target")?
                .map(|t| Points::whole(t as i32)),
            options,
            index: Compositions::new(CELLS, STONES),
            network: SowingNetwork::new(NETWORK_LAYOUT, NAME.to_string()),
        };
        let bytes = afrika.default_network();
        afrika.network.set_default(bytes);
        Ok(afrika)
    }

    /// `side`'s view of the board, for the network.
    #[inline]
    fn network_view(pos: &AfrikaPosition, side: Side) -> SowingView<'_, u8> {
        let (own, other) = (first_cell(side), first_cell(side.other()));
        SowingView {
            own_row: &pos.cells[own..own + PITS],
            other_row: &pos.cells[other..other + PITS],
            own_store: u32::from(pos.captured[side.index()]),
            other_store: u32::from(pos.captured[side.other().index()]),
        }
    }

    /// The position after the captures due now (to a bounded length): captures are forced
    /// and a tie only chooses among equal pits, so they are played out before a position
    /// is judged.
    #[inline]
    fn after_captures_due(&self, pos: &AfrikaPosition) -> AfrikaPosition {
        let mut quiet = *pos;
        for _ in 0..CELLS {
            if self.end_reason(&quiet).is_some() {
                break;
            }
            match quiet.smallest_capture(quiet.side) {
                Some(smallest) => quiet.capture_first_smallest(smallest),
                None => break,
            }
        }
        quiet
    }

    /// The board seen from the side to move: its own row, then the opponent's.
    #[inline]
    fn mover_view(pos: &AfrikaPosition) -> [u8; CELLS] {
        let mut view = [0u8; CELLS];
        let own = first_cell(pos.side);
        let other = first_cell(pos.side.other());
        mancala::mover_view(&pos.cells, own, other, PITS, &mut view);
        view
    }

    /// Points of `side`: its captured stones, plus komi for South.
    fn side_points(&self, pos: &AfrikaPosition, side: Side) -> Points {
        let stones = Points::whole(pos.captured[side.index()] as i32);
        match side {
            Side::South => stones + self.komi,
            Side::North => stones,
        }
    }

    /// Why the game is over, if it is.
    #[inline]
    fn end_reason(&self, pos: &AfrikaPosition) -> Option<&'static str> {
        if pos.board_is_empty() {
            return Some("the board is empty");
        }
        let target = self.target?;
        if self.side_points(pos, Side::North) >= target {
            Some("North reached the target")
        } else if self.side_points(pos, Side::South) >= target {
            Some("South reached the target")
        } else {
            None
        }
    }

    fn player_of(side: Side) -> Player {
        match side {
            Side::North => Player::P1,
            Side::South => Player::P2,
        }
    }

    /// Sow `side`'s pit `i`: every other pit gets `n / 15`, then the next `n % 15` pits one
    /// more each. The origin is never refilled, which for fewer than 16 stones changes
    /// nothing (15 stones end just before it) and for 16 or more is the skip of the rules.
    #[inline]
    fn sow(pos: &mut AfrikaPosition, side: Side, i: usize) {
        let origin = first_cell(side) + i;
        let n = pos.cells[origin];
        pos.cells[origin] = 0;
        let (laps, rest) = (n / LAP, n % LAP);
        let mut board = pos.board() + RUN[origin][rest as usize];
        if laps > 0 {
            board += laps as u128 * (ONES - (1u128 << (8 * origin)));
        }
        pos.cells = board.to_le_bytes();
    }
}
