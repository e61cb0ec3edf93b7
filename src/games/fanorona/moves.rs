//! Fanorona turns as single moves: the packed move type, whole-turn (chain) generation and
//! playing a turn on a pair of bitboards.
//!
//! A move is a whole turn: a paika, or a chain of one or more capture steps by one stone.
//! Every prefix of a chain is also a move (stopping after any capture is allowed), and an
//! approach and a withdrawal along the same step are different moves.

use std::fmt;

use super::board::{DIRECTIONS, Geometry, LOCAL_DIRECTIONS, NONE, local_axis, opposite};

/// Longest possible chain. Every step of a chain captures at least one enemy stone, and no
/// side ever has more stones than at the start (22 on 9×5; position strings with more are
/// rejected), so a chain has at most 22 steps. (Landing points are also all distinct and
/// never the start, which alone would allow 44: the capture count is the tighter bound.)
pub const MAX_STEPS: usize = 22;

// Bit layout of the packed `u128`:
//   0..6    start point (0..45)
//   6..11   number of steps (1..=22)
//   11      capture flag (0: paika, 1: chain of captures)
//   12..100 step i at 12 + 4i: bits 0..3 direction, bit 3 withdrawal (else approach)
//   100..105 stones the whole turn captures (0 for a paika): known when the turn is made,
//            so that ordering captures by their size need not play them
const LEN_SHIFT: u32 = 6;
const CAPTURE_BIT: u32 = 11;
const STEPS_SHIFT: u32 = 12;
const STEP_BITS: u32 = 4;
const WITHDRAWAL_BIT: u128 = 8;
const CAPTURED_SHIFT: u32 = 100;
const _: () = assert!(STEPS_SHIFT + STEP_BITS * MAX_STEPS as u32 <= CAPTURED_SHIFT);
// A side has at most 22 stones, so a turn captures at most 22: 5 bits.
const _: () = assert!(CAPTURED_SHIFT + 5 <= 128);
const _: () = assert!(MAX_STEPS < 32); // fits the 5-bit step count

/// How one step of a turn moves or captures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StepKind {
    Paika,
    Approach,
    Withdrawal,
}

/// One whole turn, packed (see the bit layout above); `Copy + Eq`, 16 bytes.
#[derive(Clone, Copy)]
pub struct FanoronaMove(u128);

/// Bits that say which turn a move is: all but the captured count. The count follows from
/// the position, so two moves are the same turn when their steps are: a killer move, kept
/// from a sibling position, is the same turn here whatever it captured there.
const IDENTITY: u128 = (1 << CAPTURED_SHIFT) - 1;

impl PartialEq for FanoronaMove {
    #[inline(always)]
    fn eq(&self, other: &FanoronaMove) -> bool {
        (self.0 ^ other.0) & IDENTITY == 0
    }
}

impl Eq for FanoronaMove {}

impl std::hash::Hash for FanoronaMove {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        (self.0 & IDENTITY).hash(state);
    }
}

impl FanoronaMove {
    /// A paika from `from` in direction `d`.
    pub fn paika(from: usize, d: usize) -> FanoronaMove {
        FanoronaMove(from as u128 | 1 << LEN_SHIFT | (d as u128) << STEPS_SHIFT)
    }

    /// A chain from `from` with no steps yet (not a move until a step is added).
    pub fn chain_start(from: usize) -> FanoronaMove {
        FanoronaMove(from as u128 | 1 << CAPTURE_BIT)
    }

    /// This chain with one more capture step in direction `d`, which captures `captured`
    /// stones.
    #[inline(always)]
    pub fn with_capture(self, d: usize, withdrawal: bool, captured: u32) -> FanoronaMove {
        let len = self.len() as u32;
        let step = d as u128 | if withdrawal { WITHDRAWAL_BIT } else { 0 };
        FanoronaMove(
            self.0
                + (1 << LEN_SHIFT)
                + (step << (STEPS_SHIFT + STEP_BITS * len))
                + ((captured as u128) << CAPTURED_SHIFT),
        )
    }

    /// Enemy stones the whole turn captures (0 for a paika).
    #[inline(always)]
    pub fn captured(self) -> u32 {
        (self.0 >> CAPTURED_SHIFT) as u32
    }

    #[inline(always)]
    pub fn from(self) -> usize {
        (self.0 & 63) as usize
    }

    /// Number of steps (1 for a paika).
    #[inline(always)]
    pub fn len(self) -> usize {
        ((self.0 >> LEN_SHIFT) & 31) as usize
    }

    /// A move has at least one step; only [`FanoronaMove::chain_start`] has none.
    pub fn is_empty(self) -> bool {
        self.len() == 0
    }

    #[inline(always)]
    pub fn is_capture(self) -> bool {
        self.0 >> CAPTURE_BIT & 1 == 1
    }

    /// Direction and kind of step `i`.
    #[inline(always)]
    pub fn step(self, i: usize) -> (usize, StepKind) {
        let bits = self.0 >> (STEPS_SHIFT + STEP_BITS * i as u32);
        let d = (bits & 7) as usize;
        let kind = if !self.is_capture() {
            StepKind::Paika
        } else if bits & WITHDRAWAL_BIT != 0 {
            StepKind::Withdrawal
        } else {
            StepKind::Approach
        };
        (d, kind)
    }
}

impl fmt::Debug for FanoronaMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "FanoronaMove(from {}", self.from())?;
        for i in 0..self.len() {
            let (d, kind) = self.step(i);
            let suffix = match kind {
                StepKind::Paika => "",
                StepKind::Approach => "A",
                StepKind::Withdrawal => "W",
            };
            write!(f, " d{d}{suffix}")?;
        }
        write!(f, ")")
    }
}

/// What a turn may do beyond the traditional rules: the options that change chains.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ChainRules {
    /// Only one capture step per turn (first-capture-single, for this turn).
    pub single: bool,
    /// A chain may go on in the direction of the step just before (`same-direction=allowed`).
    pub same_direction: bool,
}

/// All turns of the side owning `own`, appended to `moves`: every chain and every prefix of
/// one when any capture exists (capturing is compulsory), else every paika. `rules.single`:
/// only one capture step per turn (the first-capture-single option);
/// `rules.same_direction`: a chain may go on in the direction of the step just before.
/// Order: captures by start point; from each point of a chain, its approaches (by landing
/// point), then its withdrawals, each move followed by its extensions; paikas by start
/// point, then direction (N, NE, E, …).
pub fn generate(
    g: &Geometry,
    own: u64,
    enemy: u64,
    rules: ChainRules,
    moves: &mut Vec<FanoronaMove>,
) {
    let single = rules.single;
    match (g.files, rules.same_direction) {
        (9, false) => generate_on::<9, false>(g, own, enemy, single, moves),
        (5, false) => generate_on::<5, false>(g, own, enemy, single, moves),
        (3, false) => generate_on::<3, false>(g, own, enemy, single, moves),
        (9, true) => generate_on::<9, true>(g, own, enemy, single, moves),
        (5, true) => generate_on::<5, true>(g, own, enemy, single, moves),
        (3, true) => generate_on::<3, true>(g, own, enemy, single, moves),
        _ => unreachable!("boards have 9, 5 or 3 files"),
    }
}

/// The local directions a chain may not take after a step in local direction `i`: back
/// (`7 - i`, a visited point anyway) and, unless `SAME` (same-direction=allowed), straight
/// on (`i`).
#[inline(always)]
const fn after_step<const SAME: bool>(i: usize) -> u8 {
    if SAME { 0x80 >> i } else { local_axis(i) }
}

/// [`generate`] on a board of `FILES` files (a constant: see [`Geometry::captures_on`]);
/// `SAME`: same-direction=allowed.
fn generate_on<const FILES: u32, const SAME: bool>(
    g: &Geometry,
    own: u64,
    enemy: u64,
    single: bool,
    moves: &mut Vec<FanoronaMove>,
) {
    let mut capturers = g.capturers(own, enemy);
    let empty = g.all & !(own | enemy);
    if capturers != 0 {
        while capturers != 0 {
            let from = capturers.trailing_zeros() as usize;
            capturers &= capturers - 1;
            let (approach, withdrawal) = g.captures_on::<FILES>(from, empty, enemy, 0);
            let chain = Chain {
                at: from,
                free: empty,
                enemy,
                mv: FanoronaMove::chain_start(from),
            };
            push_chains::<FILES, SAME>(g, &chain, approach, withdrawal, single, moves);
        }
        return;
    }
    let mut stones = g.can_step(own, empty);
    while stones != 0 {
        let from = stones.trailing_zeros() as usize;
        stones &= stones - 1;
        for d in 0..DIRECTIONS {
            let to = g.neighbour[d][from];
            if to != NONE && empty & (1u64 << to) != 0 {
                moves.push(FanoronaMove::paika(from, d));
            }
        }
    }
}

/// The number of turns [`generate`] would give, without building them: paikas are counted
/// with whole-board operations, chains by walking them. (Perft's last ply.)
pub fn count(g: &Geometry, own: u64, enemy: u64, rules: ChainRules) -> usize {
    let single = rules.single;
    match (g.files, rules.same_direction) {
        (9, false) => count_on::<9, false>(g, own, enemy, single),
        (5, false) => count_on::<5, false>(g, own, enemy, single),
        (3, false) => count_on::<3, false>(g, own, enemy, single),
        (9, true) => count_on::<9, true>(g, own, enemy, single),
        (5, true) => count_on::<5, true>(g, own, enemy, single),
        (3, true) => count_on::<3, true>(g, own, enemy, single),
        _ => unreachable!("boards have 9, 5 or 3 files"),
    }
}

/// [`count`] on a board of `FILES` files; `SAME`: same-direction=allowed.
fn count_on<const FILES: u32, const SAME: bool>(
    g: &Geometry,
    own: u64,
    enemy: u64,
    single: bool,
) -> usize {
    let mut capturers = g.capturers(own, enemy);
    let empty = g.all & !(own | enemy);
    if capturers == 0 {
        return (0..DIRECTIONS)
            .map(|d| (own & g.before(empty, g.delta[d]) & g.has_step[d]).count_ones() as usize)
            .sum();
    }
    let mut total = 0;
    while capturers != 0 {
        let from = capturers.trailing_zeros() as usize;
        capturers &= capturers - 1;
        let (approach, withdrawal) = g.captures_on::<FILES>(from, empty, enemy, 0);
        total += if single {
            count_steps(approach, withdrawal)
        } else {
            count_chains::<FILES, SAME>(g, from, empty, enemy, approach, withdrawal)
        };
    }
    total
}

// How chains are walked. A step from `at` to `to` in local direction `i` removes enemy
// stones on the axis of `i` only, and frees `at` (but marks it visited). The next step from
// `to` may not go back (it lands on `at`) nor, by default, straight on; the landing and
// victims of every other step from `to` are off that axis and are not `at`. So the steps
// that could follow are [`Geometry::captures`] of `to` on the board *before* the step, the
// same after an approach or a withdrawal: computed once, they decide whether the chain goes
// on, and are the next step's own capture sets. The captured line is only needed when the
// chain goes on.
//
// Under same-direction=allowed, straight on is a step too, and the board before the step
// still gives it exactly: its landing `to + d` and victim `to + 2d` lie ahead, where a
// withdrawal captured nothing; after an approach the board before holds an enemy stone on
// `to + d` (no landing), as the board after holds none on `to + 2d` (the captured line
// went on through every enemy stone): no straight step either way. A straight withdrawal
// would take a stone from `at`, where the capturing stone stood.

/// A chain in progress: the capturing stone stands on `at`.
struct Chain {
    at: usize,
    /// Points the stone may land on: empty, and not visited this turn.
    free: u64,
    /// The enemy stones left.
    enemy: u64,
    /// The turn so far.
    mv: FanoronaMove,
}

/// The stones a step from `at` in local direction `i` captures, by withdrawal or approach.
#[inline(always)]
fn captured_line(
    g: &Geometry,
    enemy: u64,
    at: usize,
    to: usize,
    i: usize,
    withdrawal: bool,
) -> u64 {
    if withdrawal {
        g.local_line(enemy, g.local_step(at, 7 - i), 7 - i)
    } else {
        g.local_line(enemy, g.local_step(to, i), i)
    }
}

/// Appends the turns that go on from `chain` by one of the capture steps `approach` and
/// `withdrawal` (local direction sets), each followed by its own extensions.
fn push_chains<const FILES: u32, const SAME: bool>(
    g: &Geometry,
    chain: &Chain,
    approach: u8,
    withdrawal: u8,
    single: bool,
    moves: &mut Vec<FanoronaMove>,
) {
    for (mut steps, withdraws) in [(approach, false), (withdrawal, true)] {
        while steps != 0 {
            let i = steps.trailing_zeros() as usize;
            steps &= steps - 1;
            let to = g.local_step(chain.at, i);
            let line = captured_line(g, chain.enemy, chain.at, to, i, withdraws);
            let mv = chain
                .mv
                .with_capture(LOCAL_DIRECTIONS[i], withdraws, line.count_ones());
            moves.push(mv);
            if single {
                continue;
            }
            let (next_approach, next_withdrawal) =
                g.captures_on::<FILES>(to, chain.free, chain.enemy, after_step::<SAME>(i));
            if next_approach | next_withdrawal != 0 {
                let next = Chain {
                    at: to,
                    free: (chain.free | line) & !(1u64 << to),
                    enemy: chain.enemy & !line,
                    mv,
                };
                push_chains::<FILES, SAME>(g, &next, next_approach, next_withdrawal, single, moves);
            }
        }
    }
}

/// The number of one-step turns: one per capture step.
#[inline(always)]
fn count_steps(approach: u8, withdrawal: u8) -> usize {
    (approach.count_ones() + withdrawal.count_ones()) as usize
}

/// The number of turns [`push_chains`] would give from a stone on `at` (with `free` and
/// `enemy` as in [`Chain`]): the steps themselves, plus what follows each.
fn count_chains<const FILES: u32, const SAME: bool>(
    g: &Geometry,
    at: usize,
    free: u64,
    enemy: u64,
    approach: u8,
    withdrawal: u8,
) -> usize {
    let mut total = count_steps(approach, withdrawal);
    let mut steps = approach | withdrawal;
    while steps != 0 {
        let i = steps.trailing_zeros() as usize;
        steps &= steps - 1;
        let to = g.local_step(at, i);
        let (next_approach, next_withdrawal) =
            g.captures_on::<FILES>(to, free, enemy, after_step::<SAME>(i));
        if next_approach | next_withdrawal == 0 {
            continue;
        }
        let free = free & !(1u64 << to);
        for (kinds, withdraws) in [(approach, false), (withdrawal, true)] {
            if kinds >> i & 1 != 0 {
                let line = captured_line(g, enemy, at, to, i, withdraws);
                total += count_chains::<FILES, SAME>(
                    g,
                    to,
                    free | line,
                    enemy & !line,
                    next_approach,
                    next_withdrawal,
                );
            }
        }
    }
    total
}

/// Play `mv` on the mover's stones `own` and the opponent's `enemy`.
#[inline]
pub fn apply(g: &Geometry, own: &mut u64, enemy: &mut u64, mv: FanoronaMove) {
    let mut at = mv.from();
    for i in 0..mv.len() {
        let (d, kind) = mv.step(i);
        let to = g.neighbour[d][at] as usize;
        *own ^= 1u64 << at | 1u64 << to;
        let (first, along) = match kind {
            StepKind::Paika => {
                at = to;
                continue;
            }
            StepKind::Approach => (g.neighbour[d][to], d),
            StepKind::Withdrawal => (g.neighbour[opposite(d)][at], opposite(d)),
        };
        *enemy &= !g.line(*enemy, first, along);
        at = to;
    }
}

/// The move text: `c2-d2`, `f2-e3A`, `d4-d3A-c3W-d2A`.
pub fn notation(g: &Geometry, mv: FanoronaMove) -> String {
    let mut at = mv.from();
    let mut text = g.point_name(at);
    for i in 0..mv.len() {
        let (d, kind) = mv.step(i);
        at = g.neighbour[d][at] as usize;
        text.push('-');
        text.push_str(&g.point_name(at));
        match kind {
            StepKind::Paika => {}
            StepKind::Approach => text.push('A'),
            StepKind::Withdrawal => text.push('W'),
        }
    }
    text
}
