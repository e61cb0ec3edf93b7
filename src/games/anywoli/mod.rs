//! Anywoli and its relatives Yit Nuri and Yit Jani, as protocol.md (section *Anywoli*)
//! describes them.
//!
//! Board layout (`houses`): South's houses `A..` at `0..n`, North's `a..` at `n..2n`. That
//! is the counter-clockwise sowing order (North's `a` follows South's last house), so
//! sowing is "step to the next index, wrapping at `2n`". Stores are kept apart: seeds are
//! never sown into them.
//!
//! A turn is a relay of laps. The loop guard of rule 6 (a lap end whose board and end house
//! equal an earlier lap end of the same turn ends the turn) is checked with Brent's cycle
//! detection, which needs no memory beyond one saved board; when it finds a cycle, the turn
//! is replayed to stop exactly at the first repeated lap end (see `Anywoli::sow_turn`).

mod evaluation;
mod network_features;
mod notation;
mod rules;
mod search_hints;
mod table;
#[cfg(test)]
mod tests;

use crate::game::{GameResult, MAX_PLY, NetworkFeatures, Outcome, Player, Points, PositionError};
use crate::games::mancala::Side;
use crate::nnue::features::sowing::{SowingFeatures, SowingNetwork, SowingView};
use crate::options::{GameOptions, OptionError, OptionKind, OptionSpec};

pub const NAME: &str = "anywoli";
pub const MAX_HOUSES: usize = 13;
const MAX_WIDTH: usize = 2 * MAX_HOUSES;
/// Seeds on a board and in its stores together: every count fits in a byte.
pub const MAX_SEEDS: u32 = 255;
/// A house reaching exactly this many seeds is captured.
const FOUR: u8 = 4;

pub const OPTIONS: &[OptionSpec] = &[
    OptionSpec {
        name: "houses",
        kind: OptionKind::Int {
            min: 1,
            max: MAX_HOUSES as i64,
        },
        default: "12",
        help: "houses per row (Yit Nuri: 7; Yit Jani: 13 with seeds=2)",
    },
    OptionSpec {
        name: "seeds",
        kind: OptionKind::Int { min: 1, max: 8 },
        default: "4",
        help: "seeds per house at the start",
    },
    OptionSpec {
        name: "last-four",
        kind: OptionKind::Choice(&["last-capturer", "first-final-capture"]),
        default: "last-capturer",
        help: "who takes the last four seeds: the most recent capturer, or the first player \
               who captured with a final seed (else the most recent capturer)",
    },
    OptionSpec {
        name: "repetition",
        kind: OptionKind::IntOrOff { min: 2, max: 100 },
        default: "3",
        help: "engine rule: the n-th occurrence of a position (board and side to move) ends \
               the game, each side taking the seeds of its own row",
    },
    OptionSpec {
        name: "quiet-limit",
        kind: OptionKind::IntOrOff { min: 1, max: 10000 },
        default: "200",
        help: "engine rule: this many turns in a row without a capture end the game, each \
               side taking the seeds of its own row",
    },
];

/// Who takes the last four seeds (option `last-four`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LastFour {
    LastCapturer,
    FirstFinalCapture,
}

/// An Anywoli move: sow the mover's house `i` (0-based from the owner's left), or `pass`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct AnywoliMove(u8);

impl AnywoliMove {
    pub const PASS: AnywoliMove = AnywoliMove(u8::MAX);

    pub fn house(i: usize) -> AnywoliMove {
        AnywoliMove(i as u8)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct AnywoliPosition {
    houses: [u8; MAX_WIDTH],
    /// Indexed by `Side::index`.
    stores: [u8; 2],
    side: Side,
    /// Turns (moves, passes included) since the last capture.
    quiet: u16,
    /// Whose store received the most recent group of four.
    last_capturer: Option<Side>,
    /// Who first captured with the final seed of a lap.
    first_final: Option<Side>,
}

/// How a lap ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LapEnd {
    /// The last seed fell into an empty house: the turn ends.
    Empty,
    /// The last seed made four: captured by the mover, who moves again.
    FinalFour,
    /// The last seed fell into an occupied house: pick up and sow on.
    Relay,
}

#[derive(Clone, Debug)]
pub struct Anywoli {
    /// Houses per row.
    houses: usize,
    /// Houses on the board: one lap of sowing.
    width: usize,
    seeds: u8,
    last_four: LastFour,
    repetition: Option<u32>,
    quiet_limit: Option<u16>,
    options: GameOptions,
    /// The learned evaluation, when one is chosen (`setoption name Eval`).
    network: SowingNetwork,
}

impl Anywoli {
    /// The game with `options`; an error when the code reads an option the table does not
    /// declare (the tests read them all).
    pub fn new(options: GameOptions) -> Result<Anywoli, OptionError> {
        let houses = options.int("houses")? as usize;
        let seeds = options.int("seeds")? as u8;
        let layout = SowingFeatures {
            pits: houses,
            pit_cap: 15,
            // More than half the seeds in a store win.
            store_cap: houses as u32 * u32::from(seeds),
            lead_cap: 32,
        };
        let mut anywoli = Anywoli {
            houses,
            width: 2 * houses,
            seeds,
            last_four: if options.choice_is("last-four", "first-final-capture")? {
                LastFour::FirstFinalCapture
            } else {
                LastFour::LastCapturer
            },
            repetition: options.int_or_off("repetition")?.map(|n| n as u32),
            quiet_limit: options.int_or_off("quiet-limit")?.map(|n| n as u16),
            options,
            network: SowingNetwork::new(layout, format!("anywoli {houses}x{seeds}")),
        };
        let bytes = anywoli.default_network();
        anywoli.network.set_default(bytes);
        Ok(anywoli)
    }

    /// `side`'s view of the board, for the network.
    #[inline]
    fn network_view<'p>(&self, pos: &'p AnywoliPosition, side: Side) -> SowingView<'p, u8> {
        SowingView {
            own_row: self.row(pos, side),
            other_row: self.row(pos, side.other()),
            own_store: u32::from(pos.stores[side.index()]),
            other_store: u32::from(pos.stores[side.other().index()]),
        }
    }

    /// Seeds in play at the start.
    pub fn total_seeds(&self) -> u32 {
        self.width as u32 * self.seeds as u32
    }

    fn owner(&self, house: usize) -> Side {
        if house < self.houses {
            Side::South
        } else {
            Side::North
        }
    }

    /// The index of `side`'s house `i`.
    fn house_index(&self, side: Side, i: usize) -> usize {
        match side {
            Side::South => i,
            Side::North => self.houses + i,
        }
    }

    fn row<'a>(&self, pos: &'a AnywoliPosition, side: Side) -> &'a [u8] {
        let first = self.house_index(side, 0);
        &pos.houses[first..first + self.houses]
    }

    fn row_sum(&self, pos: &AnywoliPosition, side: Side) -> u32 {
        self.row(pos, side).iter().map(|&c| c as u32).sum()
    }

    fn board_seeds(&self, pos: &AnywoliPosition) -> u32 {
        pos.houses[..self.width].iter().map(|&c| c as u32).sum()
    }

    fn player(side: Side) -> Player {
        match side {
            Side::South => Player::P1,
            Side::North => Player::P2,
        }
    }

    /// Final scores and the reason when the position ends the game (repetition aside).
    fn ending(&self, pos: &AnywoliPosition) -> Option<([u32; 2], &'static str)> {
        let on_board = self.board_seeds(pos);
        let mut scores = [pos.stores[0] as u32, pos.stores[1] as u32];
        if on_board == 0 {
            return Some((scores, "the board is empty"));
        }
        if on_board == FOUR as u32 {
            let holder = match self.last_four {
                LastFour::LastCapturer => pos.last_capturer,
                LastFour::FirstFinalCapture => pos.first_final.or(pos.last_capturer),
            };
            return Some(match holder {
                Some(side) => {
                    scores[side.index()] += FOUR as u32;
                    let reason = match (self.last_four, pos.first_final) {
                        (LastFour::FirstFinalCapture, Some(_)) => {
                            "four seeds left: they go to the first final-seed capturer"
                        }
                        _ => "four seeds left: they go to the last capturer",
                    };
                    (scores, reason)
                }
                None => (
                    self.own_rows(pos),
                    "four seeds left and nobody has captured: each side takes its own row",
                ),
            });
        }
        if self.quiet_limit.is_some_and(|limit| pos.quiet >= limit) {
            return Some((
                self.own_rows(pos),
                "turn limit without capture: each side takes its own row",
            ));
        }
        None
    }

    /// Stores plus each side's own row: the endless-play settlement.
    fn own_rows(&self, pos: &AnywoliPosition) -> [u32; 2] {
        [Side::South, Side::North]
            .map(|side| pos.stores[side.index()] as u32 + self.row_sum(pos, side))
    }

    fn outcome_of(scores: [u32; 2], reason: &'static str) -> Outcome {
        let scores = scores.map(|s| Points::whole(s as i32));
        Outcome {
            result: GameResult::from_scores(scores),
            scores,
            reason,
        }
    }

    fn is_over(&self, pos: &AnywoliPosition) -> bool {
        let on_board = self.board_seeds(pos);
        on_board == 0
            || on_board == FOUR as u32
            || self.quiet_limit.is_some_and(|limit| pos.quiet >= limit)
    }

    /// One lap from `from` by the player to move: pick up every seed there and sow them one
    /// by one, capturing each house that reaches four. Returns the house of the last seed.
    #[inline(always)]
    fn lap(&self, pos: &mut AnywoliPosition, from: usize) -> (usize, LapEnd) {
        let mut seeds = pos.houses[from];
        debug_assert!(seeds > 0, "a lap starts from a non-empty house");
        pos.houses[from] = 0;
        let mut house = from;
        loop {
            house += 1;
            if house == self.width {
                house = 0;
            }
            seeds -= 1;
            let count = pos.houses[house] + 1;
            if count == FOUR {
                pos.houses[house] = 0;
                if seeds == 0 {
                    let mover = pos.side;
                    pos.stores[mover.index()] += FOUR;
                    pos.last_capturer = Some(mover);
                    pos.first_final.get_or_insert(mover);
                    return (house, LapEnd::FinalFour);
                }
                let owner = self.owner(house);
                pos.stores[owner.index()] += FOUR;
                pos.last_capturer = Some(owner);
            } else {
                pos.houses[house] = count;
                if seeds == 0 {
                    let end = if count == 1 {
                        LapEnd::Empty
                    } else {
                        LapEnd::Relay
                    };
                    return (house, end);
                }
            }
        }
    }

    /// Play a whole turn from house index `start`; returns whether the mover moves again.
    ///
    /// Rule 6 asks whether a lap end (board and end house) repeats an earlier lap end of the
    /// turn. The lap ends form a sequence `x(t+1) = f(x(t))`, so Brent's algorithm finds a
    /// cycle and its exact length `λ` keeping a single saved board (the tortoise). Found, the
    /// turn is replayed from its start with a second runner `λ` laps ahead; the first lap
    /// end where both agree is the first repetition, where the rule ends the turn.
    fn sow_turn(&self, pos: &mut AnywoliPosition, start: usize) -> bool {
        let before = *pos;
        let (mut house, mut end) = self.lap(pos, start);
        let mut tortoise = pos.houses;
        let mut tortoise_house = house;
        let mut tortoise_stores = pos.stores;
        let mut power = 1u32;
        let mut lam = 1u32;
        while end == LapEnd::Relay {
            (house, end) = self.lap(pos, house);
            if end != LapEnd::Relay {
                break;
            }
            // A capture changes the stores: cheap proof that the boards differ.
            if house == tortoise_house && pos.stores == tortoise_stores && pos.houses == tortoise {
                *pos = self.stop_at_first_repeat(&before, start, lam);
                return false;
            }
            if lam == power {
                tortoise = pos.houses;
                tortoise_house = house;
                tortoise_stores = pos.stores;
                power *= 2;
                lam = 0;
            }
            lam += 1;
        }
        end == LapEnd::FinalFour
    }

    /// Replay a turn whose lap ends cycle with period `cycle`, stopping at the first lap end
    /// equal to an earlier one (rule 6). Rare: only reached when a cycle exists.
    #[cold]
    fn stop_at_first_repeat(
        &self,
        before: &AnywoliPosition,
        start: usize,
        cycle: u32,
    ) -> AnywoliPosition {
        let mut behind = *before;
        let (mut behind_house, _) = self.lap(&mut behind, start);
        let mut ahead = behind;
        let mut ahead_house = behind_house;
        for _ in 0..cycle {
            (ahead_house, _) = self.lap(&mut ahead, ahead_house);
        }
        while !(behind_house == ahead_house && behind.houses == ahead.houses) {
            (behind_house, _) = self.lap(&mut behind, behind_house);
            (ahead_house, _) = self.lap(&mut ahead, ahead_house);
        }
        ahead
    }

    /// The part of the quiet-turn counter the hash must see. A counter further from the
    /// limit than the search can look ahead (`MAX_PLY` moves) cannot change anything the
    /// search finds, so such counters hash alike (more transpositions, no wrong ones). With
    /// the default limit of 200 every counter is within reach and counts.
    fn quiet_bucket(&self, pos: &AnywoliPosition) -> u64 {
        match self.quiet_limit {
            Some(limit) => {
                let far = (limit as usize).saturating_sub(MAX_PLY + 1);
                (pos.quiet as usize).saturating_sub(far) as u64
            }
            None => 0,
        }
    }

    /// First-lap look-ahead when sowing from `start`: (the final seed makes four, net seeds
    /// the lap's mid-lap fours give the mover). Only laps shorter than the board, where each
    /// house gets at most one seed; relays are not followed.
    fn first_lap_gain(&self, pos: &AnywoliPosition, start: usize) -> (bool, i32) {
        let seeds = pos.houses[start] as usize;
        if seeds == 0 || seeds >= self.width {
            return (false, 0);
        }
        let mut net = 0;
        let mut house = start;
        for k in 1..=seeds {
            house += 1;
            if house == self.width {
                house = 0;
            }
            if pos.houses[house] == FOUR - 1 {
                if k == seeds {
                    return (true, net + FOUR as i32);
                }
                net += if self.owner(house) == pos.side {
                    FOUR as i32
                } else {
                    -(FOUR as i32)
                };
            }
        }
        (false, net)
    }

    fn side_label(side: Option<Side>) -> char {
        side.map_or('-', |s| s.letter())
    }

    fn parse_side_field(text: &str, what: &str) -> Result<Option<Side>, PositionError> {
        if text == "-" {
            return Ok(None);
        }
        Side::from_letter(text).map(Some).ok_or_else(|| {
            PositionError::new(format!(
                "{what} must be S, N or - (nobody yet), not '{text}'"
            ))
        })
    }
}
