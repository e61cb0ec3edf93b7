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

/// Chain generation numbers directions in the order of their index steps ("local"
/// directions): SW, S, SE, W, E, NW, N, NE, i.e. `-files-1, -files, -files+1, -1, +1,
/// files-1, files, files+1`, increasing on every board. So the bits of a set of local directions, lowest
/// first, visit the landing points in index order, and the opposite of local `i` is `7 - i`.
/// `LOCAL_DIRECTIONS[i]` is local `i` as a direction.
pub const LOCAL_DIRECTIONS: [usize; DIRECTIONS] = [5, 4, 3, 6, 2, 7, 0, 1];

/// Local directions `i` and `7 - i` (the axis of `i`), as a set.
#[inline(always)]
pub const fn local_axis(i: usize) -> u8 {
    (1 << i) | (0x80 >> i)
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
    /// `ray_from[d][p]`: `p` and every point after it in direction `d`, to the board's edge.
    pub ray_from: [[u64; 64]; DIRECTIONS],
    /// Index step of each local direction.
    pub local_delta: [i8; DIRECTIONS],
    /// `approach_dirs[p]`: the local directions with two points beyond `p` on a line.
    pub approach_dirs: [u8; 64],
    /// `withdrawal_dirs[p]`: the local directions with a neighbour of `p` both ways.
    pub withdrawal_dirs: [u8; 64],
    /// For [`Geometry::captures_on`]: the neighbours one and two steps from the centre of
    /// its window.
    ring1: Ring,
    ring2: Ring,
}

/// The points at one distance from the centre (bit `2 * files + 2`) of a turned board, one
/// per local direction, and how to read them as a set of local directions: pack them into
/// 9 bits with a multiply by a "magic" number, then look the result up. (The magic numbers
/// were found by a random search; [`Ring::new`] refuses one that packs two sets alike.)
#[derive(Debug)]
struct Ring {
    mask: u64,
    magic: u64,
    /// The local directions of each packed set.
    dirs: [u8; 512],
    /// Their opposites.
    opposite: [u8; 512],
}

impl Ring {
    const fn new(files: usize, distance: i32, magic: u64) -> Ring {
        let f = files as i32;
        let local_delta = [-f - 1, -f, -f + 1, -1, 1, f - 1, f, f + 1];
        let centre = 2 * f + 2;
        let mut ring = Ring {
            mask: 0,
            magic,
            dirs: [0; 512],
            opposite: [0; 512],
        };
        let mut filled = [false; 512];
        let mut dirs = 0;
        while dirs < 256 {
            let mut set = 0u64;
            let mut i = 0;
            while i < DIRECTIONS {
                if dirs >> i & 1 == 1 {
                    set |= 1 << (centre + distance * local_delta[i]);
                }
                i += 1;
            }
            ring.mask |= set;
            let packed = Ring::pack(set, magic);
            assert!(
                !filled[packed],
                "a ring's magic number packs two sets alike"
            );
            filled[packed] = true;
            ring.dirs[packed] = dirs as u8;
            ring.opposite[packed] = (dirs as u8).reverse_bits();
            dirs += 1;
        }
        ring
    }

    #[inline(always)]
    const fn pack(set: u64, magic: u64) -> usize {
        (set.wrapping_mul(magic) >> 55) as usize
    }

    /// The points of `turned` (a board turned as in [`Geometry::captures_on`]) in this ring.
    #[inline(always)]
    fn index(&self, turned: u64) -> usize {
        Ring::pack(turned & self.mask, self.magic)
    }
}

impl Geometry {
    const fn new(files: usize, ranks: usize, magic1: u64, magic2: u64) -> Geometry {
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
        let mut local_delta = [0i8; DIRECTIONS];
        let mut i = 0;
        while i < DIRECTIONS {
            local_delta[i] = delta[LOCAL_DIRECTIONS[i]] as i8;
            i += 1;
        }
        let mut approach_dirs = [0u8; 64];
        let mut withdrawal_dirs = [0u8; 64];
        let mut p = 0;
        while p < points {
            let mut i = 0;
            while i < DIRECTIONS {
                let d = LOCAL_DIRECTIONS[i];
                if has_two[d] >> p & 1 == 1 {
                    approach_dirs[p] |= 1 << i;
                }
                if has_step[d] >> p & 1 == 1 && has_step[opposite(d)] >> p & 1 == 1 {
                    withdrawal_dirs[p] |= 1 << i;
                }
                i += 1;
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
            ray_from,
            local_delta,
            approach_dirs,
            withdrawal_dirs,
            ring1: Ring::new(files, 1, magic1),
            ring2: Ring::new(files, 2, magic2),
        }
    }

    /// The point one step from `p` in local direction `i` (which must exist).
    #[inline(always)]
    pub fn local_step(&self, p: usize, i: usize) -> usize {
        (p as isize + self.local_delta[i & 7] as isize) as usize
    }

    /// [`Geometry::captures_on`] for this board's size.
    pub fn captures(&self, at: usize, free: u64, enemy: u64, exclude: u8) -> (u8, u8) {
        match self.files {
            9 => self.captures_on::<9>(at, free, enemy, exclude),
            5 => self.captures_on::<5>(at, free, enemy, exclude),
            3 => self.captures_on::<3>(at, free, enemy, exclude),
            _ => unreachable!("boards have 9, 5 or 3 files"),
        }
    }

    /// The capture steps a stone on `at` could make, as sets of local directions:
    /// `(approach, withdrawal)`. `free`: the points it may land on (empty and not yet
    /// visited this turn); `exclude`: local directions it may not step in. `FILES`: the
    /// board's (a constant, so that the shifts below are).
    ///
    /// Without a loop or branch: the boards are turned so that `at` sits at bit
    /// `2 * FILES + 2` (a window holding its two rings of neighbours), and each ring of
    /// each board is read as a set of local directions (see `Ring`; a bit that is no
    /// neighbour, wrapped from an edge, is masked out by the direction tables).
    #[inline(always)]
    pub fn captures_on<const FILES: u32>(
        &self,
        at: usize,
        free: u64,
        enemy: u64,
        exclude: u8,
    ) -> (u8, u8) {
        debug_assert_eq!(self.files, FILES as usize);
        let at = at & 63;
        let turn = (2 * FILES + 2).wrapping_sub(at as u32) & 63;
        let free = free.rotate_left(turn);
        let enemy = enemy.rotate_left(turn);
        let landings = self.ring1.dirs[self.ring1.index(free)] & !exclude;
        let beyond = self.ring2.dirs[self.ring2.index(enemy)];
        let behind = self.ring1.opposite[self.ring1.index(enemy)];
        (
            landings & beyond & self.approach_dirs[at],
            landings & behind & self.withdrawal_dirs[at],
        )
    }

    /// [`Geometry::line`] in local direction `i`.
    #[inline(always)]
    pub fn local_line(&self, enemy: u64, first: usize, i: usize) -> u64 {
        let rest = self.ray_from[LOCAL_DIRECTIONS[i & 7]][first & 63];
        let blockers = rest & !enemy;
        let up = rest & (blockers & blockers.wrapping_neg()).wrapping_sub(1);
        let down = rest & (u64::MAX << (64 - blockers.leading_zeros()));
        // Local directions 4.. go up the indices.
        let going_up = 0u64.wrapping_sub((i as u64 >> 2) & 1);
        (up & going_up) | (down & !going_up)
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
        set & self.neighbours(empty)
    }

    /// `set` and every point one step from it.
    #[inline]
    pub fn neighbourhood(&self, set: u64) -> u64 {
        set | self.neighbours(set)
    }

    /// Every point one step from a point of `set` (a step is a line both ways: `p` steps
    /// up to `q` exactly when `q` steps down to `p`).
    #[inline]
    fn neighbours(&self, set: u64) -> u64 {
        let mut out = 0;
        for (up, down) in FORWARD_PAIRS {
            let k = self.delta[up] as u32;
            out |= (set & self.has_step[up]) << k | (set & self.has_step[down]) >> k;
        }
        out
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
        // A line taken along `up` starts either two steps ahead of a stone that approaches
        // along `up` or just behind one that withdraws along `down` (and the other way
        // round), so both kinds of capture share one walk along each line direction.
        for (up, down) in FORWARD_PAIRS {
            let k = self.delta[up] as u32;
            let movers_up = own & (empty >> k) & self.has_step[up];
            let movers_down = own & (empty << k) & self.has_step[down];
            let mut line_up = ((movers_up & self.has_two[up]) << (2 * k)
                | (movers_down & self.has_step[up]) << k)
                & enemy;
            let mut line_down = ((movers_down & self.has_two[down]) >> (2 * k)
                | (movers_up & self.has_step[down]) >> k)
                & enemy;
            targets |= line_up | line_down;
            let mut length = 0;
            while line_up | line_down != 0 {
                length += 1;
                line_up = ((line_up & self.has_step[up]) << k) & enemy;
                line_down = ((line_down & self.has_step[down]) >> k) & enemy;
            }
            longest = longest.max(length);
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

pub static TSIVY: Geometry = Geometry::new(9, 5, 0x0103_02ca_0008_0000, 0x0c04_2004_1520_0888);
pub static DIMY: Geometry = Geometry::new(5, 5, 0x010c_0080_1420_000a, 0x0400_4880_2000_6180);
pub static TELO: Geometry = Geometry::new(3, 3, 0x4288_0020_0004_8000, 0x0200_4000_0004_8002);
