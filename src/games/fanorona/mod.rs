//! Fanorona in its three standard sizes (9×5 Tsivy, 5×5 Dimy, 3×3 Telo), as in
//! protocol.md (section *Fanorona*): one implementation, three registry entries.
//!
//! A position is two bitboards (White, Black), the side to move, the number of turns in a
//! row without a capture (the quiet-limit draw rule and the repetition window) and, with
//! `first-capture-single`, which sides still have their first turn to make. A move is a
//! whole turn (see [`moves`]). White is `Player::P1`.

pub mod board;
mod evaluation;
pub mod moves;
mod network_features;
mod notation;
mod rules;
mod search_hints;
pub mod table;
#[cfg(test)]
mod tests;

use std::sync::Arc;

use crate::game::{
    BenchSpec, EvalTerm, Evaluation, GameResult, Horizon, MAX_TABLE_DISTANCE, MoveError,
    NetworkFeatures, Notation, Outcome, Player, Points, PositionError, Rules, SearchHints,
    eval_weights,
};
use crate::memory::mix64 as mix;
use crate::nnue::accumulator::Accumulator;
use crate::nnue::network::{Network, NetworkError};
use crate::options::{GameOptions, OptionError, OptionKind, OptionSpec};
pub use board::Size;
use board::{Geometry, NONE, opposite};
pub use moves::{ChainRules, FanoronaMove, MAX_STEPS, StepKind};

pub const OPTIONS: &[OptionSpec] = &[
    OptionSpec {
        name: "first-capture-single",
        kind: OptionKind::Bool,
        default: "false",
        help: "each side's first turn of the game is at most a single capture (no chain)",
    },
    OptionSpec {
        name: "same-direction",
        kind: OptionKind::Choice(&["forbidden", "allowed"]),
        default: "forbidden",
        help: "whether a capture chain may go on in the direction of the step just before \
               (allowed: as Ludii's Fanorona)",
    },
    OptionSpec {
        name: "repetition",
        kind: OptionKind::IntOrOff { min: 2, max: 10 },
        default: "3",
        help: "a position (board, side to move) occurring for the n-th time at the start of a \
               turn is a draw",
    },
    OptionSpec {
        name: "quiet-limit",
        kind: OptionKind::IntOrOff { min: 1, max: 1000 },
        default: "100",
        help: "this many turns in a row without a capture is a draw",
    },
];

const WHITE: usize = 0;
const BLACK: usize = 1;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FanoronaPosition {
    /// Stones by colour: `[White, Black]`.
    stones: [u64; 2],
    /// White = P1 moves first.
    side: Player,
    /// Turns in a row without a capture, up to now.
    quiet: u32,
    /// first-capture-single: bit 0 White, bit 1 Black has not made its first turn yet.
    first_pending: u8,
}

impl FanoronaPosition {
    pub fn white(&self) -> u64 {
        self.stones[WHITE]
    }

    pub fn black(&self) -> u64 {
        self.stones[BLACK]
    }

    /// Turns in a row without a capture.
    pub fn quiet(&self) -> u32 {
        self.quiet
    }

    #[inline(always)]
    fn own(&self) -> u64 {
        self.stones[self.side.index()]
    }

    #[inline(always)]
    fn enemy(&self) -> u64 {
        self.stones[1 - self.side.index()]
    }
}

fn colour_name(player: Player) -> &'static str {
    match player {
        Player::P1 => "White",
        Player::P2 => "Black",
    }
}

#[derive(Clone, Debug)]
pub struct Fanorona {
    size: Size,
    g: &'static Geometry,
    first_capture_single: bool,
    /// same-direction=allowed: a chain may go on in the direction of the step just before.
    same_direction: bool,
    repetition: Option<u32>,
    quiet_limit: Option<u32>,
    options: GameOptions,
    start: FanoronaPosition,
    /// The learned evaluation, when one is chosen (`setoption name Eval`); `None`: the
    /// hand-written one.
    network: Option<Arc<Network>>,
}

impl Fanorona {
    /// The game on `size` with `options`; an error when the code reads an option the table
    /// does not declare (the tests read them all).
    pub fn new(size: Size, options: GameOptions) -> Result<Fanorona, OptionError> {
        let g = size.geometry();
        let stones = notation::parse_board(g, size.start_board()).expect("start board is valid");
        let first_capture_single = options.bool("first-capture-single")?;
        Ok(Fanorona {
            size,
            g,
            first_capture_single,
            same_direction: options.choice_is("same-direction", "allowed")?,
            repetition: options.int_or_off("repetition")?.map(|n| n as u32),
            quiet_limit: options.int_or_off("quiet-limit")?.map(|n| n as u32),
            options,
            start: FanoronaPosition {
                stones,
                side: Player::P1,
                quiet: 0,
                first_pending: if first_capture_single { 0b11 } else { 0 },
            },
            network: None,
        }
        .with_default_network())
    }

    /// The game with its default options.
    pub fn with_defaults(size: Size) -> Result<Fanorona, OptionError> {
        let options = GameOptions::parse(size.game_name(), OPTIONS, &[])?;
        Fanorona::new(size, options)
    }

    pub fn size(&self) -> Size {
        self.size
    }

    pub fn geometry(&self) -> &'static Geometry {
        self.g
    }

    /// Is the mover limited to a single capture step this turn (first-capture-single)?
    #[inline(always)]
    fn single_capture(&self, pos: &FanoronaPosition) -> bool {
        pos.first_pending & (1 << pos.side.index()) != 0
    }

    /// The chain rules of the mover's turn.
    #[inline(always)]
    fn chain_rules(&self, pos: &FanoronaPosition) -> ChainRules {
        ChainRules {
            single: self.single_capture(pos),
            same_direction: self.same_direction,
        }
    }

    /// The quiet limit, when tables can count it (see [`crate::game::TableIndexing::table_rules`]).
    #[inline(always)]
    fn table_limit(&self) -> Option<u32> {
        self.quiet_limit.filter(|&l| l <= MAX_TABLE_DISTANCE)
    }

    #[inline(always)]
    fn quiet_limit_reached(&self, pos: &FanoronaPosition) -> bool {
        self.quiet_limit.is_some_and(|limit| pos.quiet >= limit)
    }
}
