//! The node search: negamax with alpha-beta below the root, its pruning (the table's cuts,
//! null moves, late-move and futility pruning, late-move reductions; their constants in
//! `params.rs`), and the quiescence search past the horizon.

use crate::game::{Game, GameResult, HISTORY_KEYS, Horizon, QUIESCENCE_PLIES};

use super::movepick::{KILLER_HINT, select_next};
use super::params::{
    FUTILITY_MARGIN, LATE_MOVE_COUNT, LMR_DEEP_DEPTH, LMR_DEEP_MOVE, LMR_DEEP_REDUCTION,
    LMR_MIN_DEPTH, LMR_MIN_MOVE, LMR_REDUCTION, NULL_MIN_DEPTH, NULL_REDUCTION,
    NULL_REDUCTION_DEPTH_DIVISOR, NULL_REDUCTION_EVAL_MAX, NULL_REDUCTION_EVAL_STEP,
    NULL_VERIFY_DEPTH, NULL_VERIFY_NO_PASS_DENOMINATOR, NULL_VERIFY_NO_PASS_NUMERATOR,
    PRUNING_MAX_DEPTH,
};
use super::score::{self, INFINITE, MAX_PLY};
use super::tt::Bound;
use super::worker::Worker;

impl<G: Game> Worker<'_, '_, G> {
    #[inline]
    pub(super) fn child(
        &mut self,
        pos: &G::Position,
        depth: u32,
        alpha: i32,
        beta: i32,
        ply: usize,
        same_player: bool,
    ) -> i32 {
        if same_player {
            self.negamax(pos, depth, alpha, beta, ply)
        } else {
            -self.negamax(pos, depth, -beta, -alpha, ply)
        }
    }

    fn negamax(&mut self, pos: &G::Position, depth: u32, alpha: i32, beta: i32, ply: usize) -> i32 {
        if let Some(score) = self.enter_node(pos, ply) {
            return score;
        }
        if depth == 0 {
            return self.quiesce(pos, alpha, beta, ply, 0);
        }
        self.negamax_inner(pos, depth, alpha, beta, ply)
    }

    /// What every node does first: check for an abort, count itself, and score the
    /// position when it is a leaf by the rules: a repetition, a game end, a table position.
    /// A node aborted does no work and is not counted: with one thread `go nodes n` searches
    /// exactly `n` nodes (an iteration of `n` nodes completes), as protocol.md says.
    #[inline]
    fn enter_node(&mut self, pos: &G::Position, ply: usize) -> Option<i32> {
        self.pv[ply].clear();
        if self.aborted || self.should_abort() {
            self.aborted = true;
            return Some(0);
        }
        self.count_node();
        self.seldepth = self.seldepth.max(ply);
        let game = self.game;
        let player = game.to_move(pos);
        if self.has_repetition_rule && self.is_repetition(pos) {
            // A repetition inside the tree is scored as the rule's end would score it; the
            // real rule needs more occurrences, so this is a judgement (the final margin),
            // never a proof or a mate score.
            self.unresolved = true;
            let outcome = game.repetition_outcome(pos);
            if outcome.result == GameResult::Draw {
                return Some(self.draw_score[player.index()]);
            }
            let margin = outcome.margin(player).halves() * 50;
            return Some(score::clamp_eval(margin));
        }
        if let Some(outcome) = game.outcome(pos) {
            if self.exact_ends {
                return Some(score::exact_at(game.final_value(&outcome, player), ply));
            }
            if outcome.result == GameResult::Draw && self.draw_score[0] != 0 {
                // A draw scored with contempt is a judgement, not the game's value.
                self.unresolved = true;
                return Some(self.draw_score[player.index()]);
            }
            return Some(score::terminal(&outcome, player, ply));
        }
        if let Some(tables) = self.tables
            && let Some(rest) = tables.probe(game, pos)
        {
            self.tbhits += 1;
            return Some(score::exact_at(game.banked_value(pos) + rest, ply));
        }
        if ply >= MAX_PLY - 1 {
            self.unresolved = true;
            return Some(score::clamp_eval(self.evaluate(pos, ply)));
        }
        None
    }

    /// `pos` after `mv`, played from `ply`: with an accumulating evaluation, the child's
    /// accumulator (at `ply + 1`) is updated from `pos`'s.
    #[inline]
    pub(super) fn play(&mut self, pos: &G::Position, mv: G::Move, ply: usize) -> G::Position {
        let mut child = pos.clone();
        self.game.play(&mut child, mv);
        if self.accumulates {
            let (parents, children) = self.accumulators.split_at_mut(ply + 1);
            self.game
                .update_accumulator(pos, mv, &child, &parents[ply], &mut children[0]);
        }
        child
    }

    /// The static evaluation of `pos` at `ply`.
    #[inline]
    fn evaluate(&self, pos: &G::Position, ply: usize) -> i32 {
        if self.accumulates {
            self.game
                .evaluate_accumulated(pos, &self.accumulators[ply])
                .0
        } else {
            self.game.evaluate(pos)
        }
    }

    /// [`Evaluation::evaluate_at_horizon`](crate::game::Evaluation::evaluate_at_horizon) of `pos` at `ply`, with its accumulator when the
    /// evaluation keeps one.
    #[inline]
    fn evaluate_at_horizon(&self, pos: &G::Position, ply: usize) -> (i32, Horizon) {
        if self.accumulates {
            self.game.evaluate_accumulated(pos, &self.accumulators[ply])
        } else {
            self.game.evaluate_at_horizon(pos)
        }
    }

    /// The search past the horizon ([`Evaluation::evaluate_at_horizon`](crate::game::Evaluation::evaluate_at_horizon)): the evaluation is the
    /// mover's floor (stand pat); a position with forcing moves at hand is then searched
    /// over them (all its moves when [`Horizon::Forced`], those [`SearchHints::is_forcing`](crate::game::SearchHints::is_forcing) names
    /// when [`Horizon::Optional`]), at most [`QUIESCENCE_PLIES`] plies past the horizon.
    /// Without the table and without reductions: these trees are small and their positions
    /// rarely recur.
    fn quiesce(
        &mut self,
        pos: &G::Position,
        mut alpha: i32,
        beta: i32,
        ply: usize,
        qply: usize,
    ) -> i32 {
        let game = self.game;
        // Stand pat: the evaluation is taken as a lower bound of what the mover's capture
        // gains (the evaluations count the mover's best capture), so only captures that
        // promise more are searched.
        self.unresolved = true;
        if qply >= QUIESCENCE_PLIES {
            return score::clamp_eval(self.evaluate(pos, ply));
        }
        let (eval, horizon) = self.evaluate_at_horizon(pos, ply);
        let stand = score::clamp_eval(eval);
        if horizon == Horizon::Quiet || stand >= beta {
            return stand;
        }
        alpha = alpha.max(stand);
        let player = game.to_move(pos);
        let mut moves = std::mem::take(&mut self.frames[ply].moves);
        let mut order = std::mem::take(&mut self.frames[ply].order);
        game.legal_moves(pos, &mut moves);
        if horizon == Horizon::Optional {
            moves.retain(|&mv| game.is_forcing(pos, mv));
        }
        if moves.is_empty() {
            // Nothing forcing after all: the evaluation is the answer.
            self.frames[ply].moves = moves;
            self.frames[ply].order = order;
            return stand;
        }
        order.clear();
        for (i, &mv) in moves.iter().enumerate() {
            order.push((game.order_hint(pos, mv) as i64, i as u16));
        }
        let mut best = stand;
        for k in 0..order.len() {
            select_next(&mut order, k);
            let mv = moves[order[k].1 as usize];
            let child = self.play(pos, mv, ply);
            let same = game.to_move(&child) == player;
            self.push_key(&child);
            let score = self.quiesce_child(&child, alpha, beta, ply + 1, qply + 1, same);
            self.pop_key();
            if self.aborted {
                break;
            }
            if score > best {
                best = score;
                if score > alpha {
                    alpha = score;
                    self.update_pv(ply, mv);
                    if score >= beta {
                        break;
                    }
                }
            }
        }
        self.frames[ply].moves = moves;
        self.frames[ply].order = order;
        if self.aborted { 0 } else { best }
    }

    /// A child in the quiescence search, from the parent's view (as [`Worker::child`]).
    fn quiesce_child(
        &mut self,
        pos: &G::Position,
        alpha: i32,
        beta: i32,
        ply: usize,
        qply: usize,
        same_player: bool,
    ) -> i32 {
        let (alpha, beta) = if same_player {
            (alpha, beta)
        } else {
            (-beta, -alpha)
        };
        let score = match self.enter_node(pos, ply) {
            Some(score) => score,
            None => self.quiesce(pos, alpha, beta, ply, qply),
        };
        if same_player { score } else { -score }
    }

    /// `mv` at `ply` leads to the best line so far: it and the child's line become this
    /// node's principal variation.
    fn update_pv(&mut self, ply: usize, mv: G::Move) {
        let (head, tail) = self.pv.split_at_mut(ply + 1);
        head[ply].clear();
        head[ply].push(mv);
        head[ply].extend_from_slice(&tail[0]);
    }

    fn negamax_inner(
        &mut self,
        pos: &G::Position,
        depth: u32,
        mut alpha: i32,
        beta: i32,
        ply: usize,
    ) -> i32 {
        let game = self.game;
        let player = game.to_move(pos);
        let pv_node = beta - alpha > 1;
        // Every node with depth left asks the table (the horizon's quiescence searches do
        // not): under a node one ply from the horizon there is a quiescence search, worth
        // the cache miss (equal nodes: Fanorona +12.5 ± 14.1, no regression elsewhere).
        let use_tt = depth >= 1;
        let key = if use_tt { game.hash(pos) } else { 0 };
        let mut tt_move = None;
        let entry = if use_tt { self.tt.probe(key) } else { None };
        if let Some(entry) = entry {
            tt_move = entry.move_index;
            let usable = entry.proven || (entry.depth >= depth && !pv_node);
            if usable && (!pv_node || entry.bound == Bound::Exact) {
                let s = score::from_tt(entry.score, ply);
                let cut = match entry.bound {
                    Bound::Exact => true,
                    Bound::Lower => s >= beta,
                    Bound::Upper => s <= alpha,
                };
                if cut {
                    if !entry.proven {
                        self.unresolved = true;
                    }
                    return s;
                }
            }
        }

        if !pv_node
            && depth >= NULL_MIN_DEPTH
            && let Some(score) = self.try_null_move(pos, depth, beta, ply)
        {
            return score;
        }

        let mut moves = std::mem::take(&mut self.frames[ply].moves);
        let mut order = std::mem::take(&mut self.frames[ply].order);
        game.legal_moves(pos, &mut moves);
        let killer = self.frames[ply].killer;
        let history_base = player.index() * HISTORY_KEYS;
        self.order_moves(pos, &moves, &mut order, tt_move, killer, history_base);

        // Near the leaves, outside the PV, late quiet moves are pruned (see below); the
        // static evaluation they are measured against is taken when the first is reached.
        let shallow = game.prunes_late_moves()
            && !pv_node
            && depth <= PRUNING_MAX_DEPTH
            && !score::is_decided(alpha);
        let mut static_eval = None;
        let ranks_quiet = game.hint_ranks_quiet_moves();
        let outer_unresolved = self.unresolved;
        self.unresolved = false;
        let original_alpha = alpha;
        let mut best = -INFINITE;
        let mut best_index = None;
        for k in 0..order.len() {
            select_next(&mut order, k);
            let index = order[k].1;
            let mv = moves[index as usize];
            // A move the game does not single out, late in the order: probably poor.
            let hint = order[k].0 >> 32;
            let quiet = hint == 0;
            // Reduced when late: a quiet move, or any but the table's and the killer where
            // the hint only ranks moves.
            let reducible = quiet || (ranks_quiet && hint < i64::from(KILLER_HINT));
            // Late-move and futility pruning: near the leaves, a quiet move late in the
            // order, or one that would need more than a margin above the evaluation to
            // reach alpha, is not searched (a judgement: the node is then unresolved).
            if quiet
                && k > 0
                && shallow
                && (k >= LATE_MOVE_COUNT + (depth * depth) as usize
                    || *static_eval
                        .get_or_insert_with(|| score::clamp_eval(self.evaluate(pos, ply)))
                        + FUTILITY_MARGIN * depth as i32
                        <= alpha)
            {
                self.unresolved = true;
                continue;
            }
            let child = self.play(pos, mv, ply);
            let same = game.to_move(&child) == player;
            self.push_key(&child);
            let score = if k == 0 {
                self.child(&child, depth - 1, alpha, beta, ply + 1, same)
            } else {
                // Late move reductions: search late quiet moves shallower first, and fully
                // only if they surprise.
                let reduction = if reducible && k >= LMR_MIN_MOVE && depth >= LMR_MIN_DEPTH {
                    if k >= LMR_DEEP_MOVE && depth >= LMR_DEEP_DEPTH {
                        LMR_DEEP_REDUCTION
                    } else {
                        LMR_REDUCTION
                    }
                } else {
                    0
                };
                let mut s = self.child(
                    &child,
                    depth - 1 - reduction,
                    alpha,
                    alpha + 1,
                    ply + 1,
                    same,
                );
                if reduction > 0 && s > alpha && !self.aborted {
                    s = self.child(&child, depth - 1, alpha, alpha + 1, ply + 1, same);
                }
                if s > alpha && s < beta && !self.aborted {
                    self.child(&child, depth - 1, alpha, beta, ply + 1, same)
                } else {
                    s
                }
            };
            self.pop_key();
            if self.aborted {
                break;
            }
            if score > best {
                best = score;
                best_index = Some(index);
                if score > alpha {
                    alpha = score;
                    self.update_pv(ply, mv);
                    if score >= beta {
                        self.frames[ply].killer = Some(mv);
                        if quiet {
                            self.reward_cutoff(pos, &moves, &order[..=k], history_base, depth);
                        }
                        break;
                    }
                }
            }
        }
        let aborted = self.aborted;
        if !aborted && use_tt {
            let bound = if best >= beta {
                Bound::Lower
            } else if best > original_alpha {
                Bound::Exact
            } else {
                Bound::Upper
            };
            self.tt.store(
                key,
                depth,
                score::to_tt(best, ply),
                bound,
                best_index,
                !self.unresolved,
            );
        }
        self.unresolved |= outer_unresolved;
        self.frames[ply].moves = moves;
        self.frames[ply].order = order;
        if aborted { 0 } else { best }
    }

    /// Null-move pruning: when the mover, at least `beta` by the evaluation, may pass
    /// ([`SearchHints::null_move`](crate::game::SearchHints::null_move)), the opponent moves twice in a row in a shallower null-window
    /// search; if the mover still stands at `beta` or more, the node is cut: its value
    /// is that bound (a judgement, never a proof). Never two passes in a row, nor near a
    /// decided `beta`; from [`NULL_VERIFY_DEPTH`] on, a fail-high is checked by a search of
    /// the node itself at the reduced depth, without passes for a while.
    fn try_null_move(
        &mut self,
        pos: &G::Position,
        depth: u32,
        beta: i32,
        ply: usize,
    ) -> Option<i32> {
        let game = self.game;
        if ply < self.null_min_ply
            || score::is_decided(beta)
            || (ply > 0 && self.frames[ply - 1].passed)
        {
            return None;
        }
        // The pass first: in a game that offers none this costs no evaluation.
        let passed = game.null_move(pos)?;
        let eval = score::clamp_eval(self.evaluate(pos, ply));
        if self.accumulates {
            // A pass moves no stone.
            self.accumulators[ply + 1] = self.accumulators[ply];
        }
        if eval < beta {
            return None;
        }
        let reduction = NULL_REDUCTION
            + depth / NULL_REDUCTION_DEPTH_DIVISOR
            + ((eval - beta) / NULL_REDUCTION_EVAL_STEP).clamp(0, NULL_REDUCTION_EVAL_MAX) as u32;
        let reduced = depth.saturating_sub(1 + reduction);
        let unresolved = self.unresolved;
        let floor = self.null_floor;
        self.frames[ply].passed = true;
        self.push_key(&passed);
        self.null_floor = self.keys.len().saturating_sub(1);
        let score = self.child(&passed, reduced, beta - 1, beta, ply + 1, false);
        self.pop_key();
        self.null_floor = floor;
        self.frames[ply].passed = false;
        if self.aborted {
            return Some(0);
        }
        if score < beta {
            self.unresolved = unresolved;
            return None;
        }
        if depth >= NULL_VERIFY_DEPTH {
            let min_ply = self.null_min_ply;
            self.null_min_ply = ply
                + NULL_VERIFY_NO_PASS_NUMERATOR * reduced as usize
                    / NULL_VERIFY_NO_PASS_DENOMINATOR
                + 1;
            let verified = self.negamax_inner(pos, reduced.max(1), beta - 1, beta, ply);
            self.null_min_ply = min_ply;
            if self.aborted {
                return Some(0);
            }
            if verified < beta {
                self.unresolved = unresolved;
                return None;
            }
        }
        self.unresolved = true;
        Some(if score::is_decided(score) {
            beta
        } else {
            score
        })
    }

    #[inline]
    pub(super) fn push_key(&mut self, pos: &G::Position) {
        if self.has_repetition_rule {
            self.keys.push(self.game.repetition_key(pos));
        }
    }

    #[inline]
    pub(super) fn pop_key(&mut self) {
        if self.has_repetition_rule {
            self.keys.pop();
        }
    }

    /// Has the position at the end of `keys` occurred before (since the last irreversible
    /// move)?
    fn is_repetition(&self, pos: &G::Position) -> bool {
        let Some((&key, earlier)) = self.keys.split_last() else {
            return false;
        };
        let window = self.game.reversible_plies(pos).min(earlier.len());
        let from = (earlier.len() - window).max(self.null_floor);
        earlier.get(from..).is_some_and(|keys| keys.contains(&key))
    }
}
