//! The threads: [`search`] starts one worker a thread, the first one reporting and
//! deciding; what they share (the node counts, the deepest completed iteration, the root
//! moves split between them, the deepest helper result), and how the helpers choose their
//! depths.

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use crate::game::{Accumulator, Game, HISTORY_KEYS};
use crate::tables::Tables;

use super::control::SearchControl;
use super::limits::{Limits, TimeBudget};
use super::negamax::Frame;
use super::root::{IterationOutcome, RootMove};
use super::score::{INFINITE, MAX_PLY};
use super::tt::TranspositionTable;
use super::{MAX_CONTEMPT, MAX_DEPTH, Report, SearchResult, SearchSettings};

/// Search `root` until a limit or `control.stop`; `info` receives a report after every
/// completed iteration (main thread only). `history` holds the repetition keys of the game
/// from its start up to and including `root`. In games scored by points (not
/// [`ExactValues::win_draw_loss`](crate::game::ExactValues::win_draw_loss)), and in any game with `tables`, game ends and covered positions
/// score their exact final value ([`score::exact_at`](super::score::exact_at)), so that
/// proven lines are told apart by their margin, not only won or lost.
#[allow(clippy::too_many_arguments)]
pub fn search<G: Game>(
    game: &G,
    root: &G::Position,
    history: &[u64],
    searchmoves: &[G::Move],
    limits: &Limits,
    settings: &SearchSettings,
    tt: &TranspositionTable,
    tables: Option<&Tables>,
    control: &SearchControl,
    info: &mut dyn FnMut(&Report<G::Move>),
) -> SearchResult<G::Move> {
    let start = Instant::now();
    tt.new_search();
    let player = game.to_move(root);
    let shared = Shared {
        control,
        done: AtomicBool::new(false),
        nodes: AtomicU64::new(0),
        tbhits: AtomicU64::new(0),
        deepest: AtomicU32::new(0),
        searching: (0..=MAX_DEPTH + 1).map(|_| AtomicU32::new(0)).collect(),
        threads: settings.threads.max(1),
        node_limit: limits.nodes,
        budget: TimeBudget::new(limits, player, settings.move_overhead),
    };
    let mut legal = Vec::new();
    game.legal_moves(root, &mut legal);
    let root_moves: Vec<RootMove<G::Move>> = legal
        .iter()
        .enumerate()
        .filter(|(_, mv)| searchmoves.is_empty() || searchmoves.contains(mv))
        .map(|(i, &mv)| RootMove {
            mv,
            index: i as u16,
            score: -INFINITE,
            previous_score: -INFINITE,
            pv: vec![mv],
        })
        .collect();
    let max_depth = limits.depth.unwrap_or(MAX_DEPTH).clamp(1, MAX_DEPTH);
    if root_moves.is_empty() {
        return SearchResult {
            best: None,
            ponder: None,
            score: 0,
            depth: 0,
            nodes: 0,
            tbhits: 0,
            proven: true,
        };
    }
    let helper_best: Mutex<Option<HelperBest<G::Move>>> = Mutex::new(None);
    let root_split: Mutex<RootSplit<G::Move>> = Mutex::new(RootSplit::new(legal.len()));
    let make_worker = |id: usize| Worker {
        game,
        info: None,
        reported: 0,
        reported_move: None,
        id,
        helper_best: &helper_best,
        root_split: &root_split,
        splits_root: settings.threads > 1
            && settings.multipv <= 1
            && game.threads_split_root_moves(),
        helping_root: None,
        root_move_taken: false,
        tt,
        tables,
        exact_ends: tables.is_some() || !game.win_draw_loss(),
        draw_score: {
            let contempt = if tables.is_none() && game.win_draw_loss() {
                settings.contempt.clamp(-MAX_CONTEMPT, MAX_CONTEMPT)
            } else {
                0
            };
            let mut scores = [contempt; 2];
            scores[player.index()] = -contempt;
            scores
        },
        shared: &shared,
        is_main: id == 0,
        start,
        was_pondering: control.is_pondering(),
        nodes: 0,
        unflushed: 0,
        tbhits: 0,
        seldepth: 0,
        unresolved: false,
        aborted: false,
        can_abort: false,
        follows_others: settings.threads > 1 && settings.multipv <= 1,
        iteration: 0,
        superseded: false,
        has_repetition_rule: game.repetition_limit().is_some(),
        keys: history.to_vec(),
        null_floor: 0,
        null_min_ply: 0,
        accumulates: game.accumulates(),
        accumulators: if game.accumulates() {
            vec![Accumulator::default(); MAX_PLY + 2]
        } else {
            Vec::new()
        },
        frames: (0..=MAX_PLY)
            .map(|_| Frame {
                moves: Vec::new(),
                order: Vec::new(),
                killer: None,
                passed: false,
            })
            .collect(),
        history: vec![0; 2 * HISTORY_KEYS],
        pv: vec![Vec::new(); MAX_PLY + 1],
        root_moves: root_moves.clone(),
    };
    let open_ended = limits.is_open_ended() || limits.is_unlimited_for(player);
    // A forced move needs no thought when the clock is running.
    let forced = root_moves.len() == 1 && !open_ended && limits.depth.is_none();
    let max_depth = if forced { 1 } else { max_depth };
    let mut main = make_worker(0);
    main.info = Some(&mut *info);
    let outcome = std::thread::scope(|scope| {
        for id in 1..settings.threads.max(1) {
            let make_worker = &make_worker;
            // A thread the system refuses (`ulimit -u`, no memory) is a helper less: the
            // search goes on with those it has, never a panic.
            let spawned = std::thread::Builder::new()
                .name(format!("search-{id}"))
                .spawn_scoped(scope, move || {
                    let mut helper = make_worker(id);
                    helper.iterate(root, 1, max_depth, 1);
                    helper.flush_nodes();
                });
            if let Err(e) = spawned {
                log::warn!(
                    "search: cannot start thread {} of {}: {e}; searching with {id}",
                    id + 1,
                    settings.threads
                );
                break;
            }
        }
        let outcome = main.iterate(root, 1, max_depth, settings.multipv);
        main.flush_nodes();
        shared.done.store(true, Ordering::Relaxed);
        outcome
    });
    let (reported, reported_move, last_iteration) =
        (main.reported, main.reported_move, main.iteration);
    let seldepth = main.seldepth;
    let best = main.root_moves.swap_remove(0);
    drop(main);
    if open_ended {
        // `infinite` and `ponder` report only after `stop` (or `ponderhit` when pondering).
        control.wait_for_stop(limits, player);
    }
    // A helper's iteration deeper than any the main thread completed is the answer (the
    // deepest completed iteration decides; the main thread may already have reported it).
    let helper = helper_best
        .into_inner()
        .unwrap_or_else(PoisonError::into_inner)
        .filter(|h| {
            settings.multipv <= 1 && !outcome.proven && h.depth > outcome.depth && !h.pv.is_empty()
        });
    if let Some(h) = helper {
        if h.depth > reported {
            info(&h.report(
                shared.nodes.load(Ordering::Relaxed),
                start.elapsed(),
                tt.hashfull(),
                shared.tbhits.load(Ordering::Relaxed),
            ));
        }
        return SearchResult {
            best: Some(h.pv[0]),
            ponder: h.pv.get(1).copied(),
            score: h.score,
            depth: h.depth,
            nodes: shared.nodes.load(Ordering::Relaxed),
            tbhits: shared.tbhits.load(Ordering::Relaxed),
            proven: h.proven,
        };
    }
    if settings.multipv <= 1 && reported_move.is_some_and(|mv| mv != best.mv) {
        // The iteration cut short found a better move than the last one reported: the
        // last line shown is the move played (the partial iteration's depth, as the
        // Stockfish-like engines report it).
        info(&Report {
            depth: last_iteration.max(reported),
            seldepth: seldepth.max(1),
            multipv: 1,
            score: best.score,
            nodes: shared.nodes.load(Ordering::Relaxed),
            time: start.elapsed(),
            hashfull: tt.hashfull(),
            tbhits: shared.tbhits.load(Ordering::Relaxed),
            pv: best.pv.clone(),
            proven: false,
        });
    }
    SearchResult {
        best: Some(best.mv),
        ponder: best.pv.get(1).copied(),
        score: best.score,
        depth: outcome.depth,
        nodes: shared.nodes.load(Ordering::Relaxed),
        tbhits: shared.tbhits.load(Ordering::Relaxed),
        proven: outcome.proven,
    }
}

/// What the threads of one search share: the control, the counters, the budget.
pub(super) struct Shared<'a> {
    pub(super) control: &'a SearchControl,
    /// Set by the main thread to end the helpers (time up, limits reached).
    pub(super) done: AtomicBool,
    pub(super) nodes: AtomicU64,
    pub(super) tbhits: AtomicU64,
    /// The deepest iteration any thread has completed. A thread whose current iteration is
    /// no deeper leaves it for the next one (see [`Worker::follows_others`]).
    pub(super) deepest: AtomicU32,
    /// How many threads search each depth now.
    pub(super) searching: Vec<AtomicU32>,
    pub(super) threads: usize,
    pub(super) node_limit: Option<u64>,
    pub(super) budget: TimeBudget,
}

/// Where `info` reports go (the caller's writer).
pub(super) type InfoSink<'i, M> = &'i mut (dyn FnMut(&Report<M>) + 'i);

/// One thread's search: its position in the iterations, its own counters, its path's
/// stacks (keys, frames, accumulators, lines) and its history tables.
pub(super) struct Worker<'a, 'i, G: Game> {
    pub(super) game: &'a G,
    /// Where the reporting thread (the main one) sends its `info` reports; `None` for the
    /// helpers.
    pub(super) info: Option<InfoSink<'i, G::Move>>,
    /// The deepest iteration reported so far (its own or a helper's), and its first move.
    pub(super) reported: u32,
    pub(super) reported_move: Option<G::Move>,
    /// 0 for the main thread, 1.. for the helpers.
    pub(super) id: usize,
    /// Where helpers leave their deepest completed iteration.
    pub(super) helper_best: &'a Mutex<Option<HelperBest<G::Move>>>,
    /// The root moves the threads split ([`RootSplit`]); used when `splits_root`.
    pub(super) root_split: &'a Mutex<RootSplit<G::Move>>,
    pub(super) splits_root: bool,
    /// The root move (legal-move index) this thread searches although another thread
    /// claimed it: left as soon as that thread completes it.
    pub(super) helping_root: Option<u16>,
    /// The search under `helping_root` was left because its owner completed it.
    pub(super) root_move_taken: bool,
    pub(super) tt: &'a TranspositionTable,
    /// Endgame tables: a covered position is an exact leaf.
    pub(super) tables: Option<&'a Tables>,
    /// A game end scores its exact final value
    /// ([`score::exact_at`](super::score::exact_at)), not a bare result: in games scored by
    /// points, or with tables.
    pub(super) exact_ends: bool,
    /// What a draw scores for each player to move ([`SearchSettings::contempt`]).
    pub(super) draw_score: [i32; 2],
    pub(super) shared: &'a Shared<'a>,
    pub(super) is_main: bool,
    pub(super) start: Instant,
    pub(super) was_pondering: bool,
    pub(super) nodes: u64,
    pub(super) unflushed: u64,
    pub(super) tbhits: u64,
    pub(super) seldepth: usize,
    /// Set when a value below the current node rests on a heuristic leaf.
    pub(super) unresolved: bool,
    pub(super) aborted: bool,
    /// Depth 1 always completes, so there is always a move to play.
    pub(super) can_abort: bool,
    /// With helpers and a single line (`multipv` 1): an iteration another thread has
    /// already completed (or passed) is left at once for a deeper one, so the search is as
    /// deep as its deepest thread and no thread repeats a depth already done. The main
    /// thread takes over the helper's result for the depths it leaves.
    pub(super) follows_others: bool,
    /// The depth of the iteration under way.
    pub(super) iteration: u32,
    /// The iteration under way was left because another thread completed its depth
    /// (a partial abort: the search goes on).
    pub(super) superseded: bool,
    pub(super) has_repetition_rule: bool,
    /// Repetition keys: the game's history, then the current search path.
    pub(super) keys: Vec<u64>,
    /// Where in `keys` the last pass (null move) on the current path is: a repetition
    /// is looked for after it only, as a line through a pass is no real line.
    pub(super) null_floor: usize,
    /// Null moves are tried only from this ply on (raised while a null move's fail-high is
    /// verified, so that the verification does not rest on passes itself).
    pub(super) null_min_ply: usize,
    pub(super) frames: Vec<Frame<G::Move>>,
    /// The evaluation keeps an accumulator ([`NetworkFeatures::accumulates`](crate::game::NetworkFeatures::accumulates)): one a ply, the root's
    /// at 0, each child's updated from its parent's as the move is played (so going back
    /// up needs no undo).
    pub(super) accumulates: bool,
    pub(super) accumulators: Vec<Accumulator>,
    /// Cut-off statistics by player and `Game::history_key`.
    pub(super) history: Vec<i32>,
    pub(super) pv: Vec<Vec<G::Move>>,
    pub(super) root_moves: Vec<RootMove<G::Move>>,
}

/// The deepest iteration a helper thread completed: the main thread reports it, and plays
/// its move when it is deeper than any iteration the main thread completed.
pub(super) struct HelperBest<M> {
    pub(super) depth: u32,
    pub(super) seldepth: usize,
    pub(super) score: i32,
    pub(super) proven: bool,
    pub(super) pv: Vec<M>,
}

impl<M: Clone> HelperBest<M> {
    /// Its `info` line, with the search's counters as they are now.
    fn report(&self, nodes: u64, time: Duration, hashfull: u32, tbhits: u64) -> Report<M> {
        Report {
            depth: self.depth,
            seldepth: self.seldepth.max(1),
            multipv: 1,
            score: self.score,
            nodes,
            time,
            hashfull,
            tbhits,
            pv: self.pv.clone(),
            proven: self.proven,
        }
    }
}

/// The root moves of the iteration under way, shared when the threads split them (one
/// line, several threads): every thread searches the first move, then each claims the next
/// move no thread has claimed, and searches the others' unfinished moves at the end (left
/// as soon as their owner completes them). Each entry holds the iteration it was last set
/// in, so nothing is reset between iterations.
pub(super) struct RootSplit<M> {
    /// By the move's index in the legal-move list: the iteration that claimed it.
    pub(super) claimed: Vec<u32>,
    /// By the same index: the iteration that completed it.
    pub(super) done: Vec<u32>,
    /// The best exact score any thread found in iteration `best_depth`, with its line.
    pub(super) best_depth: u32,
    pub(super) best_score: i32,
    pub(super) best_index: u16,
    pub(super) best_pv: Vec<M>,
    /// The deepest iteration in which a root move's value rested on a heuristic leaf.
    pub(super) unresolved: u32,
}

impl<M> RootSplit<M> {
    fn new(moves: usize) -> Self {
        RootSplit {
            claimed: vec![0; moves],
            done: vec![0; moves],
            best_depth: 0,
            best_score: -INFINITE,
            best_index: 0,
            best_pv: Vec::new(),
            unresolved: 0,
        }
    }

    /// The best score found so far in iteration `depth`.
    pub(super) fn best_at(&self, depth: u32) -> i32 {
        if self.best_depth == depth {
            self.best_score
        } else {
            -INFINITE
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

    /// The reporting thread, in the middle of an iteration deeper than a helper's new
    /// result, reports that result now: a timed search shows each depth as soon as any
    /// thread completes it, not when the reporting thread's own deeper iteration ends.
    pub(super) fn report_helper(&mut self) {
        let Some(info) = self.info.take() else {
            return;
        };
        let report = {
            let best = self
                .helper_best
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            best.as_ref()
                .filter(|h| h.depth > self.reported && !h.pv.is_empty())
                .map(|h| {
                    h.report(
                        self.total_nodes(),
                        self.start.elapsed(),
                        self.tt.hashfull(),
                        self.shared.tbhits.load(Ordering::Relaxed) + self.tbhits,
                    )
                })
        };
        if let Some(report) = report {
            info(&report);
            self.reported = report.depth;
            self.reported_move = report.pv.first().copied();
        }
        self.info = Some(info);
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

    #[inline]
    pub(super) fn count_node(&mut self) {
        self.nodes += 1;
        self.unflushed += 1;
    }

    pub(super) fn flush_nodes(&mut self) {
        self.shared
            .nodes
            .fetch_add(self.unflushed, Ordering::Relaxed);
        self.shared.tbhits.fetch_add(self.tbhits, Ordering::Relaxed);
        self.unflushed = 0;
        self.tbhits = 0;
    }

    pub(super) fn total_nodes(&self) -> u64 {
        self.shared.nodes.load(Ordering::Relaxed) + self.unflushed
    }
}
