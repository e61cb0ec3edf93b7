//! Fanorona's endgame tables: how positions are indexed, and the un-moves the builder walks
//! back along (docs/tablebases.md, "Fanorona").
//!
//! A layer is a **material**: the two stone counts `{a, b}` (a ≤ b), both orders of mover
//! and opponent in one layer, since a paika hands the move over and keeps the counts, and
//! a capture always lowers the total. Layers go by total, then by the smaller count:
//! `{1,1}`, `{1,2}`, `{1,3}`, `{2,2}`, `{1,4}`, `{2,3}`, … so every capture lowers the layer.
//! A layer holds a block for each order: mover `m` stones, opponent `o`.
//!
//! Positions are seen from the mover (the rules treat the colours alike once the first
//! turns are made) and folded by the board's symmetries: the mirror images through both
//! axes (and on square boards the diagonals), which keep lines and strong points. Of the
//! two stone sets of a position the larger one leads (the mover's when the counts are
//! equal); a position's canonical form is its least image `(σ lead, σ other)`; its index
//! within the block is `rank(lead set among the canonical sets of its size) ×
//! C(points − lead, other) + rank(other set among the free points)`, with colex ranks. A
//! lead set with a symmetry of its own leaves the other sets that are not least under that
//! symmetry unused: those slots hold 0 and no position maps to them. Leading with the larger
//! set keeps them few (a lone stone on an axis is symmetric, six stones seldom are):
//! docs/tablebases.md gives the waste of each layer.

use std::sync::OnceLock;

use super::board::{self, Geometry, MAX_POINTS, NONE, Size};
use super::{Fanorona, FanoronaPosition};
use crate::game::{ExactValues, MAX_TABLE_DISTANCE, Outcome, Player, TableIndexing, TableValues};

/// The largest set of mover stone sets of one count whose ranks are kept in a lookup
/// table (entries); bigger counts are not covered by tables.
const MAX_SETS: u64 = 1 << 26;

/// `BINOMIAL[n][k]` = n choose k, for n, k ≤ 45.
static BINOMIAL: [[u64; MAX_POINTS + 1]; MAX_POINTS + 1] = binomials();

const fn binomials() -> [[u64; MAX_POINTS + 1]; MAX_POINTS + 1] {
    let mut c = [[0u64; MAX_POINTS + 1]; MAX_POINTS + 1];
    let mut n = 0;
    while n <= MAX_POINTS {
        c[n][0] = 1;
        let mut k = 1;
        while k <= n {
            c[n][k] = c[n - 1][k - 1] + if k < n { c[n - 1][k] } else { 0 };
            k += 1;
        }
        n += 1;
    }
    c
}

#[inline(always)]
fn choose(n: usize, k: usize) -> u64 {
    if k > n { 0 } else { BINOMIAL[n][k] }
}

/// The layer of materials `{a, b}`, a ≤ b: layers of smaller totals first.
pub fn layer_of(a: u32, b: u32) -> u32 {
    let (a, b) = (a.min(b), a.max(b));
    layers_below_total(a + b) + a - 1
}

/// How many layers hold totals below `n` (totals from 2, each `⌊t/2⌋` layers).
fn layers_below_total(n: u32) -> u32 {
    (2..n).map(|t| t / 2).sum()
}

/// The material `(a, b)` of a layer.
pub fn material(layer: u32) -> (u32, u32) {
    let mut n = 2;
    while layers_below_total(n + 1) <= layer {
        n += 1;
    }
    let a = layer - layers_below_total(n) + 1;
    (a, n - a)
}

/// The highest layer of materials with at most `stones` stones.
pub fn top_layer(stones: u32) -> Option<u32> {
    (stones >= 2).then(|| layers_below_total(stones + 1) - 1)
}

/// The mover stone sets of one count that are least among their images, in increasing
/// order, and the rank of each among them by its colex rank among all sets of the count.
struct CanonicalSets {
    sets: Vec<u64>,
    rank: Vec<u32>,
}

/// One board's symmetries and canonical sets.
pub struct Indexer {
    points: usize,
    stones_per_side: u32,
    /// Each symmetry as a point permutation (the identity first).
    perms: Vec<[u8; 64]>,
    canonical: [OnceLock<Option<CanonicalSets>>; MAX_POINTS + 1],
}

/// The indexer of a board, built once.
pub fn indexer(size: Size) -> &'static Indexer {
    static TSIVY: OnceLock<Indexer> = OnceLock::new();
    static DIMY: OnceLock<Indexer> = OnceLock::new();
    static TELO: OnceLock<Indexer> = OnceLock::new();
    let cell = match size {
        Size::Tsivy => &TSIVY,
        Size::Dimy => &DIMY,
        Size::Telo => &TELO,
    };
    cell.get_or_init(|| Indexer::new(size))
}

impl Indexer {
    fn new(size: Size) -> Indexer {
        let g = size.geometry();
        let (files, ranks) = (g.files, g.ranks);
        let at = |f: usize, r: usize| (r * files + f) as u8;
        let mut candidates: Vec<Box<dyn Fn(usize, usize) -> u8>> = vec![
            Box::new(at),
            Box::new(move |f, r| at(files - 1 - f, r)),
            Box::new(move |f, r| at(f, ranks - 1 - r)),
            Box::new(move |f, r| at(files - 1 - f, ranks - 1 - r)),
        ];
        if files == ranks {
            candidates.push(Box::new(move |f, r| at(r, f)));
            candidates.push(Box::new(move |f, r| at(ranks - 1 - r, f)));
            candidates.push(Box::new(move |f, r| at(r, files - 1 - f)));
            candidates.push(Box::new(move |f, r| at(ranks - 1 - r, files - 1 - f)));
        }
        let mut perms = Vec::new();
        for map in candidates {
            let mut perm = [0u8; 64];
            for (p, slot) in perm.iter_mut().enumerate().take(g.points) {
                *slot = map(p % files, p / files);
            }
            // Only a map that keeps every line is a symmetry of the game.
            if keeps_lines(g, &perm) {
                perms.push(perm);
            }
        }
        Indexer {
            points: g.points,
            stones_per_side: size.stones_per_side(),
            perms,
            canonical: std::array::from_fn(|_| OnceLock::new()),
        }
    }

    /// How many symmetries fold positions together.
    pub fn symmetries(&self) -> usize {
        self.perms.len()
    }

    #[inline(always)]
    fn image(perm: &[u8; 64], mut bits: u64) -> u64 {
        let mut out = 0u64;
        while bits != 0 {
            let p = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            out |= 1u64 << perm[p];
        }
        out
    }

    /// The least image of `(mover, opponent)`.
    #[inline]
    pub fn canonical(&self, mover: u64, opponent: u64) -> (u64, u64) {
        let mut best = (mover, opponent);
        for perm in &self.perms[1..] {
            let m = Self::image(perm, mover);
            if m > best.0 {
                continue;
            }
            let image = (m, Self::image(perm, opponent));
            if image < best {
                best = image;
            }
        }
        best
    }

    fn canonical_sets(&self, m: usize) -> Option<&CanonicalSets> {
        self.canonical
            .get(m)?
            .get_or_init(|| {
                let total = choose(self.points, m);
                if m == 0 || total > MAX_SETS {
                    return None;
                }
                let mut sets = Vec::new();
                let mut rank = vec![u32::MAX; total as usize];
                // Sets of m points in increasing order are in colex order (Gosper's hack).
                let mut set: u64 = (1u64 << m) - 1;
                for slot in rank.iter_mut() {
                    let least = self
                        .perms
                        .iter()
                        .skip(1)
                        .all(|perm| Self::image(perm, set) >= set);
                    if least {
                        *slot = sets.len() as u32;
                        sets.push(set);
                    }
                    let low = set & set.wrapping_neg();
                    let ripple = set + low;
                    set = (((ripple ^ set) >> 2) / low) | ripple;
                }
                Some(CanonicalSets { sets, rank })
            })
            .as_ref()
    }

    /// Entries of the block of mover count `m`, opponent count `o`.
    fn block_size(&self, m: u32, o: u32) -> u64 {
        if m == 0 || o == 0 || m > self.stones_per_side || o > self.stones_per_side {
            return 0;
        }
        let (lead, other) = (m.max(o) as usize, m.min(o) as usize);
        let free = self.points.saturating_sub(lead);
        match self.canonical_sets(lead) {
            Some(c) => c.sets.len() as u64 * choose(free, other),
            None => 0,
        }
    }

    /// Entries of a layer.
    pub fn layer_size(&self, layer: u32) -> u64 {
        let (a, b) = material(layer);
        if a == b {
            self.block_size(a, b)
        } else {
            self.block_size(a, b) + self.block_size(b, a)
        }
    }

    /// The layer and index of a position: the mover's and the opponent's stones.
    #[inline]
    pub fn index(&self, mover: u64, opponent: u64, max_layer: u32) -> Option<(u32, u64)> {
        let (m, o) = (mover.count_ones(), opponent.count_ones());
        if m == 0 || o == 0 {
            return None;
        }
        let layer = layer_of(m, o);
        if layer > max_layer || m > self.stones_per_side || o > self.stones_per_side {
            return None;
        }
        let (lead, other) = if m >= o {
            (mover, opponent)
        } else {
            (opponent, mover)
        };
        let sets = self.canonical_sets(lead.count_ones() as usize)?;
        let (lead, other) = self.canonical(lead, other);
        let set = *sets.rank.get(colex(lead) as usize)?;
        let (a, b) = material(layer);
        let offset = if m == a { 0 } else { self.block_size(a, b) };
        let free = self.points - lead.count_ones() as usize;
        let within =
            set as u64 * choose(free, other.count_ones() as usize) + rank_among_free(other, lead);
        Some((layer, offset + within))
    }

    /// The position of an index (mover's stones, opponent's), `None` for an unused slot.
    pub fn position(&self, layer: u32, index: u64) -> Option<(u64, u64)> {
        let (a, b) = material(layer);
        let first = self.block_size(a, b);
        let (m, o, index) = if index < first {
            (a, b, index)
        } else if a != b && index - first < self.block_size(b, a) {
            (b, a, index - first)
        } else {
            return None;
        };
        let (lead_count, other_count) = (m.max(o) as usize, m.min(o) as usize);
        let sets = self.canonical_sets(lead_count)?;
        let per_set = choose(self.points - lead_count, other_count);
        let lead = *sets.sets.get((index / per_set) as usize)?;
        let other = unrank_among_free(index % per_set, other_count, lead, self.points);
        if self.canonical(lead, other) != (lead, other) {
            return None;
        }
        Some(if m >= o { (lead, other) } else { (other, lead) })
    }
}

/// Does the point map `perm` keep the board's lines (neighbours stay neighbours, strong
/// points strong)?
fn keeps_lines(g: &Geometry, perm: &[u8; 64]) -> bool {
    let mut seen = 0u64;
    for p in 0..g.points {
        let q = perm[p] as usize;
        if q >= g.points || seen & (1 << q) != 0 || g.is_strong(p) != g.is_strong(q) {
            return false;
        }
        seen |= 1 << q;
        let neighbours = |x: usize| {
            (0..8)
                .map(|d| g.neighbour[d][x])
                .filter(|&n| n != NONE)
                .fold(0u64, |acc, n| acc | 1 << n)
        };
        if Indexer::image(perm, neighbours(p)) != neighbours(q) {
            return false;
        }
    }
    true
}

/// The colex rank of a set among the sets of its size.
#[inline]
fn colex(mut set: u64) -> u64 {
    let mut rank = 0;
    let mut i = 1;
    while set != 0 {
        let p = set.trailing_zeros() as usize;
        set &= set - 1;
        rank += choose(p, i);
        i += 1;
    }
    rank
}

/// The colex rank of `set` among the sets of its size drawn from the points not in
/// `taken` (each point counted by how many free points lie below it).
#[inline]
fn rank_among_free(mut set: u64, taken: u64) -> u64 {
    let mut rank = 0;
    let mut i = 1;
    while set != 0 {
        let p = set.trailing_zeros() as usize;
        set &= set - 1;
        let below = (taken & ((1u64 << p) - 1)).count_ones() as usize;
        rank += choose(p - below, i);
        i += 1;
    }
    rank
}

/// The set of `k` free points (not in `taken`, of `points`) with colex rank `rank`.
fn unrank_among_free(mut rank: u64, k: usize, taken: u64, points: usize) -> u64 {
    let free = !taken & ((1u64 << points) - 1);
    let mut set = 0u64;
    let mut top = free.count_ones() as usize;
    for i in (1..=k).rev() {
        // The largest c with C(c, i) ≤ rank: the c-th free point (from 0) is in the set.
        let mut c = top.saturating_sub(1);
        while c > 0 && choose(c, i) > rank {
            c -= 1;
        }
        rank -= choose(c, i);
        let mut rest = free;
        for _ in 0..c {
            rest &= rest - 1;
        }
        set |= rest & rest.wrapping_neg();
        top = c;
    }
    set
}

impl ExactValues for Fanorona {
    /// Fanorona is won or lost, not scored: for the exact solver a win is worth one point,
    /// a loss minus one, a draw nothing (`sowfan solve` says `Value: win`, `draw`, `loss`).
    fn final_value(&self, outcome: &Outcome, mover: Player) -> i32 {
        match outcome.result.winner() {
            Some(winner) if winner == mover => 2,
            Some(_) => -2,
            None => 0,
        }
    }

    fn value_at_stake(&self, _pos: &FanoronaPosition) -> Option<i32> {
        Some(2)
    }

    fn value_step(&self) -> i32 {
        2
    }

    fn win_draw_loss(&self) -> bool {
        true
    }
}

impl TableIndexing for Fanorona {
    /// Tables exist under a quiet limit a byte can count (the distance semantics, see
    /// [`TableValues::Distance`]); they hold positions after both first turns. Neither the
    /// repetition rule (it cannot change the value of a position reached without repeating,
    /// docs/tablebases.md) nor first-capture-single (its positions are not covered) changes
    /// a table value, so they are not part of the rules; same-direction=allowed is.
    fn table_rules(&self) -> Option<String> {
        let limit = self.table_limit()?;
        let same = if self.same_direction {
            " same-direction=allowed"
        } else {
            ""
        };
        Some(format!(
            "{} quiet-limit={limit}{same}",
            self.size.game_name()
        ))
    }

    fn table_values(&self) -> TableValues {
        TableValues::Distance {
            limit: self.quiet_limit.unwrap_or(0).min(MAX_TABLE_DISTANCE),
            win: 2,
        }
    }

    /// A layer is a material (the two stone counts); see this module.
    fn table_index(&self, pos: &FanoronaPosition, max_layer: u32) -> Option<(u32, u64)> {
        if pos.first_pending != 0 || self.table_limit().is_none() {
            return None;
        }
        indexer(self.size).index(pos.own(), pos.enemy(), max_layer)
    }

    fn table_layer_size(&self, layer: u32) -> u64 {
        indexer(self.size).layer_size(layer)
    }

    fn table_position(&self, layer: u32, index: u64) -> Option<FanoronaPosition> {
        let (own, enemy) = indexer(self.size).position(layer, index)?;
        Some(FanoronaPosition {
            stones: [own, enemy],
            side: Player::P1,
            quiet: 0,
            first_pending: 0,
        })
    }

    fn table_top_layer(&self, stones: u32) -> Option<u32> {
        top_layer(stones)
    }

    fn table_layer_name(&self, layer: u32) -> String {
        let (a, b) = material(layer);
        format!("{a} and {b} stones")
    }

    /// The stones in play: a paika keeps both counts and a capture removes stones for
    /// good, so a material reads only its own layer and materials of fewer stones in all.
    fn table_layer_stage(&self, layer: u32) -> u32 {
        let (a, b) = material(layer);
        a + b
    }

    fn table_turns_left(&self, pos: &FanoronaPosition) -> u32 {
        self.quiet_limit
            .map_or(u32::MAX, |limit| limit.saturating_sub(pos.quiet))
    }

    /// The positions one paika before `pos`: the side not to move stepped a stone to its
    /// point from a neighbour on a line that is empty now, and could not capture before
    /// (a paika is legal only then).
    fn table_unmoves(&self, pos: &FanoronaPosition, out: &mut Vec<FanoronaPosition>) {
        out.clear();
        let g = self.g;
        let (own, enemy) = (pos.own(), pos.enemy());
        let empty = g.all & !(own | enemy);
        let mut stones = enemy;
        while stones != 0 {
            let to = stones.trailing_zeros() as usize;
            stones &= stones - 1;
            for d in 0..board::DIRECTIONS {
                let from = g.neighbour[d][to];
                if from == NONE || empty & (1u64 << from) == 0 {
                    continue;
                }
                let before = enemy ^ (1u64 << to) ^ (1u64 << from);
                if g.capturers(before, own) != 0 {
                    continue;
                }
                let mut stones = [0u64; 2];
                stones[pos.side.other().index()] = before;
                stones[pos.side.index()] = own;
                out.push(FanoronaPosition {
                    stones,
                    side: pos.side.other(),
                    quiet: pos.quiet.saturating_sub(1),
                    first_pending: 0,
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layers_go_by_total_then_smaller_count() {
        let expected = [
            (1, 1),
            (1, 2),
            (1, 3),
            (2, 2),
            (1, 4),
            (2, 3),
            (1, 5),
            (2, 4),
            (3, 3),
        ];
        for (layer, &(a, b)) in expected.iter().enumerate() {
            assert_eq!(material(layer as u32), (a, b));
            assert_eq!(layer_of(a, b), layer as u32);
            assert_eq!(layer_of(b, a), layer as u32);
        }
        assert_eq!(top_layer(7), Some(11));
        assert_eq!(material(11), (3, 4));
        assert_eq!(top_layer(1), None);
    }

    /// `TableIndexing::table_layer_stage` is the total of a layer's material: the totals never go
    /// down as the layers go up, and every material a capture leads to (a stone or more
    /// fewer on one side) is a layer below, of a smaller total.
    #[test]
    fn totals_are_stages_of_layers_in_order() {
        let top = top_layer(12).unwrap_or(0);
        for layer in 0..=top {
            let (a, b) = material(layer);
            if layer > 0 {
                let (c, d) = material(layer - 1);
                assert!(c + d <= a + b, "layer {layer}");
            }
            for (x, y) in [(a, b), (b, a)] {
                for fewer in 1..y {
                    let child = layer_of(x, y - fewer);
                    assert!(child < layer, "{x},{y} -> {x},{}", y - fewer);
                    let (c, d) = material(child);
                    assert!(c + d < a + b);
                }
            }
        }
    }

    #[test]
    fn symmetries_of_the_boards() {
        assert_eq!(indexer(Size::Tsivy).symmetries(), 4);
        assert_eq!(indexer(Size::Dimy).symmetries(), 8);
        assert_eq!(indexer(Size::Telo).symmetries(), 8);
    }

    #[test]
    fn ranks_and_positions_round_trip() {
        for size in [Size::Dimy, Size::Telo, Size::Tsivy] {
            let ix = indexer(size);
            for layer in 0..=top_layer(4).unwrap_or(0) {
                let entries = ix.layer_size(layer);
                let mut used = 0;
                let step = (entries / 5000).max(1);
                let mut index = 0;
                while index < entries {
                    if let Some((mover, opponent)) = ix.position(layer, index) {
                        used += 1;
                        assert_eq!(mover & opponent, 0);
                        assert_eq!(ix.index(mover, opponent, layer), Some((layer, index)));
                    }
                    index += step;
                }
                assert!(used > 0, "{size:?} layer {layer}");
            }
        }
    }

    #[test]
    fn every_image_has_the_index_of_its_position() {
        let ix = indexer(Size::Dimy);
        let (mover, opponent) = (0b1000_0000_0001_0011u64, 1u64 << 20 | 1 << 7);
        let (layer, index) = ix.index(mover, opponent, 100).expect("covered");
        for perm in &ix.perms {
            let image = (Indexer::image(perm, mover), Indexer::image(perm, opponent));
            assert_eq!(ix.index(image.0, image.1, 100), Some((layer, index)));
        }
    }

    /// The slots a layer leaves unused, estimated from the symmetric lead sets: each leaves
    /// unused about the part of its other sets that its own symmetries fold together.
    fn estimated_waste(ix: &Indexer, layer: u32) -> (u64, f64) {
        let (a, b) = material(layer);
        let mut entries = 0;
        let mut waste = 0.0;
        let blocks: &[(u32, u32)] = if a == b { &[(a, b)] } else { &[(a, b), (b, a)] };
        for &(m, o) in blocks {
            let lead = m.max(o) as usize;
            let Some(sets) = ix.canonical_sets(lead) else {
                continue;
            };
            let per_set = choose(ix.points - lead, m.min(o) as usize);
            entries += sets.sets.len() as u64 * per_set;
            for &set in &sets.sets {
                let fixed = ix
                    .perms
                    .iter()
                    .filter(|p| Indexer::image(p, set) == set)
                    .count();
                waste += per_set as f64 * (1.0 - 1.0 / fixed as f64);
            }
        }
        (entries, waste)
    }

    #[test]
    fn the_tsivy_tables_to_seven_stones_waste_under_one_percent() {
        let ix = indexer(Size::Tsivy);
        let (mut entries, mut waste) = (0, 0.0);
        for layer in 0..=top_layer(7).unwrap_or(0) {
            let (e, w) = estimated_waste(ix, layer);
            entries += e;
            waste += w;
        }
        // 6,261,651,660 (white, black) placements of 2..=7 stones, folded by 4 symmetries.
        assert_eq!(entries, 1_577_704_084);
        assert!(waste < 0.01 * entries as f64, "{waste} of {entries}");
    }

    #[test]
    fn the_index_wastes_little() {
        // Dimy {2,3}: every (mover, opponent) pair, counted by its orbit.
        let ix = indexer(Size::Dimy);
        let layer = layer_of(2, 3);
        let entries = ix.layer_size(layer);
        let used = (0..entries)
            .filter(|&i| ix.position(layer, i).is_some())
            .count() as u64;
        let all = choose(25, 2) * choose(23, 3) + choose(25, 3) * choose(22, 2);
        assert!(used * 8 >= all, "{used} canonical of {all}");
        assert!(
            entries - used < entries / 8,
            "{entries} entries, {used} used"
        );
        let (estimated_entries, estimated) = estimated_waste(ix, layer);
        assert_eq!(estimated_entries, entries);
        assert!(((entries - used) as f64 - estimated).abs() < 0.02 * entries as f64);
    }
}
