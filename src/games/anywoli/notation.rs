//! Anywoli's position strings, move texts and board picture.

use std::fmt::Write;

use crate::game::{MoveError, Notation, PositionError, Rules};
use crate::games::mancala::{self, Side};

use super::*;

impl Notation for Anywoli {
    fn parse_position(&self, text: &str) -> Result<AnywoliPosition, PositionError> {
        let fields: Vec<&str> = text.split_whitespace().collect();
        let usage = format!(
            "an Anywoli position is '<South houses {}>,<South store>/<North houses {}>,<North \
             store> <S|N> [<turns without capture> <last capturer S|N|-> <first final-seed \
             capturer S|N|->]', e.g. '{}'",
            Side::South.pit_range(self.houses),
            Side::North.pit_range(self.houses),
            self.format_position(&self.start_position())
        );
        if fields.len() != 2 && fields.len() != 5 {
            return Err(PositionError::new(format!(
                "expected 2 or 5 fields, found {}: {usage}",
                fields.len()
            )));
        }
        let sides = mancala::parse_board(
            fields[0],
            self.houses,
            MAX_SEEDS,
            ("houses", "store"),
            &usage,
        )?;
        let mut houses = [0u8; MAX_WIDTH];
        let mut stores = [0u8; 2];
        for (side, counts) in [Side::South, Side::North].into_iter().zip(&sides) {
            let first = self.house_index(side, 0);
            for (i, &c) in counts[..self.houses].iter().enumerate() {
                houses[first + i] = c as u8;
            }
            stores[side.index()] = counts[self.houses] as u8;
        }
        let total: u32 = houses.iter().chain(&stores).map(|&c| c as u32).sum();
        if total > MAX_SEEDS {
            return Err(PositionError::new(format!(
                "{total} seeds in all: at most {MAX_SEEDS} fit this engine's Anywoli"
            )));
        }
        let side = Side::from_letter(fields[1]).ok_or_else(|| {
            PositionError::new(format!(
                "side to move must be S or N, not '{}': {usage}",
                fields[1]
            ))
        })?;
        let mut pos = AnywoliPosition {
            houses,
            stores,
            side,
            quiet: 0,
            last_capturer: None,
            first_final: None,
        };
        if fields.len() == 5 {
            let most = self.quiet_limit.unwrap_or(u16::MAX);
            pos.quiet = crate::games::parse_digits::<u16>(fields[2])
                .filter(|&n| n <= most)
                .ok_or_else(|| {
                    let limit = match self.quiet_limit {
                        Some(limit) => format!(" (the quiet-limit is {limit})"),
                        None => String::new(),
                    };
                    PositionError::new(format!(
                        "turns without capture must be a number 0..{most}{limit}, not '{}': \
                         {usage}",
                        fields[2]
                    ))
                })?;
            pos.last_capturer = Self::parse_side_field(fields[3], "the last capturer")?;
            pos.first_final = Self::parse_side_field(fields[4], "the first final-seed capturer")?;
            if pos.first_final.is_some() && pos.last_capturer.is_none() {
                return Err(PositionError::new(
                    "a first final-seed capture is a capture: the last capturer cannot be '-'",
                ));
            }
        }
        Ok(pos)
    }

    fn format_position(&self, pos: &AnywoliPosition) -> String {
        let mut out = String::new();
        let side_cells = |side: Side| {
            self.row(pos, side)
                .iter()
                .chain(std::iter::once(&pos.stores[side.index()]))
                .map(|&c| c as u32)
        };
        mancala::format_board(&mut out, side_cells(Side::South), side_cells(Side::North));
        let _ = write!(
            out,
            " {} {} {} {}",
            pos.side.letter(),
            pos.quiet,
            Self::side_label(pos.last_capturer),
            Self::side_label(pos.first_final)
        );
        out
    }

    fn parse_move(&self, pos: &AnywoliPosition, text: &str) -> Result<AnywoliMove, MoveError> {
        if self.is_over(pos) {
            return Err(MoveError::illegal(text, "the game is over"));
        }
        let row_empty = self.row_sum(pos, pos.side) == 0;
        if text == "pass" {
            if !row_empty {
                return Err(MoveError::illegal(
                    text,
                    format!(
                        "pass is legal only when the mover's row is empty, and {} has seeds",
                        pos.side.name()
                    ),
                ));
            }
            return Ok(AnywoliMove::PASS);
        }
        let words = mancala::PitWords {
            noun: "house",
            game_move: "an Anywoli move",
            other_move: "pass",
        };
        let i = mancala::parse_own_pit(text, pos.side, self.houses, &words)?;
        let side = pos.side;
        if row_empty {
            return Err(MoveError::illegal(
                text,
                format!("{}'s row is empty: the only move is pass", side.name()),
            ));
        }
        if pos.houses[self.house_index(side, i)] == 0 {
            return Err(MoveError::illegal(text, format!("house {text} is empty")));
        }
        Ok(AnywoliMove::house(i))
    }

    fn format_move(&self, pos: &AnywoliPosition, mv: AnywoliMove) -> String {
        if mv == AnywoliMove::PASS {
            "pass".to_string()
        } else {
            pos.side.pit_letter(mv.0 as usize).to_string()
        }
    }

    fn render(&self, pos: &AnywoliPosition) -> String {
        let n = self.houses;
        let row =
            |side: Side| -> Vec<u32> { self.row(pos, side).iter().map(|&c| c as u32).collect() };
        let stores = pos.stores.map(u32::from);
        let mut out = mancala::render_with_stores(&row(Side::South), &row(Side::North), stores);
        let _ = writeln!(
            out,
            "North's store is on the left, South's on the right; sowing runs A..{} then a..{}.",
            Side::South.pit_letter(n - 1),
            Side::North.pit_letter(n - 1)
        );
        let quiet_limit = self
            .quiet_limit
            .map_or("off".to_string(), |l| l.to_string());
        let _ = write!(
            out,
            "To move: {} ({}); seeds on the board: {}; turns without capture: {}/{}; last \
             capturer: {}; first final-seed capturer: {}",
            pos.side.name(),
            self.to_move(pos).name(),
            self.board_seeds(pos),
            pos.quiet,
            quiet_limit,
            pos.last_capturer.map_or("nobody", |s| s.name()),
            pos.first_final.map_or("nobody", |s| s.name()),
        );
        out
    }
}
