//! The exact solver: the final margin of a position with perfect play, proven.
//!
//! MTD(f) over null-window tests "is the final value at least β?" on the exact value (the
//! mover's final margin, in half-points; [`ExactValues::final_value`](crate::game::ExactValues::final_value)). What the game
//! tells it makes the search small:
//! - **banked points** ([`ExactValues::banked_value`](crate::game::ExactValues::banked_value)): stores and captures are already decided, so
//!   the transposition table ([`tt::SolverTt`]) is keyed on the rest of the position
//!   alone ([`ExactValues::exact_key`](crate::game::ExactValues::exact_key), mirrored to the mover's view) and holds bounds on
//!   `final − banked`, shared by every store content;
//! - **what is at stake** ([`ExactValues::value_range`](crate::game::ExactValues::value_range)): the final value lies within banked ±
//!   stake, narrowed by what each player is sure to bank (in Kalah a pit that reaches the
//!   store, a capture at hand), which decides many tests without a move (exact futility
//!   bounds);
//! - **endgame tables** ([`crate::tables::Tables`]): a covered position is an exact leaf.
//!
//! Iterative deepening comes first: MTD(f) at growing depths with the game's evaluation at
//! the horizon gives the table good moves to try first and the exact search a good first
//! guess; a bound that never met the horizon is proven all the same and kept as such. Then
//! MTD(f) without a horizon proves the value. Every child of a node is peeked at before any is
//! searched (game end, stake bounds, tables, transposition table: enhanced transposition
//! cutoffs and more); the rest are searched table move first, then moves that keep the turn,
//! then by the points the move banks, the game's hint and its [`SearchHints::proof_order`](crate::game::SearchHints::proof_order).
//! Threads share the table (Lazy SMP): all work on the current test, helpers in a perturbed
//! move order; the first to finish a test moves everyone to the next.
//!
//! Nothing here knows a rule. Games with a repetition rule are refused: their values depend
//! on the history of the game, not on the position alone — except games whose values are
//! only wins, draws and losses ([`ExactValues::win_draw_loss`](crate::game::ExactValues::win_draw_loss), e.g. Fanorona): every function here
//! hands them to the proof-number solver ([`pn`]), which proves their values whatever the
//! repetition rule (for a position without earlier occurrences; see there why).

pub mod frontier;
pub mod frontier_parts;
pub mod parts;
pub mod pn;
pub mod proof_tt;
pub mod save;
pub mod tt;

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use thiserror::Error;

use crate::game::Game;
use crate::tables::Tables;
use tt::{PROVEN, SolverTt};

/// Why the solver cannot start: a game it cannot prove, or a table it cannot have.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SolverError {
    #[error(
        "{spec} has a repetition rule: values depend on the game's history, not on the \
         position alone (solve it with repetition=off)"
    )]
    RepetitionRule { spec: String },
    /// `cause`: the memory mapping's refusal (its text, as [`crate::memory`] gives it).
    #[error("cannot allocate {megabytes} MB for the solver's table: {cause}")]
    TableMemory { megabytes: usize, cause: String },
}

/// Values beyond any game's stake: "unbounded".
const UNBOUNDED: i32 = 1 << 24;

/// Is `bound` (a `lower` or `upper` of [`Progress`] or [`Solution`]) a real bound, not the
/// solver's stand-in for "nothing proven yet" (a game that cannot say what is at stake
/// starts from ± a huge sentinel, which must never be shown as a value)?
pub fn is_known(bound: i32) -> bool {
    bound.abs() < UNBOUNDED / 2
}
/// Iterative deepening: the first depth, the step, and the last depth before the search
/// without a horizon.
const FIRST_DEPTH: u8 = 2;
const DEPTH_STEP: u8 = 2;
const LAST_DEPTH: u8 = 16;
/// Results that took fewer nodes than this are not worth a table entry (they would push
/// out costlier ones, and are found again at once).
const STORE_MIN_WORK: u64 = 8;

/// The proven bounds on the root's value so far, for progress reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    /// `lower ≤ value ≤ upper`, half-points from the mover's view.
    pub lower: i32,
    pub upper: i32,
    /// The root move that proved the lower bound, as an index in the legal-move list.
    pub best: Option<usize>,
    pub nodes: u64,
    pub tbhits: u64,
    pub elapsed: Duration,
}

impl Progress {
    pub fn is_exact(&self) -> bool {
        self.lower == self.upper
    }
}

/// What a solve found.
#[derive(Debug, Clone)]
pub struct Solution<M> {
    /// Exact when `lower == upper` (a stopped solve keeps what it had proven).
    pub lower: i32,
    pub upper: i32,
    pub best: Option<M>,
    /// A line of perfect play to the end of the game (exact solves only).
    pub pv: Vec<M>,
    pub nodes: u64,
    pub tbhits: u64,
    pub elapsed: Duration,
    /// Search threads that ran (fewer than asked when the system refused to start some).
    pub threads: usize,
}

/// How to solve.
pub struct SolveSettings<'a> {
    pub threads: usize,
    pub tables: Option<&'a Tables>,
    /// A first guess of the value (half-points), e.g. from a heuristic search.
    pub guess: Option<i32>,
    /// Follow perfect play to the end of the game once the value is known.
    pub want_pv: bool,
    /// Give up (with the bounds proven so far) after this many nodes or at this moment.
    pub node_limit: Option<u64>,
    pub deadline: Option<Instant>,
}

/// Can `game` be solved exactly from positions alone?
pub fn supported<G: Game>(game: &G) -> Result<(), SolverError> {
    if game.win_draw_loss() {
        return Ok(());
    }
    if game.repetition_limit().is_some() {
        return Err(SolverError::RepetitionRule { spec: game.spec() });
    }
    Ok(())
}

/// The exact value of `root`. `report` hears of every improvement of the bounds (from any
/// thread); `stop` ends the solve with the bounds proven so far.
pub fn solve<G: Game>(
    game: &G,
    root: &G::Position,
    tt: &SolverTt,
    settings: &SolveSettings,
    stop: &AtomicBool,
    report: &(dyn Fn(&Progress) + Sync),
) -> Solution<G::Move> {
    solve_restricted(game, root, &[], tt, settings, stop, report)
}

/// [`solve`], the root restricted to some of its moves. With `only` not empty, the root may play only those of its legal moves (`go solve
/// searchmoves`): the value is then the best the mover can reach with one of them, and the
/// best move is one of them. That value is not the position's, so it never enters the
/// table (the root's entry is neither read nor written; everything below the root is).
pub fn solve_restricted<G: Game>(
    game: &G,
    root: &G::Position,
    only: &[G::Move],
    tt: &SolverTt,
    settings: &SolveSettings,
    stop: &AtomicBool,
    report: &(dyn Fn(&Progress) + Sync),
) -> Solution<G::Move> {
    if game.win_draw_loss() {
        return match tt.pn() {
            Ok(pn_tt) => {
                pn::solve_restricted(game, root, only, pn_tt, settings, stop, report, None)
            }
            Err(e) => {
                log::error!("solve: {e}");
                nothing_proven(pn::LOSS, pn::WIN)
            }
        };
    }
    let started = Instant::now();
    let mut legal = Vec::new();
    game.legal_moves(root, &mut legal);
    let only: Vec<G::Move> = only.iter().copied().filter(|m| legal.contains(m)).collect();
    let only = only.as_slice();
    let banked = game.banked_value(root);
    let (lower, upper) = value_range(game, root);
    let (lower, upper) = (banked + lower, banked + upper);
    let shared = Shared {
        state: Mutex::new(MtdState {
            depth: FIRST_DEPTH,
            lower,
            upper,
            guess: settings.guess.unwrap_or(banked).clamp(lower, upper),
            proven_lower: lower,
            proven_upper: upper,
            best: None,
            base: lower,
            step: game.value_step().max(1),
        }),
        test: AtomicU64::new(0),
        nodes: AtomicU64::new(0),
        tbhits: AtomicU64::new(0),
        stop,
        started,
        exhausted: AtomicBool::new(false),
        budgeted: AtomicBool::new(true),
        node_limit: settings.node_limit,
        deadline: settings.deadline,
        busy: (0..if settings.threads > 1 { BUSY_SLOTS } else { 0 })
            .map(|_| AtomicU64::new(0))
            .collect(),
        threads: settings.threads.max(1),
        busy_min_stake: 2 * (settings.tables.map_or(0, |t| t.max_layer() as i32) + 4),
    };
    if let Some(outcome) = game.outcome(root) {
        let value = game.final_value(&outcome, game.to_move(root));
        return Solution {
            lower: value,
            upper: value,
            best: None,
            pv: Vec::new(),
            nodes: 0,
            tbhits: 0,
            elapsed: started.elapsed(),
            threads: 1,
        };
    }
    let mut threads = 1;
    std::thread::scope(|scope| {
        for id in 1..settings.threads.max(1) {
            let shared = &shared;
            let legal = &legal;
            // A thread the system refuses (`ulimit -u`, no memory) is a helper less, not a
            // failure: the solve goes on with the threads it has.
            let spawned = std::thread::Builder::new()
                .name(format!("solve-{id}"))
                .spawn_scoped(scope, move || {
                    let mut searcher =
                        Searcher::new(game, tt, settings.tables, shared, id as u64, only);
                    searcher.run_mtd(root, legal, report);
                });
            match spawned {
                Ok(_) => threads += 1,
                Err(e) => {
                    log::warn!(
                        "solve: cannot start search thread {} of {}: {e}; solving with {threads}",
                        id + 1,
                        settings.threads
                    );
                    break;
                }
            }
        }
        let mut searcher = Searcher::new(game, tt, settings.tables, &shared, 0, only);
        searcher.run_mtd(root, &legal, report);
        // The first thread to finish the last test ends the others (`test` moved on).
    });
    let state = *lock(&shared.state);
    let mut solution = Solution {
        lower: state.proven_lower,
        upper: state.proven_upper,
        best: state.best.and_then(|i| legal.get(i).copied()),
        pv: Vec::new(),
        nodes: shared.nodes.load(Ordering::Relaxed),
        tbhits: shared.tbhits.load(Ordering::Relaxed),
        elapsed: started.elapsed(),
        threads,
    };
    if state.solved() && !stop.load(Ordering::Relaxed) {
        // The line and the best move are cheap once the value is known: no budget for them.
        shared.budgeted.store(false, Ordering::Relaxed);
        let mut searcher = Searcher::new(game, tt, settings.tables, &shared, 0, only);
        if settings.want_pv
            && let Some(pv) = searcher.perfect_line(root, state.proven_lower)
        {
            solution.best = pv.first().copied().or(solution.best);
            solution.pv = pv;
        }
        if solution.best.is_none() {
            solution.best = searcher.perfect_move(root, state.proven_lower, only);
        }
        searcher.flush();
        solution.nodes = shared.nodes.load(Ordering::Relaxed);
        solution.tbhits = shared.tbhits.load(Ordering::Relaxed);
        solution.elapsed = started.elapsed();
    }
    solution
}

/// The exact values of the legal moves of a position, and what proving them cost.
#[derive(Debug, Clone)]
pub struct MoveValues<M> {
    /// In move-generation order; `None` when stopped before the move's proof was complete.
    pub moves: Vec<(M, Option<i32>)>,
    pub nodes: u64,
    pub tbhits: u64,
}

/// The exact value of every legal move of `root` (what the mover's final margin is if that
/// move is played and both play perfectly afterwards), in move-generation order; with
/// `only` not empty, of those of its legal moves only (a proof split by first move).
pub fn solve_moves<G: Game>(
    game: &G,
    root: &G::Position,
    only: &[G::Move],
    tt: &SolverTt,
    settings: &SolveSettings,
    stop: &AtomicBool,
) -> MoveValues<G::Move> {
    if game.win_draw_loss() {
        return match tt.pn() {
            Ok(pn_tt) => pn::solve_moves(game, root, only, pn_tt, settings, stop, None),
            Err(e) => {
                log::error!("solve: {e}");
                MoveValues {
                    moves: Vec::new(),
                    nodes: 0,
                    tbhits: 0,
                }
            }
        };
    }
    each_move(game, root, only, settings, |child, child_settings| {
        solve(game, child, tt, child_settings, stop, &|_| {})
    })
}

/// The value of every legal move of `root` by `solve_child` (a solver run on the position
/// after the move, with `settings` less the guess and the line), in move-generation order:
/// the loop every solver's `solve_moves` shares. With `only` not empty, only those of the
/// legal moves.
pub fn each_move<G: Game>(
    game: &G,
    root: &G::Position,
    only: &[G::Move],
    settings: &SolveSettings,
    mut solve_child: impl FnMut(&G::Position, &SolveSettings) -> Solution<G::Move>,
) -> MoveValues<G::Move> {
    let mut legal = Vec::new();
    game.legal_moves(root, &mut legal);
    if !only.is_empty() {
        legal.retain(|mv| only.contains(mv));
    }
    let mover = game.to_move(root);
    let child_settings = SolveSettings {
        threads: settings.threads,
        tables: settings.tables,
        guess: None,
        want_pv: false,
        node_limit: settings.node_limit,
        deadline: settings.deadline,
    };
    let mut values = MoveValues {
        moves: Vec::with_capacity(legal.len()),
        nodes: 0,
        tbhits: 0,
    };
    for &mv in &legal {
        let mut child = root.clone();
        game.play(&mut child, mv);
        let same = game.to_move(&child) == mover;
        let solution = solve_child(&child, &child_settings);
        let value = (solution.lower == solution.upper).then_some(if same {
            solution.lower
        } else {
            -solution.lower
        });
        values.moves.push((mv, value));
        values.nodes += solution.nodes;
        values.tbhits += solution.tbhits;
    }
    values
}

/// A solve that could not start: only the bounds every position has.
fn nothing_proven<M>(lower: i32, upper: i32) -> Solution<M> {
    Solution {
        lower,
        upper,
        best: None,
        pv: Vec::new(),
        nodes: 0,
        tbhits: 0,
        elapsed: Duration::ZERO,
        threads: 1,
    }
}

#[derive(Clone, Copy)]
struct MtdState {
    /// The current iteration's depth ([`PROVEN`]: no horizon).
    depth: u8,
    /// Bounds of the current iteration (heuristic while it has a horizon).
    lower: i32,
    upper: i32,
    guess: i32,
    /// Proven bounds, whatever iteration proved them.
    proven_lower: i32,
    proven_upper: i32,
    best: Option<usize>,
    /// Values lie on `base + k × step` ([`ExactValues::value_step`](crate::game::ExactValues::value_step)).
    base: i32,
    step: i32,
}

impl MtdState {
    /// The next null window: just above the guess, inside the bounds, on the grid of
    /// possible values.
    fn beta(&self) -> i32 {
        let beta = if self.guess <= self.lower {
            self.lower + 1
        } else {
            self.guess.min(self.upper)
        };
        grid_up(beta, self.base, self.step).min(self.upper)
    }

    fn solved(&self) -> bool {
        self.proven_lower >= self.proven_upper
    }

    /// Take in a finished test at `beta`; move to the next depth when this one converged.
    fn update(&mut self, beta: i32, value: i32, proven: bool, best: Option<usize>) {
        if value >= beta {
            self.lower = value;
            if proven {
                self.proven_lower = self.proven_lower.max(value);
            }
            if best.is_some() {
                self.best = best;
            }
        } else {
            self.upper = value;
            if proven {
                self.proven_upper = self.proven_upper.min(value);
            }
        }
        self.guess = value;
        if self.solved() {
            self.lower = self.proven_lower;
            self.upper = self.proven_lower;
            self.proven_upper = self.proven_lower;
            return;
        }
        if self.lower >= self.upper {
            self.depth = match self.depth {
                PROVEN => PROVEN,
                d if d >= LAST_DEPTH => PROVEN,
                d => d + DEPTH_STEP,
            };
            self.lower = self.proven_lower;
            self.upper = self.proven_upper;
        }
    }
}

struct Shared<'a> {
    state: Mutex<MtdState>,
    /// Counts finished tests; a search for an older test gives up.
    test: AtomicU64,
    nodes: AtomicU64,
    tbhits: AtomicU64,
    stop: &'a AtomicBool,
    started: Instant,
    /// Raised when the node limit or the deadline is reached: everyone stops.
    exhausted: AtomicBool,
    /// The node limit and deadline apply (not to the line followed once the value is known).
    budgeted: AtomicBool,
    node_limit: Option<u64>,
    deadline: Option<Instant>,
    /// Positions some thread is searching now (ABDADA): the others search their siblings
    /// first and come back to them once done, so that threads split the work of nodes
    /// where every move must be searched instead of repeating it.
    busy: Vec<AtomicU64>,
    threads: usize,
    /// Mark positions with at least this much at stake (smaller ones finish too fast).
    busy_min_stake: i32,
}

const BUSY_SLOTS: usize = 1 << 16;

impl Shared<'_> {
    /// Must every search give up now (stop, node limit, deadline)?
    fn must_stop(&self) -> bool {
        if self.stop.load(Ordering::Relaxed) {
            return true;
        }
        if !self.budgeted.load(Ordering::Relaxed) {
            return false;
        }
        if self.exhausted.load(Ordering::Relaxed) {
            return true;
        }
        let over = self
            .node_limit
            .is_some_and(|limit| self.nodes.load(Ordering::Relaxed) >= limit)
            || self.deadline.is_some_and(|d| Instant::now() >= d);
        if over {
            self.exhausted.store(true, Ordering::Relaxed);
        }
        over
    }

    #[inline]
    fn busy_slot(&self, key: u64) -> &AtomicU64 {
        let index = (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 48) as usize % BUSY_SLOTS;
        &self.busy[index]
    }

    #[inline]
    fn is_busy(&self, key: u64) -> bool {
        self.busy_slot(key).load(Ordering::Relaxed) == key
    }
}

/// The rank of an open child in its parent's move order (higher first), from its keys in
/// order of weight: the mover moves again, the points the move banks (half-points), the
/// game's [`SearchHints::order_hint`](crate::game::SearchHints::order_hint), its [`SearchHints::proof_order`](crate::game::SearchHints::proof_order) of the child (from the parent
/// mover's view), and a helper's noise. Each key is clamped to its own bits, so that a
/// lighter key only ever breaks ties of the heavier ones.
#[inline]
fn move_rank(same: bool, gain: i32, hint: i32, order: i32, noise: u8) -> i64 {
    const GAIN: i64 = 1 << 20;
    const HINT: i64 = 1 << 15;
    let tier = if same { 1i64 << 58 } else { 0 };
    let gain = i64::from(gain).clamp(-GAIN, GAIN - 1);
    let hint = i64::from(hint).clamp(-HINT, HINT - 1);
    let order = i64::from(order).clamp(-HINT, HINT - 1);
    tier + (gain << 36) + (hint << 20) + (order << 4) + i64::from(noise & 0xF)
}

/// [`ExactValues::value_range`](crate::game::ExactValues::value_range), or "unbounded".
#[inline]
fn value_range<G: Game>(game: &G, pos: &G::Position) -> (i32, i32) {
    game.value_range(pos).unwrap_or((-UNBOUNDED, UNBOUNDED))
}

/// The smallest value of the grid `base + k × step` at or above `value`.
fn grid_up(value: i32, base: i32, step: i32) -> i32 {
    base + (value - base + step - 1).div_euclid(step) * step
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

struct Searcher<'a, G: Game> {
    game: &'a G,
    tt: &'a SolverTt,
    tables: Option<&'a Tables>,
    shared: &'a Shared<'a>,
    /// 0 for the main thread; helpers perturb their move order.
    id: u64,
    rng: u64,
    /// The test this search belongs to.
    test: u64,
    aborted: bool,
    /// Set when a value below the current node rests on the horizon (not a proof).
    unresolved: bool,
    nodes: u64,
    unflushed: u64,
    tbhits: u64,
    /// Per ply: the moves and the children left to search.
    plies: Vec<Ply<G>>,
    /// The root's moves when restricted (`go solve searchmoves`); empty: all of them.
    only: &'a [G::Move],
    /// The root move that reached β in the last search of a restricted root (the table
    /// holds no entry for such a root to ask).
    root_best: Option<G::Move>,
    /// Per stake level of a parent: do its children's transposition look-ups pay?
    table_use: Vec<TableUse>,
}

/// What peeking at a position found.
enum Peek {
    /// Its value (or a bound that decides the test).
    Known(i32),
    Open(OpenNode),
}

/// Where a position's entries are: worked out once per child, for the prefetch and the peek.
#[derive(Clone, Copy)]
enum Located {
    Unknown,
    /// Its endgame-table entry ([`TableIndexing::table_index`](crate::game::TableIndexing::table_index)).
    Table((u32, u64)),
    /// Not in the tables; its transposition key ([`ExactValues::exact_key`](crate::game::ExactValues::exact_key)), prefetched, and the
    /// stake level of its parent, whose [`TableUse`] counts the look-up.
    Key(u64, usize),
    /// Not in the tables, not to be looked up: the transposition table seldom knows such
    /// positions ([`TableUse`]). Its key is worked out only when a result is stored
    /// ([`OpenNode::key`] is then [`KEY_LATER`]).
    Unasked,
}

/// [`OpenNode::key`] of a position whose key is worked out only when needed
/// ([`Located::Unasked`]). A real key may equal it: it is then only worked out again.
const KEY_LATER: u64 = 0;

/// Stake levels whose transposition-table use is measured apart ([`ExactValues::value_at_stake`](crate::game::ExactValues::value_at_stake),
/// larger stakes share the last).
const STAKE_LEVELS: usize = 256;
/// Look-ups per stake level before the measure decides anything.
const TABLE_USE_WARMUP: u64 = 4096;
/// About how many look-ups that find nothing cost as much as one node searched (a look-up
/// is a cache miss, a node about half a microsecond with its children's). Measured on the
/// empty-capture Kalah(6,4) proof with 20-seed tables, one thread: 3 → 5.37 s, 5 → 4.92 s,
/// 8 → 4.87 s, 20 → 4.96 s, never skipping 5.15 s; the standard proof with 18-seed tables
/// took the same nodes (137 M) with 20, 50 or never skipping.
const MISSES_PER_NODE: u64 = 8;
/// One node in this many still asks the table where the measure says it does not pay,
/// so that the measure follows the proof as the table fills.
const TABLE_USE_SAMPLE: u64 = 32;

/// Whether looking up the children of the positions of one stake level in the
/// transposition table pays. Near the endgame tables it does not: such positions' subtrees
/// are small, seldom stored, and nearly every look-up is a cache miss that finds nothing
/// (empty-capture Kalah(6,4) with 20-seed tables: of 8.6 M look-ups of positions with 21
/// seeds, 889 found an entry). So each searcher counts, per level of the parent, the
/// look-ups and the nodes the entries they found stood for (each entry's stored work: all
/// of it is spared when the entry decides the position, much of it when its move is tried
/// first), and skips the look-ups (and their prefetches) where they spare less than one
/// node in [`MISSES_PER_NODE`] look-ups.
#[derive(Clone, Copy, Default)]
struct TableUse {
    lookups: u64,
    spared: u64,
}

impl TableUse {
    fn pays(&self) -> bool {
        self.lookups < TABLE_USE_WARMUP || self.spared * MISSES_PER_NODE >= self.lookups
    }
}

/// A position that needs its moves searched, with what peeking learnt.
#[derive(Clone, Copy)]
struct OpenNode {
    key: u64,
    banked: i32,
    /// The value lies in `lower..=upper` ([`ExactValues::value_range`](crate::game::ExactValues::value_range)).
    lower: i32,
    upper: i32,
    tt_move: Option<u8>,
}

impl OpenNode {
    /// The transposition key of `pos` (this node's position), worked out now when its
    /// peek left it for later ([`KEY_LATER`]).
    #[inline]
    fn key_of<G: Game>(&self, game: &G, pos: &G::Position) -> u64 {
        if self.key == KEY_LATER {
            game.exact_key(pos)
        } else {
            self.key
        }
    }
}

struct Child<G: Game> {
    pos: G::Position,
    located: Located,
    node: OpenNode,
    /// The same player moves again.
    same: bool,
}

struct Ply<G: Game> {
    moves: Vec<G::Move>,
    children: Vec<Child<G>>,
    /// The open children to search: rank and place in `children`, sorted (the children
    /// themselves stay where they were played, as moving them costs more than sorting these).
    order: Vec<(i64, u8)>,
}

impl<'a, G: Game> Searcher<'a, G> {
    fn new(
        game: &'a G,
        tt: &'a SolverTt,
        tables: Option<&'a Tables>,
        shared: &'a Shared<'a>,
        id: u64,
        only: &'a [G::Move],
    ) -> Searcher<'a, G> {
        Searcher {
            game,
            tt,
            tables,
            shared,
            id,
            rng: 0x9E37_79B9_7F4A_7C15 ^ id.wrapping_mul(0xD1B5_4A32_D192_ED03),
            test: 0,
            aborted: false,
            unresolved: false,
            nodes: 0,
            unflushed: 0,
            tbhits: 0,
            plies: Vec::new(),
            only,
            root_best: None,
            table_use: vec![TableUse::default(); STAKE_LEVELS],
        }
    }

    /// Take part in the MTD(f) iterations until the value is known or the solve stops.
    fn run_mtd(
        &mut self,
        root: &G::Position,
        legal: &[G::Move],
        report: &(dyn Fn(&Progress) + Sync),
    ) {
        loop {
            let (state, test) = {
                let state = lock(&self.shared.state);
                (*state, self.shared.test.load(Ordering::Relaxed))
            };
            if state.solved() || self.shared.must_stop() {
                break;
            }
            let beta = state.beta();
            self.test = test;
            self.aborted = false;
            self.unresolved = false;
            let value = self.search_root(root, beta, state.depth);
            let proven = !self.unresolved;
            let best = if value < beta {
                None
            } else if self.only.is_empty() {
                self.tt
                    .probe(self.game.exact_key(root))
                    .and_then(|b| b.best)
                    .map(usize::from)
            } else {
                self.root_best
                    .and_then(|mv| legal.iter().position(|&m| m == mv))
            };
            self.flush();
            if self.aborted {
                if self.shared.must_stop() {
                    break;
                }
                continue; // another thread finished this test first
            }
            let mut state = lock(&self.shared.state);
            if self.shared.test.load(Ordering::Relaxed) != test {
                continue;
            }
            let before = (state.proven_lower, state.proven_upper);
            state.update(beta, value, proven, best);
            self.shared.test.fetch_add(1, Ordering::Relaxed);
            let progress = Progress {
                lower: state.proven_lower,
                upper: state.proven_upper,
                best: state.best,
                nodes: self.shared.nodes.load(Ordering::Relaxed),
                tbhits: self.shared.tbhits.load(Ordering::Relaxed),
                elapsed: self.shared.started.elapsed(),
            };
            log::debug!(
                "solve: depth {} test {beta} -> {value}{} bounds [{}, {}] proven [{}, {}]",
                state.depth,
                if proven { " (proven)" } else { "" },
                state.lower,
                state.upper,
                state.proven_lower,
                state.proven_upper
            );
            drop(state);
            if (progress.lower, progress.upper) != before {
                report(&progress);
            }
        }
    }

    /// [`Searcher::search`] at the root. A restricted root (`only`) is not the position the
    /// tables and the transposition table know: only the stake bounds, valid for every
    /// line, may decide it without its moves.
    fn search_root(&mut self, root: &G::Position, beta: i32, depth: u8) -> i32 {
        if self.only.is_empty() {
            return self.search(root, beta, depth, 0);
        }
        self.root_best = None;
        let game = self.game;
        if let Some(outcome) = game.outcome(root) {
            return game.final_value(&outcome, game.to_move(root));
        }
        let banked = game.banked_value(root);
        let (lower, upper) = value_range(game, root);
        let (lower, upper) = (banked + lower, banked + upper);
        if upper < beta {
            return upper;
        }
        if lower >= beta {
            return lower;
        }
        let node = OpenNode {
            key: game.exact_key(root),
            banked,
            lower,
            upper,
            tt_move: None,
        };
        self.expand(root, &node, beta, depth, 0)
    }

    /// Is the mover's final value at least `beta`? Returns a bound `v`: `value ≥ v` when
    /// `v ≥ beta`, `value ≤ v` when `v < beta` (fail-soft). With a `depth` below
    /// [`PROVEN`], positions that far down are judged by the game's evaluation and the
    /// result is only a proof if `unresolved` stays clear.
    fn search(&mut self, pos: &G::Position, beta: i32, depth: u8, ply: usize) -> i32 {
        match self.peek(pos, beta, depth, Located::Unknown) {
            Peek::Known(value) => value,
            Peek::Open(node) => self.expand(pos, &node, beta, depth, ply),
        }
    }

    /// Everything that decides a position without looking at its moves: the end of the
    /// game, the stake bounds, the tables, the transposition table, the horizon.
    /// `located`: where its entries are, when its parent already worked that out.
    #[inline]
    fn peek(&mut self, pos: &G::Position, beta: i32, depth: u8, located: Located) -> Peek {
        let game = self.game;
        if let Some(outcome) = game.outcome(pos) {
            return Peek::Known(game.final_value(&outcome, game.to_move(pos)));
        }
        let banked = game.banked_value(pos);
        // A child whose table entry its parent located (and prefetched) is read first: its
        // exact value is as cheap as the stake bounds, which it makes needless.
        if let Located::Table(at) = located
            && let Some(rest) = self.table_value(pos, at)
        {
            return Peek::Known(banked + rest);
        }
        let (lower, upper) = value_range(game, pos);
        let (lower, upper) = (banked + lower, banked + upper);
        if upper < beta {
            return Peek::Known(upper);
        }
        if lower >= beta {
            return Peek::Known(lower);
        }
        if let (Located::Unknown, Some(tables)) = (located, self.tables)
            && let Some(at) = game.table_index(pos, tables.max_layer())
            && let Some(rest) = self.table_value(pos, at)
        {
            return Peek::Known(banked + rest);
        }
        let key = match located {
            Located::Key(key, _) => key,
            Located::Unasked => KEY_LATER,
            _ => game.exact_key(pos),
        };
        let mut tt_move = None;
        let found = match located {
            Located::Unasked => None,
            Located::Key(_, level) => {
                let found = self.tt.probe_with_work(key);
                let used = &mut self.table_use[level];
                used.lookups += 1;
                // What the entry stored: all of it is spared when it decides the position,
                // much of it when its move is tried first.
                used.spared += found.map_or(0, |(_, work)| work);
                found
            }
            _ => self.tt.probe_with_work(key),
        };
        if let Some((bounds, _)) = found {
            if bounds.depth >= depth {
                let cut = if bounds.lower != i32::MIN && banked + bounds.lower >= beta {
                    Some(banked + bounds.lower)
                } else if bounds.upper != i32::MAX && banked + bounds.upper < beta {
                    Some(banked + bounds.upper)
                } else {
                    None
                };
                if let Some(value) = cut {
                    if bounds.depth != PROVEN {
                        self.unresolved = true;
                    }
                    return Peek::Known(value);
                }
            }
            tt_move = bounds.best;
        }
        if depth == 0 {
            self.unresolved = true;
            // The evaluation, on the grid of values the position can reach.
            let step = game.value_step().max(1);
            let guess = (game.evaluate(pos) / 50).clamp(lower, upper);
            return Peek::Known(lower + (guess - lower + step / 2).div_euclid(step) * step);
        }
        Peek::Open(OpenNode {
            key,
            banked,
            lower,
            upper,
            tt_move,
        })
    }

    /// The endgame tables' value of `pos` (entry `at`) beyond what is banked, counted as a
    /// table hit.
    #[inline]
    fn table_value(&mut self, pos: &G::Position, at: (u32, u64)) -> Option<i32> {
        let rest = self.tables?.probe_at(self.game, pos, at)?;
        self.tbhits += 1;
        Some(rest)
    }

    /// Search the moves of a position that peeking did not decide: every child is peeked
    /// first (any child that already reaches β ends the node), the rest are searched in
    /// order: the table's move, then by [`move_rank`].
    fn expand(
        &mut self,
        pos: &G::Position,
        node: &OpenNode,
        beta: i32,
        depth: u8,
        ply: usize,
    ) -> i32 {
        let game = self.game;
        let level = game
            .value_at_stake(pos)
            .map_or(0, |stake| stake.clamp(0, STAKE_LEVELS as i32 - 1) as usize);
        let ask_table = self.table_use[level].pays() || self.nodes.is_multiple_of(TABLE_USE_SAMPLE);
        self.count_node();
        if self.aborted {
            return 0;
        }
        let mover = game.to_move(pos);
        let child_depth = if depth == PROVEN { PROVEN } else { depth - 1 };
        if self.plies.len() <= ply {
            self.plies.resize_with(ply + 1, || Ply {
                moves: Vec::new(),
                children: Vec::new(),
                order: Vec::new(),
            });
        }
        let mut moves = std::mem::take(&mut self.plies[ply].moves);
        let mut children = std::mem::take(&mut self.plies[ply].children);
        let mut order = std::mem::take(&mut self.plies[ply].order);
        order.clear();
        game.legal_moves(pos, &mut moves);
        // Only the root is ever restricted: one comparison per node.
        let restricted = ply == 0 && !self.only.is_empty();
        if restricted {
            moves.retain(|m| self.only.contains(m));
        }
        children.clear();
        let nodes_before = self.nodes;
        let outer_unresolved = self.unresolved;
        self.unresolved = false;

        // Play every move first and ask for the children's table entries, so that their
        // memory latencies overlap; then peek at them.
        let max_layer = self.tables.map(Tables::max_layer);
        for &mv in &moves {
            let mut child = pos.clone();
            game.play(&mut child, mv);
            // A child whose look-up is skipped needs no key yet: only whether the tables
            // hold it (its key waits until a result is stored; most such subtrees are too
            // small to be).
            let found = if ask_table {
                game.table_index_or_key(&child, max_layer)
            } else {
                max_layer
                    .and_then(|max| game.table_index(&child, max))
                    .ok_or(KEY_LATER)
            };
            let located = match (found, self.tables) {
                (Ok(at), Some(tables)) => {
                    tables.prefetch_at(at);
                    Located::Table(at)
                }
                (Ok(_), None) => Located::Unknown, // not asked for: no tables
                (Err(key), _) if ask_table => {
                    self.tt.prefetch(key);
                    Located::Key(key, level)
                }
                (Err(_), _) => Located::Unasked,
            };
            children.push(Child {
                pos: child,
                located,
                node: OpenNode {
                    key: 0,
                    banked: 0,
                    lower: 0,
                    upper: 0,
                    tt_move: None,
                },
                same: false,
            });
        }
        let mut best = -UNBOUNDED;
        let mut best_index = None;
        for (i, &mv) in moves.iter().enumerate() {
            let same = game.to_move(&children[i].pos) == mover;
            let child_beta = if same { beta } else { 1 - beta };
            match self.peek(
                &children[i].pos,
                child_beta,
                child_depth,
                children[i].located,
            ) {
                Peek::Known(v) => {
                    let value = if same { v } else { -v };
                    if value > best {
                        best = value;
                        best_index = Some(i as u8);
                        if value >= beta {
                            break;
                        }
                    }
                }
                Peek::Open(open_node) => {
                    let rank = if Some(i as u8) == node.tt_move {
                        i64::MAX
                    } else {
                        // Points banked by the move, from the mover's view.
                        let child_banked = if same {
                            open_node.banked
                        } else {
                            -open_node.banked
                        };
                        let gain = child_banked - node.banked;
                        let order = game.proof_order(&children[i].pos);
                        let noise = if self.id == 0 {
                            0
                        } else {
                            (self.next_random() & 0xF) as u8
                        };
                        move_rank(
                            same,
                            gain,
                            game.order_hint(pos, mv),
                            if same { order } else { -order },
                            noise,
                        )
                    };
                    let child = &mut children[i];
                    child.node = open_node;
                    child.same = same;
                    order.push((rank, i as u8));
                }
            }
        }
        if best < beta {
            // Equal ranks keep the order of the moves.
            order.sort_unstable_by_key(|&(rank, i)| (std::cmp::Reverse(rank), i));
            let parallel = self.shared.threads > 1;
            // Children another thread is searching wait for a second pass (the first child
            // never waits: it is the likeliest cut).
            let mut deferred: u64 = 0;
            'passes: for pass in 0..2 {
                for (k, &(_, index)) in order.iter().enumerate() {
                    let child = &children[usize::from(index)];
                    let bit = if k < 64 { 1u64 << k } else { 0 };
                    if pass == 1 && deferred & bit == 0 {
                        continue;
                    }
                    let mark = parallel
                        && child.node.upper - child.node.lower >= 2 * self.shared.busy_min_stake;
                    let key = if mark {
                        child.node.key_of(game, &child.pos)
                    } else {
                        child.node.key
                    };
                    if pass == 0 && mark && k > 0 && bit != 0 && self.shared.is_busy(key) {
                        deferred |= bit;
                        continue;
                    }
                    if mark {
                        self.shared.busy_slot(key).store(key, Ordering::Relaxed);
                    }
                    let value = if child.same {
                        self.expand(&child.pos, &child.node, beta, child_depth, ply + 1)
                    } else {
                        -self.expand(&child.pos, &child.node, 1 - beta, child_depth, ply + 1)
                    };
                    if mark {
                        let _ = self.shared.busy_slot(key).compare_exchange(
                            key,
                            0,
                            Ordering::Relaxed,
                            Ordering::Relaxed,
                        );
                    }
                    if self.aborted {
                        break 'passes;
                    }
                    if value > best {
                        best = value;
                        best_index = Some(index);
                        if value >= beta {
                            break 'passes;
                        }
                    }
                }
                if deferred == 0 {
                    break;
                }
            }
        }
        if restricted && best >= beta {
            self.root_best = best_index.and_then(|i| moves.get(usize::from(i)).copied());
        }
        self.plies[ply].moves = moves;
        self.plies[ply].children = children;
        self.plies[ply].order = order;
        if self.aborted {
            return 0;
        }
        let banked = node.banked;
        // Never claim more than the value range allows (fail-soft values may overshoot it).
        let best = best.clamp(node.lower, node.upper);
        let work = self.nodes - nodes_before;
        let stored = if self.unresolved { depth } else { PROVEN };
        if work < STORE_MIN_WORK || restricted {
            // Cheap to find again; or not the position's own value (a restricted root).
        } else {
            let key = node.key_of(game, pos);
            if best >= beta {
                self.tt
                    .store(key, best - banked, i32::MAX, best_index, stored, work);
            } else {
                // The child that came closest: a good first try when this node is searched
                // again.
                self.tt
                    .store(key, i32::MIN, best - banked, best_index, stored, work);
            }
        }
        self.unresolved |= outer_unresolved;
        best
    }

    /// A move of `pos` that keeps its exact value `value`, one of `only` unless it is empty.
    fn perfect_move(&mut self, pos: &G::Position, value: i32, only: &[G::Move]) -> Option<G::Move> {
        let game = self.game;
        let mover = game.to_move(pos);
        let mut moves = Vec::new();
        game.legal_moves(pos, &mut moves);
        let first = self
            .tt
            .probe(game.exact_key(pos))
            .and_then(|b| b.best)
            .map(usize::from);
        let order = first
            .into_iter()
            .chain((0..moves.len()).filter(|&i| Some(i) != first));
        for i in order {
            let Some(&mv) = moves.get(i) else { continue };
            if !only.is_empty() && !only.contains(&mv) {
                continue;
            }
            let mut child = pos.clone();
            game.play(&mut child, mv);
            self.test = self.shared.test.load(Ordering::Relaxed);
            self.aborted = false;
            let reaches = if game.to_move(&child) == mover {
                self.search(&child, value, PROVEN, 1) >= value
            } else {
                -self.search(&child, 1 - value, PROVEN, 1) >= value
            };
            if self.aborted {
                return None;
            }
            if reaches {
                return Some(mv);
            }
        }
        None
    }

    /// Perfect play from `pos` (exact value `value`) to the end of the game.
    fn perfect_line(&mut self, pos: &G::Position, mut value: i32) -> Option<Vec<G::Move>> {
        let game = self.game;
        let mut pos = pos.clone();
        let mut line = Vec::new();
        while game.outcome(&pos).is_none() && line.len() < 10_000 {
            // The root's restriction holds for its own move only.
            let only = if line.is_empty() { self.only } else { &[] };
            let mv = self.perfect_move(&pos, value, only)?;
            let mover = game.to_move(&pos);
            game.play(&mut pos, mv);
            if game.to_move(&pos) != mover {
                value = -value;
            }
            line.push(mv);
        }
        Some(line)
    }

    #[inline]
    fn next_random(&mut self) -> u64 {
        self.rng ^= self.rng << 13;
        self.rng ^= self.rng >> 7;
        self.rng ^= self.rng << 17;
        self.rng
    }

    #[inline]
    fn count_node(&mut self) {
        self.nodes += 1;
        self.unflushed += 1;
        if self.unflushed >= 1024 {
            self.flush();
            if self.shared.must_stop() || self.shared.test.load(Ordering::Relaxed) != self.test {
                self.aborted = true;
            }
        }
    }

    fn flush(&mut self) {
        self.shared
            .nodes
            .fetch_add(self.unflushed, Ordering::Relaxed);
        self.shared.tbhits.fetch_add(self.tbhits, Ordering::Relaxed);
        self.unflushed = 0;
        self.tbhits = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A lighter key of the move order only breaks ties of the heavier ones, even at the
    /// ends of its range; the clamps keep out-of-range keys from spilling into others.
    #[test]
    fn move_rank_keys_in_order_of_weight() {
        let (max, min) = (i32::MAX, i32::MIN);
        // Moving again beats any gain, hint, order and noise.
        assert!(move_rank(true, min, min, min, 0) > move_rank(false, max, max, max, 15));
        // A point more banked beats any hint, order and noise.
        assert!(move_rank(false, 3, min, min, 0) > move_rank(false, 2, max, max, 15));
        assert!(move_rank(false, -1, min, min, 0) > move_rank(false, -2, max, max, 15));
        // The hint beats the order; the order beats the noise.
        assert!(move_rank(false, 0, 1, min, 0) > move_rank(false, 0, 0, max, 15));
        assert!(move_rank(false, 0, 0, 1, 0) > move_rank(false, 0, 0, 0, 15));
        assert!(move_rank(false, 0, 0, -1, 15) < move_rank(false, 0, 0, 0, 0));
        // Equal keys: the noise decides.
        assert!(move_rank(true, 4, 100, -7, 3) > move_rank(true, 4, 100, -7, 2));
    }

    /// The transposition table is asked until the measure has enough look-ups, then only
    /// where the look-ups spare at least a node in `MISSES_PER_NODE`.
    #[test]
    fn table_use_pays_while_warming_up_then_by_what_it_spares() {
        let mut used = TableUse::default();
        assert!(used.pays());
        used.lookups = TABLE_USE_WARMUP - 1;
        assert!(used.pays(), "still warming up");
        used.lookups = 100 * MISSES_PER_NODE * TABLE_USE_WARMUP;
        used.spared = 100 * TABLE_USE_WARMUP - 1;
        assert!(
            !used.pays(),
            "spares less than a node per {MISSES_PER_NODE} look-ups"
        );
        used.spared += 1;
        assert!(used.pays());
    }

    /// A table larger than any address space is refused as a `TableMemory` error (the size
    /// asked named), before any mapping; so is a frontier depth out of range, by variant.
    #[test]
    fn refusals_are_typed_and_keep_their_words() {
        for refused in [
            SolverTt::new(usize::MAX).err(),
            pn::tt::PnTt::new(usize::MAX).err(),
        ] {
            let Some(SolverError::TableMemory { megabytes, cause }) = refused else {
                panic!("not refused as TableMemory: {refused:?}");
            };
            assert_eq!(megabytes, usize::MAX);
            assert!(cause.contains("do not fit in memory"), "{cause}");
        }
        let depth = frontier::check_depth(frontier::MAX_DEPTH + 1);
        assert_eq!(
            depth,
            Err(frontier::FrontierError::Depth(frontier::MAX_DEPTH + 1))
        );
        assert_eq!(
            frontier::check_depth(0).map_err(|e| e.to_string()),
            Err("--frontier 0: give a depth of 1 to 64 plies (moves) from the root".to_string())
        );
    }
}
