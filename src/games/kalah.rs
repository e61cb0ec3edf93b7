//! Kalah(m,n) with its variants, as protocol.md (section *Kalah*) describes them.
//!
//! Board layout (`cells`): South's pits `A..` at `0..m`, South's store at `m`, North's pits
//! `a..` at `m+1..=2m`, North's store at `2m+1`. That is the counter-clockwise sowing
//! order, so sowing is "step to the next cell, skipping the opponent's store". South's pit
//! `i` faces cell `2m - i`, and the formula is its own inverse.

use std::fmt::Write;

use crate::compositions::Compositions;
use crate::game::{
    BenchSpec, EvalTerm, Evaluation, ExactValues, GameResult, Horizon, MoveError, NetworkFeatures,
    Notation, Outcome, Player, Points, PositionError, Rules, SearchHints, TableIndexing,
    eval_weights,
};
use crate::games::mancala::{self, Side};
use crate::games::sowing_network::{SowingFeatures, SowingNetwork, SowingView};
use crate::options::{GameOptions, OptionKind, OptionSpec};

pub const NAME: &str = "kalah";
pub const MAX_PITS: usize = 12;
const MAX_CELLS: usize = 2 * MAX_PITS + 2;
/// The most seeds a position string may hold (12 pits a side, 12 seeds a pit).
const MAX_SEEDS: u32 = 2 * MAX_PITS as u32 * 12;

pub const OPTIONS: &[OptionSpec] = &[
    OptionSpec {
        name: "pits",
        kind: OptionKind::Int {
            min: 1,
            max: MAX_PITS as i64,
        },
        default: "6",
        help: "pits per side",
    },
    OptionSpec {
        name: "seeds",
        kind: OptionKind::Int { min: 1, max: 12 },
        default: "4",
        help: "seeds per pit at the start",
    },
    OptionSpec {
        name: "empty-capture",
        kind: OptionKind::Bool,
        default: "false",
        help: "a last seed in an own empty pit is captured even when the opposite pit is empty",
    },
    OptionSpec {
        name: "end",
        kind: OptionKind::Choice(&["any-row", "on-move"]),
        default: "any-row",
        help: "any-row: the game ends as soon as either row is empty; on-move: only when the \
               player to move has no seeds",
    },
    OptionSpec {
        name: "leftovers",
        kind: OptionKind::Choice(&["owner", "none"]),
        default: "owner",
        help: "seeds left in a row at the end go to the row's owner, or to nobody",
    },
    OptionSpec {
        name: "pie",
        kind: OptionKind::Bool,
        default: "false",
        help: "the second player may answer the first turn with swap",
    },
];

/// Kalah(6,4)'s network (see `Game::default_network`).
const NETWORK: &[u8] = include_bytes!("kalah.nnue");

eval_weights! {
    /// A seed of store difference: the unit.
    store = 100, unit = true,
        "a seed of store difference";
    /// A seed of row difference (only when leftovers go to their owner).
    row_seed = 25, unit = false,
        "a seed of row difference (leftovers=owner only)";
    /// A pit of the mover's that reaches the store exactly: an extra move at hand.
    extra_move = 30, unit = false,
        "a pit of the mover's that reaches its store exactly";
}

/// A Kalah move: sow the mover's pit `i` (0-based from the owner's left), or `swap`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct KalahMove(u8);

impl KalahMove {
    pub const SWAP: KalahMove = KalahMove(u8::MAX);

    pub fn pit(i: usize) -> KalahMove {
        KalahMove(i as u8)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct KalahPosition {
    cells: [u16; MAX_CELLS],
    side: Side,
    /// Pie rule: North has not moved yet, so `swap` is still to come.
    pie_open: bool,
    /// Pie rule: `swap` was played, so P1 now owns the North side.
    swapped: bool,
}

#[derive(Clone, Debug)]
pub struct Kalah {
    pits: usize,
    seeds: u16,
    empty_capture: bool,
    end_on_move: bool,
    leftovers_to_owner: bool,
    pie: bool,
    options: GameOptions,
    /// `next[side][cell]`: where the next seed goes when `side` sows (skips the other store).
    next: [[u8; MAX_CELLS]; 2],
    /// Ranks the pits seen from the mover (own row, then the opponent's): table indexes and
    /// exact keys.
    index: Compositions,
    /// The learned evaluation, when one is chosen (`setoption name Eval`).
    network: SowingNetwork,
}

impl Kalah {
    pub fn new(options: GameOptions) -> Kalah {
        let pits = options.int("pits") as usize;
        let cells = 2 * pits + 2;
        let mut next = [[0u8; MAX_CELLS]; 2];
        for side in [Side::South, Side::North] {
            let skip = match side {
                Side::South => 2 * pits + 1,
                Side::North => pits,
            };
            for (cell, slot) in next[side.index()][..cells].iter_mut().enumerate() {
                let mut n = (cell + 1) % cells;
                if n == skip {
                    n = (n + 1) % cells;
                }
                *slot = n as u8;
            }
        }
        let seeds = options.int("seeds") as u16;
        let layout = SowingFeatures {
            pits,
            pit_cap: 15,
            // More than half the seeds in a store win.
            store_cap: pits as u32 * seeds as u32,
            lead_cap: 16,
        };
        let mut kalah = Kalah {
            pits,
            seeds,
            empty_capture: options.bool("empty-capture"),
            end_on_move: options.choice("end") == "on-move",
            leftovers_to_owner: options.choice("leftovers") == "owner",
            pie: options.bool("pie"),
            options,
            next,
            index: Compositions::new(2 * pits, MAX_SEEDS),
            network: SowingNetwork::new(layout, format!("kalah {pits}x{seeds}")),
        };
        let bytes = kalah.default_network();
        kalah.network.set_default(bytes);
        kalah
    }

    /// `side`'s view of the board, for the network.
    #[inline]
    fn network_view<'p>(&self, pos: &'p KalahPosition, side: Side) -> SowingView<'p, u16> {
        let r = self.rules();
        SowingView {
            own_row: &pos.cells[r.row(side)],
            other_row: &pos.cells[r.row(side.other())],
            own_store: u32::from(pos.cells[r.store(side)]),
            other_store: u32::from(pos.cells[r.store(side.other())]),
        }
    }

    /// The rules with the pit count read from the game (the paths that are not hot).
    #[inline]
    fn rules(&self) -> PitRules<'_, 0> {
        PitRules(self)
    }
}

/// The rules' hot paths with the pit count a constant (`P`: 6, the usual board) or read from
/// the game (`P` = 0). With a constant count the loops over the pits unroll and lose their
/// bounds checks; the solver and the search spend most of their time here.
#[derive(Clone, Copy)]
struct PitRules<'k, const P: usize>(&'k Kalah);

impl<const P: usize> std::ops::Deref for PitRules<'_, P> {
    type Target = Kalah;

    fn deref(&self) -> &Kalah {
        self.0
    }
}

/// `$body` with `$r` the game's [`PitRules`]: the constant pit count when it is 6.
macro_rules! with_rules {
    ($game:expr, $r:ident => $body:expr) => {
        match $game.pits {
            6 => {
                let $r = PitRules::<6>($game);
                $body
            }
            _ => {
                let $r = PitRules::<0>($game);
                $body
            }
        }
    };
}

impl<const P: usize> PitRules<'_, P> {
    /// Pits a side.
    #[inline(always)]
    fn n(&self) -> usize {
        if P == 0 { self.0.pits } else { P }
    }

    /// [`Compositions::rank`] of the pits seen from the mover (`view`, both rows).
    #[inline(always)]
    fn rank(&self, view: &[u16]) -> Option<(u32, u64)> {
        if P == 6
            && let Ok(view) = <&[u16; 12]>::try_from(view)
        {
            return self.index.rank_array(view);
        }
        self.index.rank(view)
    }

    /// The evaluation's features from the mover's view, in the order of [`TERMS`].
    #[inline]
    fn features(&self, pos: &KalahPosition) -> [i32; 3] {
        let us = pos.side;
        let them = us.other();
        let stores = pos.cells[self.store(us)] as i32 - pos.cells[self.store(them)] as i32;
        // Seeds on our side are partly ours: they come home at the end unless taken.
        let rows = if self.leftovers_to_owner {
            self.row_sum(pos, us) as i32 - self.row_sum(pos, them) as i32
        } else {
            0
        };
        // A pit that reaches the store exactly is a free extra move for whoever owns it.
        let first = self.pit_cell(us, 0);
        let extra = (0..self.n()).any(|i| pos.cells[first + i] as usize == self.n() - i);
        [stores, rows, extra as i32]
    }

    /// [`Game::proof_order`]: eight times the seeds on the mover's side less the opponent's,
    /// less the seeds that face the mover's empty pits (what its captures could take).
    /// Of two moves that bank as much, the one that sows fewer seeds into the opponent's row
    /// comes first; of those, the one that leaves more seeds facing the opponent's empty
    /// pits. Both terms were chosen by measurement, not by argument (docs/tablebases.md):
    /// the lead took 0.89 of the nodes of empty-capture Kalah(6,4) with 20-seed tables and
    /// 0.91 of standard Kalah(6,4) with 18-seed tables; a count of the empty pits that face
    /// seeds 0.98 and 0.44 more (counted the other way, for the mover, 1.38 in
    /// empty-capture); the seeds they face instead of their count 0.95 and 0.91 more.
    #[inline]
    fn proof_order(&self, pos: &KalahPosition) -> i32 {
        let (mut lead, mut faced) = (0i32, 0i32);
        for cell in self.row(pos.side) {
            let (mine, facing) = (pos.cells[cell], pos.cells[self.opposite(cell)]);
            lead += i32::from(mine) - i32::from(facing);
            faced += if mine == 0 { i32::from(facing) } else { 0 };
        }
        8 * lead - faced
    }

    /// The pit across the board from pit cell `cell` (either side's).
    #[inline]
    fn opposite(&self, cell: usize) -> usize {
        2 * self.n() - cell
    }

    /// The pits seen from the side to move: its own row, then the opponent's, written into
    /// `view` (kept by the caller: returning the array would move it, reading it back in
    /// wide loads just after the narrow writes, a stall the solver would pay per child).
    #[inline]
    fn mover_view<'v>(&self, pos: &KalahPosition, view: &'v mut [u16; 2 * MAX_PITS]) -> &'v [u16] {
        let own = self.pit_cell(pos.side, 0);
        let other = self.pit_cell(pos.side.other(), 0);
        mancala::mover_view(&pos.cells, own, other, self.n(), view);
        &view[..2 * self.n()]
    }

    fn cell_count(&self) -> usize {
        2 * self.n() + 2
    }

    fn store(&self, side: Side) -> usize {
        match side {
            Side::South => self.n(),
            Side::North => 2 * self.n() + 1,
        }
    }

    /// The cell of `side`'s pit `i`.
    fn pit_cell(&self, side: Side, i: usize) -> usize {
        match side {
            Side::South => i,
            Side::North => self.n() + 1 + i,
        }
    }

    fn row(&self, side: Side) -> std::ops::Range<usize> {
        let first = self.pit_cell(side, 0);
        first..first + self.n()
    }

    fn row_sum(&self, pos: &KalahPosition, side: Side) -> u32 {
        pos.cells[self.row(side)].iter().map(|&c| c as u32).sum()
    }

    fn player_side(&self, pos: &KalahPosition, player: Player) -> Side {
        match (player, pos.swapped) {
            (Player::P1, false) | (Player::P2, true) => Side::South,
            _ => Side::North,
        }
    }

    fn swap_available(&self, pos: &KalahPosition) -> bool {
        self.pie && pos.side == Side::North && pos.pie_open && !pos.swapped
    }

    /// Is `side`'s row empty? (Stops at the first seed: the solver asks it of every
    /// position it meets, and rows are rarely empty.)
    #[inline]
    fn row_empty(&self, pos: &KalahPosition, side: Side) -> bool {
        pos.cells[self.row(side)].iter().all(|&c| c == 0)
    }

    #[inline]
    fn is_over(&self, pos: &KalahPosition) -> bool {
        if self.end_on_move {
            self.row_empty(pos, pos.side)
        } else {
            self.row_empty(pos, Side::South) || self.row_empty(pos, Side::North)
        }
    }

    /// Points of `side`: its store, plus its row once the game is over (unless leftovers
    /// go to nobody).
    fn side_points(&self, pos: &KalahPosition, side: Side, over: bool) -> Points {
        let mut points = pos.cells[self.store(side)] as u32;
        if over && self.leftovers_to_owner {
            points += self.row_sum(pos, side);
        }
        Points::whole(points as i32)
    }

    fn final_scores(&self, pos: &KalahPosition, over: bool) -> [Points; 2] {
        let p1 = self.player_side(pos, Player::P1);
        [
            self.side_points(pos, p1, over),
            self.side_points(pos, p1.other(), over),
        ]
    }

    /// The mover's pit `i` (not empty) sown: when its last seed stays in the mover's row
    /// and falls in an empty pit, the seeds of the pit opposite (what a capture takes
    /// besides the capturing seed, before the rule on an empty opposite pit); else `None`.
    #[inline]
    fn empty_landing(&self, pos: &KalahPosition, i: usize) -> Option<u32> {
        let first = self.pit_cell(pos.side, 0);
        let seeds = pos.cells[first + i] as usize;
        if seeds == 0 || seeds >= self.n() - i {
            return None;
        }
        let landing = first + i + seeds;
        (pos.cells[landing] == 0).then(|| pos.cells[self.opposite(landing)] as u32)
    }

    /// The seeds in the pits, and how many of them each player is sure to bank (one pass,
    /// and a second only when the mover has a pit that reaches its store exactly, as the
    /// solver asks for every position it meets):
    /// - the mover: the most its best single move banks at once, whatever follows (one seed
    ///   for a pit that reaches or passes its store, the captured seeds and the capturing
    ///   one for a capture). With empty-capture that is at least one: its rightmost seeds
    ///   reach the store or end in an empty pit. Or, when it has pits that reach the store
    ///   exactly, the seeds of its extra moves (always the rightmost such pit, until none
    ///   is left) and then the best single move of the row they leave;
    /// - the waiting player: one seed when it has two pits that will bank one when played,
    ///   whatever the mover's sowing adds to them (with empty-capture any non-empty pit, as
    ///   the rightmost one always does; else a pit that reaches the store). The mover's turn
    ///   empties at most one of them (the capture of its last move; sowing only adds), so
    ///   one is left for its owner to play or, when the game ends, to keep as leftovers.
    ///
    /// On a finished game the bounds still hold when leftovers go to their owner: an empty
    /// row banks nothing, and a row's seeds go to its owner.
    #[inline]
    fn sure_gains(&self, pos: &KalahPosition) -> (u32, u32, u32) {
        let n = self.n();
        let own_first = self.pit_cell(pos.side, 0);
        let other_first = self.pit_cell(pos.side.other(), 0);
        let own = &pos.cells[own_first..own_first + n];
        let other = &pos.cells[other_first..other_first + n];
        let (mut seeds, mut banking, mut exact) = (0u32, 0u32, 0u32);
        for i in 0..n {
            let theirs = other[i] as u32;
            seeds += own[i] as u32 + theirs;
            banking += u32::from((theirs > 0) & (self.empty_capture | (theirs as usize >= n - i)));
            exact += u32::from(own[i] as usize == n - i);
        }
        let mut ours = self.last_move_gain(own, other);
        if exact > 0 {
            // The pits that reach the store exactly, each sown while it is the rightmost
            // such pit: each banks a seed and keeps the turn, and a pit sown adds only to the
            // pits right of it (which may reach the store exactly in turn). Then a last move.
            let mut row = [0u16; MAX_PITS];
            let row = &mut row[..n];
            row.copy_from_slice(own);
            let mut chain = 0u32;
            while let Some(i) = (0..n).rev().find(|&i| row[i] as usize == n - i) {
                row[i] = 0;
                row[i + 1..].iter_mut().for_each(|c| *c += 1);
                chain += 1;
            }
            ours = ours.max(chain + self.last_move_gain(row, other));
        }
        (seeds, ours, u32::from(banking >= 2))
    }

    /// The most one move of the mover's row `own` (facing `other`) is sure to bank,
    /// counting no extra move: a seed when it reaches the store, else its capture.
    #[inline]
    fn last_move_gain(&self, own: &[u16], other: &[u16]) -> u32 {
        let n = self.n();
        let mut gain = 0u32;
        // Without branches (selects, `&` of flags): which case a pit falls in is data the
        // processor cannot predict, and the solver asks this of every position it meets.
        for i in 0..n {
            let mine = own[i] as usize;
            // The pit reaches or passes the store: one seed banked.
            let reaches = mine >= n - i;
            // Else the last seed stays in the row; in an empty pit it captures the pit
            // opposite (own pit `j` faces the opponent's `n - 1 - j`). `landing` is clamped
            // so that the reads stay in the row whatever the case.
            let landing = (i + mine).min(n - 1);
            let opposite = other[n - 1 - landing] as u32;
            let captures =
                (mine > 0) & !reaches & (own[landing] == 0) & ((opposite > 0) | self.empty_capture);
            let this = if reaches {
                1
            } else {
                u32::from(captures) * (opposite + 1)
            };
            gain = gain.max(this);
        }
        gain
    }

    /// Sowing from `start` by `side`; returns the cell of the last seed.
    #[inline]
    fn sow(&self, pos: &mut KalahPosition, side: Side, start: usize) -> usize {
        let mut seeds = pos.cells[start] as usize;
        pos.cells[start] = 0;
        let lap = 2 * self.n() + 1;
        if seeds >= lap {
            // Whole laps put the same number in every cell but the opponent's store.
            let laps = (seeds / lap) as u16;
            let skip = self.store(side.other());
            for (cell, count) in pos.cells[..self.cell_count()].iter_mut().enumerate() {
                if cell != skip {
                    *count += laps;
                }
            }
            seeds %= lap;
        }
        let next = &self.next[side.index()];
        let mut cell = start;
        for _ in 0..seeds {
            cell = next[cell] as usize;
            pos.cells[cell] += 1;
        }
        cell
    }

    fn legal_moves(&self, pos: &KalahPosition, moves: &mut Vec<KalahMove>) {
        moves.clear();
        if self.is_over(pos) {
            return;
        }
        let first = self.pit_cell(pos.side, 0);
        for i in 0..self.n() {
            if pos.cells[first + i] > 0 {
                moves.push(KalahMove::pit(i));
            }
        }
        if self.swap_available(pos) {
            moves.push(KalahMove::SWAP);
        }
    }

    fn play(&self, pos: &mut KalahPosition, mv: KalahMove) {
        let side = pos.side;
        if side == Side::North {
            pos.pie_open = false;
        }
        if mv == KalahMove::SWAP {
            // The swapper takes over South's seeds and store; P1, now North, moves next.
            pos.swapped = true;
            return;
        }
        let start = self.pit_cell(side, mv.0 as usize);
        let last = self.sow(pos, side, start);
        let store = self.store(side);
        if last != store {
            if self.row(side).contains(&last) && pos.cells[last] == 1 {
                let opposite = self.opposite(last);
                let taken = pos.cells[opposite];
                if taken > 0 || self.empty_capture {
                    pos.cells[store] += taken + 1;
                    pos.cells[opposite] = 0;
                    pos.cells[last] = 0;
                }
            }
            pos.side = side.other();
        }
        if self.leftovers_to_owner && self.is_over(pos) {
            for side in [Side::South, Side::North] {
                let store = self.store(side);
                for cell in self.row(side) {
                    pos.cells[store] += pos.cells[cell];
                    pos.cells[cell] = 0;
                }
            }
        }
    }

    fn outcome(&self, pos: &KalahPosition) -> Option<Outcome> {
        if !self.is_over(pos) {
            return None;
        }
        let scores = self.final_scores(pos, true);
        Some(Outcome {
            result: GameResult::from_scores(scores),
            scores,
            reason: "a row is empty",
        })
    }

    fn stones_in_play(&self, pos: &KalahPosition) -> Option<u32> {
        let mut view = [0u16; 2 * MAX_PITS];
        let view = self.mover_view(pos, &mut view);
        Some(view.iter().map(|&c| c as u32).sum())
    }

    /// A capture or an extra move at hand: played out before the evaluation is trusted.
    fn horizon(&self, pos: &KalahPosition) -> Horizon {
        // Without building the move list: this runs at every leaf. (The swap of the pie
        // rule is never forcing.)
        if self.is_over(pos) {
            return Horizon::Quiet;
        }
        let first = self.pit_cell(pos.side, 0);
        let forcing = (0..self.n())
            .any(|i| pos.cells[first + i] > 0 && self.order_hint(pos, KalahMove::pit(i)) != 0);
        if forcing {
            Horizon::Optional
        } else {
            Horizon::Quiet
        }
    }

    fn order_hint(&self, pos: &KalahPosition, mv: KalahMove) -> i32 {
        if mv == KalahMove::SWAP {
            return 0;
        }
        let i = mv.0 as usize;
        let seeds = pos.cells[self.pit_cell(pos.side, i)] as usize;
        let to_store = self.n() - i;
        let lap = 2 * self.n() + 1;
        if seeds % lap == to_store {
            return 1000 + i as i32; // extra move; the rightmost first keeps the others intact
        }
        match self.empty_landing(pos, i) {
            Some(captured) if captured > 0 => 100 + captured as i32,
            _ => 0,
        }
    }

    fn banked_value(&self, pos: &KalahPosition) -> i32 {
        let us = pos.side;
        2 * (pos.cells[self.store(us)] as i32 - pos.cells[self.store(us.other())] as i32)
    }

    fn value_at_stake(&self, pos: &KalahPosition) -> Option<i32> {
        Some(2 * (self.row_sum(pos, Side::South) + self.row_sum(pos, Side::North)) as i32)
    }

    /// What is at stake, narrowed by the seeds each player is sure to bank
    /// ([`PitRules::sure_gains`]). The waiting player's seed counts only when leftovers go to
    /// their owner (else the game may end with it lost to both, as the mover's on a
    /// finished game); nothing is sure while a swap is still to come (it trades the sides).
    fn value_range(&self, pos: &KalahPosition) -> Option<(i32, i32)> {
        let (seeds, ours, theirs) = self.sure_gains(pos);
        let stake = 2 * seeds as i32;
        if self.pie && pos.pie_open {
            return Some((-stake, stake));
        }
        if !self.leftovers_to_owner {
            if self.is_over(pos) {
                return Some((-stake, stake)); // the seeds left go to nobody
            }
            return Some((-stake + 4 * ours as i32, stake));
        }
        // A seed won instead of lost moves the margin by 2 points (4 half-points).
        Some((-stake + 4 * ours as i32, stake - 4 * theirs as i32))
    }

    /// The pits from the mover's view (stores are banked), and whether a swap is pending.
    #[inline]
    fn exact_key(&self, pos: &KalahPosition) -> u64 {
        let mut view = [0u16; 2 * MAX_PITS];
        let view = self.mover_view(pos, &mut view);
        mancala::exact_key_ranked(&self.index, view, self.rank(view), self.swap_available(pos))
    }

    fn table_index(&self, pos: &KalahPosition, max_layer: u32) -> Option<(u32, u64)> {
        if self.swap_available(pos) {
            return None;
        }
        let mut view = [0u16; 2 * MAX_PITS];
        let view = self.mover_view(pos, &mut view);
        let seeds: u32 = view.iter().map(|&c| c as u32).sum();
        if seeds > max_layer {
            return None;
        }
        self.rank(view)
    }

    /// One view and one rank of the board serve both the table entry and the key.
    #[inline]
    fn table_index_or_key(
        &self,
        pos: &KalahPosition,
        max_layer: Option<u32>,
    ) -> Result<(u32, u64), u64> {
        let swap = self.swap_available(pos);
        let mut view = [0u16; 2 * MAX_PITS];
        let view = self.mover_view(pos, &mut view);
        match self.rank(view) {
            Some((seeds, rank)) if !swap && max_layer.is_some_and(|max| seeds <= max) => {
                Ok((seeds, rank))
            }
            ranked => Err(mancala::exact_key_ranked(&self.index, view, ranked, swap)),
        }
    }
}

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

impl Notation for Kalah {
    fn parse_position(&self, text: &str) -> Result<KalahPosition, PositionError> {
        let fields: Vec<&str> = text.split_whitespace().collect();
        let usage = "a Kalah position is '<South pits A..>,<South store>/<North pits a..>,<North store> <S|N> [flags]', e.g. '4,4,4,4,4,4,0/4,4,4,4,4,4,0 S'";
        if fields.len() < 2 || fields.len() > 3 {
            return Err(PositionError::new(format!(
                "expected 2 or 3 fields, found {}: {usage}",
                fields.len()
            )));
        }
        let max = MAX_SEEDS;
        let sides = mancala::parse_board(fields[0], self.pits, max, ("pits", "store"), usage)?;
        let mut cells = [0u16; MAX_CELLS];
        for (side, counts) in [Side::South, Side::North].into_iter().zip(&sides) {
            let first = self.rules().pit_cell(side, 0);
            for (i, &c) in counts.iter().enumerate() {
                cells[first + i] = c as u16;
            }
        }
        let total: u32 = cells.iter().map(|&c| c as u32).sum();
        if total > max {
            return Err(PositionError::new(format!(
                "{total} seeds in all: at most {max} fit this engine's Kalah"
            )));
        }
        let side = Side::from_letter(fields[1]).ok_or_else(|| {
            PositionError::new(format!(
                "side to move must be S or N, not '{}': {usage}",
                fields[1]
            ))
        })?;
        let (mut pie_open, mut swapped) = (false, false);
        if let Some(flags) = fields.get(2).filter(|f| **f != "-") {
            for flag in flags.chars() {
                match flag {
                    'p' => pie_open = true,
                    'x' => swapped = true,
                    other => {
                        return Err(PositionError::new(format!(
                            "unknown flag '{other}': flags are 'p' (pie: swap still to come), \
                             'x' (pie: players swapped) or '-'"
                        )));
                    }
                }
            }
            if !self.pie {
                return Err(PositionError::new(
                    "flags 'p' and 'x' describe the pie rule: use 'kalah pie=true'",
                ));
            }
            if pie_open && swapped {
                return Err(PositionError::new(
                    "flags 'p' and 'x' exclude each other (swap is played at most once)",
                ));
            }
        }
        Ok(KalahPosition {
            cells,
            side,
            pie_open,
            swapped,
        })
    }

    fn format_position(&self, pos: &KalahPosition) -> String {
        let mut out = String::new();
        let side_cells = |side: Side| {
            let first = self.rules().pit_cell(side, 0);
            pos.cells[first..=first + self.pits]
                .iter()
                .map(|&c| c as u32)
        };
        mancala::format_board(&mut out, side_cells(Side::South), side_cells(Side::North));
        out.push(' ');
        out.push(pos.side.letter());
        if self.pie {
            out.push(' ');
            out.push_str(match (pos.pie_open, pos.swapped) {
                (true, _) => "p",
                (false, true) => "x",
                (false, false) => "-",
            });
        }
        out
    }

    fn parse_move(&self, pos: &KalahPosition, text: &str) -> Result<KalahMove, MoveError> {
        if self.rules().is_over(pos) {
            return Err(MoveError::illegal(text, "the game is over"));
        }
        if text == "swap" {
            if !self.pie {
                return Err(MoveError::illegal(
                    text,
                    "swap needs the pie rule (newgame kalah pie=true)",
                ));
            }
            if !self.rules().swap_available(pos) {
                return Err(MoveError::illegal(
                    text,
                    "swap is only legal as the second player's first reply",
                ));
            }
            return Ok(KalahMove::SWAP);
        }
        let words = mancala::PitWords {
            noun: "pit",
            game_move: "a Kalah move",
            other_move: "swap",
        };
        let i = mancala::parse_own_pit(text, pos.side, self.pits, &words)?;
        let side = pos.side;
        if pos.cells[self.rules().pit_cell(side, i)] == 0 {
            return Err(MoveError::illegal(text, format!("pit {text} is empty")));
        }
        Ok(KalahMove::pit(i))
    }

    fn format_move(&self, pos: &KalahPosition, mv: KalahMove) -> String {
        if mv == KalahMove::SWAP {
            "swap".to_string()
        } else {
            pos.side.pit_letter(mv.0 as usize).to_string()
        }
    }

    fn render(&self, pos: &KalahPosition) -> String {
        let row = |side: Side| -> Vec<u32> {
            pos.cells[self.rules().row(side)]
                .iter()
                .map(|&c| c as u32)
                .collect()
        };
        let stores =
            [Side::South, Side::North].map(|side| pos.cells[self.rules().store(side)] as u32);
        let mut out = mancala::render_with_stores(&row(Side::South), &row(Side::North), stores);
        let to_move = self.to_move(pos);
        let _ = write!(
            out,
            "North's store is on the left, South's on the right. To move: {} ({})",
            pos.side.name(),
            to_move.name()
        );
        if self.pie {
            let pie = if self.rules().swap_available(pos) {
                "swap is legal now"
            } else if pos.pie_open {
                "swap still to come"
            } else if pos.swapped {
                "players swapped: p1 plays North"
            } else {
                "swap no longer possible"
            };
            let _ = write!(out, "; pie: {pie}");
        }
        out
    }
}

impl Evaluation for Kalah {
    fn evaluate(&self, pos: &KalahPosition) -> i32 {
        let views = [
            self.network_view(pos, pos.side),
            self.network_view(pos, pos.side.other()),
        ];
        match self.network.evaluate(views) {
            Some(score) => score,
            None => with_rules!(self, r => WEIGHTS.score(&r.features(pos))),
        }
    }

    fn eval_terms(&self) -> &'static [EvalTerm] {
        &TERMS
    }

    fn eval_features(&self, pos: &KalahPosition, features: &mut [i32]) {
        features.copy_from_slice(&self.rules().features(pos));
    }

    fn stones_in_play(&self, pos: &KalahPosition) -> Option<u32> {
        with_rules!(self, r => r.stones_in_play(pos))
    }

    /// No extra move and no capture at hand.
    fn is_quiet(&self, pos: &KalahPosition) -> bool {
        self.horizon(pos) == Horizon::Quiet
    }

    /// [`PitRules::horizon`].
    fn horizon(&self, pos: &KalahPosition) -> Horizon {
        with_rules!(self, r => r.horizon(pos))
    }
}

impl NetworkFeatures for Kalah {
    /// Each pit's seeds and the stores, from each side's view (`sowing_network`).
    fn network_inputs(&self) -> usize {
        self.network.layout.inputs()
    }

    fn network_id(&self) -> String {
        self.network.id.clone()
    }

    fn network_features(&self, pos: &KalahPosition, view: Player, out: &mut Vec<u16>) {
        let side = if (view == Player::P1) != pos.swapped {
            Side::South
        } else {
            Side::North
        };
        self.network
            .push_features(self.network_view(pos, side), out);
    }

    /// Kalah(6,4) under the default rules: trained by `sowfan train` on `sowfan datagen`
    /// games (docs/nnue.md). Other boards and rules evaluate by hand.
    fn default_network(&self) -> Option<&'static [u8]> {
        self.options.non_default().is_empty().then_some(NETWORK)
    }

    fn set_network(&mut self, bytes: Option<&[u8]>) -> Result<(), String> {
        self.network.set(bytes)
    }
}

impl SearchHints for Kalah {
    fn is_forcing(&self, pos: &KalahPosition, mv: KalahMove) -> bool {
        self.order_hint(pos, mv) != 0
    }

    /// Late-move and futility pruning won its SPRT at equal time here with the network,
    /// +26.1 ± 33.5 (docs/strength.md, Kalah): a sowing's order hint singles out the
    /// captures and extra moves, so the pruned moves are the quiet ones.
    fn prunes_late_moves(&self) -> bool {
        true
    }

    fn history_key(&self, _pos: &KalahPosition, mv: KalahMove) -> Option<usize> {
        Some(mv.0 as usize) // the pit sown (swap: 255)
    }

    fn order_hint(&self, pos: &KalahPosition, mv: KalahMove) -> i32 {
        with_rules!(self, r => r.order_hint(pos, mv))
    }

    /// [`PitRules::proof_order`].
    fn proof_order(&self, pos: &KalahPosition) -> i32 {
        with_rules!(self, r => r.proof_order(pos))
    }
}

impl ExactValues for Kalah {
    fn banked_value(&self, pos: &KalahPosition) -> i32 {
        with_rules!(self, r => r.banked_value(pos))
    }

    /// Every seed left ends in a store (a margin step of 2 points), unless leftovers go to
    /// nobody (then a seed may count for no one: 1 point).
    fn value_step(&self) -> i32 {
        if self.leftovers_to_owner { 4 } else { 2 }
    }

    fn value_at_stake(&self, pos: &KalahPosition) -> Option<i32> {
        with_rules!(self, r => r.value_at_stake(pos))
    }

    /// [`PitRules::value_range`].
    fn value_range(&self, pos: &KalahPosition) -> Option<(i32, i32)> {
        with_rules!(self, r => r.value_range(pos))
    }

    /// [`PitRules::exact_key`].
    #[inline]
    fn exact_key(&self, pos: &KalahPosition) -> u64 {
        with_rules!(self, r => r.exact_key(pos))
    }
}

impl TableIndexing for Kalah {
    fn table_rules(&self) -> Option<String> {
        Some(format!(
            "kalah pits={} empty-capture={} end={} leftovers={}",
            self.pits,
            self.empty_capture,
            if self.end_on_move {
                "on-move"
            } else {
                "any-row"
            },
            if self.leftovers_to_owner {
                "owner"
            } else {
                "none"
            }
        ))
    }

    fn table_index(&self, pos: &KalahPosition, max_layer: u32) -> Option<(u32, u64)> {
        with_rules!(self, r => r.table_index(pos, max_layer))
    }

    /// [`PitRules::table_index_or_key`].
    #[inline]
    fn table_index_or_key(
        &self,
        pos: &KalahPosition,
        max_layer: Option<u32>,
    ) -> Result<(u32, u64), u64> {
        with_rules!(self, r => r.table_index_or_key(pos, max_layer))
    }

    fn table_layer_size(&self, layer: u32) -> u64 {
        self.index.count(layer)
    }

    fn table_position(&self, layer: u32, index: u64) -> Option<KalahPosition> {
        let mut view = [0u32; 2 * MAX_PITS];
        let (south, north) =
            mancala::table_rows(&self.index, layer, index, &mut view[..2 * self.pits])?;
        let mut cells = [0u16; MAX_CELLS];
        for i in 0..self.pits {
            cells[self.rules().pit_cell(Side::South, i)] = south[i] as u16;
            cells[self.rules().pit_cell(Side::North, i)] = north[i] as u16;
        }
        Some(KalahPosition {
            cells,
            side: Side::South,
            pie_open: false,
            swapped: false,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kalah(options: &[&str]) -> Kalah {
        Kalah::new(GameOptions::parse(NAME, OPTIONS, options).unwrap())
    }

    fn play_all(game: &Kalah, moves: &[&str]) -> KalahPosition {
        let mut pos = game.start_position();
        for m in moves {
            let mv = game.parse_move(&pos, m).unwrap();
            game.play(&mut pos, mv);
        }
        pos
    }

    #[test]
    fn start_position_string() {
        let g = kalah(&[]);
        let pos = g.start_position();
        assert_eq!(g.format_position(&pos), "4,4,4,4,4,4,0/4,4,4,4,4,4,0 S");
        assert_eq!(
            g.parse_position("4,4,4,4,4,4,0/4,4,4,4,4,4,0 S").unwrap(),
            pos
        );
        let pie = kalah(&["pie=true"]);
        assert_eq!(
            pie.format_position(&pie.start_position()),
            "4,4,4,4,4,4,0/4,4,4,4,4,4,0 S p"
        );
    }

    /// The solver's order among equal moves: eight times the seeds on the mover's side less
    /// the opponent's, less the seeds that face the mover's empty pits, whatever the pit count
    /// (6 runs `PitRules<6>`, 4 the general code).
    #[test]
    fn proof_order_is_the_movers_lead_at_home_less_the_seeds_facing_its_empty_pits() {
        let g = kalah(&[]);
        // South's pits A..F face North's f..a: B, D and E are empty and face e (2), c (1)
        // and b (0).
        let pos = g.parse_position("1,0,2,0,0,7,3/4,0,1,0,2,0,9 S").unwrap();
        assert_eq!(g.proof_order(&pos), 8 * (10 - 7) - 3);
        // North's a..f face F..A: b, d and f are empty and face E (0), C (2) and A (1).
        let pos = g.parse_position("1,0,2,0,0,7,3/4,0,1,0,2,0,9 N").unwrap();
        assert_eq!(g.proof_order(&pos), 8 * (7 - 10) - 3);
        // A, B and C are empty and face d (2), c (0) and b (3).
        let four = kalah(&["pits=4"]);
        let pos = four.parse_position("0,0,0,1,0/3,3,0,2,0 S").unwrap();
        assert_eq!(four.proof_order(&pos), 8 * (1 - 8) - 5);
        // A move that sows into the opponent's row lowers its mover's lead by two a seed.
        let pos = play_all(&g, &["F"]);
        assert_eq!(g.to_move(&pos), Player::P2);
        assert_eq!(g.proof_order(&pos), 8 * ((4 * 6 + 3) - (4 * 5)));
    }

    #[test]
    fn sure_gains_follow_the_extra_moves_then_a_capture() {
        let g = kalah(&[]);
        // South sows F, E, F, D, F (each reaches the store exactly: five seeds banked), then
        // E's last seed lands in the empty F and takes North's a: seven seeds sure, of 12.
        let pos = g.parse_position("0,0,0,3,2,1,0/1,1,1,1,1,1,0 S").unwrap();
        assert_eq!(g.value_range(&pos), Some((-24 + 4 * 7, 24)));
        // The same row without the seed facing F: the chain's five seeds, no capture.
        let pos = g.parse_position("0,0,0,3,2,1,0/0,1,1,1,1,1,0 S").unwrap();
        assert_eq!(g.value_range(&pos), Some((-22 + 4 * 5, 22)));
    }

    #[test]
    fn sowing_into_own_store_gives_an_extra_move() {
        let g = kalah(&[]);
        let pos = play_all(&g, &["C"]);
        assert_eq!(g.format_position(&pos), "4,4,0,5,5,5,1/4,4,4,4,4,4,0 S");
        assert_eq!(g.to_move(&pos), Player::P1);
    }

    #[test]
    fn sowing_skips_the_opponent_store() {
        let g = kalah(&[]);
        let pos = g.parse_position("0,1,0,0,0,9,0/1,1,1,1,1,1,0 S").unwrap();
        let mut p = pos;
        g.play(&mut p, g.parse_move(&pos, "F").unwrap());
        // F: store, a..f (6), skip North's store, A, B (occupied: no capture).
        assert_eq!(g.format_position(&p), "1,2,0,0,0,0,1/2,2,2,2,2,2,0 N");
    }

    #[test]
    fn capture_takes_last_seed_and_opposite_pit() {
        let g = kalah(&[]);
        // South A has 1 seed, B is empty; North e (opposite B) holds 7.
        let pos = g.parse_position("1,0,3,3,3,3,0/3,3,3,3,7,3,0 S").unwrap();
        let mut p = pos;
        g.play(&mut p, g.parse_move(&pos, "A").unwrap());
        assert_eq!(g.format_position(&p), "0,0,3,3,3,3,8/3,3,3,3,0,3,0 N");
    }

    #[test]
    fn no_capture_when_opposite_is_empty_unless_empty_capture() {
        let board = "1,0,3,3,3,3,0/3,3,3,3,0,3,0 S";
        let g = kalah(&[]);
        let mut p = g.parse_position(board).unwrap();
        g.play(&mut p, KalahMove::pit(0));
        assert_eq!(g.format_position(&p), "0,1,3,3,3,3,0/3,3,3,3,0,3,0 N");
        let g = kalah(&["empty-capture=true"]);
        let mut p = g.parse_position(board).unwrap();
        g.play(&mut p, KalahMove::pit(0));
        assert_eq!(g.format_position(&p), "0,0,3,3,3,3,1/3,3,3,3,0,3,0 N");
    }

    #[test]
    fn thirteen_seeds_refill_the_origin_and_capture_there() {
        let g = kalah(&[]);
        // 13 seeds from A: one lap of 13 cells ends back in A (empty after pickup).
        let pos = g.parse_position("13,1,1,1,1,1,0/1,1,1,1,1,1,0 S").unwrap();
        let mut p = pos;
        g.play(&mut p, KalahMove::pit(0));
        // Every cell but North's store got one; A's last seed captures f's 2.
        assert_eq!(g.format_position(&p), "0,2,2,2,2,2,4/2,2,2,2,2,0,0 N");
    }

    #[test]
    fn game_ends_when_a_row_empties_and_leftovers_go_home() {
        let g = kalah(&[]);
        let pos = g.parse_position("0,0,0,0,0,1,20/1,2,3,4,5,6,6 S").unwrap();
        let mut p = pos;
        g.play(&mut p, KalahMove::pit(5));
        // Last seed in South's store: extra move, but South's row is empty: game over.
        let outcome = g.outcome(&p).unwrap();
        assert_eq!(outcome.scores, [Points::whole(21), Points::whole(27)]);
        assert_eq!(outcome.result, GameResult::P2Win);
        let mut moves = vec![];
        g.legal_moves(&p, &mut moves);
        assert!(moves.is_empty());
    }

    #[test]
    fn leftovers_none_scores_only_stores() {
        let g = kalah(&["leftovers=none"]);
        let mut p = g.parse_position("0,0,0,0,0,1,20/1,2,3,4,5,6,6 S").unwrap();
        g.play(&mut p, KalahMove::pit(5));
        let outcome = g.outcome(&p).unwrap();
        assert_eq!(outcome.scores, [Points::whole(21), Points::whole(6)]);
        assert_eq!(outcome.result, GameResult::P1Win);
    }

    #[test]
    fn end_on_move_waits_for_the_player_to_move() {
        let g = kalah(&["end=on-move"]);
        // South empties its row with an extra move: South is to move with nothing: over.
        let mut p = g.parse_position("0,0,0,0,0,1,20/1,2,3,4,5,6,6 S").unwrap();
        g.play(&mut p, KalahMove::pit(5));
        assert!(g.outcome(&p).is_some());
        // South empties its row and North is to move: the game goes on.
        let mut p = g.parse_position("0,0,0,0,0,2,20/1,2,3,4,5,6,6 S").unwrap();
        g.play(&mut p, KalahMove::pit(5));
        assert_eq!(g.format_position(&p), "0,0,0,0,0,0,21/2,2,3,4,5,6,6 N");
        assert!(g.outcome(&p).is_none());
        let standard = kalah(&[]);
        assert!(standard.outcome(&p).is_some());
    }

    #[test]
    fn pie_swap_is_the_second_players_first_reply_only() {
        let g = kalah(&["pie=true"]);
        let pos = play_all(&g, &["C"]);
        // South's extra move: North has not had a turn yet, so no swap now.
        assert!(g.parse_move(&pos, "swap").is_err());
        let pos = play_all(&g, &["C", "F"]);
        assert_eq!(g.to_move(&pos), Player::P2);
        let mv = g.parse_move(&pos, "swap").unwrap();
        let mut swapped = pos;
        g.play(&mut swapped, mv);
        // Board unchanged, North still to move, but North is now P1.
        assert_eq!(swapped.cells, pos.cells);
        assert_eq!(g.to_move(&swapped), Player::P1);
        assert_eq!(g.scores(&swapped), [Points::whole(0), Points::whole(2)]);
        assert!(g.format_position(&swapped).ends_with(" N x"));
        // North moves: no swap later.
        let pos = play_all(&g, &["C", "F", "a"]);
        let pos = {
            let mut p = pos;
            let mut moves = vec![];
            g.legal_moves(&p, &mut moves);
            g.play(&mut p, moves[0]);
            p
        };
        let mut moves = vec![];
        g.legal_moves(&pos, &mut moves);
        assert!(!moves.contains(&KalahMove::SWAP));
        assert!(
            kalah(&[])
                .parse_move(&play_all(&kalah(&[]), &["C", "F"]), "swap")
                .is_err()
        );
    }

    #[test]
    fn move_errors_say_what_is_wrong() {
        let g = kalah(&[]);
        let pos = g.start_position();
        let e = g.parse_move(&pos, "a").unwrap_err().to_string();
        assert!(e.contains("North's pit but South is to move"), "{e}");
        let e = g.parse_move(&pos, "G").unwrap_err().to_string();
        assert!(e.contains("A..F"), "{e}");
        let e = g.parse_move(&pos, "C3").unwrap_err().to_string();
        assert!(e.contains("pit letter"), "{e}");
        let p = play_all(&g, &["C"]);
        let e = g.parse_move(&p, "C").unwrap_err().to_string();
        assert!(e.contains("empty"), "{e}");
    }

    #[test]
    fn position_strings_round_trip_and_reject_nonsense() {
        let g = kalah(&["pie=true"]);
        for text in [
            "4,4,0,5,5,5,1/4,4,4,4,4,4,0 S p",
            "0,0,3,3,3,3,8/3,3,3,3,0,3,0 N x",
            "0,0,3,3,3,3,8/3,3,3,3,0,3,0 N -",
        ] {
            let pos = g.parse_position(text).unwrap();
            assert_eq!(g.format_position(&pos), text);
        }
        let plain = kalah(&[]);
        for bad in [
            "",
            "4,4,4,4,4,4,0 S",
            "4,4,4,4,4,0/4,4,4,4,4,4,0 S",
            "4,4,4,4,4,4,0/4,4,4,4,4,4,0 X",
            "4,4,4,4,4,4,0/4,4,4,4,4,4,0 S p",
            "4,4,x,4,4,4,0/4,4,4,4,4,4,0 S",
            "4,4,4,4,4,4,0/4,4,4,4,4,4,99999 S",
            "4,4,4,4,4,4,0/4,4,4,4,4,4,0 S - extra",
        ] {
            assert!(plain.parse_position(bad).is_err(), "accepted {bad:?}");
        }
    }
}
