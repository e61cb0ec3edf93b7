//! Move order: the table's move, then the killer (one a ply: the last move that caused a
//! cut-off there), then the game's hint, then the history score; the history tables, kept
//! by player and [`SearchHints::history_key`](crate::game::SearchHints::history_key), and their update after a cut-off.

use crate::game::{Game, HISTORY_KEYS};

use super::worker::Worker;

/// The ordering hint that puts the table's move first, above any game's hint.
const TABLE_MOVE_HINT: i32 = i32::MAX;
/// The ordering hint that puts the killer second.
pub(super) const KILLER_HINT: i32 = i32::MAX - 1;

/// History scores stay within ±HISTORY_MAX (the "gravity" update below).
const HISTORY_MAX: i32 = 1 << 14;
/// A cut-off's history bonus is depth², at most this (depth 20): deep cut-offs count more
/// than shallow ones, and no single one swamps the table.
const HISTORY_BONUS_MAX: u32 = 400;

/// Bring the move with the highest key among `order[k..]` to `k`: one step of a selection
/// sort. Cut-offs usually come early, so sorting the whole list would be waste.
#[inline]
pub(super) fn select_next(order: &mut [(i64, u16)], k: usize) {
    let mut pick = k;
    for j in k + 1..order.len() {
        if order[j].0 > order[pick].0 {
            pick = j;
        }
    }
    order.swap(k, pick);
}

impl<G: Game> Worker<'_, '_, G> {
    /// The ordering keys of `moves` into `order`, as (key, index in `moves`): the hint in
    /// the high half (the table's move `tt_move` first, then `killer`, then the game's
    /// hint), the history score of the mover (`history_base`) in the low half, offset to be
    /// positive.
    #[inline]
    pub(super) fn order_moves(
        &self,
        pos: &G::Position,
        moves: &[G::Move],
        order: &mut Vec<(i64, u16)>,
        tt_move: Option<u16>,
        killer: Option<G::Move>,
        history_base: usize,
    ) {
        let game = self.game;
        order.clear();
        for (i, &mv) in moves.iter().enumerate() {
            let hint = if Some(i as u16) == tt_move {
                TABLE_MOVE_HINT
            } else if Some(mv) == killer {
                KILLER_HINT
            } else {
                game.order_hint(pos, mv)
            };
            let history = game
                .history_key(pos, mv)
                .map_or(0, |key| self.history[history_base + key % HISTORY_KEYS]);
            order.push((
                (hint as i64) << 32 | (history as i64 + HISTORY_MAX as i64),
                i as u16,
            ));
        }
    }

    /// History update after the quiet move `tried.last()` caused a cut-off: it gains, the
    /// quiet moves tried before it lose, each by depth², scaled so scores stay bounded.
    pub(super) fn reward_cutoff(
        &mut self,
        pos: &G::Position,
        moves: &[G::Move],
        tried: &[(i64, u16)],
        base: usize,
        depth: u32,
    ) {
        let bonus = (depth * depth).min(HISTORY_BONUS_MAX) as i32;
        let last = tried.len() - 1;
        for (k, &(key, index)) in tried.iter().enumerate() {
            if key >> 32 != 0 {
                continue;
            }
            let Some(h) = self.game.history_key(pos, moves[index as usize]) else {
                return;
            };
            let delta = if k == last { bonus } else { -bonus };
            let entry = &mut self.history[base + h % HISTORY_KEYS];
            *entry += delta - *entry * delta.abs() / HISTORY_MAX;
        }
    }
}
