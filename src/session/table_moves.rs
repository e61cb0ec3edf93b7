//! Endgame tables in play: a position they cover is answered at once, every move valued
//! and the best line followed to the end of the game; `d` shows the table value.
//!
//! Among the moves of equal value, distance tables (Fanorona) decide by distance: a win
//! takes the move that leaves the layer (a capture) or else the quickest way to one, so
//! that it comes within the turns left and no position repeats on the way; a loss takes
//! the longest. A move that would end the game by repetition here (the game's history
//! counts) is valued a draw.

use std::time::Instant;

use super::GameSession;
use super::go::SearchSummary;
use super::go_info::{Info, InfoLine, ScoreBound, Work};
use crate::game::{Game, TableValues};

/// A table's word on the current position (`d`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableValue {
    /// Half-points for the mover: the final margin, or (won/lost games) the win's value.
    pub value: i32,
    /// What the position's layer holds ([`TableIndexing::table_layer_name`](crate::game::TableIndexing::table_layer_name)).
    pub layer: String,
    /// The turns the result needs (distance tables): to the capture, or the end, that
    /// decides it.
    pub distance: Option<u32>,
    /// A game won or lost, not scored: the value is a result.
    pub decisive: bool,
}
use crate::search::{SearchSettings, score};

impl<G: Game> GameSession<G> {
    /// The exact value of `pos` for its mover (half-points) from the tables or the end of
    /// the game, if known.
    fn known_value(&self, pos: &G::Position) -> Option<i32> {
        self.known_entry(pos).map(|(value, _)| value)
    }

    /// [`Self::known_value`] with the distance it needs, if the tables keep one.
    fn known_entry(&self, pos: &G::Position) -> Option<(i32, Option<u32>)> {
        if let Some(outcome) = self.game.outcome(pos) {
            return Some((
                self.game.final_value(&outcome, self.game.to_move(pos)),
                Some(0),
            ));
        }
        let (rest, distance) = self.tables.as_ref()?.probe_entry(&self.game, pos)?;
        Some((self.game.banked_value(pos) + rest, distance))
    }

    /// How good the move from `pos` to `child` is for the mover of `pos`, best highest: its
    /// exact value, then (distance tables) how fast it wins or how slowly it loses.
    /// `history`: the repetition keys up to `pos`, when the game's history counts.
    fn move_rank(
        &self,
        pos: &G::Position,
        child: &G::Position,
        history: Option<&[u64]>,
    ) -> Option<(i32, i64)> {
        let mover = self.game.to_move(pos);
        let same = self.game.to_move(child) == mover;
        if let Some(value) = history.and_then(|h| self.history_end_value(pos, child, h)) {
            return Some((value, 0));
        }
        let (value, distance) = self.known_entry(child)?;
        let value = if same { value } else { -value };
        let tables = self.tables.as_ref()?;
        let left_layer = self
            .game
            .table_index(child, tables.max_layer())
            .map(|(l, _)| l)
            != self
                .game
                .table_index(pos, tables.max_layer())
                .map(|(l, _)| l);
        let distance = if left_layer {
            0
        } else {
            i64::from(distance.unwrap_or(0))
        };
        let tiebreak = match value.signum() {
            1 => -distance,
            -1 => distance,
            _ => 0,
        };
        Some((value, tiebreak))
    }

    /// Check the tables' value of the current position against its moves before it decides
    /// anything ([`crate::tables::Tables::check_consistent`]): damaged tables are marked
    /// so, say why through their failure, and answer nothing from then on.
    pub(super) fn check_tables_at_root(&self) {
        if let Some(tables) = self.tables.as_ref() {
            tables.check_consistent(&self.game, &self.position);
        }
    }

    /// [`super::Session::table_value`].
    pub(super) fn tablebase_value(&self) -> Option<TableValue> {
        let tables = self.tables.as_ref()?;
        if self.outcome_of(&self.position, &self.history).is_some() {
            return None;
        }
        self.check_tables_at_root();
        let (rest, distance) = tables.probe_entry(&self.game, &self.position)?;
        let (layer, _) = self.game.table_index(&self.position, tables.max_layer())?;
        Some(TableValue {
            value: self.game.banked_value(&self.position) + rest,
            layer: self.game.table_layer_name(layer),
            distance,
            decisive: matches!(tables.values(), TableValues::Distance { .. }),
        })
    }

    /// A covered position: every move's exact value from the tables, the best line followed
    /// to the end of the game. `None` when the tables do not cover it.
    pub(super) fn table_answer(
        &self,
        searchmoves: &[G::Move],
        settings: &SearchSettings,
        info: &mut dyn FnMut(&Info),
    ) -> Option<SearchSummary> {
        let started = Instant::now();
        self.known_value(&self.position)?;
        let mut legal = Vec::new();
        self.game.legal_moves(&self.position, &mut legal);
        let mut probes = 1u64;
        let mut valued: Vec<(G::Move, i32, i64)> = Vec::new();
        for &mv in &legal {
            if !searchmoves.is_empty() && !searchmoves.contains(&mv) {
                continue;
            }
            let mut child = self.position.clone();
            self.game.play(&mut child, mv);
            let (value, tiebreak) = self.move_rank(&self.position, &child, Some(&self.history))?;
            probes += 1;
            valued.push((mv, value, tiebreak));
        }
        // Best first; ties keep the generation order.
        valued.sort_by_key(|&(_, v, t)| std::cmp::Reverse((v, t)));
        let lines = settings.multipv.clamp(1, valued.len().max(1));
        for (k, &(mv, value, _)) in valued.iter().take(lines).enumerate() {
            let mut pv = vec![mv];
            let mut pos = self.position.clone();
            self.game.play(&mut pos, mv);
            probes += self.follow_tables(&mut pos, &mut pv);
            let work = Work {
                nodes: probes,
                time: started.elapsed(),
                hashfull: None,
                tbhits: probes,
            };
            info(&Info::Line(InfoLine {
                multipv: k + 1,
                ..self.value_line(value, ScoreBound::Exact, &pv, work)
            }));
        }
        let &(best, value, _) = valued.first()?;
        Some(SearchSummary {
            bestmove: self.game.format_move(&self.position, best),
            ponder: None,
            nodes: probes,
            depth: 1,
            score: score::exact(value),
            proven: true,
        })
    }

    /// Play best moves by the tables from `pos` to the end of the game, adding them to `pv`;
    /// the number of probes.
    fn follow_tables(&self, pos: &mut G::Position, pv: &mut Vec<G::Move>) -> u64 {
        let mut probes = 0;
        let mut moves = Vec::new();
        while self.game.outcome(pos).is_none() && pv.len() < 1000 {
            self.game.legal_moves(pos, &mut moves);
            let mut best: Option<(G::Move, (i32, i64))> = None;
            for &mv in &moves {
                let mut child = pos.clone();
                self.game.play(&mut child, mv);
                let Some(rank) = self.move_rank(pos, &child, None) else {
                    return probes;
                };
                probes += 1;
                if best.is_none_or(|(_, b)| rank > b) {
                    best = Some((mv, rank));
                }
            }
            let Some((mv, _)) = best else { break };
            self.game.play(pos, mv);
            pv.push(mv);
        }
        probes
    }
}
