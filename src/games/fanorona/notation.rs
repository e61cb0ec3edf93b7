//! Fanorona's position strings, move texts and board picture.

use std::fmt::Write;

use super::*;

/// The size of a position packed for training data (see `Notation::pack_position`).
const PACKED_BYTES: usize = 20;

impl Fanorona {
    /// `W` or `B` for the stone on `point`, if any (position strings and pictures).
    fn stone_letter(pos: &FanoronaPosition, point: usize) -> Option<char> {
        let bit = 1u64 << point;
        if pos.stones[WHITE] & bit != 0 {
            Some('W')
        } else if pos.stones[BLACK] & bit != 0 {
            Some('B')
        } else {
            None
        }
    }

    fn board_text(&self, pos: &FanoronaPosition) -> String {
        let g = self.g;
        let mut out = String::new();
        for rank in (0..g.ranks).rev() {
            let mut run = 0;
            for file in 0..g.files {
                let Some(c) = Self::stone_letter(pos, rank * g.files + file) else {
                    run += 1;
                    continue;
                };
                if run > 0 {
                    let _ = write!(out, "{run}");
                    run = 0;
                }
                out.push(c);
            }
            if run > 0 {
                let _ = write!(out, "{run}");
            }
            if rank > 0 {
                out.push('/');
            }
        }
        out
    }

    /// Check the move text step by step against the rules, building the move, so that an
    /// illegal move is rejected with the rule it breaks.
    fn check_move(
        &self,
        pos: &FanoronaPosition,
        text: &str,
        from: usize,
        steps: &[(usize, Option<StepKind>)],
    ) -> Result<FanoronaMove, MoveError> {
        let g = self.g;
        let name = |p: usize| g.point_name(p);
        let me = pos.side;
        let (mut own, mut enemy) = (pos.own(), pos.enemy());
        if own & (1 << from) == 0 {
            let why = if enemy & (1 << from) != 0 {
                format!(
                    "{} holds a {} stone, but {} is to move",
                    name(from),
                    colour_name(me.other()),
                    colour_name(me)
                )
            } else {
                format!("{} is empty", name(from))
            };
            return Err(MoveError::illegal(text, why));
        }
        let mut at = from;
        let mut visited = 1u64 << from;
        let mut last = None;
        let mut mv = FanoronaMove::chain_start(from);
        for (i, &(to, kind)) in steps.iter().enumerate() {
            let d = self.line_direction(text, at, to)?;
            let occupied = (own | enemy) & (1 << to) != 0;
            let Some(kind) = kind else {
                // A paika (the parser allows these only as the single step of a move).
                if occupied {
                    return Err(MoveError::illegal(
                        text,
                        format!("{} is occupied", name(to)),
                    ));
                }
                if g.capturers(own, enemy) != 0 {
                    let mut legal = Vec::new();
                    self.legal_moves(pos, &mut legal);
                    let example = legal
                        .first()
                        .map(|&m| format!(", e.g. {}", self.format_move(pos, m)))
                        .unwrap_or_default();
                    return Err(MoveError::illegal(
                        text,
                        format!(
                            "capturing is compulsory and {} can capture{example}",
                            colour_name(me)
                        ),
                    ));
                }
                return Ok(FanoronaMove::paika(from, d));
            };
            if i > 0 && self.single_capture(pos) {
                return Err(MoveError::illegal(
                    text,
                    format!(
                        "first-capture-single: {}'s first turn is a single capture, not a chain",
                        colour_name(me)
                    ),
                ));
            }
            if visited & (1 << to) != 0 {
                return Err(MoveError::illegal(
                    text,
                    format!("the stone has already been on {} this turn", name(to)),
                ));
            }
            if occupied {
                return Err(MoveError::illegal(
                    text,
                    format!("{} is occupied", name(to)),
                ));
            }
            if last == Some(d) && !self.same_direction {
                return Err(MoveError::illegal(
                    text,
                    format!(
                        "{}-{} goes in the same direction as the step just before \
                         (same-direction=forbidden)",
                        name(at),
                        name(to)
                    ),
                ));
            }
            let (victim, along, what) = match kind {
                StepKind::Approach => (g.step(to, d), d, "beyond"),
                _ => (g.step(at, opposite(d)), opposite(d), "behind"),
            };
            if victim == NONE || enemy & (1 << victim) == 0 {
                let kind_name = if kind == StepKind::Approach {
                    "approach"
                } else {
                    "withdrawal"
                };
                let place = if kind == StepKind::Approach {
                    format!("the point beyond {}", name(to))
                } else {
                    format!("the point behind {}", name(at))
                };
                let why = if victim == NONE {
                    format!("{kind_name} captures nothing: there is no point {what} on that line")
                } else {
                    format!(
                        "{kind_name} captures nothing: {place} ({}) holds no {} stone",
                        name(victim as usize),
                        colour_name(me.other())
                    )
                };
                return Err(MoveError::illegal(text, why));
            }
            let line = g.line(enemy, victim, along);
            enemy &= !line;
            own ^= 1 << at | 1 << to;
            mv = mv.with_capture(d, kind == StepKind::Withdrawal, line.count_ones());
            visited |= 1 << to;
            last = Some(d);
            at = to;
        }
        let mut legal = Vec::new();
        self.legal_moves(pos, &mut legal);
        if legal.contains(&mv) {
            Ok(mv)
        } else {
            // Every rule was checked above: reaching this is a bug, reported rather than hidden.
            Err(MoveError::illegal(text, "not among the legal moves here"))
        }
    }

    /// The direction of a step from `from` to `to`, or why there is no line between them.
    fn line_direction(&self, text: &str, from: usize, to: usize) -> Result<usize, MoveError> {
        let g = self.g;
        if let Some(d) = g.direction(from, to) {
            return Ok(d);
        }
        let (ff, fr) = ((from % g.files) as i32, (from / g.files) as i32);
        let (tf, tr) = ((to % g.files) as i32, (to / g.files) as i32);
        let (df, dr) = (tf - ff, tr - fr);
        let why = if (df, dr) == (0, 0) {
            format!("a step must leave {}", g.point_name(from))
        } else if df.abs() <= 1 && dr.abs() <= 1 {
            format!(
                "{} is a weak point (file + rank odd): no diagonal line to {}",
                g.point_name(from),
                g.point_name(to)
            )
        } else {
            format!(
                "{} is not next to {}: a step goes to an adjacent point",
                g.point_name(to),
                g.point_name(from)
            )
        };
        Err(MoveError::illegal(text, why))
    }
}

/// `BBB/B1W/WWW` → `[White, Black]` bitboards; ranks from the top, digits are runs of
/// empty points, `.` is one empty point.
pub(super) fn parse_board(g: &Geometry, text: &str) -> Result<[u64; 2], PositionError> {
    let ranks: Vec<&str> = text.split('/').collect();
    let shape = format!(
        "{} ranks of {} points from rank {} down, separated by '/', with W, B and digits for runs of empty points",
        g.ranks, g.files, g.ranks
    );
    if ranks.len() != g.ranks {
        return Err(PositionError::new(format!(
            "the board has {} ranks, expected {shape}",
            ranks.len()
        )));
    }
    let mut stones = [0u64; 2];
    for (i, rank_text) in ranks.iter().enumerate() {
        let rank = g.ranks - 1 - i;
        let mut file = 0usize;
        for c in rank_text.chars() {
            let (run, colour) = match c {
                'W' => (1, Some(WHITE)),
                'B' => (1, Some(BLACK)),
                '.' => (1, None),
                '1'..='9' => (c as usize - '0' as usize, None),
                other => {
                    return Err(PositionError::new(format!(
                        "unexpected '{other}' in rank {}: expected W, B, . or a digit 1-9",
                        rank + 1
                    )));
                }
            };
            if file + run > g.files {
                return Err(PositionError::new(format!(
                    "rank {} ('{rank_text}') has more than {} points",
                    rank + 1,
                    g.files
                )));
            }
            if let Some(colour) = colour {
                stones[colour] |= 1 << (rank * g.files + file);
            }
            file += run;
        }
        if file != g.files {
            return Err(PositionError::new(format!(
                "rank {} ('{rank_text}') has {file} points, expected {}",
                rank + 1,
                g.files
            )));
        }
    }
    Ok(stones)
}

impl Notation for Fanorona {
    fn parse_position(&self, text: &str) -> Result<FanoronaPosition, PositionError> {
        let fields: Vec<&str> = text.split_whitespace().collect();
        let start = self.format_position(&self.start);
        let expected_fields = if self.first_capture_single { 4 } else { 3 };
        let usage = if self.first_capture_single {
            format!(
                "a {} position is '<board> <w|b> <turns without capture> <first turns to come: wb|w|b|->', e.g. '{start}'",
                self.size.game_name()
            )
        } else {
            format!(
                "a {} position is '<board> <w|b> <turns without capture>', e.g. '{start}'",
                self.size.game_name()
            )
        };
        if fields.len() != expected_fields {
            let hint = match (self.first_capture_single, fields.len()) {
                (false, 4) => " (a 4th field belongs to first-capture-single=true)",
                (true, 3) => " (first-capture-single=true needs the 4th field)",
                _ => "",
            };
            return Err(PositionError::new(format!(
                "expected {expected_fields} fields, found {}{hint}: {usage}",
                fields.len()
            )));
        }
        let stones = parse_board(self.g, fields[0])
            .map_err(|e| PositionError::new(format!("{e}; {usage}")))?;
        let limit = self.size.stones_per_side();
        for (colour, player) in [(WHITE, Player::P1), (BLACK, Player::P2)] {
            let n = stones[colour].count_ones();
            if n > limit {
                return Err(PositionError::new(format!(
                    "{n} {} stones: a side has at most {limit} on this board",
                    colour_name(player)
                )));
            }
        }
        let side = match fields[1] {
            "w" => Player::P1,
            "b" => Player::P2,
            other => {
                return Err(PositionError::new(format!(
                    "side to move must be w or b, not '{other}'"
                )));
            }
        };
        let most = self.quiet_limit.unwrap_or(u32::MAX);
        let quiet = crate::games::parse_digits::<u32>(fields[2])
            .filter(|&n| n <= most)
            .ok_or_else(|| {
                let limit = match self.quiet_limit {
                    Some(limit) => format!(" (the quiet-limit is {limit})"),
                    None => String::new(),
                };
                PositionError::new(format!(
                    "turns without capture must be a number 0..{most}{limit}, not '{}'",
                    fields[2]
                ))
            })?;
        let mut first_pending = 0;
        if let Some(&flags) = fields.get(3) {
            first_pending = match flags {
                "wb" => 0b11,
                "w" => 0b01,
                "b" => 0b10,
                "-" => 0,
                other => {
                    return Err(PositionError::new(format!(
                        "first turns to come must be wb, w, b or -, not '{other}'"
                    )));
                }
            };
        }
        Ok(FanoronaPosition {
            stones,
            side,
            quiet,
            first_pending,
        })
    }

    /// White's and Black's stones (8 bytes each, little-endian), the side to move (0 White,
    /// 1 Black), the turns without capture (2 bytes) and the first turns to come (bit 0
    /// White, bit 1 Black): 20 bytes.
    fn pack_position(&self, pos: &FanoronaPosition, out: &mut Vec<u8>) {
        out.extend_from_slice(&pos.stones[WHITE].to_le_bytes());
        out.extend_from_slice(&pos.stones[BLACK].to_le_bytes());
        out.push(pos.side.index() as u8);
        out.extend_from_slice(&(pos.quiet.min(u32::from(u16::MAX)) as u16).to_le_bytes());
        out.push(pos.first_pending);
    }

    fn unpack_position(&self, bytes: &[u8]) -> Result<FanoronaPosition, PositionError> {
        let bytes: &[u8; PACKED_BYTES] = bytes.try_into().map_err(|_| {
            PositionError::new(format!(
                "a packed {} position has {PACKED_BYTES} bytes, not {}",
                self.size.game_name(),
                bytes.len()
            ))
        })?;
        let word = |at: usize| {
            let mut b = [0u8; 8];
            b.copy_from_slice(&bytes[at..at + 8]);
            u64::from_le_bytes(b)
        };
        let stones = [word(0), word(8)];
        if (stones[WHITE] | stones[BLACK]) & !self.g.all != 0 {
            return Err(PositionError::new(
                "a packed position with stones off the board",
            ));
        }
        if stones[WHITE] & stones[BLACK] != 0 {
            return Err(PositionError::new(
                "a packed position with two stones on one point",
            ));
        }
        let limit = self.size.stones_per_side();
        if stones.iter().any(|s| s.count_ones() > limit) {
            return Err(PositionError::new(format!(
                "a packed position with more than {limit} stones of one side"
            )));
        }
        let side = match bytes[16] {
            0 => Player::P1,
            1 => Player::P2,
            other => {
                return Err(PositionError::new(format!(
                    "a packed position with side to move {other} (0 White, 1 Black)"
                )));
            }
        };
        let quiet = u32::from(u16::from_le_bytes([bytes[17], bytes[18]]));
        if self.quiet_limit.is_some_and(|limit| quiet > limit) {
            return Err(PositionError::new(format!(
                "a packed position with {quiet} turns without capture, past the quiet-limit"
            )));
        }
        let first_pending = bytes[19];
        let allowed = if self.first_capture_single { 0b11 } else { 0 };
        if first_pending & !allowed != 0 {
            return Err(PositionError::new(format!(
                "a packed position with first turns to come {first_pending:#b}, not allowed \
                 by these rules"
            )));
        }
        Ok(FanoronaPosition {
            stones,
            side,
            quiet,
            first_pending,
        })
    }

    fn format_position(&self, pos: &FanoronaPosition) -> String {
        let mut out = self.board_text(pos);
        let side = if pos.side == Player::P1 { "w" } else { "b" };
        let _ = write!(out, " {side} {}", pos.quiet);
        if self.first_capture_single {
            out.push(' ');
            out.push_str(match pos.first_pending {
                0b11 => "wb",
                0b01 => "w",
                0b10 => "b",
                _ => "-",
            });
        }
        out
    }

    fn parse_move(&self, pos: &FanoronaPosition, text: &str) -> Result<FanoronaMove, MoveError> {
        let g = self.g;
        let shape = "a move is from-to (a paika, e.g. c2-d2) or from-to with A (approach) or \
                     W (withdrawal) after each capture step (e.g. f2-e3A, d4-d3A-c3W-d2A)";
        let parts: Vec<&str> = text.split('-').collect();
        if parts.len() < 2 {
            return Err(MoveError::malformed(text, shape));
        }
        let last_file = (b'a' + g.files as u8 - 1) as char;
        let point = |p: &str| {
            g.parse_point(p).ok_or_else(|| {
                MoveError::malformed(
                    text,
                    format!(
                        "'{p}' is not a point of the {}×{} board (a1..{last_file}{}): {shape}",
                        g.files, g.ranks, g.ranks
                    ),
                )
            })
        };
        let from = point(parts[0])?;
        let mut steps = Vec::with_capacity(parts.len() - 1);
        for part in &parts[1..] {
            let (name, kind) = match part.as_bytes().last() {
                Some(b'A') => (&part[..part.len() - 1], Some(StepKind::Approach)),
                Some(b'W') => (&part[..part.len() - 1], Some(StepKind::Withdrawal)),
                _ => (*part, None),
            };
            steps.push((point(name)?, kind));
        }
        if steps.len() > 1 && steps.iter().any(|(_, k)| k.is_none()) {
            return Err(MoveError::malformed(
                text,
                format!("only captures chain, so every step of a chain needs A or W: {shape}"),
            ));
        }
        if steps.len() > MAX_STEPS {
            return Err(MoveError::malformed(
                text,
                format!("a chain has at most {MAX_STEPS} steps"),
            ));
        }
        if let Some(outcome) = self.outcome(pos) {
            return Err(MoveError::illegal(
                text,
                format!("the game is over ({})", outcome.reason),
            ));
        }
        self.check_move(pos, text, from, &steps)
    }

    fn format_move(&self, _pos: &FanoronaPosition, mv: FanoronaMove) -> String {
        moves::notation(self.g, mv)
    }

    fn render(&self, pos: &FanoronaPosition) -> String {
        let g = self.g;
        let mut out = String::new();
        for rank in (0..g.ranks).rev() {
            let _ = write!(out, " {} ", rank + 1);
            for file in 0..g.files {
                let c = Self::stone_letter(pos, rank * g.files + file).unwrap_or('.');
                if file > 0 {
                    out.push('-');
                }
                out.push(c);
            }
            out.push('\n');
            if rank > 0 {
                out.push_str("   ");
                for file in 0..g.files {
                    if file > 0 {
                        // The diagonal between two files leaves from the strong point.
                        let strong_above = (file - 1 + rank) % 2 == 0;
                        out.push(if strong_above { '\\' } else { '/' });
                    }
                    out.push('|');
                }
                out.push('\n');
            }
        }
        out.push_str("   ");
        for file in 0..g.files {
            if file > 0 {
                out.push(' ');
            }
            out.push((b'a' + file as u8) as char);
        }
        out.push('\n');
        let _ = write!(
            out,
            "To move: {} ({}); turns without capture: {}",
            colour_name(pos.side),
            pos.side.name(),
            pos.quiet
        );
        if let Some(limit) = self.quiet_limit {
            let _ = write!(out, " of {limit}");
        }
        if self.first_capture_single && pos.first_pending != 0 {
            let _ = write!(out, "; first turn (single capture) to come for");
            for (bit, player) in [(1, Player::P1), (2, Player::P2)] {
                if pos.first_pending & bit != 0 {
                    let _ = write!(out, " {}", colour_name(player));
                }
            }
        }
        out
    }
}
