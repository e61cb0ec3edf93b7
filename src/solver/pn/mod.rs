//! The proof-number solver: the win/draw/loss value of a position of a game whose results
//! are only wins, draws and losses ([`ExactValues::win_draw_loss`](crate::game::ExactValues::win_draw_loss)), proven by depth-first
//! proof-number search (df-pn).
//!
//! **Two questions.** A value is a win (+2 half-points, one point), a draw (0) or a loss
//! (−2) for the mover. The solver asks "does the mover win?" (value ≥ win) and, when that
//! is disproven, "does the mover at least draw?" (value ≥ draw): the value is a win, a draw
//! when the first is disproven and the second proven, a loss when both are disproven. Each
//! question, seen from a child with the other side to move, is the other question
//! negated: "I win" is "you do not at least draw" (so both runs search the same kind of
//! tree). The transposition table ([`tt::PnTt`]) keeps, per position, the proven
//! bounds on its value, shared by both questions: a win proven in the first run settles
//! "at least a draw?" there in the second, a loss proven in the first settles "a win?" —
//! and the proof and disproof numbers of the one open question.
//!
//! **df-pn.** Nagai's depth-first proof-number search in the negamax form (each node's
//! numbers are from its mover's view: proof = min over children of their disproof, disproof
//! = a sum of their proofs, a child with the same mover counting as is), with two
//! refinements:
//! - *weak proof numbers* (Ueda, Hashimoto, Hashimoto and Iida): the "sum" is the greatest
//!   child's number plus one for each other open child. True sums count a position once per
//!   path to it and grow exponentially with the depth of a disproof — Fanorona's draws are
//!   a hundred quiet turns deep — until they saturate and stop guiding the search; weak sums
//!   stay small: the 5×5 start is proven in a third of the nodes and time
//!   (docs/tablebases.md, "Fanorona: proof-number solver");
//! - the *1+ε trick* (Pawlewicz and Lew): the best child may go on until its proof number
//!   passes the second best's by a quarter, which keeps the search from bouncing between
//!   siblings.
//!
//! A child's limits are always above its numbers (a limit may be "until decided"), so every
//! call makes progress. Children start at (1, 1); game ends, endgame tables
//! ([`crate::tables::Tables`], exact leaves counted as `tbhits`) and decided table
//! entries are known at once, and a child that decides its parent ends the parent's
//! expansion. A stopped search writes the numbers of the nodes it leaves, so that a resumed
//! one (a proof file, `file`) goes on where it was.
//!
//! **Repetition and the history of the game.** Keys are the game's full [`Rules::hash`](crate::game::Rules::hash).
//! When that hash counts what makes the game move on — Fanorona's hash includes its quiet
//! counter (turns since the last capture) whenever `quiet-limit` is set; the counter grows
//! by one every non-capturing turn and resets on a capture, which also removes stones for
//! good — the graph of positions has no cycles, and a table entry is a fact about its
//! position whatever the path. The solver proves values of the game *without* its
//! repetition rule, and these are the values of positions with the rule, provided the
//! position has no earlier occurrence since the last capture (the irreversible move):
//! - in the acyclic game without the rule, the winner can play moves that strictly
//!   decrease the distance to the win (plies to the win under best defence); more turns
//!   left on the counter never hurt the winner, so a board met twice on the winner's line
//!   with the same side to move would need a smaller distance the second time with less
//!   time left — impossible; so along the winner's line no board repeats and the rule
//!   never applies;
//! - the rule only adds draws, so it cannot give the loser more.
//!
//! A game whose hash graph has cycles (e.g. Fanorona with `quiet-limit=off`) is guarded
//! generically: a position whose hash is already on the current search path is a draw for
//! this path (a game that goes round forever is a draw), and a result that depended on
//! such a draw is path-dependent: it serves the nodes above it on this path but never
//! enters the table as a proof or disproof (the classic graph-history-interaction
//! safeguard). The value is then that of the game in which going round is a draw.
//!
//! **Limits.** One thread (asked for more, it still runs one: [`Solution::threads`] says
//! so). `node_limit`, `deadline` and `stop` end a proof with the bounds proven so far;
//! `report` hears of each improvement. The search recurses on a thread of its own with a
//! large stack; a line longer than [`MAX_DEPTH`] plies ends the proof as stopped.

pub mod file;
pub mod tt;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use super::{MoveValues, Progress, Solution, SolveSettings};
use crate::game::Game;
use crate::tables::Tables;
use tt::{INF, Known, PnTt, log2_work};

/// The values, in half-points from the mover's view.
pub const WIN: i32 = 2;
pub const DRAW: i32 = 0;
pub const LOSS: i32 = -2;

/// The deepest line the search follows (plies from its root).
pub const MAX_DEPTH: usize = 100_000;
/// The stack of the solver's thread: about 1 KiB a ply at [`MAX_DEPTH`], only touched as
/// deep as the search goes.
const STACK_BYTES: usize = 256 << 20;
/// On the caller's stack (no thread for the solver), a shallower limit.
const INLINE_DEPTH: usize = 1_000;
/// The counting filter of the current path's keys (a power of two).
const PATH_FILTER: usize = 1 << 16;

/// The word of a value: `win`, `draw`, `loss`.
pub fn value_word(value: i32) -> &'static str {
    match value.signum() {
        1 => "win",
        -1 => "loss",
        _ => "draw",
    }
}

/// Saving the table while a long proof runs: `save` is called with the table and the
/// nodes spent so far every `every` (between two nodes, on the solver's thread: the search
/// waits for it).
pub struct Checkpoints<'a> {
    pub every: Duration,
    pub save: &'a (dyn Fn(&PnTt, u64) + Sync),
    /// Nodes of the earlier solves of the same proof (the moves' solves before the root's):
    /// `save` hears of these and the running solve's.
    pub done: AtomicU64,
}

/// The threshold of a question: 1 "value ≥ win?", 0 "value ≥ draw?".
#[inline(always)]
fn threshold(question: u8) -> i32 {
    if question == 1 { WIN } else { DRAW }
}

/// A final value as win, draw or loss.
#[inline(always)]
fn classify(value: i32) -> i32 {
    value.signum() * WIN
}

/// The proof and disproof numbers, from the node's mover's view, of a question whose answer
/// is known: `value ≥ threshold`.
#[inline(always)]
fn decided(value: i32, question: u8) -> (u32, u32) {
    if value >= threshold(question) {
        (0, INF)
    } else {
        (INF, 0)
    }
}

/// `a + b`, infinite if either is, else at most `INF − 1` (a big sum is not a decision).
#[inline(always)]
fn add(a: u32, b: u32) -> u32 {
    if a == INF || b == INF {
        INF
    } else {
        (u64::from(a) + u64::from(b)).min(u64::from(INF - 1)) as u32
    }
}

/// `a + b` for a limit: at most `INF`, which as a limit means "until decided". A limit
/// given to a child is always above the child's number (numbers stay below `INF` until
/// decided), so every call makes progress, even where numbers saturate.
#[inline(always)]
fn limit_add(a: u32, b: u32) -> u32 {
    (u64::from(a) + u64::from(b)).min(u64::from(INF)) as u32
}

/// The 1+ε trick: the best child may go on until its proof number exceeds the second
/// best's by a quarter (at least by one).
#[inline(always)]
fn second_plus_epsilon(second: u32) -> u32 {
    limit_add(second, second / 4 + 1)
}

/// Weak proof numbers (Ueda et al.): a node's disproof number is its children's greatest
/// plus one for each other open child, not their sum. Sums count a shared descendant once
/// per path to it and grow exponentially with the depth of a disproof; weak sums do not.
const WEAK: bool = true;

/// The greatest disproof number among `kids`.
#[inline(always)]
fn most_disproof<P>(kids: &[Kid<P>]) -> u32 {
    kids.iter().map(|k| k.disproof).max().unwrap_or(0)
}

/// What a search of a node returns: its numbers from its mover's view, and whether a
/// decision rests on a repetition of the current path.
#[derive(Clone, Copy, Debug)]
struct Numbers {
    proof: u32,
    disproof: u32,
    path_dependent: bool,
}

/// A child of a node being searched: numbers from the *parent's* view (`proof` proves the
/// parent's question).
struct Kid<P> {
    pos: P,
    key: u64,
    same: bool,
    /// Its move's index in the parent's legal-move list.
    index: usize,
    proof: u32,
    disproof: u32,
    path_dependent: bool,
}

struct Ply<G: Game> {
    moves: Vec<G::Move>,
    kids: Vec<Kid<G::Position>>,
}

struct Searcher<'a, G: Game> {
    game: &'a G,
    tt: &'a PnTt,
    tables: Option<&'a Tables>,
    stop: &'a AtomicBool,
    node_limit: Option<u64>,
    deadline: Option<Instant>,
    checkpoints: Option<&'a Checkpoints<'a>>,
    next_checkpoint: Option<Instant>,
    nodes: u64,
    tbhits: u64,
    aborted: bool,
    max_depth: usize,
    /// A line grew beyond `max_depth`: the proof cannot go on.
    too_deep: bool,
    plies: Vec<Ply<G>>,
    /// How many keys of the current path fall in each slot (a path repeats only if its
    /// slot is not empty: the scan of `path` is rare).
    filter: Vec<u16>,
    path: Vec<u64>,
    /// The root's moves (`go solve searchmoves`); empty: all.
    only: &'a [G::Move],
    /// Restrict the root of the proofs now run to `only` (not in the proofs of the line).
    restrict: bool,
    /// The root's move that proved the last proven question (index in its legal moves).
    root_best: Option<usize>,
}

impl<'a, G: Game> Searcher<'a, G> {
    fn new(
        game: &'a G,
        tt: &'a PnTt,
        settings: &SolveSettings<'a>,
        stop: &'a AtomicBool,
        checkpoints: Option<&'a Checkpoints<'a>>,
        only: &'a [G::Move],
        max_depth: usize,
    ) -> Self {
        Searcher {
            game,
            tt,
            tables: settings.tables,
            stop,
            node_limit: settings.node_limit,
            deadline: settings.deadline,
            checkpoints,
            next_checkpoint: checkpoints.and_then(|c| Instant::now().checked_add(c.every)),
            nodes: 0,
            tbhits: 0,
            aborted: false,
            max_depth,
            too_deep: false,
            plies: Vec::new(),
            filter: vec![0; PATH_FILTER],
            path: Vec::new(),
            only,
            restrict: false,
            root_best: None,
        }
    }

    #[inline(always)]
    fn slot(key: u64) -> usize {
        (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 48) as usize & (PATH_FILTER - 1)
    }

    #[inline]
    fn on_path(&self, key: u64) -> bool {
        self.filter[Self::slot(key)] != 0 && self.path.contains(&key)
    }

    fn push_path(&mut self, key: u64) {
        let slot = &mut self.filter[Self::slot(key)];
        *slot = slot.saturating_add(1);
        self.path.push(key);
    }

    fn pop_path(&mut self) {
        if let Some(key) = self.path.pop() {
            let slot = &mut self.filter[Self::slot(key)];
            *slot = slot.saturating_sub(1);
        }
    }

    #[inline]
    fn count_node(&mut self) {
        self.nodes += 1;
        if self.node_limit.is_some_and(|limit| self.nodes >= limit) {
            self.aborted = true;
        }
        if self.nodes & 1023 == 0 {
            if self.stop.load(Ordering::Relaxed) {
                self.aborted = true;
            }
            let now = Instant::now();
            if self.deadline.is_some_and(|d| now >= d) {
                self.aborted = true;
            }
            if let (Some(due), Some(checkpoints)) = (self.next_checkpoint, self.checkpoints)
                && now >= due
            {
                let nodes = checkpoints.done.load(Ordering::Relaxed) + self.nodes;
                (checkpoints.save)(self.tt, nodes);
                self.next_checkpoint = Instant::now().checked_add(checkpoints.every);
            }
        }
    }

    /// The numbers of a child from its own mover's view, for `question`, before any search
    /// of it: decided by the end of the game, the tables, a repetition of the path or the
    /// transposition table; else what the table has, or (1, 1).
    #[inline]
    fn peek(&mut self, pos: &G::Position, key: u64, question: u8) -> Numbers {
        let game = self.game;
        let known = |(proof, disproof), path_dependent| Numbers {
            proof,
            disproof,
            path_dependent,
        };
        if let Some(outcome) = game.outcome(pos) {
            let value = classify(game.final_value(&outcome, game.to_move(pos)));
            return known(decided(value, question), false);
        }
        if let Some(tables) = self.tables
            && let Some(rest) = tables.probe(game, pos)
        {
            self.tbhits += 1;
            let value = classify(game.banked_value(pos) + rest);
            return known(decided(value, question), false);
        }
        if self.on_path(key) {
            return known(decided(DRAW, question), true);
        }
        if let Some(entry) = self.tt.probe(key) {
            let t = threshold(question);
            if entry.lower >= t {
                return known((0, INF), false);
            }
            if entry.upper < t {
                return known((INF, 0), false);
            }
            if entry.question == question
                && let Some(numbers) = entry.numbers
            {
                return known(numbers, false);
            }
        }
        known((1, 1), false)
    }

    /// The node's numbers from its children: proof = the least child proof, disproof = the
    /// weak sum (see [`WEAK`]); the index of the best child and the second-least proof.
    #[inline]
    fn summary(kids: &[Kid<G::Position>]) -> (u32, u32, usize, u32) {
        let (mut proof, mut best, mut second) = (INF, 0, INF);
        let (mut sum, mut most, mut open) = (0, 0, 0u32);
        for (i, kid) in kids.iter().enumerate() {
            sum = add(sum, kid.disproof);
            most = most.max(kid.disproof);
            open += u32::from(kid.disproof != 0);
            if kid.proof < proof {
                second = proof;
                proof = kid.proof;
                best = i;
            } else if kid.proof < second {
                second = kid.proof;
            }
        }
        let disproof = if !WEAK || most == INF || open == 0 {
            sum
        } else {
            add(most, open - 1)
        };
        (proof, disproof, best, second)
    }

    /// df-pn's MID: search `pos` for `question` until its proof number reaches
    /// `limit_proof` or its disproof number `limit_disproof` (or it is decided).
    fn mid(
        &mut self,
        pos: &G::Position,
        key: u64,
        question: u8,
        limit_proof: u32,
        limit_disproof: u32,
        ply: usize,
    ) -> Numbers {
        let game = self.game;
        self.count_node();
        if ply >= self.max_depth {
            self.too_deep = true;
            self.aborted = true;
        }
        if self.aborted {
            return Numbers {
                proof: 1,
                disproof: 1,
                path_dependent: true,
            };
        }
        let nodes_before = self.nodes;
        if self.plies.len() <= ply {
            self.plies.resize_with(ply + 1, || Ply {
                moves: Vec::new(),
                kids: Vec::new(),
            });
        }
        let mut moves = std::mem::take(&mut self.plies[ply].moves);
        let mut kids = std::mem::take(&mut self.plies[ply].kids);
        game.legal_moves(pos, &mut moves);
        // Only the root is ever restricted; its value is not the position's, so the table
        // neither gives nor takes its entry.
        let restricted = ply == 0 && self.restrict && !self.only.is_empty();
        let mover = game.to_move(pos);
        kids.clear();
        for (index, &mv) in moves.iter().enumerate() {
            if restricted && !self.only.contains(&mv) {
                continue;
            }
            let mut child = pos.clone();
            game.play(&mut child, mv);
            let child_key = game.hash(&child);
            self.tt.prefetch(child_key);
            kids.push(Kid {
                same: game.to_move(&child) == mover,
                pos: child,
                key: child_key,
                index,
                proof: 1,
                disproof: 1,
                path_dependent: false,
            });
        }
        self.push_path(key);
        for i in 0..kids.len() {
            let kid = &kids[i];
            let child_question = if kid.same { question } else { 1 - question };
            let numbers = self.peek(&kid.pos, kid.key, child_question);
            let kid = &mut kids[i];
            (kid.proof, kid.disproof) = if kid.same {
                (numbers.proof, numbers.disproof)
            } else {
                (numbers.disproof, numbers.proof)
            };
            kid.path_dependent = numbers.path_dependent;
            if kid.proof == 0 {
                // This child decides the node: the rest need not be looked at.
                kids.truncate(i + 1);
                break;
            }
        }
        loop {
            let (proof, disproof, best, second) = Self::summary(&kids);
            if proof >= limit_proof || disproof >= limit_disproof || self.aborted {
                break;
            }
            let kid = &kids[best];
            let kid_proof_limit = limit_proof.min(second_plus_epsilon(second));
            // `disproof < limit_disproof`: what the child may add before the node reaches
            // its limit (with weak sums: the limit less the other open children).
            let kid_disproof_limit = if limit_disproof == INF {
                INF
            } else if WEAK {
                let others = disproof - disproof.min(most_disproof(&kids));
                (limit_disproof - others).max(limit_add(kid.disproof, 1))
            } else {
                limit_add(limit_disproof - disproof, kid.disproof)
            };
            let (child_proof_limit, child_disproof_limit) = if kid.same {
                (kid_proof_limit, kid_disproof_limit)
            } else {
                (kid_disproof_limit, kid_proof_limit)
            };
            let child_question = if kid.same { question } else { 1 - question };
            let (child, child_key) = (kid.pos.clone(), kid.key);
            let numbers = self.mid(
                &child,
                child_key,
                child_question,
                child_proof_limit,
                child_disproof_limit,
                ply + 1,
            );
            if self.aborted {
                break;
            }
            let kid = &mut kids[best];
            (kid.proof, kid.disproof) = if kid.same {
                (numbers.proof, numbers.disproof)
            } else {
                (numbers.disproof, numbers.proof)
            };
            kid.path_dependent = numbers.path_dependent;
        }
        self.pop_path();
        let (proof, disproof, best, _) = Self::summary(&kids);
        // A decision rests on the path when every child that makes it does.
        let (path_dependent, proving) = if proof == 0 {
            let proving = kids
                .iter()
                .position(|k| k.proof == 0 && !k.path_dependent)
                .unwrap_or(best);
            (kids[proving].path_dependent, Some(kids[proving].index))
        } else if disproof == 0 {
            (kids.iter().any(|k| k.path_dependent), None)
        } else {
            (false, None)
        };
        if ply == 0 && proof == 0 {
            self.root_best = proving;
        }
        if !restricted && !(path_dependent && (proof == 0 || disproof == 0)) {
            self.record(key, question, proof, disproof, proving, nodes_before);
        }
        self.plies[ply].moves = moves;
        self.plies[ply].kids = kids;
        Numbers {
            proof,
            disproof,
            path_dependent,
        }
    }

    /// Write a node's result into the table, merged with what it knew.
    fn record(
        &mut self,
        key: u64,
        question: u8,
        proof: u32,
        disproof: u32,
        proving: Option<usize>,
        nodes_before: u64,
    ) {
        let old = self.tt.probe(key).unwrap_or(Known::NOTHING);
        // The work of earlier visits (kept as a power of two) and of this one.
        let earlier = if old.work == 0 { 0 } else { 1u64 << old.work };
        let work = log2_work(earlier + (self.nodes - nodes_before) + 1);
        let t = threshold(question);
        let mut known = Known { work, ..old };
        if proof == 0 {
            if t > known.lower {
                known.lower = t;
                known.best = proving
                    .and_then(|i| u8::try_from(i).ok())
                    .filter(|&i| i < 0xFF);
            }
        } else if disproof == 0 {
            known.upper = known.upper.min(t - 2);
        } else {
            known.numbers = Some((proof, disproof));
            known.question = question;
        }
        // Numbers kept only while their question is open.
        if known.numbers.is_some() {
            let open =
                known.lower < threshold(known.question) && known.upper >= threshold(known.question);
            if !open {
                known.numbers = None;
            }
        }
        self.tt.store(key, &known);
    }

    /// Prove or disprove `question` for `pos` from scratch (a fresh path): `Some(true)`
    /// proven, `Some(false)` disproven, `None` stopped first.
    fn prove(&mut self, pos: &G::Position, question: u8) -> Option<bool> {
        self.path.clear();
        self.filter.iter_mut().for_each(|s| *s = 0);
        self.root_best = None;
        let key = self.game.hash(pos);
        let numbers = self.mid(pos, key, question, INF, INF, 0);
        if self.aborted {
            return None;
        }
        if numbers.proof == 0 {
            Some(true)
        } else if numbers.disproof == 0 {
            Some(false)
        } else {
            // With infinite limits MID ends only decided or stopped.
            None
        }
    }

    /// The exact value of a position after the solve, as far as the table (or a fresh
    /// proof within the budget) says: `Some(value)` from its mover's view.
    fn value_of(&mut self, pos: &G::Position) -> Option<i32> {
        let game = self.game;
        if let Some(outcome) = game.outcome(pos) {
            return Some(classify(game.final_value(&outcome, game.to_move(pos))));
        }
        if let Some(tables) = self.tables
            && let Some(rest) = tables.probe(game, pos)
        {
            self.tbhits += 1;
            return Some(classify(game.banked_value(pos) + rest));
        }
        let (mut lower, mut upper) = self
            .tt
            .probe(game.hash(pos))
            .map_or((LOSS, WIN), |k| (k.lower, k.upper));
        while lower < upper {
            let question = if upper == WIN && lower < WIN { 1 } else { 0 };
            match self.prove(pos, question)? {
                true => lower = threshold(question),
                false => upper = threshold(question) - 2,
            }
        }
        Some(lower)
    }

    /// Does the child `pos` (reached by a move of the parent's mover) keep the parent's
    /// value `value`, and is its own value then `Some(v)` from its mover's view?
    fn keeps(&mut self, pos: &G::Position, same: bool, value: i32) -> Option<i32> {
        let child = self.value_of(pos)?;
        let for_parent = if same { child } else { -child };
        (for_parent >= value).then_some(child)
    }

    /// A line of perfect play from `root` (exact value `value`), to the end of the game or
    /// as far as the budget allows: the winner plays proven wins that never bring back a
    /// position of the line since its last irreversible move (so that no repetition rule
    /// can stop it), the side that holds a draw moves that keep it, and the loser resists
    /// with the move whose subtree cost the most.
    fn perfect_line(&mut self, root: &G::Position, mut value: i32) -> Vec<G::Move> {
        let game = self.game;
        let mut line = Vec::new();
        let mut pos = root.clone();
        let mut seen = vec![game.repetition_key(&pos)];
        let mut moves = Vec::new();
        while game.outcome(&pos).is_none() && line.len() < 10_000 && !self.aborted {
            game.legal_moves(&pos, &mut moves);
            if line.is_empty() && !self.only.is_empty() {
                moves.retain(|m| self.only.contains(m));
            }
            let mover = game.to_move(&pos);
            let stored = self.tt.probe(game.hash(&pos)).and_then(|k| k.best);
            let mut order: Vec<usize> = (0..moves.len()).collect();
            if value == LOSS {
                // Every move loses: resist longest, as far as the table's work tells.
                let work = |i: usize| {
                    let mut child = pos.clone();
                    game.play(&mut child, moves[i]);
                    self.tt.probe(game.hash(&child)).map_or(0, |k| k.work)
                };
                order.sort_by_key(|&i| std::cmp::Reverse(work(i)));
            } else if let Some(b) = stored.map(usize::from).filter(|&b| b < moves.len()) {
                order.retain(|&i| i != b);
                order.insert(0, b);
            }
            let window = game.reversible_plies(&pos);
            let mut chosen = None;
            let mut fallback = None;
            for i in order {
                let mut child = pos.clone();
                game.play(&mut child, moves[i]);
                let same = game.to_move(&child) == mover;
                let key = game.repetition_key(&child);
                let repeats = seen
                    .iter()
                    .rev()
                    .take(window.saturating_add(1))
                    .any(|&k| k == key);
                if repeats {
                    // Never for the winner or the side holding a draw; the loser too avoids
                    // it while it can (it would look for the repetition rule's draw).
                    if value != LOSS {
                        continue;
                    }
                    // Only while the repetition rule would not end the game there.
                    let occurrences = seen
                        .iter()
                        .rev()
                        .take(window.saturating_add(1))
                        .filter(|&&k| k == key)
                        .count();
                    let ends = game
                        .repetition_limit()
                        .is_some_and(|n| occurrences + 1 >= n as usize);
                    if fallback.is_none() && !ends {
                        fallback = Some((moves[i], child, if same { LOSS } else { WIN }));
                    }
                    continue;
                }
                let kept = if value == LOSS {
                    Some(if same { LOSS } else { WIN })
                } else {
                    self.keeps(&child, same, value)
                };
                if let Some(child_value) = kept {
                    chosen = Some((moves[i], child, child_value));
                    break;
                }
                if self.aborted {
                    break;
                }
            }
            let Some((mv, child, child_value)) = chosen.or(fallback) else {
                break;
            };
            line.push(mv);
            pos = child;
            seen.push(game.repetition_key(&pos));
            value = child_value;
        }
        line
    }
}

/// The win/draw/loss value of `root`, the root restricted to `only` unless empty (see
/// [`super::solve_restricted`]), with the proof-number search, using `tt`. `checkpoints`:
/// save the table now and then during a long proof.
#[allow(clippy::too_many_arguments)]
pub fn solve_restricted<G: Game>(
    game: &G,
    root: &G::Position,
    only: &[G::Move],
    tt: &PnTt,
    settings: &SolveSettings,
    stop: &AtomicBool,
    report: &(dyn Fn(&Progress) + Sync),
    checkpoints: Option<&Checkpoints>,
) -> Solution<G::Move> {
    let run = |max_depth: usize| {
        solve_here(
            game,
            root,
            only,
            tt,
            settings,
            stop,
            report,
            checkpoints,
            max_depth,
        )
    };
    // The search recurses once a ply: a thread with a stack for deep lines.
    std::thread::scope(|scope| {
        let spawned = std::thread::Builder::new()
            .name("pn-solve".to_string())
            .stack_size(STACK_BYTES)
            .spawn_scoped(scope, || run(MAX_DEPTH));
        match spawned {
            Ok(handle) => match handle.join() {
                Ok(solution) => solution,
                Err(panic) => std::panic::resume_unwind(panic),
            },
            Err(e) => {
                log::warn!("solve: cannot start the solver's thread ({e}); solving on this one");
                run(INLINE_DEPTH)
            }
        }
    })
}

#[allow(clippy::too_many_arguments)]
fn solve_here<G: Game>(
    game: &G,
    root: &G::Position,
    only: &[G::Move],
    tt: &PnTt,
    settings: &SolveSettings,
    stop: &AtomicBool,
    report: &(dyn Fn(&Progress) + Sync),
    checkpoints: Option<&Checkpoints>,
    max_depth: usize,
) -> Solution<G::Move> {
    let started = Instant::now();
    if settings.threads > 1 {
        log::info!(
            "solve: the proof-number solver runs one thread ({} asked)",
            settings.threads
        );
    }
    let mut legal = Vec::new();
    game.legal_moves(root, &mut legal);
    let only: Vec<G::Move> = only.iter().copied().filter(|m| legal.contains(m)).collect();
    let mut s = Searcher::new(game, tt, settings, stop, checkpoints, &only, max_depth);
    let done = |s: &Searcher<G>, lower, upper, best: Option<G::Move>, pv| Solution {
        lower,
        upper,
        best,
        pv,
        nodes: s.nodes,
        tbhits: s.tbhits,
        elapsed: started.elapsed(),
        threads: 1,
    };
    if let Some(outcome) = game.outcome(root) {
        let value = classify(game.final_value(&outcome, game.to_move(root)));
        return done(&s, value, value, None, Vec::new());
    }
    let restricted = !only.is_empty();
    let (mut lower, mut upper) = (LOSS, WIN);
    let mut best: Option<usize> = None;
    s.restrict = restricted;
    if !restricted {
        if let Some(tables) = settings.tables
            && let Some(rest) = tables.probe(game, root)
        {
            s.tbhits += 1;
            let value = classify(game.banked_value(root) + rest);
            (lower, upper) = (value, value);
        } else if let Some(known) = tt.probe(game.hash(root)) {
            (lower, upper) = (known.lower, known.upper);
            best = known.best.map(usize::from).filter(|&i| i < legal.len());
        }
    }
    let progress = |s: &Searcher<G>, lower, upper, best: Option<usize>| Progress {
        lower,
        upper,
        best,
        nodes: s.nodes,
        tbhits: s.tbhits,
        elapsed: started.elapsed(),
    };
    if (lower, upper) != (LOSS, WIN) {
        report(&progress(&s, lower, upper, best));
    }
    while lower < upper {
        // "A win?" first, then "at least a draw?".
        let question = if upper == WIN && lower < WIN { 1 } else { 0 };
        match s.prove(root, question) {
            Some(true) => {
                lower = threshold(question);
                best = s.root_best;
            }
            Some(false) => upper = threshold(question) - 2,
            None => break,
        }
        log::debug!(
            "pn: question {} ({}) answered: value in [{lower}, {upper}], {} nodes",
            question,
            if question == 1 { "win?" } else { "draw?" },
            s.nodes
        );
        report(&progress(&s, lower, upper, best));
    }
    if s.too_deep {
        log::warn!(
            "solve: a line of the proof grew beyond {} plies: stopped",
            s.max_depth
        );
    }
    let mut solution = done(
        &s,
        lower,
        upper,
        best.and_then(|i| legal.get(i).copied()),
        Vec::new(),
    );
    if (lower, upper) == (LOSS, LOSS) {
        // Every move loses: any is the best, until the line finds the stubbornest.
        solution.best = only.first().or(legal.first()).copied();
    }
    if lower < upper || stop.load(Ordering::Relaxed) || s.aborted {
        return solution;
    }
    // The value is known: its line, within a budget of its own (the proof may have been
    // long; the line needs little beyond the table, but re-proves what it has forgotten).
    s.node_limit = Some(s.nodes + (s.nodes / 2).max(100_000));
    s.restrict = false;
    if settings.want_pv {
        let pv = s.perfect_line(root, lower);
        if let Some(&first) = pv.first() {
            solution.best = Some(first);
        }
        solution.pv = pv;
    }
    if solution.best.is_none() {
        // Not even one move of the line (the budget): the first that keeps the value.
        s.aborted = false;
        solution.best = s.perfect_line_first(root, lower);
    }
    solution.nodes = s.nodes;
    solution.tbhits = s.tbhits;
    solution.elapsed = started.elapsed();
    solution
}

impl<G: Game> Searcher<'_, G> {
    /// The first move of a perfect line (a move that keeps the value), if found in budget.
    fn perfect_line_first(&mut self, root: &G::Position, value: i32) -> Option<G::Move> {
        let game = self.game;
        let mut moves = Vec::new();
        game.legal_moves(root, &mut moves);
        let mover = game.to_move(root);
        for mv in moves {
            if !self.only.is_empty() && !self.only.contains(&mv) {
                continue;
            }
            let mut child = root.clone();
            game.play(&mut child, mv);
            let same = game.to_move(&child) == mover;
            if self.keeps(&child, same, value).is_some() {
                return Some(mv);
            }
            if self.aborted {
                return None;
            }
        }
        None
    }
}

/// The value of every legal move of `root`, or of those in `only` (see
/// [`super::solve_moves`]).
pub fn solve_moves<G: Game>(
    game: &G,
    root: &G::Position,
    only: &[G::Move],
    tt: &PnTt,
    settings: &SolveSettings,
    stop: &AtomicBool,
    checkpoints: Option<&Checkpoints>,
) -> MoveValues<G::Move> {
    super::each_move(game, root, only, settings, |child, child_settings| {
        let solution = solve_restricted(
            game,
            child,
            &[],
            tt,
            child_settings,
            stop,
            &|_| {},
            checkpoints,
        );
        if let Some(checkpoints) = checkpoints {
            checkpoints
                .done
                .fetch_add(solution.nodes, Ordering::Relaxed);
        }
        solution
    })
}
