//! Afrika's position strings, move texts and board picture.

use std::fmt::Write;

use crate::game::{MoveError, Notation, Points, PositionError};
use crate::games::mancala::{self, Side};

use super::*;

impl Notation for Afrika {
    fn parse_position(&self, text: &str) -> Result<AfrikaPosition, PositionError> {
        let usage = "an Afrika position is '<South pits A..H>,<South's captured stones>/\
                     <North pits a..h>,<North's captured stones> <N|S>', e.g. \
                     '8,8,8,8,8,8,8,8,0/8,8,8,8,8,8,8,8,0 N'";
        let fields: Vec<&str> = text.split_whitespace().collect();
        if fields.len() != 2 {
            return Err(PositionError::new(format!(
                "expected 2 fields (board and side to move), found {}: {usage}",
                fields.len()
            )));
        }
        let sides =
            mancala::parse_board(fields[0], PITS, STONES, ("pits", "captured stones"), usage)?;
        let mut cells = [0u8; CELLS];
        let mut captured = [0u8; 2];
        for (side, counts) in [Side::South, Side::North].into_iter().zip(&sides) {
            let first = first_cell(side);
            for (i, &c) in counts[..PITS].iter().enumerate() {
                cells[first + i] = c as u8;
            }
            captured[side.index()] = counts[PITS] as u8;
        }
        let pos = AfrikaPosition {
            cells,
            captured,
            side: Side::South,
        };
        let total = pos.stones_on_board() + captured.iter().map(|&c| c as u32).sum::<u32>();
        if total > STONES {
            return Err(PositionError::new(format!(
                "{total} stones in all (pits and captured): Afrika has {STONES}"
            )));
        }
        let side = Side::from_letter(fields[1]).ok_or_else(|| {
            PositionError::new(format!(
                "side to move must be N or S, not '{}': {usage}",
                fields[1]
            ))
        })?;
        Ok(AfrikaPosition { side, ..pos })
    }

    fn format_position(&self, pos: &AfrikaPosition) -> String {
        let mut out = String::new();
        let side_cells = |side: Side| {
            let first = first_cell(side);
            pos.cells[first..first + PITS]
                .iter()
                .chain(std::iter::once(&pos.captured[side.index()]))
                .map(|&c| c as u32)
        };
        mancala::format_board(&mut out, side_cells(Side::South), side_cells(Side::North));
        out.push(' ');
        out.push(pos.side.letter());
        out
    }

    fn parse_move(&self, pos: &AfrikaPosition, text: &str) -> Result<AfrikaMove, MoveError> {
        if let Some(reason) = self.end_reason(pos) {
            return Err(MoveError::illegal(
                text,
                format!("the game is over ({reason})"),
            ));
        }
        let side = pos.side;
        let shapes = "an Afrika move is an own pit letter to sow (North a..h, South A..H) or \
                      x and an opponent's pit letter to capture (North xA..xH, South xa..xh)";
        let (capture, letter) = match text.strip_prefix('x') {
            Some(rest) => (true, rest),
            None if text.starts_with('X') => {
                return Err(MoveError::malformed(
                    text,
                    "a capture is written with a lower-case x, e.g. xC",
                ));
            }
            None => (false, text),
        };
        let Some((owner, i)) = mancala::parse_pit_letter(letter) else {
            return Err(MoveError::malformed(text, shapes));
        };
        if i >= PITS {
            return Err(MoveError::malformed(
                text,
                format!("pits are lettered a..h and A..H; {shapes}"),
            ));
        }
        let forced = pos.smallest_capture(side);
        if !capture {
            if owner != side {
                return Err(MoveError::illegal(
                    text,
                    format!(
                        "{text} is {}'s pit but {} is to move (sows {}, captures {})",
                        owner.name(),
                        side.name(),
                        side.pit_range(PITS),
                        capture_range(side)
                    ),
                ));
            }
            if forced.is_some() {
                return Err(MoveError::illegal(
                    text,
                    format!(
                        "capturing is compulsory: {} must play {}",
                        side.name(),
                        self.legal_texts(pos)
                    ),
                ));
            }
            if pos.cells[first_cell(side) + i] == 0 {
                return Err(MoveError::illegal(text, format!("pit {letter} is empty")));
            }
            return Ok(AfrikaMove::Sow(i as u8));
        }
        if owner == side {
            return Err(MoveError::illegal(
                text,
                format!(
                    "{letter} is {}'s own pit: {} captures from the opponent's pits ({})",
                    side.name(),
                    side.name(),
                    capture_range(side)
                ),
            ));
        }
        let cell = first_cell(owner) + i;
        let stones = pos.cells[cell];
        if stones == 0 {
            return Err(MoveError::illegal(text, format!("pit {letter} is empty")));
        }
        let facing = opposite(cell);
        if pos.cells[facing] != 0 {
            let (own_side, own_i) = if facing < PITS {
                (Side::South, facing)
            } else {
                (Side::North, facing - PITS)
            };
            return Err(MoveError::illegal(
                text,
                format!(
                    "a capture needs an empty own pit opposite, and {} (facing {letter}) holds {}",
                    own_side.pit_letter(own_i),
                    pos.cells[facing]
                ),
            ));
        }
        match forced {
            Some(smallest) if smallest < stones => Err(MoveError::illegal(
                text,
                format!(
                    "{letter} holds {stones} but the smallest capturable pit holds {smallest}: \
                     {} must play {}",
                    side.name(),
                    self.legal_texts(pos)
                ),
            )),
            _ => Ok(AfrikaMove::Capture(i as u8)),
        }
    }

    fn format_move(&self, pos: &AfrikaPosition, mv: AfrikaMove) -> String {
        match mv {
            AfrikaMove::Sow(i) => pos.side.pit_letter(i as usize).to_string(),
            AfrikaMove::Capture(i) => format!("x{}", pos.side.other().pit_letter(i as usize)),
        }
    }

    fn render(&self, pos: &AfrikaPosition) -> String {
        let mut out = String::new();
        let border = format!(" +{}", "----+".repeat(PITS));
        // Letters under the units digit of each pit's count.
        let letters = |order: &mut dyn Iterator<Item = char>| {
            let row: Vec<String> = order.map(String::from).collect();
            format!("    {}", row.join("    "))
        };
        let _ = writeln!(
            out,
            "{}",
            letters(&mut (0..PITS).rev().map(|i| Side::North.pit_letter(i)))
        );
        let _ = writeln!(out, "{border}");
        let _ = write!(out, " |");
        for i in (0..PITS).rev() {
            let _ = write!(out, "{:>3} |", pos.cells[first_cell(Side::North) + i]);
        }
        let _ = writeln!(out, "  North (p1) captured {}", pos.captured[1]);
        let _ = writeln!(out, "{border}");
        let _ = write!(out, " |");
        for i in 0..PITS {
            let _ = write!(out, "{:>3} |", pos.cells[first_cell(Side::South) + i]);
        }
        let _ = write!(out, "  South (p2) captured {}", pos.captured[0]);
        if self.komi != Points::ZERO {
            let _ = write!(out, ", komi {}", self.komi);
        }
        out.push('\n');
        let _ = writeln!(out, "{border}");
        let _ = writeln!(
            out,
            "{}",
            letters(&mut (0..PITS).map(|i| Side::South.pit_letter(i)))
        );
        let side = pos.side;
        let _ = write!(
            out,
            "Sowing runs A..H, a..h, A. To move: {} ({})",
            side.name(),
            Afrika::player_of(side).name()
        );
        if let Some(target) = self.target {
            let _ = write!(out, "; target {target}");
        }
        if self.end_reason(pos).is_none() {
            let (what, moves) = if pos.smallest_capture(side).is_some() {
                ("must capture", self.legal_texts(pos))
            } else {
                ("sows", self.legal_texts(pos))
            };
            let _ = write!(out, "; {what}: {moves}");
        }
        out
    }
}

impl Afrika {
    /// Text of every legal move, for error messages.
    fn legal_texts(&self, pos: &AfrikaPosition) -> String {
        let mut moves = Vec::new();
        self.legal_moves(pos, &mut moves);
        moves
            .iter()
            .map(|&mv| self.format_move(pos, mv))
            .collect::<Vec<_>>()
            .join(" ")
    }
}
