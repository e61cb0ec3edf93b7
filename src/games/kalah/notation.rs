//! Kalah's position strings, move texts and board picture.

use std::fmt::Write;

use crate::game::{MoveError, Notation, PositionError, Rules};
use crate::games::mancala::{self, Side};

use super::*;

impl Notation for Kalah {
    fn parse_position(&self, text: &str) -> Result<KalahPosition, PositionError> {
        let fields: Vec<&str> = text.split_whitespace().collect();
        let usage = "a Kalah position is '<South pits A..>,<South store>/<North pits a..>,<North store> <S|N> [flags]', e.g. '4,4,4,4,4,4,0/4,4,4,4,4,4,0 S'";
        if fields.len() < 2 || fields.len() > 3 {
            return Err(PositionError::new(format!(
                "expected 2 or 3 fields, found {}: {usage}",
                fields.len()
            )));
        }
        let max = MAX_SEEDS;
        let sides = mancala::parse_board(fields[0], self.pits, max, ("pits", "store"), usage)?;
        let mut cells = [0u16; MAX_CELLS];
        for (side, counts) in [Side::South, Side::North].into_iter().zip(&sides) {
            let first = self.rules().pit_cell(side, 0);
            for (i, &c) in counts.iter().enumerate() {
                cells[first + i] = c as u16;
            }
        }
        let total: u32 = cells.iter().map(|&c| c as u32).sum();
        if total > max {
            return Err(PositionError::new(format!(
                "{total} seeds in all: at most {max} fit this engine's Kalah"
            )));
        }
        let side = Side::from_letter(fields[1]).ok_or_else(|| {
            PositionError::new(format!(
                "side to move must be S or N, not '{}': {usage}",
                fields[1]
            ))
        })?;
        let (mut pie_open, mut swapped) = (false, false);
        if let Some(flags) = fields.get(2).filter(|f| **f != "-") {
            for flag in flags.chars() {
                match flag {
                    'p' => pie_open = true,
                    'x' => swapped = true,
                    other => {
                        return Err(PositionError::new(format!(
                            "unknown flag '{other}': flags are 'p' (pie: swap still to come), \
                             'x' (pie: players swapped) or '-'"
                        )));
                    }
                }
            }
            if !self.pie {
                return Err(PositionError::new(
                    "flags 'p' and 'x' describe the pie rule: use 'kalah pie=true'",
                ));
            }
            if pie_open && swapped {
                return Err(PositionError::new(
                    "flags 'p' and 'x' exclude each other (swap is played at most once)",
                ));
            }
        }
        Ok(KalahPosition {
            cells,
            side,
            pie_open,
            swapped,
        })
    }

    fn format_position(&self, pos: &KalahPosition) -> String {
        let mut out = String::new();
        let side_cells = |side: Side| {
            let first = self.rules().pit_cell(side, 0);
            pos.cells[first..=first + self.pits]
                .iter()
                .map(|&c| c as u32)
        };
        mancala::format_board(&mut out, side_cells(Side::South), side_cells(Side::North));
        out.push(' ');
        out.push(pos.side.letter());
        if self.pie {
            out.push(' ');
            out.push_str(match (pos.pie_open, pos.swapped) {
                (true, _) => "p",
                (false, true) => "x",
                (false, false) => "-",
            });
        }
        out
    }

    fn parse_move(&self, pos: &KalahPosition, text: &str) -> Result<KalahMove, MoveError> {
        if self.rules().is_over(pos) {
            return Err(MoveError::illegal(text, "the game is over"));
        }
        if text == "swap" {
            if !self.pie {
                return Err(MoveError::illegal(
                    text,
                    "swap needs the pie rule (newgame kalah pie=true)",
                ));
            }
            if !self.rules().swap_available(pos) {
                return Err(MoveError::illegal(
                    text,
                    "swap is only legal as the second player's first reply",
                ));
            }
            return Ok(KalahMove::SWAP);
        }
        let words = mancala::PitWords {
            noun: "pit",
            game_move: "a Kalah move",
            other_move: "swap",
        };
        let i = mancala::parse_own_pit(text, pos.side, self.pits, &words)?;
        let side = pos.side;
        if pos.cells[self.rules().pit_cell(side, i)] == 0 {
            return Err(MoveError::illegal(text, format!("pit {text} is empty")));
        }
        Ok(KalahMove::pit(i))
    }

    fn format_move(&self, pos: &KalahPosition, mv: KalahMove) -> String {
        if mv == KalahMove::SWAP {
            "swap".to_string()
        } else {
            pos.side.pit_letter(mv.0 as usize).to_string()
        }
    }

    fn render(&self, pos: &KalahPosition) -> String {
        let row = |side: Side| -> Vec<u32> {
            pos.cells[self.rules().row(side)]
                .iter()
                .map(|&c| c as u32)
                .collect()
        };
        let stores =
            [Side::South, Side::North].map(|side| pos.cells[self.rules().store(side)] as u32);
        let mut out = mancala::render_with_stores(&row(Side::South), &row(Side::North), stores);
        let to_move = self.to_move(pos);
        let _ = write!(
            out,
            "North's store is on the left, South's on the right. To move: {} ({})",
            pos.side.name(),
            to_move.name()
        );
        if self.pie {
            let pie = if self.rules().swap_available(pos) {
                "swap is legal now"
            } else if pos.pie_open {
                "swap still to come"
            } else if pos.swapped {
                "players swapped: p1 plays North"
            } else {
                "swap no longer possible"
            };
            let _ = write!(out, "; pie: {pie}");
        }
        out
    }
}
