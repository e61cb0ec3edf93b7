//! A slow, obviously-correct Fanorona move generator, written from the rules alone and
//! sharing no code with the engine: a plain 2-D array of cells, the eight direction vectors
//! spelled out, every turn produced as its move text together with the board it leads to.
//! Used to check the engine's fast generator (perft, move texts, resulting positions) and
//! as the move generator of the 3×3 solver.

/// The eight directions as (file step, rank step).
pub const DIRECTIONS: [(i32, i32); 8] = [
    (0, 1),
    (1, 1),
    (1, 0),
    (1, -1),
    (0, -1),
    (-1, -1),
    (-1, 0),
    (-1, 1),
];

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Cell {
    Empty,
    White,
    Black,
}

/// The chain options: first-capture-single for this turn, same-direction=allowed.
#[derive(Clone, Copy, Debug)]
struct ChainRules {
    single: bool,
    same_direction: bool,
}

/// A position: `cells[rank][file]`, both 0-based from a1.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Board {
    pub files: usize,
    pub ranks: usize,
    pub cells: [[Cell; 9]; 5],
    pub white_to_move: bool,
    /// Turns in a row without a capture.
    pub quiet: u32,
    /// first-capture-single: [White, Black] still to make their first turn.
    pub first_pending: [bool; 2],
}

impl Board {
    /// Parse `<board> <w|b> <quiet> [<first turns>]` (the engine's documented format).
    pub fn parse(files: usize, ranks: usize, text: &str) -> Board {
        let fields: Vec<&str> = text.split_whitespace().collect();
        let mut cells = [[Cell::Empty; 9]; 5];
        let rows: Vec<&str> = fields[0].split('/').collect();
        assert_eq!(rows.len(), ranks, "{text}");
        for (i, row) in rows.iter().enumerate() {
            let rank = ranks - 1 - i;
            let mut file = 0;
            for c in row.chars() {
                match c {
                    'W' => {
                        cells[rank][file] = Cell::White;
                        file += 1;
                    }
                    'B' => {
                        cells[rank][file] = Cell::Black;
                        file += 1;
                    }
                    d => file += d.to_digit(10).expect("digit") as usize,
                }
            }
            assert_eq!(file, files, "{text}");
        }
        let first = fields.get(3).copied().unwrap_or("-");
        Board {
            files,
            ranks,
            cells,
            white_to_move: fields[1] == "w",
            quiet: fields[2].parse().expect("quiet counter"),
            first_pending: [first.contains('w'), first.contains('b')],
        }
    }

    /// The position string; `with_first` adds the first-capture-single field.
    pub fn format(&self, with_first: bool) -> String {
        let mut out = String::new();
        for rank in (0..self.ranks).rev() {
            let mut empty = 0;
            for file in 0..self.files {
                let c = match self.cells[rank][file] {
                    Cell::Empty => {
                        empty += 1;
                        continue;
                    }
                    Cell::White => 'W',
                    Cell::Black => 'B',
                };
                if empty > 0 {
                    out.push_str(&empty.to_string());
                    empty = 0;
                }
                out.push(c);
            }
            if empty > 0 {
                out.push_str(&empty.to_string());
            }
            if rank > 0 {
                out.push('/');
            }
        }
        out.push_str(if self.white_to_move { " w " } else { " b " });
        out.push_str(&self.quiet.to_string());
        if with_first {
            out.push(' ');
            out.push_str(match self.first_pending {
                [true, true] => "wb",
                [true, false] => "w",
                [false, true] => "b",
                [false, false] => "-",
            });
        }
        out
    }

    fn on_board(&self, f: i32, r: i32) -> bool {
        f >= 0 && r >= 0 && (f as usize) < self.files && (r as usize) < self.ranks
    }

    /// Strong points: (file + rank) even counting from a = 1, rank 1 = 1.
    fn strong(f: i32, r: i32) -> bool {
        (f + 1 + r + 1) % 2 == 0
    }

    /// Is there a line from (f, r) to its neighbour in direction (df, dr)?
    fn line(&self, f: i32, r: i32, df: i32, dr: i32) -> bool {
        let diagonal = df != 0 && dr != 0;
        self.on_board(f + df, r + dr) && (!diagonal || Board::strong(f, r))
    }

    fn cell(&self, f: i32, r: i32) -> Cell {
        self.cells[r as usize][f as usize]
    }

    fn set(&mut self, f: i32, r: i32, c: Cell) {
        self.cells[r as usize][f as usize] = c;
    }

    fn name(f: i32, r: i32) -> String {
        format!("{}{}", (b'a' + f as u8) as char, r + 1)
    }

    fn stones(&self, c: Cell) -> usize {
        self.cells.iter().flatten().filter(|&&x| x == c).count()
    }

    /// Remove the enemy stone at (f, r) and the unbroken enemy line behind it along (df, dr).
    fn capture_line(&mut self, mut f: i32, mut r: i32, df: i32, dr: i32, enemy: Cell) {
        loop {
            self.set(f, r, Cell::Empty);
            if !self.line(f, r, df, dr) {
                return;
            }
            f += df;
            r += dr;
            if self.cell(f, r) != enemy {
                return;
            }
        }
    }

    /// Every turn from here: move text and the position after it. `quiet_limit`: no moves
    /// once that many turns went by without a capture; `single`: first-capture-single on.
    pub fn moves(&self, quiet_limit: Option<u32>, single_option: bool) -> Vec<(String, Board)> {
        self.moves_by(quiet_limit, single_option, false)
    }

    /// [`Board::moves`], and `same_direction`: a chain may go on in the direction of the
    /// step just before (same-direction=allowed).
    pub fn moves_by(
        &self,
        quiet_limit: Option<u32>,
        single_option: bool,
        same_direction: bool,
    ) -> Vec<(String, Board)> {
        let (me, enemy) = if self.white_to_move {
            (Cell::White, Cell::Black)
        } else {
            (Cell::Black, Cell::White)
        };
        let mut out = Vec::new();
        if self.stones(me) == 0 || self.stones(enemy) == 0 {
            return out;
        }
        if quiet_limit.is_some_and(|limit| self.quiet >= limit) {
            return out;
        }
        let side = if self.white_to_move { 0 } else { 1 };
        let single = single_option && self.first_pending[side];
        for r in 0..self.ranks as i32 {
            for f in 0..self.files as i32 {
                if self.cell(f, r) == me {
                    let text = Board::name(f, r);
                    let rules = ChainRules {
                        single,
                        same_direction,
                    };
                    self.chain(f, r, &[(f, r)], None, &text, me, enemy, rules, &mut out);
                }
            }
        }
        let captured = !out.is_empty();
        if !captured {
            for r in 0..self.ranks as i32 {
                for f in 0..self.files as i32 {
                    if self.cell(f, r) != me {
                        continue;
                    }
                    for (df, dr) in DIRECTIONS {
                        if self.line(f, r, df, dr) && self.cell(f + df, r + dr) == Cell::Empty {
                            let mut after = self.clone();
                            after.set(f, r, Cell::Empty);
                            after.set(f + df, r + dr, me);
                            let text =
                                format!("{}-{}", Board::name(f, r), Board::name(f + df, r + dr));
                            out.push((text, after));
                        }
                    }
                }
            }
        }
        for (_, after) in &mut out {
            after.white_to_move = !self.white_to_move;
            after.quiet = if captured { 0 } else { self.quiet + 1 };
            after.first_pending[side] = false;
        }
        out
    }

    /// Capture steps of the stone on (f, r) that has visited `visited` this turn, after a
    /// step in direction `last`; `text` is the turn so far.
    #[allow(clippy::too_many_arguments)]
    fn chain(
        &self,
        f: i32,
        r: i32,
        visited: &[(i32, i32)],
        last: Option<(i32, i32)>,
        text: &str,
        me: Cell,
        enemy: Cell,
        rules: ChainRules,
        out: &mut Vec<(String, Board)>,
    ) {
        for (df, dr) in DIRECTIONS {
            let straight_on = last == Some((df, dr));
            if (straight_on && !rules.same_direction) || !self.line(f, r, df, dr) {
                continue;
            }
            let (tf, tr) = (f + df, r + dr);
            if self.cell(tf, tr) != Cell::Empty || visited.contains(&(tf, tr)) {
                continue;
            }
            // Approach: the point beyond the landing point, on the same line.
            let approach = self.line(tf, tr, df, dr) && self.cell(tf + df, tr + dr) == enemy;
            // Withdrawal: the point behind the start, on the same line.
            let withdrawal = self.line(f, r, -df, -dr) && self.cell(f - df, r - dr) == enemy;
            for (possible, suffix) in [(approach, "A"), (withdrawal, "W")] {
                if !possible {
                    continue;
                }
                let mut after = self.clone();
                after.set(f, r, Cell::Empty);
                after.set(tf, tr, me);
                if suffix == "A" {
                    after.capture_line(tf + df, tr + dr, df, dr, enemy);
                } else {
                    after.capture_line(f - df, r - dr, -df, -dr, enemy);
                }
                let text = format!("{text}-{}{suffix}", Board::name(tf, tr));
                out.push((text.clone(), after.clone()));
                if !rules.single {
                    let mut visited = visited.to_vec();
                    visited.push((tf, tr));
                    after.chain(
                        tf,
                        tr,
                        &visited,
                        Some((df, dr)),
                        &text,
                        me,
                        enemy,
                        rules,
                        out,
                    );
                }
            }
        }
    }
}
