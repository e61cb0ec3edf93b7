//! Fanorona turns as single moves: the packed move type, whole-turn (chain) generation and
//! playing a turn on a pair of bitboards.
//!
//! A move is a whole turn: a paika, or a chain of one or more capture steps by one stone.
//! Every prefix of a chain is also a move (stopping after any capture is allowed), and an
//! approach and a withdrawal along the same step are different moves.

use std::fmt;

use super::board::{DIRECTIONS, Geometry, NONE, opposite};

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
const LEN_SHIFT: u32 = 6;
const CAPTURE_BIT: u32 = 11;
const STEPS_SHIFT: u32 = 12;
const STEP_BITS: u32 = 4;
const WITHDRAWAL_BIT: u128 = 8;
const _: () = assert!(STEPS_SHIFT + STEP_BITS * MAX_STEPS as u32 <= 128);
const _: () = assert!(MAX_STEPS < 32); // fits the 5-bit step count

/// How one step of a turn moves or captures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StepKind {
    Paika,
    Approach,
    Withdrawal,
}

/// One whole turn, packed (see the bit layout above); `Copy + Eq`, 16 bytes.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct FanoronaMove(u128);

impl FanoronaMove {
    /// A paika from `from` in direction `d`.
    pub fn paika(from: usize, d: usize) -> FanoronaMove {
        FanoronaMove(from as u128 | 1 << LEN_SHIFT | (d as u128) << STEPS_SHIFT)
    }

    /// A chain from `from` with no steps yet (not a move until a step is added).
    pub fn chain_start(from: usize) -> FanoronaMove {
        FanoronaMove(from as u128 | 1 << CAPTURE_BIT)
    }

    /// This chain with one more capture step in direction `d`.
    #[inline(always)]
    pub fn with_capture(self, d: usize, withdrawal: bool) -> FanoronaMove {
        let len = self.len() as u32;
        let step = d as u128 | if withdrawal { WITHDRAWAL_BIT } else { 0 };
        FanoronaMove(self.0 + (1 << LEN_SHIFT) + (step << (STEPS_SHIFT + STEP_BITS * len)))
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

/// All turns of the side owning `own`, appended to `moves`: every chain and every prefix of
/// one when any capture exists (capturing is compulsory), else every paika. `single`: only
/// one capture step per turn (the first-capture-single option). Order: captures by start
/// point; from each point of a chain, its approaches (by landing point), then its
/// withdrawals, each move followed by its extensions; paikas by start point, then
/// direction (N, NE, E, …).
pub fn generate(g: &Geometry, own: u64, enemy: u64, single: bool, moves: &mut Vec<FanoronaMove>) {
    let capturers = g.capturers(own, enemy);
    if capturers != 0 {
        let mut chains = Chains {
            g,
            sink: moves,
            single,
        };
        chains.all(own, enemy, capturers);
        return;
    }
    let empty = g.all & !(own | enemy);
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
pub fn count(g: &Geometry, own: u64, enemy: u64, single: bool) -> usize {
    let capturers = g.capturers(own, enemy);
    let empty = g.all & !(own | enemy);
    if capturers == 0 {
        return (0..DIRECTIONS)
            .map(|d| (own & g.before(empty, g.delta[d]) & g.has_step[d]).count_ones() as usize)
            .sum();
    }
    let mut counter = Counter(0);
    let mut chains = Chains {
        g,
        sink: &mut counter,
        single,
    };
    chains.all(own, enemy, capturers);
    counter.0
}

/// Where whole turns go as they are found.
trait Sink {
    fn push(&mut self, mv: FanoronaMove);
}

impl Sink for Vec<FanoronaMove> {
    #[inline(always)]
    fn push(&mut self, mv: FanoronaMove) {
        Vec::push(self, mv);
    }
}

/// Counts turns instead of keeping them.
struct Counter(usize);

impl Sink for Counter {
    #[inline(always)]
    fn push(&mut self, _mv: FanoronaMove) {
        self.0 += 1;
    }
}

struct Chains<'a, S: Sink> {
    g: &'a Geometry,
    sink: &'a mut S,
    single: bool,
}

/// A chain in progress: the capturing stone stands on `at`.
struct Chain {
    /// The mover's other stones.
    others: u64,
    /// The enemy stones left.
    enemy: u64,
    at: usize,
    /// Points the stone has occupied this turn, `at` included.
    visited: u64,
    /// The turn so far.
    mv: FanoronaMove,
}

impl<S: Sink> Chains<'_, S> {
    /// Every chain of every stone of `capturers` (the mover's stones that can capture).
    fn all(&mut self, own: u64, enemy: u64, mut capturers: u64) {
        let empty = self.g.all & !(own | enemy);
        while capturers != 0 {
            let from = capturers.trailing_zeros() as usize;
            capturers &= capturers - 1;
            let bit = 1u64 << from;
            let state = Chain {
                others: own & !bit,
                enemy,
                at: from,
                visited: bit,
                mv: FanoronaMove::chain_start(from),
            };
            self.extend(&state, empty & self.g.adjacent[from]);
        }
    }

    /// Every capture step of `chain`'s stone onto one of `landings` (free points next to it,
    /// not in the direction of the step before), each followed by the chains that go on.
    #[inline(never)]
    fn extend(&mut self, chain: &Chain, landings: u64) {
        self.extend_here::<false>(chain, landings);
    }

    /// [`Chains::extend`], inlined into its caller. `CALL`: whether the chains that go on
    /// are generated by a call (else by this function inlined once more): recursion
    /// unrolled by two, which halves the calls.
    #[inline(always)]
    fn extend_here<const CALL: bool>(&mut self, chain: &Chain, landings: u64) {
        let g = self.g;
        let at = chain.at & 63;
        let enemy = chain.enemy;
        let rays = &g.rays[at];
        // The landings that capture by approach and by withdrawal, found without a branch
        // per landing (which would be mispredicted half the time).
        let (mut approach, mut withdrawal) = (0u64, 0u64);
        let mut left = landings;
        while left != 0 {
            let to = left.trailing_zeros() as usize;
            left &= left - 1;
            let ray = rays[g.direction_to[at][to] as usize & 7];
            approach |= ((enemy >> ray.ahead) & 1) << to;
            withdrawal |= ((enemy >> ray.behind) & 1) << to;
        }
        while approach != 0 {
            let to = approach.trailing_zeros() as usize;
            approach &= approach - 1;
            let d = g.direction_to[at][to] as usize & 7;
            let line = g.line(enemy, rays[d].ahead, d);
            self.step::<CALL>(chain, to, d, line, false);
        }
        while withdrawal != 0 {
            let to = withdrawal.trailing_zeros() as usize;
            withdrawal &= withdrawal - 1;
            let d = g.direction_to[at][to] as usize & 7;
            let line = g.line(enemy, rays[d].behind, opposite(d));
            self.step::<CALL>(chain, to, d, line, true);
        }
    }

    /// Record the capture step of `chain`'s stone to `to` (direction `d`) taking `line`
    /// (`taken` stones), and
    /// go on from there if a further capture step is possible.
    #[inline(always)]
    fn step<const CALL: bool>(
        &mut self,
        chain: &Chain,
        to: usize,
        d: usize,
        line: u64,
        withdrawal: bool,
    ) {
        let mv = chain.mv.with_capture(d, withdrawal);
        self.sink.push(mv);
        if self.single {
            return;
        }
        let g = self.g;
        let to = to & 63;
        let enemy = chain.enemy & !line;
        let visited = chain.visited | 1u64 << to;
        // Most chains cannot go on: checked here, before any call. A landing must be free
        // and not straight on (the step before's direction), with a victim beyond or behind.
        let free = g.all & !(chain.others | enemy | visited);
        let landings = free & g.adjacent[to] & !(1u64 << g.after[d & 7][to]);
        let mut left = landings;
        let mut goes_on = false;
        while left != 0 {
            let next = left.trailing_zeros() as usize;
            left &= left - 1;
            let e = g.direction_to[to][next] as usize & 7;
            if enemy & g.victims[to][e] != 0 {
                goes_on = true;
                break;
            }
        }
        if goes_on {
            let next = Chain {
                others: chain.others,
                enemy,
                at: to,
                visited,
                mv,
            };
            if CALL {
                self.extend(&next, landings);
            } else {
                self.extend_here::<true>(&next, landings);
            }
        }
    }
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
