//! Endgame tables in play: a position they cover is answered at once, every move valued
//! and the best line followed to the end of the game; `d` shows the table value.

use std::time::Instant;

use super::GameSession;
use super::go::SearchSummary;
use super::info::{Info, InfoLine, ScoreBound, Work};
use crate::game::Game;
use crate::search::{SearchSettings, score};

impl<G: Game> GameSession<G> {
    /// The exact value of `pos` for its mover (half-points) from the tables or the end of
    /// the game, if known.
    fn known_value(&self, pos: &G::Position) -> Option<i32> {
        if let Some(outcome) = self.game.outcome(pos) {
            return Some(self.game.final_value(&outcome, self.game.to_move(pos)));
        }
        let rest = self.tables.as_ref()?.probe(&self.game, pos)?;
        Some(self.game.banked_value(pos) + rest)
    }

    /// [`super::Session::table_value`].
    pub(super) fn tablebase_value(&self) -> Option<(i32, u32)> {
        let tables = self.tables.as_ref()?;
        if self.outcome_of(&self.position, &self.history).is_some() {
            return None;
        }
        let rest = tables.probe(&self.game, &self.position)?;
        let (layer, _) = self.game.table_index(&self.position, tables.max_layer())?;
        Some((self.game.banked_value(&self.position) + rest, layer))
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
        let mover = self.game.to_move(&self.position);
        let mut legal = Vec::new();
        self.game.legal_moves(&self.position, &mut legal);
        let mut probes = 1u64;
        let mut valued: Vec<(G::Move, i32)> = Vec::new();
        for &mv in &legal {
            if !searchmoves.is_empty() && !searchmoves.contains(&mv) {
                continue;
            }
            let mut child = self.position.clone();
            self.game.play(&mut child, mv);
            let value = self.known_value(&child)?;
            probes += 1;
            let same = self.game.to_move(&child) == mover;
            valued.push((mv, if same { value } else { -value }));
        }
        // Best first; ties keep the generation order.
        valued.sort_by_key(|&(_, v)| std::cmp::Reverse(v));
        let lines = settings.multipv.clamp(1, valued.len().max(1));
        for (k, &(mv, value)) in valued.iter().take(lines).enumerate() {
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
        let &(best, value) = valued.first()?;
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
            let mover = self.game.to_move(pos);
            self.game.legal_moves(pos, &mut moves);
            let mut best: Option<(G::Move, i32)> = None;
            for &mv in &moves {
                let mut child = pos.clone();
                self.game.play(&mut child, mv);
                let Some(v) = self.known_value(&child) else {
                    return probes;
                };
                probes += 1;
                let v = if self.game.to_move(&child) == mover {
                    v
                } else {
                    -v
                };
                if best.is_none_or(|(_, b)| v > b) {
                    best = Some((mv, v));
                }
            }
            let Some((mv, _)) = best else { break };
            self.game.play(pos, mv);
            pv.push(mv);
        }
        probes
    }
}
