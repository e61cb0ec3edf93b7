//! Iterative-deepening principal-variation search over any [`Game`].
//!
//! Negamax with alpha-beta and a shared transposition table. The search knows no rules: a
//! move that leaves the same player to move (an extra move) keeps the score's sign and the
//! window as they are; only a change of player negates them. Scores are exact when the game
//! ends inside the tree (its final margin, `score::exact_at`, in games scored by points; a
//! bare result, `score::terminal`, in games won or lost), and the search tracks whether a
//! result rests on any heuristic leaf: a root result that does not is *proven* and ends the
//! search early.
//!
//! Several threads share the table; the first thread reports and decides. With one line
//! (`multipv` 1) the threads work on one depth and split its root moves after the first
//! ([`RootSplit`]), or, in a game whose first root move holds nearly all the work
//! ([`Game::threads_split_root_moves`]), spread over the next depths (at most half of them
//! on any one depth). Either way an iteration another thread has completed is left at once
//! for a deeper one, and the first thread reports a helper's deeper result as soon as it
//! exists (from inside its own iteration) and plays it unless it completes a deeper one
//! itself: the search is as deep as its deepest thread, so `info depth` may step by more
//! than one.

pub mod limits;
pub mod score;
pub mod tt;
pub mod value;

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

use crate::game::{Accumulator, Game, GameResult, HISTORY_KEYS, Horizon, Player, QUIESCENCE_PLIES};
use crate::tables::Tables;
use limits::{Limits, TimeBudget};
use score::{INFINITE, MATE_BOUND, MAX_PLY};
use tt::{Bound, TranspositionTable};

/// The deepest iteration the search will start.
pub const MAX_DEPTH: u32 = 200;

/// Flags shared between the protocol thread and a running search. They change only through
/// [`SearchControl::request_stop`] and [`SearchControl::ponderhit`], which also wake whoever
/// waits in [`SearchControl::wait_for_stop`]: a finished `go infinite` answers the moment
/// `stop` arrives instead of at the next poll.
#[derive(Debug, Default)]
pub struct SearchControl {
    /// Set by `stop` (or `quit`): finish now and report the best move found.
    stop: AtomicBool,
    /// True while a `go ponder` search waits for `ponderhit`.
    pondering: AtomicBool,
    /// Held by a waiter from its look at the flags until it sleeps, and by a setter while it
    /// wakes the waiters, so that no change falls between the look and the sleep.
    lock: Mutex<()>,
    changed: Condvar,
}

impl SearchControl {
    pub fn new(pondering: bool) -> SearchControl {
        SearchControl {
            pondering: AtomicBool::new(pondering),
            ..SearchControl::default()
        }
    }

    /// `stop` (or `quit`): end the search now; a pondering search stops pondering too.
    pub fn request_stop(&self) {
        self.pondering.store(false, Ordering::Relaxed);
        self.stop.store(true, Ordering::Relaxed);
        self.wake();
    }

    /// `ponderhit`: the pondering search becomes an ordinary one, timed from now.
    pub fn ponderhit(&self) {
        self.pondering.store(false, Ordering::Relaxed);
        self.wake();
    }

    pub fn is_stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    pub fn is_pondering(&self) -> bool {
        self.pondering.load(Ordering::Relaxed)
    }

    /// The stop flag itself, for the jobs that take one (perft, the solver), which only read
    /// it: setting it goes through [`SearchControl::request_stop`].
    pub fn stop_flag(&self) -> &AtomicBool {
        &self.stop
    }

    /// A search that has its answer waits here before it gives it: `go infinite`, `go` with
    /// no limit for `player` (see [`Limits::is_unlimited_for`]) and `go ponder` answer only
    /// after `stop`, or for `go ponder` with limits after `ponderhit` (protocol.md, `stop`
    /// and `ponderhit`). Returns at once when neither applies.
    pub fn wait_for_stop(&self, limits: &Limits, player: Player) {
        let open_ended = limits.infinite || limits.is_unlimited_for(player);
        // A poisoned lock guards no data (`()`): go on with it.
        let mut guard = self.lock.lock().unwrap_or_else(PoisonError::into_inner);
        while !self.is_stopped() && (open_ended || self.is_pondering()) {
            guard = self
                .changed
                .wait(guard)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }

    /// Wake the waiters after a flag changed (the flag is stored before the lock is taken,
    /// so a waiter either sees it or is already asleep and hears this).
    fn wake(&self) {
        let _guard = self.lock.lock().unwrap_or_else(PoisonError::into_inner);
        self.changed.notify_all();
    }
}

/// Engine settings that shape a search (from `setoption`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SearchSettings {
    pub threads: usize,
    pub multipv: usize,
    /// Milliseconds kept back from every time budget for communication delays.
    pub move_overhead: u64,
    /// What a draw is worth to the side the search is for, below zero (in evaluation
    /// units, 100 = one point): with a positive contempt the engine prefers a playable
    /// position a little worse than level to a draw by repetition or by the rules. Only in
    /// games scored as won, drawn or lost, and without tables (elsewhere an end's value is
    /// exact).
    pub contempt: i32,
}

impl Default for SearchSettings {
    fn default() -> Self {
        SearchSettings {
            threads: 1,
            multipv: 1,
            move_overhead: 30,
            contempt: 0,
        }
    }
}

/// What a search found.
#[derive(Debug, Clone)]
pub struct SearchResult<M> {
    /// `None` only when the root has no legal move.
    pub best: Option<M>,
    /// The expected reply (second move of the principal variation).
    pub ponder: Option<M>,
    pub score: i32,
    pub depth: u32,
    pub nodes: u64,
    pub tbhits: u64,
    /// The score is the game's value (no heuristic leaf below it).
    pub proven: bool,
}

/// One `info` line's content, before it is written out.
#[derive(Debug, Clone)]
pub struct Report<M> {
    pub depth: u32,
    pub seldepth: usize,
    pub multipv: usize,
    pub score: i32,
    pub nodes: u64,
    pub time: Duration,
    pub hashfull: u32,
    pub tbhits: u64,
    pub pv: Vec<M>,
    /// The iteration rests on no heuristic leaf (or found a mate): an exact value is the
    /// game's value, not only a bound on it (see [`SearchResult::proven`]).
    pub proven: bool,
}

struct Shared<'a> {
    control: &'a SearchControl,
    /// Set by the main thread to end the helpers (time up, limits reached).
    done: AtomicBool,
    nodes: AtomicU64,
    tbhits: AtomicU64,
    /// The deepest iteration any thread has completed. A thread whose current iteration is
    /// no deeper leaves it for the next one (see [`Worker::follows_others`]).
    deepest: AtomicU32,
    /// How many threads search each depth now.
    searching: Vec<AtomicU32>,
    threads: usize,
    node_limit: Option<u64>,
    budget: TimeBudget,
}

#[derive(Clone)]
struct RootMove<M> {
    mv: M,
    /// Index in the root's legal-move list (what the transposition table stores).
    index: u16,
    score: i32,
    previous_score: i32,
    pv: Vec<M>,
}

struct Frame<M> {
    moves: Vec<M>,
    /// (ordering key, index in `moves`); the key's high half is the game's hint.
    order: Vec<(i64, u16)>,
    killer: Option<M>,
    /// The move played at this ply is a pass (null move): the next ply may not pass.
    passed: bool,
}

/// The largest contempt, in evaluation units: five points, far from any decided score.
pub const MAX_CONTEMPT: i32 = 500;

// Issue 49's candidates were each built and measured alone, in every game
// (docs/strength.md, commands I, J, M and N). What won its SPRT at equal time in a game is
// asked of that game: null-move pruning (`Game::null_move`, Afrika), late-move and futility
// pruning (`Game::prunes_late_moves`, Kalah), and late-move reductions by the order alone
// where a game's hint only ranks moves (`Game::hint_ranks_quiet_moves`, Afrika). Internal
// iterative reductions, singular and one-reply extensions, rejected at equal time in
// Fanorona, were removed (their code: 72dd84a), and so were aspiration windows, reductions
// from a log table and counter moves, which won no SPRT in any game, and a clock that
// follows the best move's stability, rejected with clocks in Fanorona (their code: 0d9bfcb).

/// Null-move pruning ([`Game::null_move`]) from this depth left on.
const NULL_MIN_DEPTH: u32 = 3;
/// From this depth left on a null move's fail-high is checked by a shallower search of the
/// node without passes near it (zugzwang-like positions where a pass would be best).
const NULL_VERIFY_DEPTH: u32 = 12;

/// History scores stay within ±HISTORY_MAX (the "gravity" update below).
const HISTORY_MAX: i32 = 1 << 14;

/// The ordering hint that puts the table's move first, above any game's hint.
const TABLE_MOVE_HINT: i32 = i32::MAX;
/// The ordering hint that puts the killer second.
const KILLER_HINT: i32 = i32::MAX - 1;

/// The deepest iteration a helper thread completed: the main thread reports it, and plays
/// its move when it is deeper than any iteration the main thread completed.
struct HelperBest<M> {
    depth: u32,
    seldepth: usize,
    score: i32,
    proven: bool,
    pv: Vec<M>,
}

/// The root moves of the iteration under way, shared when the threads split them (one
/// line, several threads): every thread searches the first move, then each claims the next
/// move no thread has claimed, and searches the others' unfinished moves at the end (left
/// as soon as their owner completes them). Each entry holds the iteration it was last set
/// in, so nothing is reset between iterations.
struct RootSplit<M> {
    /// By the move's index in the legal-move list: the iteration that claimed it.
    claimed: Vec<u32>,
    /// By the same index: the iteration that completed it.
    done: Vec<u32>,
    /// The best exact score any thread found in iteration `best_depth`, with its line.
    best_depth: u32,
    best_score: i32,
    best_index: u16,
    best_pv: Vec<M>,
    /// The deepest iteration in which a root move's value rested on a heuristic leaf.
    unresolved: u32,
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
    fn best_at(&self, depth: u32) -> i32 {
        if self.best_depth == depth {
            self.best_score
        } else {
            -INFINITE
        }
    }
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

/// Bring the move with the highest key among `order[k..]` to `k`: one step of a selection
/// sort. Cut-offs usually come early, so sorting the whole list would be waste.
#[inline]
fn select_next(order: &mut [(i64, u16)], k: usize) {
    let mut pick = k;
    for j in k + 1..order.len() {
        if order[j].0 > order[pick].0 {
            pick = j;
        }
    }
    order.swap(k, pick);
}

/// Where `info` reports go (the caller's writer).
type InfoSink<'i, M> = &'i mut (dyn FnMut(&Report<M>) + 'i);

struct Worker<'a, 'i, G: Game> {
    game: &'a G,
    /// Where the reporting thread (the main one) sends its `info` reports; `None` for the
    /// helpers.
    info: Option<InfoSink<'i, G::Move>>,
    /// The deepest iteration reported so far (its own or a helper's), and its first move.
    reported: u32,
    reported_move: Option<G::Move>,
    /// 0 for the main thread, 1.. for the helpers.
    id: usize,
    /// Where helpers leave their deepest completed iteration.
    helper_best: &'a Mutex<Option<HelperBest<G::Move>>>,
    /// The root moves the threads split ([`RootSplit`]); used when `splits_root`.
    root_split: &'a Mutex<RootSplit<G::Move>>,
    splits_root: bool,
    /// The root move (legal-move index) this thread searches although another thread
    /// claimed it: left as soon as that thread completes it.
    helping_root: Option<u16>,
    /// The search under `helping_root` was left because its owner completed it.
    root_move_taken: bool,
    tt: &'a TranspositionTable,
    /// Endgame tables: a covered position is an exact leaf.
    tables: Option<&'a Tables>,
    /// A game end scores its exact final value ([`score::exact_at`]), not a bare result:
    /// in games scored by points, or with tables.
    exact_ends: bool,
    /// What a draw scores for each player to move ([`SearchSettings::contempt`]).
    draw_score: [i32; 2],
    shared: &'a Shared<'a>,
    is_main: bool,
    start: Instant,
    was_pondering: bool,
    nodes: u64,
    unflushed: u64,
    tbhits: u64,
    seldepth: usize,
    /// Set when a value below the current node rests on a heuristic leaf.
    unresolved: bool,
    aborted: bool,
    /// Depth 1 always completes, so there is always a move to play.
    can_abort: bool,
    /// With helpers and a single line (`multipv` 1): an iteration another thread has
    /// already completed (or passed) is left at once for a deeper one, so the search is as
    /// deep as its deepest thread and no thread repeats a depth already done. The main
    /// thread takes over the helper's result for the depths it leaves.
    follows_others: bool,
    /// The depth of the iteration under way.
    iteration: u32,
    /// The iteration under way was left because another thread completed its depth
    /// (a partial abort: the search goes on).
    superseded: bool,
    has_repetition_rule: bool,
    /// Repetition keys: the game's history, then the current search path.
    keys: Vec<u64>,
    /// Where in `keys` the last pass (null move) on the current path is: a repetition
    /// is looked for after it only, as a line through a pass is no real line.
    null_floor: usize,
    /// Null moves are tried only from this ply on (raised while a null move's fail-high is
    /// verified, so that the verification does not rest on passes itself).
    null_min_ply: usize,
    frames: Vec<Frame<G::Move>>,
    /// The evaluation keeps an accumulator ([`Game::accumulates`]): one a ply, the root's
    /// at 0, each child's updated from its parent's as the move is played (so going back
    /// up needs no undo).
    accumulates: bool,
    accumulators: Vec<Accumulator>,
    /// Cut-off statistics by player and `Game::history_key`.
    history: Vec<i32>,
    pv: Vec<Vec<G::Move>>,
    root_moves: Vec<RootMove<G::Move>>,
}

/// Search `root` until a limit or `control.stop`; `info` receives a report after every
/// completed iteration (main thread only). `history` holds the repetition keys of the game
/// from its start up to and including `root`. In games scored by points (not
/// [`Game::win_draw_loss`]), and in any game with `tables`, game ends and covered positions
/// score their exact final value ([`score::exact_at`]), so that proven lines are told apart
/// by their margin, not only won or lost.
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

#[derive(Clone, Copy)]
struct IterationOutcome {
    depth: u32,
    proven: bool,
}

impl<G: Game> Worker<'_, '_, G> {
    fn iterate(
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

    /// The next iteration for this thread after `passed`, `None` past `max_depth`.
    /// Alone (or with several lines), the next depth, minus the depths a helper skips.
    /// Following the others, the first depth deeper than any completed iteration that
    /// fewer than half the threads are searching: the threads spread over the next depths
    /// instead of walking the same tree in the same order, and none repeats a depth done.
    fn next_depth(&self, passed: u32, max_depth: u32) -> Option<u32> {
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

    /// The main thread takes over the deepest helper result when it reaches `depth`: its
    /// move goes first with the helper's score and line. `None` if no helper got there.
    fn take_over_helper(&mut self, depth: u32) -> Option<IterationOutcome> {
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
    fn report_helper(&mut self) {
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
    fn offer_result(&self, depth: u32, proven: bool) {
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

    /// After splitting the root: the best move any thread found in this iteration becomes
    /// this thread's best (`best`, its place in `root_moves`), and a heuristic leaf under
    /// another thread's moves makes this iteration's value unproven.
    fn adopt_split_best(&mut self, depth: u32, best: &mut usize) {
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
    fn child(
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
    fn play(&mut self, pos: &G::Position, mv: G::Move, ply: usize) -> G::Position {
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

    /// [`Game::evaluate_at_horizon`] of `pos` at `ply`, with its accumulator when the
    /// evaluation keeps one.
    #[inline]
    fn evaluate_at_horizon(&self, pos: &G::Position, ply: usize) -> (i32, Horizon) {
        if self.accumulates {
            self.game.evaluate_accumulated(pos, &self.accumulators[ply])
        } else {
            self.game.evaluate_at_horizon(pos)
        }
    }

    /// The search past the horizon ([`Game::evaluate_at_horizon`]): the evaluation is the
    /// mover's floor (stand pat); a position with forcing moves at hand is then searched
    /// over them (all its moves when [`Horizon::Forced`], those [`Game::is_forcing`] names
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

        // Near the leaves, outside the PV, late quiet moves are pruned (see below); the
        // static evaluation they are measured against is taken when the first is reached.
        let shallow =
            game.prunes_late_moves() && !pv_node && depth <= 3 && !score::is_decided(alpha);
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
                && (k >= 3 + (depth * depth) as usize
                    || *static_eval
                        .get_or_insert_with(|| score::clamp_eval(self.evaluate(pos, ply)))
                        + 150 * depth as i32
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
                let reduction = if reducible && k >= 3 && depth >= 3 {
                    if k >= 6 && depth >= 6 { 2 } else { 1 }
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
    /// ([`Game::null_move`]), the opponent moves twice in a row in a shallower null-window
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
        let reduction = 3 + depth / 3 + ((eval - beta) / 200).clamp(0, 2) as u32;
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
            self.null_min_ply = ply + 3 * reduced as usize / 4 + 1;
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

    /// History update after the quiet move `tried.last()` caused a cut-off: it gains, the
    /// quiet moves tried before it lose, each by depth², scaled so scores stay bounded.
    fn reward_cutoff(
        &mut self,
        pos: &G::Position,
        moves: &[G::Move],
        tried: &[(i64, u16)],
        base: usize,
        depth: u32,
    ) {
        let bonus = (depth * depth).min(400) as i32;
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

    #[inline]
    fn push_key(&mut self, pos: &G::Position) {
        if self.has_repetition_rule {
            self.keys.push(self.game.repetition_key(pos));
        }
    }

    #[inline]
    fn pop_key(&mut self) {
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

    #[inline]
    fn count_node(&mut self) {
        self.nodes += 1;
        self.unflushed += 1;
    }

    fn flush_nodes(&mut self) {
        self.shared
            .nodes
            .fetch_add(self.unflushed, Ordering::Relaxed);
        self.shared.tbhits.fetch_add(self.tbhits, Ordering::Relaxed);
        self.unflushed = 0;
        self.tbhits = 0;
    }

    fn total_nodes(&self) -> u64 {
        self.shared.nodes.load(Ordering::Relaxed) + self.unflushed
    }

    fn pondering(&mut self) -> bool {
        if self.was_pondering && !self.shared.control.pondering.load(Ordering::Relaxed) {
            // ponderhit: our clock starts now.
            self.was_pondering = false;
            self.start = Instant::now();
        }
        self.was_pondering
    }

    fn should_abort(&mut self) -> bool {
        if !self.can_abort {
            return false;
        }
        // `stop` is read at every node (a read-mostly flag): a node can be slow (a page of a
        // fresh hash table faulted in), and `stop` must answer within milliseconds.
        if self.shared.control.stop.load(Ordering::Relaxed) {
            return true;
        }
        if let Some(limit) = self.shared.node_limit
            && self.total_nodes() >= limit
        {
            self.shared.done.store(true, Ordering::Relaxed);
            return true;
        }
        if self.unflushed < 1024 {
            // The deadline is looked at every 64 nodes, not only at each flush: a node can
            // take a page fault (a table whose pages are still arriving), and 1024 such
            // nodes took 2-4 times a move's time (40-90 ms when told to move at once).
            return self.unflushed.is_multiple_of(64) && self.past_deadline();
        }
        self.flush_nodes();
        if self.shared.control.stop.load(Ordering::Relaxed)
            || self.shared.done.load(Ordering::Relaxed)
        {
            return true;
        }
        if let Some(index) = self.helping_root
            && self
                .root_split
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .done[usize::from(index)]
                >= self.iteration
        {
            self.root_move_taken = true;
            return true;
        }
        if self.follows_others {
            let deepest = self.shared.deepest.load(Ordering::Relaxed);
            if deepest >= self.iteration {
                self.superseded = true;
                return true;
            }
            // Reported here, where the flush already looks at the other threads, so that
            // a helper's depth is shown within 1024 nodes of its completion.
            if deepest > self.reported && self.info.is_some() {
                self.report_helper();
            }
        }
        self.past_deadline()
    }

    /// The main thread past the hard limit: the search is over for every thread.
    fn past_deadline(&mut self) -> bool {
        if self.is_main
            && !self.pondering()
            && let Some(hard) = self.shared.budget.hard
            && self.start.elapsed() >= hard
        {
            self.shared.done.store(true, Ordering::Relaxed);
            return true;
        }
        false
    }
}
