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

use std::fmt::Write;

use crate::game::{
    BenchSpec, EvalTerm, Evaluation, ExactValues, GameResult, MAX_PLY, MoveError, NetworkFeatures,
    Notation, Outcome, Player, Points, PositionError, Rules, SearchHints, TableIndexing,
    eval_weights,
};
use crate::games::mancala::{self, Side};
use crate::games::sowing_network::{SowingFeatures, SowingNetwork, SowingView};
use crate::options::{GameOptions, OptionKind, OptionSpec};

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
    pub fn new(options: GameOptions) -> Anywoli {
        let houses = options.int("houses") as usize;
        let seeds = options.int("seeds") as u8;
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
            last_four: match options.choice("last-four") {
                "first-final-capture" => LastFour::FirstFinalCapture,
                _ => LastFour::LastCapturer,
            },
            repetition: options.int_or_off("repetition").map(|n| n as u32),
            quiet_limit: options.int_or_off("quiet-limit").map(|n| n as u16),
            options,
            network: SowingNetwork::new(layout, format!("anywoli {houses}x{seeds}")),
        };
        let bytes = anywoli.default_network();
        anywoli.network.set_default(bytes);
        anywoli
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

/// Anywoli's network (see `NetworkFeatures::default_network`).
const NETWORK: &[u8] = include_bytes!("anywoli.nnue");

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

impl Notation for Anywoli {
    fn parse_position(&self, text: &str) -> Result<AnywoliPosition, PositionError> {
        let fields: Vec<&str> = text.split_whitespace().collect();
        let usage = format!(
            "an Anywoli position is '<South houses {}>,<South store>/<North houses {}>,<North \
             store> <S|N> [<turns without capture> <last capturer S|N|-> <first final-seed \
             capturer S|N|->]', e.g. '{}'",
            Side::South.pit_range(self.houses),
            Side::North.pit_range(self.houses),
            self.format_position(&self.start_position())
        );
        if fields.len() != 2 && fields.len() != 5 {
            return Err(PositionError::new(format!(
                "expected 2 or 5 fields, found {}: {usage}",
                fields.len()
            )));
        }
        let sides = mancala::parse_board(
            fields[0],
            self.houses,
            MAX_SEEDS,
            ("houses", "store"),
            &usage,
        )?;
        let mut houses = [0u8; MAX_WIDTH];
        let mut stores = [0u8; 2];
        for (side, counts) in [Side::South, Side::North].into_iter().zip(&sides) {
            let first = self.house_index(side, 0);
            for (i, &c) in counts[..self.houses].iter().enumerate() {
                houses[first + i] = c as u8;
            }
            stores[side.index()] = counts[self.houses] as u8;
        }
        let total: u32 = houses.iter().chain(&stores).map(|&c| c as u32).sum();
        if total > MAX_SEEDS {
            return Err(PositionError::new(format!(
                "{total} seeds in all: at most {MAX_SEEDS} fit this engine's Anywoli"
            )));
        }
        let side = Side::from_letter(fields[1]).ok_or_else(|| {
            PositionError::new(format!(
                "side to move must be S or N, not '{}': {usage}",
                fields[1]
            ))
        })?;
        let mut pos = AnywoliPosition {
            houses,
            stores,
            side,
            quiet: 0,
            last_capturer: None,
            first_final: None,
        };
        if fields.len() == 5 {
            let most = self.quiet_limit.unwrap_or(u16::MAX);
            pos.quiet = super::parse_digits::<u16>(fields[2])
                .filter(|&n| n <= most)
                .ok_or_else(|| {
                    let limit = match self.quiet_limit {
                        Some(limit) => format!(" (the quiet-limit is {limit})"),
                        None => String::new(),
                    };
                    PositionError::new(format!(
                        "turns without capture must be a number 0..{most}{limit}, not '{}': \
                         {usage}",
                        fields[2]
                    ))
                })?;
            pos.last_capturer = Self::parse_side_field(fields[3], "the last capturer")?;
            pos.first_final = Self::parse_side_field(fields[4], "the first final-seed capturer")?;
            if pos.first_final.is_some() && pos.last_capturer.is_none() {
                return Err(PositionError::new(
                    "a first final-seed capture is a capture: the last capturer cannot be '-'",
                ));
            }
        }
        Ok(pos)
    }

    fn format_position(&self, pos: &AnywoliPosition) -> String {
        let mut out = String::new();
        let side_cells = |side: Side| {
            self.row(pos, side)
                .iter()
                .chain(std::iter::once(&pos.stores[side.index()]))
                .map(|&c| c as u32)
        };
        mancala::format_board(&mut out, side_cells(Side::South), side_cells(Side::North));
        let _ = write!(
            out,
            " {} {} {} {}",
            pos.side.letter(),
            pos.quiet,
            Self::side_label(pos.last_capturer),
            Self::side_label(pos.first_final)
        );
        out
    }

    fn parse_move(&self, pos: &AnywoliPosition, text: &str) -> Result<AnywoliMove, MoveError> {
        if self.is_over(pos) {
            return Err(MoveError::illegal(text, "the game is over"));
        }
        let row_empty = self.row_sum(pos, pos.side) == 0;
        if text == "pass" {
            if !row_empty {
                return Err(MoveError::illegal(
                    text,
                    format!(
                        "pass is legal only when the mover's row is empty, and {} has seeds",
                        pos.side.name()
                    ),
                ));
            }
            return Ok(AnywoliMove::PASS);
        }
        let words = mancala::PitWords {
            noun: "house",
            game_move: "an Anywoli move",
            other_move: "pass",
        };
        let i = mancala::parse_own_pit(text, pos.side, self.houses, &words)?;
        let side = pos.side;
        if row_empty {
            return Err(MoveError::illegal(
                text,
                format!("{}'s row is empty: the only move is pass", side.name()),
            ));
        }
        if pos.houses[self.house_index(side, i)] == 0 {
            return Err(MoveError::illegal(text, format!("house {text} is empty")));
        }
        Ok(AnywoliMove::house(i))
    }

    fn format_move(&self, pos: &AnywoliPosition, mv: AnywoliMove) -> String {
        if mv == AnywoliMove::PASS {
            "pass".to_string()
        } else {
            pos.side.pit_letter(mv.0 as usize).to_string()
        }
    }

    fn render(&self, pos: &AnywoliPosition) -> String {
        let n = self.houses;
        let row =
            |side: Side| -> Vec<u32> { self.row(pos, side).iter().map(|&c| c as u32).collect() };
        let stores = pos.stores.map(u32::from);
        let mut out = mancala::render_with_stores(&row(Side::South), &row(Side::North), stores);
        let _ = writeln!(
            out,
            "North's store is on the left, South's on the right; sowing runs A..{} then a..{}.",
            Side::South.pit_letter(n - 1),
            Side::North.pit_letter(n - 1)
        );
        let quiet_limit = self
            .quiet_limit
            .map_or("off".to_string(), |l| l.to_string());
        let _ = write!(
            out,
            "To move: {} ({}); seeds on the board: {}; turns without capture: {}/{}; last \
             capturer: {}; first final-seed capturer: {}",
            pos.side.name(),
            self.to_move(pos).name(),
            self.board_seeds(pos),
            pos.quiet,
            quiet_limit,
            pos.last_capturer.map_or("nobody", |s| s.name()),
            pos.first_final.map_or("nobody", |s| s.name()),
        );
        out
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

impl NetworkFeatures for Anywoli {
    /// Each house's seeds and the stores, from each side's view (`sowing_network`).
    fn network_inputs(&self) -> usize {
        self.network.layout.inputs()
    }

    fn network_id(&self) -> String {
        self.network.id.clone()
    }

    fn network_features(&self, pos: &AnywoliPosition, view: Player, out: &mut Vec<u16>) {
        let side = match view {
            Player::P1 => Side::South,
            Player::P2 => Side::North,
        };
        self.network
            .push_features(self.network_view(pos, side), out);
    }

    /// 12 houses of 4 seeds under the default rules: trained by `sowfan train` on `sowfan
    /// datagen` games (docs/nnue.md). Other boards and rules evaluate by hand.
    fn default_network(&self) -> Option<&'static [u8]> {
        self.options.non_default().is_empty().then_some(NETWORK)
    }

    fn set_network(&mut self, bytes: Option<&[u8]>) -> Result<(), String> {
        self.network.set(bytes)
    }
}

impl SearchHints for Anywoli {
    fn history_key(&self, _pos: &AnywoliPosition, mv: AnywoliMove) -> Option<usize> {
        Some(mv.0 as usize) // the house sown (pass: 255)
    }

    fn order_hint(&self, pos: &AnywoliPosition, mv: AnywoliMove) -> i32 {
        if mv == AnywoliMove::PASS {
            return 0;
        }
        let start = self.house_index(pos.side, mv.0 as usize);
        match self.first_lap_gain(pos, start) {
            (true, net) => 1000 + net,
            (false, net) => 10 * net,
        }
    }
}

impl ExactValues for Anywoli {}

impl TableIndexing for Anywoli {}

#[cfg(test)]
mod tests {
    use super::*;

    fn anywoli(options: &[&str]) -> Anywoli {
        Anywoli::new(GameOptions::parse(NAME, OPTIONS, options).unwrap())
    }

    /// Anywoli evaluating by hand (`Eval classic`), whose terms the tests check.
    fn hand_written() -> Anywoli {
        let mut g = anywoli(&[]);
        g.set_network(None).unwrap();
        g
    }

    /// A 12-house position string from rows given as (house letter, seeds) pairs.
    fn board(south: &[(char, u8)], north: &[(char, u8)], stores: [u8; 2], rest: &str) -> String {
        let row = |pairs: &[(char, u8)], base: u8, store: u8| {
            let mut counts = [0u8; 12];
            for &(letter, seeds) in pairs {
                counts[(letter as u8 - base) as usize] = seeds;
            }
            let mut text: Vec<String> = counts.iter().map(|c| c.to_string()).collect();
            text.push(store.to_string());
            text.join(",")
        };
        format!(
            "{}/{} {rest}",
            row(south, b'A', stores[0]),
            row(north, b'a', stores[1])
        )
    }

    fn play_text(game: &Anywoli, fen: &str, moves: &[&str]) -> AnywoliPosition {
        let mut pos = game.parse_position(fen).unwrap();
        for m in moves {
            let mv = game.parse_move(&pos, m).unwrap();
            game.play(&mut pos, mv);
        }
        pos
    }

    fn legal(game: &Anywoli, pos: &AnywoliPosition) -> Vec<String> {
        let mut moves = vec![];
        game.legal_moves(pos, &mut moves);
        moves.iter().map(|&m| game.format_move(pos, m)).collect()
    }

    #[test]
    fn start_position_string() {
        let g = anywoli(&[]);
        let start = g.start_position();
        let text = "4,4,4,4,4,4,4,4,4,4,4,4,0/4,4,4,4,4,4,4,4,4,4,4,4,0 S 0 - -";
        assert_eq!(g.format_position(&start), text);
        assert_eq!(g.parse_position(text).unwrap(), start);
        // The short form leaves the counter at 0 and nobody having captured.
        let short = "4,4,4,4,4,4,4,4,4,4,4,4,0/4,4,4,4,4,4,4,4,4,4,4,4,0 S";
        assert_eq!(g.parse_position(short).unwrap(), start);
        assert_eq!(legal(&g, &start).join(" "), "A B C D E F G H I J K L");
        assert_eq!(g.to_move(&start), Player::P1);
        let nuri = anywoli(&["houses=7"]);
        assert_eq!(
            nuri.format_position(&nuri.start_position()),
            "4,4,4,4,4,4,4,0/4,4,4,4,4,4,4,0 S 0 - -"
        );
        let jani = anywoli(&["houses=13", "seeds=2"]);
        let pos = jani.start_position();
        assert_eq!(jani.total_seeds(), 52);
        assert_eq!(legal(&jani, &pos).last().unwrap(), "M");
        assert!(jani.parse_move(&pos, "M").is_ok());
    }

    #[test]
    fn relay_sowing_picks_up_the_last_house_until_an_empty_one() {
        let g = anywoli(&[]);
        // A: B..E, E holds 5: relay F..J, then K..c, d..h, i..l and A, empty: the end.
        let pos = play_text(&g, &g.format_position(&g.start_position()), &["A"]);
        assert_eq!(
            g.format_position(&pos),
            "1,5,5,5,0,5,5,5,5,0,5,5,0/5,5,0,5,5,5,5,0,5,5,5,5,0 N 1 - -"
        );
    }

    #[test]
    fn mid_lap_four_goes_to_the_owner_of_the_house() {
        let g = anywoli(&[]);
        // K sows L (3 -> 4: South's), a (3 -> 4: North's), b, c (empty: the end).
        let fen = board(
            &[('A', 1), ('K', 4), ('L', 3)],
            &[('a', 3), ('e', 5)],
            [0, 0],
            "S",
        );
        let pos = play_text(&g, &fen, &["K"]);
        assert_eq!(
            g.format_position(&pos),
            board(
                &[('A', 1)],
                &[('b', 1), ('c', 1), ('e', 5)],
                [4, 4],
                "N 0 N -"
            )
        );
        // Sowing continued after both captures; North, who received the last four, is the
        // last capturer; no final-seed capture yet.
        assert_eq!(pos.last_capturer, Some(Side::North));
        assert_eq!(pos.first_final, None);
    }

    #[test]
    fn final_four_goes_to_the_mover_who_moves_again() {
        let g = anywoli(&[]);
        // L sows a (empty) and b (3 -> 4 with the last seed): South's, and South again.
        let fen = board(
            &[('A', 2), ('L', 2)],
            &[('b', 3), ('e', 5)],
            [0, 0],
            "N 7 - -",
        );
        let pos = play_text(&g, &fen.replace(" N 7", " S 7"), &["L"]);
        assert_eq!(
            g.format_position(&pos),
            board(&[('A', 2)], &[('a', 1), ('e', 5)], [4, 0], "S 0 S S")
        );
        assert_eq!(g.to_move(&pos), Player::P1);
        // A final four in one's own row is the mover's too, with the extra move.
        let fen = board(&[('A', 2)], &[('j', 2), ('l', 3), ('e', 5)], [0, 0], "N");
        let pos = play_text(&g, &fen, &["j"]);
        assert_eq!(
            g.format_position(&pos),
            board(&[('A', 2)], &[('e', 5), ('k', 1)], [0, 4], "N 0 N N")
        );
    }

    #[test]
    fn a_lap_of_a_whole_board_or_more_sows_into_its_own_house() {
        let g = anywoli(&[]);
        // 24 seeds from A: one into every house, the 24th into A itself (empty): the end.
        let pos = play_text(&g, &board(&[('A', 24)], &[], [0, 0], "S"), &["A"]);
        assert_eq!(
            g.format_position(&pos),
            "1,1,1,1,1,1,1,1,1,1,1,1,0/1,1,1,1,1,1,1,1,1,1,1,1,0 N 1 - -"
        );
        // 25: A gets its seed mid-lap and the 25th lands in B (now 2): relays of two follow
        // round the board until B, emptied by its pick-up, receives the last seed.
        let pos = play_text(&g, &board(&[('A', 25)], &[], [0, 0], "S"), &["A"]);
        assert_eq!(
            g.format_position(&pos),
            "2,1,2,0,2,0,2,0,2,0,2,0,0/2,0,2,0,2,0,2,0,2,0,2,0,0 N 1 - -"
        );
        // On Yit Nuri's 14 houses a lap of 14 already comes back to its own house.
        let nuri = anywoli(&["houses=7"]);
        let pos = play_text(&nuri, "14,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0 S", &["A"]);
        assert_eq!(
            nuri.format_position(&pos),
            "1,1,1,1,1,1,1,0/1,1,1,1,1,1,1,0 N 1 - -"
        );
    }

    #[test]
    fn loop_guard_ends_a_turn_at_the_first_repeated_lap_end() {
        let g = anywoli(&[]);
        // Found by search: from this board, A's relay never empties a house or makes four;
        // the end of lap 289 repeats the end of lap 1 (board and end house), so the turn
        // stops there without picking up. Checked by the independent implementation of the
        // rules in tests/it/anywoli.rs.
        let fen = "2,0,2,1,0,1,0,1,0,1,0,1,0/0,1,0,1,0,1,0,1,0,1,0,1,0 S";
        let pos = play_text(&g, fen, &["A"]);
        assert_eq!(
            g.format_position(&pos),
            "0,1,3,1,0,1,0,1,0,1,0,1,0/0,1,0,1,0,1,0,1,0,1,0,1,0 N 1 - -"
        );
        // A repetition that starts later in the turn (lap 10 repeats lap 2), after a mid-lap
        // four for North: the replay that finds the first repetition keeps the capture.
        let small = anywoli(&["houses=2"]);
        let pos = play_text(&small, "1,2,0/2,4,0 S", &["B"]);
        assert_eq!(small.format_position(&pos), "3,1,0/0,1,4 N 0 N -");
    }

    #[test]
    fn pass_exactly_when_the_movers_row_is_empty() {
        let g = anywoli(&[]);
        let fen = board(&[], &[('a', 2), ('e', 5)], [40, 49], "S 3 N S");
        let pos = g.parse_position(&fen).unwrap();
        assert_eq!(legal(&g, &pos), vec!["pass"]);
        let e = g.parse_move(&pos, "A").unwrap_err().to_string();
        assert!(e.contains("only move is pass"), "{e}");
        let after = play_text(&g, &fen, &["pass"]);
        assert_eq!(after.side, Side::North);
        assert_eq!(after.quiet, 4);
        assert_eq!(after.houses, pos.houses);
        let e = g.parse_move(&after, "pass").unwrap_err().to_string();
        assert!(e.contains("only when the mover's row is empty"), "{e}");
        // An extra move with an empty row is a pass too.
        let fen = board(&[('L', 1)], &[('a', 3), ('e', 5)], [0, 0], "S");
        let pos = play_text(&g, &fen, &["L"]);
        assert_eq!(g.to_move(&pos), Player::P1);
        assert_eq!(legal(&g, &pos), vec!["pass"]);
    }

    #[test]
    fn game_ends_when_the_board_is_empty() {
        let g = anywoli(&[]);
        // L: a (3 -> 4 mid-lap: North's), b (3 -> 4 last seed: South's). Nothing left.
        let fen = board(&[('L', 2)], &[('a', 3), ('b', 3)], [44, 44], "S");
        let pos = play_text(&g, &fen, &["L"]);
        let outcome = g.outcome(&pos).unwrap();
        assert_eq!(outcome.scores, [Points::whole(48), Points::whole(48)]);
        assert_eq!(outcome.result, GameResult::Draw);
        assert_eq!(outcome.reason, "the board is empty");
        assert!(legal(&g, &pos).is_empty());
        assert!(g.parse_move(&pos, "pass").is_err());
    }

    #[test]
    fn last_four_go_to_the_last_capturer_by_default() {
        // North captured first with a final seed; South's final four leaves four (e).
        let fen = board(&[('L', 1)], &[('a', 3), ('e', 4)], [40, 44], "S 0 N N");
        let g = anywoli(&[]);
        let pos = play_text(&g, &fen, &["L"]);
        let outcome = g.outcome(&pos).unwrap();
        assert_eq!(outcome.scores, [Points::whole(48), Points::whole(44)]);
        assert_eq!(outcome.result, GameResult::P1Win);
        assert!(legal(&g, &pos).is_empty());
        // A mid-lap four, which goes to the house's owner, is a capture too: K sows L, a
        // (3 -> 4: North's) and b; four seeds are left and North, last to capture, takes them.
        let fen = board(&[('K', 3)], &[('a', 3), ('e', 2)], [40, 44], "S 0 S -");
        let pos = play_text(&g, &fen, &["K"]);
        assert_eq!(pos.last_capturer, Some(Side::North));
        let outcome = g.outcome(&pos).unwrap();
        assert_eq!(outcome.scores, [Points::whole(40), Points::whole(52)]);
    }

    #[test]
    fn last_four_to_the_first_final_capturer_when_chosen() {
        let fen = board(&[('L', 1)], &[('a', 3), ('e', 4)], [40, 44], "S 0 N N");
        let g = anywoli(&["last-four=first-final-capture"]);
        let pos = play_text(&g, &fen, &["L"]);
        assert_eq!(pos.first_final, Some(Side::North));
        let outcome = g.outcome(&pos).unwrap();
        assert_eq!(outcome.scores, [Points::whole(44), Points::whole(48)]);
        assert_eq!(outcome.result, GameResult::P2Win);
        // The first final capture of the game is recorded and kept.
        let fen = board(&[('L', 1)], &[('a', 3), ('e', 4)], [40, 44], "S 0 N -");
        let pos = play_text(&g, &fen, &["L"]);
        assert_eq!(pos.first_final, Some(Side::South));
        assert_eq!(
            g.outcome(&pos).unwrap().scores,
            [Points::whole(48), Points::whole(44)]
        );
        // Nobody has captured with a final seed yet: the last capturer takes them.
        let fen = board(&[('K', 3)], &[('a', 3), ('e', 2)], [40, 44], "S 0 S -");
        let pos = play_text(&g, &fen, &["K"]);
        let outcome = g.outcome(&pos).unwrap();
        assert_eq!(outcome.scores, [Points::whole(40), Points::whole(52)]);
    }

    #[test]
    fn four_left_and_nobody_ever_captured_each_side_takes_its_row() {
        let g = anywoli(&[]);
        let pos = g
            .parse_position(&board(&[('A', 3)], &[('c', 1)], [0, 0], "S"))
            .unwrap();
        let outcome = g.outcome(&pos).unwrap();
        assert_eq!(outcome.scores, [Points::whole(3), Points::whole(1)]);
        assert!(
            outcome.reason.contains("nobody has captured"),
            "{}",
            outcome.reason
        );
    }

    #[test]
    fn quiet_limit_ends_the_game_with_each_side_taking_its_row() {
        let fen = board(
            &[('A', 1), ('F', 7)],
            &[('b', 2), ('e', 5)],
            [40, 41],
            "S 199 N -",
        );
        let g = anywoli(&[]);
        let pos = play_text(&g, &fen, &["A"]);
        assert_eq!(pos.quiet, 200);
        let outcome = g.outcome(&pos).unwrap();
        assert_eq!(outcome.scores, [Points::whole(48), Points::whole(48)]);
        assert!(legal(&g, &pos).is_empty());
        // A capture resets the counter.
        let fen = board(&[('L', 2)], &[('b', 3), ('e', 5)], [40, 41], "S 199 N -");
        assert_eq!(play_text(&g, &fen, &["L"]).quiet, 0);
        // Other limits, and none.
        let g = anywoli(&["quiet-limit=10"]);
        assert!(
            g.outcome(&g.parse_position(&fen.replace(" 199 ", " 10 ")).unwrap())
                .is_some()
        );
        let g = anywoli(&["quiet-limit=off"]);
        let pos = g.parse_position(&fen.replace(" 199 ", " 65535 ")).unwrap();
        assert!(g.outcome(&pos).is_none());
        assert_eq!(g.spec(), "anywoli quiet-limit=off");
    }

    #[test]
    fn move_errors_say_what_is_wrong() {
        let g = anywoli(&[]);
        let pos = g.start_position();
        let e = g.parse_move(&pos, "a").unwrap_err().to_string();
        assert!(e.contains("North's house but South is to move"), "{e}");
        let e = g.parse_move(&pos, "M").unwrap_err().to_string();
        assert!(e.contains("A..L"), "{e}");
        let e = g.parse_move(&pos, "A1").unwrap_err().to_string();
        assert!(e.contains("house letter"), "{e}");
        let e = g.parse_move(&pos, "pass").unwrap_err().to_string();
        assert!(e.contains("pass is legal only"), "{e}");
        let p = play_text(&g, &g.format_position(&pos), &["A"]);
        let e = g.parse_move(&p, "c").unwrap_err().to_string();
        assert!(e.contains("empty"), "{e}");
    }

    #[test]
    fn position_strings_round_trip_and_reject_nonsense() {
        let g = anywoli(&[]);
        for text in [
            "1,5,5,5,0,5,5,5,5,0,5,5,0/5,5,0,5,5,5,5,0,5,5,5,5,0 N 1 - -",
            "0,0,0,0,0,0,0,0,0,0,0,2,44/3,3,0,0,0,0,0,0,0,0,0,0,44 S 17 N S",
            "0,0,0,0,0,0,0,0,0,0,0,2,44/3,3,0,0,0,0,0,0,0,0,0,0,44 N 0 S -",
        ] {
            let pos = g.parse_position(text).unwrap();
            assert_eq!(g.format_position(&pos), text);
        }
        let start = "4,4,4,4,4,4,4,4,4,4,4,4,0/4,4,4,4,4,4,4,4,4,4,4,4,0";
        for (bad, why) in [
            ("", "expected 2 or 5 fields"),
            ("4,4,4,4,4,4,4,4,4,4,4,4,0 S", "needs a '/'"),
            ("4,4,4,4/4,4,4,4 S", "expected 13"),
            (&format!("{start} X"), "S or N"),
            (&format!("{start} S 0"), "expected 2 or 5 fields"),
            (&format!("{start} S x - -"), "turns without capture"),
            (&format!("{start} S -1 - -"), "turns without capture"),
            (&format!("{start} S 0 Q -"), "last capturer"),
            (&format!("{start} S 0 - N"), "cannot be '-'"),
            (&format!("{start} S 0 - - extra"), "expected 2 or 5 fields"),
            (
                "200,4,4,4,4,4,4,4,4,4,4,4,0/4,4,4,4,4,4,4,4,4,4,4,4,0 S",
                "at most 255",
            ),
            (
                "4,4,4,4,4,4,4,4,4,4,4,4,300/4,4,4,4,4,4,4,4,4,4,4,4,0 S",
                "300",
            ),
        ] {
            let e = g.parse_position(bad).unwrap_err().to_string();
            assert!(e.contains(why), "{bad:?}: {e}");
        }
    }

    #[test]
    fn evaluation_and_move_order_know_the_threes() {
        let g = hand_written();
        // South's L (2 seeds) ends on b (3): a final four and an extra move.
        let fen = board(&[('A', 1), ('L', 2)], &[('b', 3), ('e', 5)], [10, 10], "S");
        let pos = g.parse_position(&fen).unwrap();
        let take = g.parse_move(&pos, "L").unwrap();
        let other = g.parse_move(&pos, "A").unwrap();
        assert!(g.order_hint(&pos, take) >= 1000);
        assert!(g.order_hint(&pos, take) > g.order_hint(&pos, other));
        // The same board with North to move: no threat for North, and the three is North's.
        let north = g.parse_position(&fen.replace(" S", " N")).unwrap();
        assert!(g.evaluate(&pos) > 0);
        assert!(g.evaluate(&pos) > -g.evaluate(&north));
        assert_eq!(g.evaluate(&g.start_position()), 0);
    }

    #[test]
    fn hash_separates_what_matters() {
        let g = anywoli(&[]);
        let a = g
            .parse_position(&board(&[('A', 3)], &[('e', 5)], [40, 48], "S 3 S -"))
            .unwrap();
        let mut b = a;
        b.stores = [48, 40];
        assert_ne!(g.hash(&a), g.hash(&b));
        b = a;
        b.side = Side::North;
        assert_ne!(g.hash(&a), g.hash(&b));
        // The last capturer matters only once the game is over.
        b = a;
        b.last_capturer = Some(Side::North);
        assert_eq!(g.hash(&a), g.hash(&b));
        // The counter matters within the search horizon of the quiet limit, not before.
        b.quiet = 10;
        assert_ne!(g.hash(&a), g.hash(&b));
        let far = anywoli(&["quiet-limit=1000"]);
        assert_eq!(far.hash(&a), far.hash(&b));
        // The first final capturer matters only when it decides the last four.
        b = a;
        b.first_final = Some(Side::South);
        assert_eq!(g.hash(&a), g.hash(&b));
        let ffc = anywoli(&["last-four=first-final-capture"]);
        assert_ne!(ffc.hash(&a), ffc.hash(&b));
    }

    #[test]
    fn bench_positions_are_games_in_progress() {
        let g = anywoli(&[]);
        for text in g.bench().positions {
            let pos = g.parse_position(text).unwrap();
            assert_eq!(g.format_position(&pos), *text);
            assert!(g.outcome(&pos).is_none(), "{text}");
            assert_eq!(
                g.board_seeds(&pos) + pos.stores.iter().map(|&s| s as u32).sum::<u32>(),
                96
            );
        }
    }
}
