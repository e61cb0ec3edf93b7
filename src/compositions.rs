//! A perfect index of pit contents: the combinatorial number system ("stars and bars").
//!
//! A board of `cells` pits holding `n` seeds in all is a composition of `n` into `cells`
//! parts; there are C(n + cells − 1, cells − 1) of them. Writing the seeds as stars and the
//! cells' borders as `cells − 1` bars, a composition is the set of bar positions
//! `p_j = (c_0 + … + c_j) + j`, and its rank is `Σ_j C(p_j, j + 1)` (colexicographic order):
//! every number below the count is the rank of exactly one composition, so a table indexed
//! by it wastes no entry. Ranking is one table lookup per cell.

/// Ranks and unranks compositions of up to `max_seeds` seeds into `cells` cells.
#[derive(Debug, Clone)]
pub struct Compositions {
    cells: usize,
    max_seeds: u32,
    /// `binomial[a][b]` = C(a, b) for a ≤ max_seeds + cells, b ≤ cells (saturating).
    binomial: Vec<Vec<u64>>,
    /// `rank_terms[j × (max_seeds + 1) + sum]` = C(sum + j, j + 1): ranking's lookups in one
    /// flat array (the solver ranks every position it meets).
    rank_terms: Vec<u64>,
}

impl Compositions {
    /// Indexing for `cells` cells (at least 1) and layers up to `max_seeds` seeds.
    pub fn new(cells: usize, max_seeds: u32) -> Compositions {
        let cells = cells.max(1);
        let rows = max_seeds as usize + cells + 1;
        let mut binomial = vec![vec![0u64; cells + 1]; rows];
        for a in 0..rows {
            binomial[a][0] = 1;
            for b in 1..=cells.min(a) {
                binomial[a][b] = binomial[a - 1][b - 1].saturating_add(binomial[a - 1][b]);
            }
        }
        let stride = max_seeds as usize + 1;
        let mut rank_terms = vec![0u64; cells * stride];
        for j in 0..cells - 1 {
            for sum in 0..stride {
                rank_terms[j * stride + sum] = binomial[sum + j][j + 1];
            }
        }
        Compositions {
            cells,
            max_seeds,
            binomial,
            rank_terms,
        }
    }

    pub fn cells(&self) -> usize {
        self.cells
    }

    pub fn max_seeds(&self) -> u32 {
        self.max_seeds
    }

    /// How many boards hold exactly `seeds` seeds (saturates at `u64::MAX`).
    pub fn count(&self, seeds: u32) -> u64 {
        if seeds > self.max_seeds {
            return 0;
        }
        self.binomial[seeds as usize + self.cells - 1][self.cells - 1]
    }

    /// The rank of `counts` among the boards with the same number of seeds, and that number.
    /// `None` when the board has more than `max_seeds` seeds (or the wrong number of cells).
    /// Exact while [`Compositions::count`] of the layer is below `u64::MAX`.
    #[inline]
    pub fn rank<T: Copy + Into<u32>>(&self, counts: &[T]) -> Option<(u32, u64)> {
        if counts.len() != self.cells {
            return None;
        }
        let mut sum = 0u32;
        let mut rank = 0u64;
        let stride = self.max_seeds as usize + 1;
        for (terms, &c) in self
            .rank_terms
            .chunks_exact(stride)
            .zip(&counts[..self.cells - 1])
        {
            sum += c.into();
            // C(sum + j, j + 1), j the cell; `sum ≤ max_seeds` keeps it inside the row.
            rank = rank.wrapping_add(*terms.get(sum as usize)?);
        }
        sum += counts[self.cells - 1].into();
        (sum <= self.max_seeds).then_some((sum, rank))
    }

    /// [`Compositions::rank`] of a board whose length is a constant (`C`, the index's
    /// `cells`): the loop unrolls. `None` also when `C` is not the index's length.
    #[inline(always)]
    pub fn rank_array<T: Copy + Into<u32>, const C: usize>(
        &self,
        counts: &[T; C],
    ) -> Option<(u32, u64)> {
        if C != self.cells || C == 0 {
            return None;
        }
        let stride = self.max_seeds as usize + 1;
        let terms = self.rank_terms.get(..(C - 1) * stride)?;
        let mut sum = 0u32;
        let mut rank = 0u64;
        for (j, &c) in counts[..C - 1].iter().enumerate() {
            sum += c.into();
            // C(sum + j, j + 1); `sum ≤ max_seeds` keeps it inside the row.
            if sum > self.max_seeds {
                return None;
            }
            rank = rank.wrapping_add(terms[j * stride + sum as usize]);
        }
        sum += counts[C - 1].into();
        (sum <= self.max_seeds).then_some((sum, rank))
    }

    /// The board of `seeds` seeds with rank `rank`, written into `out` (`cells` long).
    /// False when the rank is out of range.
    pub fn unrank(&self, seeds: u32, mut rank: u64, out: &mut [u32]) -> bool {
        if seeds > self.max_seeds || rank >= self.count(seeds) || out.len() != self.cells {
            return false;
        }
        // The bars from the last down: the largest p_j with C(p_j, j + 1) ≤ the rank left.
        let mut upper = seeds as usize + self.cells - 1; // p_j < upper
        let mut next_sum = seeds;
        for j in (0..self.cells - 1).rev() {
            let mut p = upper - 1;
            while self.binomial[p][j + 1] > rank {
                p -= 1;
            }
            rank -= self.binomial[p][j + 1];
            let sum = (p - j) as u32; // c_0 + … + c_j
            out[j + 1] = next_sum - sum;
            next_sum = sum;
            upper = p;
        }
        out[0] = next_sum;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_are_a_bijection_onto_the_count() {
        for cells in 1..=5 {
            let c = Compositions::new(cells, 7);
            for seeds in 0..=7 {
                let count = c.count(seeds);
                let mut seen = vec![false; count as usize];
                let mut board = vec![0u32; cells];
                for rank in 0..count {
                    assert!(c.unrank(seeds, rank, &mut board));
                    assert_eq!(board.iter().sum::<u32>(), seeds);
                    assert_eq!(c.rank(&board), Some((seeds, rank)), "{board:?}");
                    assert!(!seen[rank as usize]);
                    seen[rank as usize] = true;
                }
                assert!(!c.unrank(seeds, count, &mut board));
            }
        }
    }

    #[test]
    fn counts_match_the_binomials_and_limits_hold() {
        let c = Compositions::new(12, 24);
        assert_eq!(c.count(0), 1);
        assert_eq!(c.count(1), 12);
        assert_eq!(c.count(20), 84_672_315); // C(31, 11)
        assert_eq!(c.rank(&[25u32, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]), None);
        assert_eq!(c.rank(&[1u32, 2]), None);
        let big = Compositions::new(16, 128);
        assert!(big.count(128) > 0);
    }
}
