//! The frontier of a proof split by depth (`sowfan solve --frontier D`): the positions D
//! plies (moves, whoever makes them: a Kalah extra move is a ply) from the root, reached
//! through the game's own move generation, and the root's move values minimaxed back up from
//! their exact values.
//!
//! A position where the game ends before D plies is a frontier position itself. Positions
//! are told apart by their position string ([`Notation::format_position`](crate::game::Notation::format_position)): two lines reaching
//! the same string reach the same position, proven once. That is sound because every value
//! the solver proves is a value of the position alone — scored games with a repetition rule
//! are refused ([`super::supported`]), and won-drawn-lost games are proven as if the position
//! had no earlier occurrence (`src/solver/pn/`), which is what a proof of the root gives its
//! descendants too. A game whose position strings do not hold all of a position (the string
//! read back is another position) is refused, since a part proves its positions from their
//! strings.
//!
//! The order is that of a depth-first walk in move-generation order, each position where it
//! is first met: deterministic, and the same in every run of the same build.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::sync::atomic::{AtomicBool, Ordering};

use thiserror::Error;

use crate::cli::Interrupted;
use crate::game::{Game, PositionError};
use crate::solver::SolverError;
use crate::solver::pn::{DRAW, LOSS, WIN};

/// The deepest frontier (plies from the root).
pub const MAX_DEPTH: u32 = 64;
/// The most positions a frontier may have (their strings are held in memory, and every
/// part file lists its share of them).
pub const MAX_POSITIONS: usize = 1 << 22;
/// The most positions (frontier and above it) a walk visits, to bound its time.
const MAX_VISITS: usize = 1 << 25;

/// Why a frontier cannot be walked, or its values not minimaxed: each says what to do.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum FrontierError {
    #[error(transparent)]
    Unsupported(#[from] SolverError),
    #[error("the position is over: it has no moves to split")]
    Over,
    #[error("--frontier {0}: give a depth of 1 to {MAX_DEPTH} plies (moves) from the root")]
    Depth(u32),
    #[error(
        "the frontier takes more than {MAX_VISITS} positions to walk: give a smaller --frontier"
    )]
    TooManyVisits,
    /// Stopped (Ctrl-C) while walking: the one interruption error every tool answers.
    #[error(transparent)]
    Interrupted(#[from] Interrupted),
    #[error(
        "{spec}: the frontier position '{text}' cannot be read back ({error}): this game \
         cannot be split by --frontier"
    )]
    Unreadable {
        spec: String,
        text: String,
        error: PositionError,
    },
    #[error(
        "{spec}: the position string '{text}' does not hold all of its position: this game \
         cannot be split by --frontier"
    )]
    Incomplete { spec: String, text: String },
    #[error("the frontier has more than {MAX_POSITIONS} positions: give a smaller --frontier")]
    TooManyPositions,
    #[error("no value for the frontier position '{0}'")]
    NoValue(String),
}

/// The distinct frontier positions of a root, in their order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frontier {
    /// The position strings, frontier index 1 first.
    pub positions: Vec<String>,
    /// How many of them are game ends reached in fewer plies than the depth.
    pub ended_before: usize,
}

/// The frontier `depth` plies from `root` (see the module doc). Errors say what to do.
pub fn frontier<G: Game>(
    game: &G,
    root: &G::Position,
    depth: u32,
    stop: &AtomicBool,
) -> Result<Frontier, FrontierError> {
    super::supported(game)?;
    check_depth(depth)?;
    if game.outcome(root).is_some() {
        return Err(FrontierError::Over);
    }
    let mut walk = Walk {
        game,
        expanded: HashMap::new(),
        index: HashMap::new(),
        frontier: Frontier {
            positions: Vec::new(),
            ended_before: 0,
        },
        visits: 0,
        stop,
    };
    walk.visit(root, depth)?;
    Ok(walk.frontier)
}

/// `1..=MAX_DEPTH`.
pub fn check_depth(depth: u32) -> Result<(), FrontierError> {
    if (1..=MAX_DEPTH).contains(&depth) {
        Ok(())
    } else {
        Err(FrontierError::Depth(depth))
    }
}

struct Walk<'a, G: Game> {
    game: &'a G,
    /// Positions above the frontier already walked, with the plies left below them.
    expanded: HashMap<(String, u32), ()>,
    /// Frontier positions: their index (0-based) in `frontier.positions`.
    index: HashMap<String, usize>,
    frontier: Frontier,
    visits: usize,
    stop: &'a AtomicBool,
}

impl<G: Game> Walk<'_, G> {
    fn visit(&mut self, pos: &G::Position, left: u32) -> Result<(), FrontierError> {
        self.visits += 1;
        if self.visits > MAX_VISITS {
            return Err(FrontierError::TooManyVisits);
        }
        if self.stop.load(Ordering::Relaxed) {
            return Err(Interrupted.into());
        }
        let mut moves = Vec::new();
        let ended = self.game.outcome(pos).is_some();
        if !ended && left > 0 {
            self.game.legal_moves(pos, &mut moves);
        }
        let text = self.game.format_position(pos);
        if moves.is_empty() {
            return self.leaf(pos, text, left > 0);
        }
        match self.expanded.entry((text, left)) {
            Entry::Occupied(_) => return Ok(()),
            Entry::Vacant(entry) => {
                entry.insert(());
            }
        }
        for mv in moves {
            let mut child = pos.clone();
            self.game.play(&mut child, mv);
            self.visit(&child, left - 1)?;
        }
        Ok(())
    }

    fn leaf(&mut self, pos: &G::Position, text: String, early: bool) -> Result<(), FrontierError> {
        if self.index.contains_key(&text) {
            return Ok(());
        }
        // A part proves the position its string names: it must be this one.
        let back = match self.game.parse_position(&text) {
            Ok(back) => back,
            Err(error) => {
                return Err(FrontierError::Unreadable {
                    spec: self.game.spec(),
                    text,
                    error,
                });
            }
        };
        if self.game.hash(&back) != self.game.hash(pos) || self.game.format_position(&back) != text
        {
            return Err(FrontierError::Incomplete {
                spec: self.game.spec(),
                text,
            });
        }
        if self.frontier.positions.len() >= MAX_POSITIONS {
            return Err(FrontierError::TooManyPositions);
        }
        self.index
            .insert(text.clone(), self.frontier.positions.len());
        self.frontier.positions.push(text);
        if early {
            self.frontier.ended_before += 1;
        }
        Ok(())
    }
}

/// The value of every legal move of `root` (in move-generation order, for the root's mover,
/// half-points), minimaxed from the values of the frontier `depth` plies down: `value_of`
/// gives a frontier position's exact value (for its own mover) from its string. A child's
/// value is its parent's when the same player moves again (a Kalah extra move), its negation
/// otherwise — as [`super::each_move`] relates them.
pub fn move_values<G: Game>(
    game: &G,
    root: &G::Position,
    depth: u32,
    value_of: &dyn Fn(&str) -> Option<i32>,
) -> Result<Vec<(G::Move, i32)>, FrontierError> {
    check_depth(depth)?;
    let mut memo = HashMap::new();
    let mut legal = Vec::new();
    game.legal_moves(root, &mut legal);
    let mover = game.to_move(root);
    let mut out = Vec::with_capacity(legal.len());
    for mv in legal {
        let mut child = root.clone();
        game.play(&mut child, mv);
        let v = value(game, &child, depth - 1, value_of, &mut memo)?;
        out.push((mv, if game.to_move(&child) == mover { v } else { -v }));
    }
    Ok(out)
}

fn value<G: Game>(
    game: &G,
    pos: &G::Position,
    left: u32,
    value_of: &dyn Fn(&str) -> Option<i32>,
    memo: &mut HashMap<(String, u32), i32>,
) -> Result<i32, FrontierError> {
    let mut moves = Vec::new();
    if game.outcome(pos).is_none() && left > 0 {
        game.legal_moves(pos, &mut moves);
    }
    let text = game.format_position(pos);
    if moves.is_empty() {
        return value_of(&text).ok_or(FrontierError::NoValue(text));
    }
    if let Some(&v) = memo.get(&(text.clone(), left)) {
        return Ok(v);
    }
    let mover = game.to_move(pos);
    let mut best = i32::MIN;
    for mv in moves {
        let mut child = pos.clone();
        game.play(&mut child, mv);
        let v = value(game, &child, left - 1, value_of, memo)?;
        best = best.max(if game.to_move(&child) == mover { v } else { -v });
    }
    memo.insert((text, left), best);
    Ok(best)
}

/// Whether `value` (half-points, for the mover of `pos`) is one a game from `pos` can end
/// with: a win, draw or loss in a won-or-lost game; in a scored one the final value when the
/// game is over, else a margin within what `pos` has at stake ([`ExactValues::value_range`](crate::game::ExactValues::value_range) around
/// its banked value) on its grid ([`ExactValues::value_step`](crate::game::ExactValues::value_step)). For numbers read from files.
pub fn possible_value<G: Game>(game: &G, pos: &G::Position, value: i64) -> bool {
    if game.win_draw_loss() {
        return [LOSS, DRAW, WIN].iter().any(|&v| i64::from(v) == value);
    }
    if let Some(outcome) = game.outcome(pos) {
        return value == i64::from(game.final_value(&outcome, game.to_move(pos)));
    }
    let Some((low, high)) = game.value_range(pos) else {
        return true;
    };
    let rest = value - i64::from(game.banked_value(pos));
    let (low, high) = (i64::from(low), i64::from(high));
    (low..=high).contains(&rest) && (rest - low).rem_euclid(i64::from(game.value_step())) == 0
}
