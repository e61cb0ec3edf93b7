//! Fanorona board geometry: points as bits of a `u64`, directions, and the neighbour tables
//! of the three board sizes, all computed at compile time.
//!
//! Point index = `rank0 * files + file0` (both 0-based, `a1` = 0, rank 1 first), so the
//! 9×5 board uses bits 0..45. A direction `d` moves a point by `DELTA[d]` indices; the masks
//! `has_step[d]` (the point has a neighbour in `d`) keep shifted bitboards from wrapping
//! around a board edge, so no padding column is needed.

/// Points of the largest board (9×5).
pub const MAX_POINTS: usize = 45;

/// "No point": off the board, or no line in that direction.
pub const NONE: u8 = u8::MAX;

/// Number of directions; direction indices are `0..8`.
pub const DIRECTIONS: usize = 8;

/// `(file step, rank step)` of each direction: N, NE, E, SE, S, SW, W, NW. The opposite of
/// `d` is `(d + 4) % 8`.
pub const VECTORS: [(i8, i8); DIRECTIONS] = [
    (0, 1),
    (1, 1),
    (1, 0),
    (1, -1),
    (0, -1),
    (-1, -1),
    (-1, 0),
    (-1, 1),
];

/// The directions that go to higher point indices (N, NE, E, NW), each with its opposite:
/// bitboard shifts then have a known sign.
pub const FORWARD_PAIRS: [(usize, usize); 4] = [(0, 4), (1, 5), (2, 6), (7, 3)];

#[inline]
pub const fn opposite(d: usize) -> usize {
    (d + 4) & 7
}

/// Is `d` a diagonal direction (only strong points have those)?
pub const fn is_diagonal(d: usize) -> bool {
    d & 1 == 1
}

/// The three standard boards.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Size {
    /// Fanoron-Tsivy, 9×5.
    Tsivy,
    /// Fanoron-Dimy, 5×5.
    Dimy,
    /// Fanoron-Telo, 3×3.
    Telo,
}

impl Size {
    pub fn geometry(self) -> &'static Geometry {
        match self {
            Size::Tsivy => &TSIVY,
            Size::Dimy => &DIMY,
            Size::Telo => &TELO,
        }
    }

    /// The game name after `newgame`.
    pub fn game_name(self) -> &'static str {
        match self {
            Size::Tsivy => "fanorona",
            Size::Dimy => "fanorona-dimy",
            Size::Telo => "fanorona-telo",
        }
    }

    /// The start board, ranks from the top (rank 5 or 3) down, as in the rules.
    pub fn start_board(self) -> &'static str {
        match self {
            Size::Tsivy => "BBBBBBBBB/BBBBBBBBB/BWBW1BWBW/WWWWWWWWW/WWWWWWWWW",
            Size::Dimy => "BBBBB/BBBBB/BW1BW/WWWWW/WWWWW",
            Size::Telo => "BBB/B1W/WWW",
        }
    }

    /// Stones of each side at the start: no side ever has more, which bounds a chain.
    pub fn stones_per_side(self) -> u32 {
        match self {
            Size::Tsivy => 22,
            Size::Dimy => 12,
            Size::Telo => 4,
        }
    }
}

/// "No point" in the hot-path tables: bit 63 is never a point, so testing it in any set of
/// stones is false without a branch.
pub const OFF: u8 = 63;

/// One line through a point in one direction, for chain generation: the point a step
/// lands on, the point beyond that (an approach victim) and the point behind the start (a
/// withdrawal victim); `OFF` where the board ends.
#[derive(Clone, Copy, Debug, Default)]
pub struct Ray {
    pub to: u8,
    pub ahead: u8,
    pub behind: u8,
}

/// Precomputed lines of one board size.
#[derive(Debug)]
pub struct Geometry {
    pub files: usize,
    pub ranks: usize,
    pub points: usize,
    /// Every point of the board.
    pub all: u64,
    /// Points with diagonals: (file + rank) even with `a` = 1 and rank 1 = 1.
    pub strong: u64,
    /// `neighbour[d][p]`: the point next to `p` in direction `d` along a line, or `NONE`.
    pub neighbour: [[u8; MAX_POINTS]; DIRECTIONS],
    /// Points that have a neighbour in direction `d`.
    pub has_step: [u64; DIRECTIONS],
    /// Points with two points beyond them in direction `d` (`p + d` and `p + 2d` on a line).
    pub has_two: [u64; DIRECTIONS],
    /// Index difference of one step in direction `d`.
    pub delta: [i32; DIRECTIONS],
    /// `rays[p][d]`: the line from `p` in direction `d` (`to` = `OFF` when there is none).
    pub rays: [[Ray; DIRECTIONS]; 64],
    /// `after[d][p]`: the point a step from `p` in direction `d` lands on, `OFF` if none.
    pub after: [[u8; 64]; DIRECTIONS],
    /// Points adjacent to `p` along a line.
    pub adjacent: [u64; 64],
    /// `victims[p][d]`: the points whose enemy stone a step from `p` in direction `d` would
    /// capture first (beyond the landing point, or behind `p`).
    pub victims: [[u64; DIRECTIONS]; 64],
    /// `ray_from[d][p]`: `p` and every point after it in direction `d`, to the board's edge.
    pub ray_from: [[u64; 64]; DIRECTIONS],
    /// `direction_to[p][q]`: the direction from `p` to the adjacent point `q`.
    pub direction_to: [[u8; 64]; 64],
}

impl Geometry {
    const fn new(files: usize, ranks: usize) -> Geometry {
        let points = files * ranks;
        let mut neighbour = [[NONE; MAX_POINTS]; DIRECTIONS];
        let mut has_step = [0u64; DIRECTIONS];
        let mut delta = [0i32; DIRECTIONS];
        let mut strong = 0u64;
        let mut p = 0;
        while p < points {
            let file = p % files;
            let rank = p / files;
            // a1 is strong: (1 + 1) even, i.e. (file0 + rank0) even.
            let is_strong = (file + rank).is_multiple_of(2);
            if is_strong {
                strong |= 1 << p;
            }
            let mut d = 0;
            while d < DIRECTIONS {
                let (df, dr) = VECTORS[d];
                delta[d] = dr as i32 * files as i32 + df as i32;
                let f = file as i32 + df as i32;
                let r = rank as i32 + dr as i32;
                let on_board = f >= 0 && f < files as i32 && r >= 0 && r < ranks as i32;
                if on_board && (is_strong || !is_diagonal(d)) {
                    neighbour[d][p] = (r as usize * files + f as usize) as u8;
                    has_step[d] |= 1 << p;
                }
                d += 1;
            }
            p += 1;
        }
        let mut ray_from = [[0u64; 64]; DIRECTIONS];
        let mut d = 0;
        while d < DIRECTIONS {
            let mut p = 0;
            while p < points {
                let mut q = p as u8;
                while q != NONE {
                    ray_from[d][p] |= 1 << q;
                    q = neighbour[d][q as usize];
                }
                p += 1;
            }
            d += 1;
        }
        let mut has_two = [0u64; DIRECTIONS];
        let mut d = 0;
        while d < DIRECTIONS {
            let mut p = 0;
            while p < points {
                let n = neighbour[d][p];
                if n != NONE && neighbour[d][n as usize] != NONE {
                    has_two[d] |= 1 << p;
                }
                p += 1;
            }
            d += 1;
        }
        let mut rays = [[Ray {
            to: OFF,
            ahead: OFF,
            behind: OFF,
        }; DIRECTIONS]; 64];
        let mut after = [[OFF; 64]; DIRECTIONS];
        let mut adjacent = [0u64; 64];
        let mut victims = [[0u64; DIRECTIONS]; 64];
        let mut direction_to = [[0u8; 64]; 64];
        let mut p = 0;
        while p < points {
            let mut d = 0;
            while d < DIRECTIONS {
                let to = neighbour[d][p];
                if to != NONE {
                    after[d][p] = to;
                    adjacent[p] |= 1 << to;
                    direction_to[p][to as usize] = d as u8;
                    let ahead = neighbour[d][to as usize];
                    let behind = neighbour[opposite(d)][p];
                    if ahead != NONE {
                        victims[p][d] |= 1 << ahead;
                    }
                    if behind != NONE {
                        victims[p][d] |= 1 << behind;
                    }
                    rays[p][d] = Ray {
                        to,
                        ahead: if ahead == NONE { OFF } else { ahead },
                        behind: if behind == NONE { OFF } else { behind },
                    };
                }
                d += 1;
            }
            p += 1;
        }
        Geometry {
            files,
            ranks,
            points,
            all: (1 << points) - 1,
            strong,
            neighbour,
            has_step,
            has_two,
            delta,
            rays,
            after,
            adjacent,
            victims,
            direction_to,
            ray_from,
        }
    }

    /// The points `p` such that `p + delta` is in `set` (no edge check: mask the result).
    #[inline(always)]
    pub fn before(&self, set: u64, delta: i32) -> u64 {
        if delta >= 0 {
            set >> delta
        } else {
            set << -delta
        }
    }

    /// The point `d` from `p`, or `NONE`.
    #[inline(always)]
    pub fn step(&self, p: usize, d: usize) -> u8 {
        self.neighbour[d][p]
    }

    /// The unbroken line of `enemy` stones starting at `first` (which must hold one) and
    /// going on in direction `d`: what one capture removes. Without a loop or branch: the
    /// ray from `first` cut at its first non-enemy point, which is the lowest such point on
    /// a ray going up the indices and the highest on one going down.
    #[inline(always)]
    pub fn line(&self, enemy: u64, first: u8, d: usize) -> u64 {
        let rest = self.ray_from[d & 7][first as usize & 63];
        let blockers = rest & !enemy;
        let up = rest & (blockers & blockers.wrapping_neg()).wrapping_sub(1);
        // Points are below bit 45, so `leading_zeros` is at least 19 and the shift is fine.
        let down = rest & (u64::MAX << (64 - blockers.leading_zeros()));
        let going_up = 0u64.wrapping_sub((0x87 >> (d & 7)) & 1);
        (up & going_up) | (down & !going_up)
    }

    /// Points of `set` that can step in some direction to a point of `empty`.
    #[inline]
    pub fn can_step(&self, set: u64, empty: u64) -> u64 {
        let mut movers = 0;
        for (up, down) in FORWARD_PAIRS {
            let k = self.delta[up] as u32;
            movers |= (empty >> k) & self.has_step[up] | (empty << k) & self.has_step[down];
        }
        movers & set
    }

    /// Stones of `own` that can capture right now (by approach or withdrawal).
    #[inline]
    pub fn capturers(&self, own: u64, enemy: u64) -> u64 {
        let empty = self.all & !(own | enemy);
        let mut found = 0;
        // Each line direction and its opposite: `up` moves to higher indices by k.
        for (up, down) in FORWARD_PAIRS {
            let k = self.delta[up] as u32;
            let up_approach = (enemy >> (2 * k)) & self.has_two[up];
            let up_withdrawal = (enemy << k) & self.has_step[down];
            found |= (empty >> k) & self.has_step[up] & (up_approach | up_withdrawal);
            let down_approach = (enemy << (2 * k)) & self.has_two[down];
            let down_withdrawal = (enemy >> k) & self.has_step[up];
            found |= (empty << k) & self.has_step[down] & (down_approach | down_withdrawal);
        }
        found & own
    }

    /// What `own` could capture with a single step now: the enemy stones it could hit first
    /// (one per capturable line) and the length of the longest line it could take. A cheap
    /// measure of threats for the evaluation (no chains).
    #[inline]
    pub fn threats(&self, own: u64, enemy: u64) -> Threats {
        let empty = self.all & !(own | enemy);
        let mut targets = 0;
        let mut longest = 0;
        for d in 0..DIRECTIONS {
            let delta = self.delta[d];
            let movers = own & self.before(empty, delta) & self.has_step[d];
            if movers == 0 {
                continue;
            }
            // Approach: the stone two steps ahead, its line going on in direction d;
            // withdrawal: the stone just behind, its line going on the other way.
            let back = opposite(d);
            for (mut line, along) in [
                (shift_by(movers & self.has_two[d], 2 * delta) & enemy, d),
                (shift_by(movers & self.has_step[back], -delta) & enemy, back),
            ] {
                targets |= line;
                let mut length = 0;
                while line != 0 {
                    length += 1;
                    line = shift_by(line & self.has_step[along], self.delta[along]) & enemy;
                }
                longest = longest.max(length);
            }
        }
        Threats { targets, longest }
    }

    /// Text name of point `p`, e.g. `e3`.
    pub fn point_name(&self, p: usize) -> String {
        let file = (b'a' + (p % self.files) as u8) as char;
        format!("{file}{}", p / self.files + 1)
    }

    /// The point named `text` (`a1`..), if it is on this board.
    pub fn parse_point(&self, text: &str) -> Option<usize> {
        let bytes = text.as_bytes();
        if bytes.len() != 2 {
            return None;
        }
        let file = bytes[0].checked_sub(b'a')? as usize;
        let rank = bytes[1].checked_sub(b'1')? as usize;
        (file < self.files && rank < self.ranks).then_some(rank * self.files + file)
    }

    /// The direction from `from` to the adjacent point `to` along a line, if any.
    pub fn direction(&self, from: usize, to: usize) -> Option<usize> {
        (0..DIRECTIONS).find(|&d| self.neighbour[d][from] as usize == to)
    }

    pub fn is_strong(&self, p: usize) -> bool {
        self.strong & (1 << p) != 0
    }
}

/// See [`Geometry::threats`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Threats {
    /// The first enemy stone of every line that one capture step could take.
    pub targets: u64,
    /// The most stones one capture step could take.
    pub longest: u32,
}

/// `set` moved by `delta` indices (the inverse of [`Geometry::before`]).
#[inline(always)]
fn shift_by(set: u64, delta: i32) -> u64 {
    if delta >= 0 {
        set << delta
    } else {
        set >> -delta
    }
}

pub static TSIVY: Geometry = Geometry::new(9, 5);
pub static DIMY: Geometry = Geometry::new(5, 5);
pub static TELO: Geometry = Geometry::new(3, 3);
