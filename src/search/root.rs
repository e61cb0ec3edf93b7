//! A worker's iterative deepening: the depths it searches, each iteration's search of the
//! root moves (shared with the other threads when they split them), and its report.

use std::sync::PoisonError;
use std::sync::atomic::Ordering;

use crate::game::Game;

use super::Report;
use super::score::{self, INFINITE, MATE_BOUND, MAX_PLY};
use super::tt::Bound;
use super::worker::{HelperBest, IterationOutcome, Worker};

impl<G: Game> Worker<'_, '_, G> {
    pub(super) fn iterate(
        &mut self,
        root: &G::Position,
        first_depth: u32,
        max_depth: u32,
        multipv: usize,
    ) -> IterationOutcome {
        let mut completed = IterationOutcome {
            depth: 0,
            proven: false,
        };
        let lines = multipv.clamp(1, self.root_moves.len());
        // The deepest iteration this thread completed, left or skipped.
        let mut passed = first_depth - 1;
        loop {
            if self.is_main
                && self.follows_others
                && self.shared.deepest.load(Ordering::Relaxed) > completed.depth
                && let Some(outcome) = self.take_over_helper(completed.depth + 1)
            {
                // A helper completed a deeper iteration: its result is this thread's.
                completed = outcome;
                passed = passed.max(outcome.depth);
                if self.iteration_done(root, completed, lines) {
                    break;
                }
                continue;
            }
            let Some(depth) = self.next_depth(passed, max_depth) else {
                break;
            };
            passed = depth;
            self.shared.searching[depth as usize].fetch_add(1, Ordering::Relaxed);
            let outcome = self.search_iteration(root, depth, lines);
            self.shared.searching[depth as usize].fetch_sub(1, Ordering::Relaxed);
            log::trace!(
                "search: thread {} depth {depth} {} at {} ms",
                self.id,
                if outcome.is_some() {
                    "completed"
                } else {
                    "left"
                },
                self.start.elapsed().as_millis()
            );
            match outcome {
                Some(outcome) => completed = outcome,
                None if self.superseded => {
                    // Another thread completed this depth first: go on from its result.
                    self.superseded = false;
                    self.aborted = false;
                    continue;
                }
                None => break,
            }
            if !self.is_main {
                self.offer_result(completed.depth, completed.proven);
            }
            self.shared
                .deepest
                .fetch_max(completed.depth, Ordering::Relaxed);
            if self.iteration_done(root, completed, lines) {
                break;
            }
        }
        completed
    }

    /// Report a completed iteration (the reporting thread, unless a helper's report of
    /// that depth came first) and tell whether the search ends here: the value is known,
    /// the time is up, or the helpers are told to stop.
    fn iteration_done(
        &mut self,
        root: &G::Position,
        completed: IterationOutcome,
        lines: usize,
    ) -> bool {
        if completed.depth > self.reported
            && let Some(info) = self.info.take()
        {
            if score::is_decided(self.root_moves[0].score) {
                self.extend_pvs(root, lines);
            }
            for line in 0..lines {
                let rm = &self.root_moves[line];
                info(&Report {
                    depth: completed.depth,
                    seldepth: self.seldepth.max(1),
                    multipv: line + 1,
                    score: rm.score,
                    nodes: self.total_nodes(),
                    time: self.start.elapsed(),
                    hashfull: self.tt.hashfull(),
                    tbhits: self.shared.tbhits.load(Ordering::Relaxed) + self.tbhits,
                    pv: rm.pv.clone(),
                    proven: completed.proven,
                });
            }
            self.info = Some(info);
            self.reported = completed.depth;
            self.reported_move = Some(self.root_moves[0].mv);
        }
        let best = self.root_moves[0].score;
        if completed.proven || best.abs() > MATE_BOUND {
            return true; // the game's value is known: deeper search cannot change it
        }
        if self.shared.done.load(Ordering::Relaxed) {
            return true;
        }
        // The next iteration takes longer than all before it: don't start it late.
        self.is_main
            && !self.pondering()
            && self
                .shared
                .budget
                .soft
                .is_some_and(|soft| self.start.elapsed() * 2 > soft)
    }

    /// One iteration at `depth` over `lines` root lines; `None` when it was aborted (a
    /// stop, a limit, or [`Worker::superseded`]), with the root moves left in the best
    /// order known.
    fn search_iteration(
        &mut self,
        root: &G::Position,
        depth: u32,
        lines: usize,
    ) -> Option<IterationOutcome> {
        self.can_abort = depth > 1;
        self.iteration = depth;
        for rm in &mut self.root_moves {
            rm.previous_score = rm.score;
            rm.score = -INFINITE;
        }
        self.seldepth = 0;
        self.unresolved = false;
        for line in 0..lines {
            self.search_root(root, depth, line);
            // Stable: on an abort, unsearched moves keep their place behind the best.
            self.root_moves[line..].sort_by_key(|rm| std::cmp::Reverse(rm.score));
            if self.aborted {
                break;
            }
        }
        if self.aborted {
            // A partial iteration is kept only if its first move was searched fully.
            if self.root_moves[0].score == -INFINITE {
                for rm in &mut self.root_moves {
                    rm.score = rm.previous_score;
                }
                self.root_moves
                    .sort_by_key(|rm| std::cmp::Reverse(rm.score));
            }
            return None;
        }
        // A mate score is a proof by itself: it only comes from real game ends, and a
        // window in the mate range lets no heuristic value through.
        Some(IterationOutcome {
            depth,
            proven: !self.unresolved || score::is_mate(self.root_moves[0].score),
        })
    }

    /// Search the root moves from `line` on at `depth` in the full window: the first with
    /// it, the others with a null window around the best so far first. Every score lies
    /// inside the full window (within ±`MATE`), so none fails high or low: the first
    /// line's result is exact.
    fn search_root(&mut self, root: &G::Position, depth: u32, line: usize) {
        let player = self.game.to_move(root);
        let mut alpha = -INFINITE;
        // The move the table entry names: the best so far, not the first searched.
        let mut best = line;
        self.pv[0].clear();
        if self.accumulates {
            self.game
                .refresh_accumulator(root, &mut self.accumulators[0]);
        }
        let split = self.splits_root && line == 0;
        // Moves another thread claimed first: searched at the end unless completed by then.
        let mut deferred = Vec::new();
        let mut k = line;
        loop {
            // First every move in order, then the deferred ones (helping their owner).
            let helping = k >= self.root_moves.len();
            let i = if !helping {
                k
            } else if let Some(&i) = deferred.get(k - self.root_moves.len()) {
                i
            } else {
                break;
            };
            k += 1;
            let index = self.root_moves[i].index;
            if split && i != line {
                let mut rs = self
                    .root_split
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner);
                let slot = usize::from(index);
                if rs.done[slot] >= depth {
                    continue;
                }
                if helping {
                    self.helping_root = Some(index);
                } else if rs.claimed[slot] >= depth {
                    deferred.push(i);
                    continue;
                } else {
                    rs.claimed[slot] = depth;
                }
                alpha = alpha.max(rs.best_at(depth));
            }
            let mv = self.root_moves[i].mv;
            let child = self.play(root, mv, 0);
            let same = self.game.to_move(&child) == player;
            self.push_key(&child);
            let score = if i == line {
                self.child(&child, depth - 1, alpha, INFINITE, 1, same)
            } else {
                let s = self.child(&child, depth - 1, alpha, alpha + 1, 1, same);
                if s > alpha && !self.aborted {
                    self.child(&child, depth - 1, alpha, INFINITE, 1, same)
                } else {
                    s
                }
            };
            self.pop_key();
            self.helping_root = None;
            if self.aborted && self.root_move_taken {
                // Its owner completed it: its result is in the shared best.
                self.aborted = false;
                self.root_move_taken = false;
                continue;
            }
            if self.aborted {
                if split {
                    self.adopt_split_best(depth, &mut best);
                }
                return;
            }
            if i == line || score > alpha {
                let rm = &mut self.root_moves[i];
                rm.score = score;
                rm.pv.clear();
                rm.pv.push(mv);
                rm.pv.extend_from_slice(&self.pv[1]);
                if score > alpha {
                    best = i;
                }
                alpha = alpha.max(score);
            }
            if split {
                let mut rs = self
                    .root_split
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner);
                let rm = &self.root_moves[i];
                if best == i && (rs.best_depth < depth || rm.score > rs.best_at(depth)) {
                    rs.best_depth = depth;
                    rs.best_score = rm.score;
                    rs.best_index = rm.index;
                    rs.best_pv.clone_from(&rm.pv);
                }
                if self.unresolved {
                    rs.unresolved = rs.unresolved.max(depth);
                }
                let slot = usize::from(index);
                rs.done[slot] = rs.done[slot].max(depth);
            }
        }
        if split {
            self.adopt_split_best(depth, &mut best);
        }
        if line == 0 {
            let best = &self.root_moves[best];
            self.tt.store(
                self.game.hash(root),
                depth,
                best.score,
                Bound::Exact,
                Some(best.index),
                false,
            );
        }
    }

    /// Follow the table's best moves past the end of each reported PV, so that the PV of a
    /// game end shows the whole line to it when the table knows it.
    fn extend_pvs(&mut self, root: &G::Position, lines: usize) {
        let mut moves = Vec::new();
        for line in 0..lines {
            let mut pos = root.clone();
            let pv = std::mem::take(&mut self.root_moves[line].pv);
            for &mv in &pv {
                self.game.play(&mut pos, mv);
            }
            let mut pv = pv;
            while pv.len() < MAX_PLY && self.game.outcome(&pos).is_none() {
                let Some(index) = self
                    .tt
                    .probe(self.game.hash(&pos))
                    .and_then(|e| e.move_index)
                else {
                    break;
                };
                self.game.legal_moves(&pos, &mut moves);
                let Some(&mv) = moves.get(index as usize) else {
                    break;
                };
                pv.push(mv);
                self.game.play(&mut pos, mv);
            }
            self.root_moves[line].pv = pv;
        }
    }
}

/// Which iterations helper `id` skips with several lines (`multipv` > 1), as (cycle length,
/// phase): it searches depth `d` only when `(d + phase) / size` is even. Helpers that skip
/// different depths reach the deeper iterations early and fill the shared table ahead of the
/// main thread, instead of walking the same tree in the same order beside it (the pattern of
/// the Lazy SMP engines). With one line, [`Worker::next_depth`] spreads the threads instead.
const SKIP_SIZE: [u32; 20] = [1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4];
const SKIP_PHASE: [u32; 20] = [0, 1, 0, 1, 2, 3, 0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5, 6, 7];

/// Does helper `id` (1 = the first helper) skip iteration `depth`? The main thread (0) and
/// the first iteration never do.
fn skips_depth(id: usize, depth: u32) -> bool {
    if id == 0 || depth <= 1 {
        return false;
    }
    let i = (id - 1) % SKIP_SIZE.len();
    (depth + SKIP_PHASE[i]) / SKIP_SIZE[i] % 2 == 1
}

impl<G: Game> Worker<'_, '_, G> {
    /// The next iteration for this thread after `passed`, `None` past `max_depth`.
    /// Alone (or with several lines), the next depth, minus the depths a helper skips.
    /// Following the others, the first depth deeper than any completed iteration that
    /// fewer than half the threads are searching: the threads spread over the next depths
    /// instead of walking the same tree in the same order, and none repeats a depth done.
    pub(super) fn next_depth(&self, passed: u32, max_depth: u32) -> Option<u32> {
        let mut depth = passed + 1;
        if self.follows_others && depth > 1 {
            depth = depth.max(self.shared.deepest.load(Ordering::Relaxed) + 1);
            let per_depth = if self.splits_root {
                u32::MAX
            } else {
                self.shared.threads.div_ceil(2) as u32
            };
            while depth < max_depth
                && self.shared.searching[depth as usize].load(Ordering::Relaxed) >= per_depth
            {
                depth += 1;
            }
        } else {
            while depth < max_depth && skips_depth(self.id, depth) {
                depth += 1;
            }
        }
        (depth <= max_depth).then_some(depth)
    }

    /// The main thread takes over the deepest helper result when it reaches `depth`: its
    /// move goes first with the helper's score and line. `None` if no helper got there.
    pub(super) fn take_over_helper(&mut self, depth: u32) -> Option<IterationOutcome> {
        let best = self
            .helper_best
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let h = best.as_ref().filter(|h| h.depth >= depth)?;
        let first = *h.pv.first()?;
        let i = self.root_moves.iter().position(|rm| rm.mv == first)?;
        self.root_moves[..=i].rotate_right(1);
        let rm = &mut self.root_moves[0];
        rm.score = h.score;
        rm.pv.clone_from(&h.pv);
        self.seldepth = h.seldepth;
        Some(IterationOutcome {
            depth: h.depth,
            proven: h.proven,
        })
    }

    /// A helper's completed iteration, kept when it is the deepest of all helpers.
    pub(super) fn offer_result(&self, depth: u32, proven: bool) {
        let mut best = self
            .helper_best
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if best.as_ref().is_none_or(|b| depth > b.depth) {
            let rm = &self.root_moves[0];
            *best = Some(HelperBest {
                depth,
                seldepth: self.seldepth,
                score: rm.score,
                proven,
                pv: rm.pv.clone(),
            });
        }
    }

    /// After splitting the root: the best move any thread found in this iteration becomes
    /// this thread's best (`best`, its place in `root_moves`), and a heuristic leaf under
    /// another thread's moves makes this iteration's value unproven.
    pub(super) fn adopt_split_best(&mut self, depth: u32, best: &mut usize) {
        let rs = self
            .root_split
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if rs.unresolved >= depth {
            self.unresolved = true;
        }
        let own = self.root_moves.get(*best).map_or(-INFINITE, |rm| rm.score);
        if rs.best_depth != depth || rs.best_score <= own {
            return;
        }
        if let Some(i) = self
            .root_moves
            .iter()
            .position(|rm| rm.index == rs.best_index)
        {
            let rm = &mut self.root_moves[i];
            rm.score = rs.best_score;
            rm.pv.clone_from(&rs.best_pv);
            *best = i;
        }
    }
}
