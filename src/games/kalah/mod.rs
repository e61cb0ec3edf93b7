//! Kalah(m,n) with its variants, as protocol.md (section *Kalah*) describes them.
//!
//! Board layout (`cells`): South's pits `A..` at `0..m`, South's store at `m`, North's pits
//! `a..` at `m+1..=2m`, North's store at `2m+1`. That is the counter-clockwise sowing
//! order, so sowing is "step to the next cell, skipping the opponent's store". South's pit
//! `i` faces cell `2m - i`, and the formula is its own inverse.

mod evaluation;
mod network_features;
mod notation;
mod rules;
mod search_hints;
mod table;
#[cfg(test)]
mod tests;

use crate::compositions::Compositions;
use crate::game::{GameResult, Horizon, NetworkFeatures, Outcome, Player, Points};
use crate::games::mancala::{self, Side};
use crate::nnue::features::sowing::{SowingFeatures, SowingNetwork, SowingView};
use crate::options::{GameOptions, OptionError, OptionKind, OptionSpec};

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
    /// The game with `options`; an error when the code reads an option the table does not
    /// declare (the tests read them all).
    pub fn new(options: GameOptions) -> Result<Kalah, OptionError> {
        let pits = options.int("pits")? as usize;
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
        let seeds = options.int("seeds")? as u16;
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
            empty_capture: options.bool("empty-capture")?,
            end_on_move: options.choice_is("end", "on-move")?,
            leftovers_to_owner: options.choice_is("leftovers", "owner")?,
            pie: options.bool("pie")?,
            options,
            next,
            index: Compositions::new(2 * pits, MAX_SEEDS),
            network: SowingNetwork::new(layout, format!("kalah {pits}x{seeds}")),
        };
        let bytes = kalah.default_network();
        kalah.network.set_default(bytes);
        Ok(kalah)
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
// By path, for the parts in the other files of this folder.
use with_rules;

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

    /// [`SearchHints::proof_order`]: eight times the seeds on the mover's side less the opponent's,
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
    /// (`PitRules::sure_gains`). The waiting player's seed counts only when leftovers go to
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
