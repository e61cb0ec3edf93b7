//! Brute-force walks of move trees: the engine's tree beside an independent implementation
//! of the rules (a [`Reference`], written for the tests and sharing no code with the
//! engine), node by node; perft of a reference alone; and game values by plain minimax.

use std::collections::HashMap;
use std::fmt::Debug;
use std::hash::Hash;

use sowfan::game::Outcome;
use sowfan::game::prelude::*;

/// A second implementation of a game's rules, as plain as possible; only the text formats
/// (position strings, move texts) are the engine's, so that the two can be compared as text.
pub trait Reference {
    type Pos;

    /// The position string, in the engine's format.
    fn text(&self, pos: &Self::Pos) -> String;

    /// Every legal move as the engine writes it, with the position it leads to; none once
    /// the game is over.
    fn moves(&self, pos: &Self::Pos) -> Vec<(String, Self::Pos)>;

    /// Panics if the engine's end of the game at `pos` (`outcome`; `text` is the position
    /// string, for the message) is not this reference's. The default checks nothing beyond
    /// what [`walk`] does itself: that a position is over exactly when it has no moves.
    fn check_end(&self, _pos: &Self::Pos, _outcome: Option<&Outcome>, _text: &str) {}
}

/// What a [`walk`] compares besides position strings, move lists and game ends.
pub struct Walk {
    /// The move lists in the same order (the order `legal` and `perft` show), not only the
    /// same moves.
    pub ordered: bool,
    /// Every position string read back to its position.
    pub read_back: bool,
    /// At the last ply too, every move text parsed back to its move and every position
    /// string read back to its position. A very deep walk skips these there: parsing a move
    /// generates the moves again, which makes it too slow for hundreds of millions.
    pub replay_leaves: bool,
    /// The legal moves of the leaves compared too, not only their position strings and ends.
    pub leaf_moves: bool,
}

/// Walk the engine's tree below `pos` and the reference's below `rpos` side by side, `depth`
/// plies deep. At every node: the same position string (read back to the same position if
/// asked); the same end of the game ([`Reference::check_end`]); above the leaves (and at
/// them with `leaf_moves`) the same legal move texts, no text twice, and no legal move
/// exactly when the game is over; every move text parses back to its move; below each move
/// the same again. Returns the nodes at each ply (`[0]` is the root, `[depth]` the leaves:
/// perft(depth)).
pub fn walk<G, R>(
    game: &G,
    reference: &R,
    pos: &G::Position,
    rpos: &R::Pos,
    depth: usize,
    how: &Walk,
) -> Vec<u64>
where
    G: Game,
    G::Position: PartialEq,
    R: Reference,
{
    let mut counts = vec![0; depth + 1];
    node(game, reference, pos, rpos, depth, how, &mut counts);
    counts
}

fn node<G, R>(
    game: &G,
    reference: &R,
    pos: &G::Position,
    rpos: &R::Pos,
    depth: usize,
    how: &Walk,
    counts: &mut [u64],
) where
    G: Game,
    G::Position: PartialEq,
    R: Reference,
{
    counts[counts.len() - 1 - depth] += 1;
    let text = game.format_position(pos);
    assert_eq!(text, reference.text(rpos), "positions differ");
    if how.read_back && (depth > 0 || how.replay_leaves) {
        match game.parse_position(&text) {
            Ok(back) => assert!(back == *pos, "{text} reads back as another position"),
            Err(e) => panic!("{text} does not read back: {e}"),
        }
    }
    let outcome = game.outcome(pos);
    reference.check_end(rpos, outcome.as_ref(), &text);
    if depth == 0 && !how.leaf_moves {
        return;
    }
    let mut moves = Vec::new();
    game.legal_moves(pos, &mut moves);
    let mut ours: Vec<(String, G::Move)> = moves
        .iter()
        .map(|&mv| (game.format_move(pos, mv), mv))
        .collect();
    let mut theirs = reference.moves(rpos);
    if !how.ordered {
        ours.sort_by(|a, b| a.0.cmp(&b.0));
        theirs.sort_by(|a, b| a.0.cmp(&b.0));
    }
    let texts: Vec<&str> = ours.iter().map(|(t, _)| t.as_str()).collect();
    let expected: Vec<&str> = theirs.iter().map(|(t, _)| t.as_str()).collect();
    assert_eq!(texts, expected, "moves differ at {text}");
    let mut distinct = texts.clone();
    distinct.sort_unstable();
    distinct.dedup();
    assert_eq!(distinct.len(), texts.len(), "a move text twice at {text}");
    assert_eq!(
        moves.is_empty(),
        outcome.is_some(),
        "{text}: over exactly when there is no move"
    );
    if depth == 0 {
        return;
    }
    for ((move_text, mv), (_, rchild)) in ours.iter().zip(&theirs) {
        if depth > 1 || how.replay_leaves {
            assert_eq!(
                game.parse_move(pos, move_text),
                Ok(*mv),
                "{move_text} in {text}"
            );
        }
        let mut child = pos.clone();
        game.play(&mut child, *mv);
        node(game, reference, &child, rchild, depth - 1, how, counts);
    }
}

/// A position as [`minimax`] sees it.
pub enum Node<P> {
    /// The game is over: its value for the side to move.
    Over(i64),
    /// The positions after each move, each with whether the same side moves again there.
    Moves(Vec<(P, bool)>),
}

/// The value of `pos` for the side to move by plain minimax without pruning, memoised under
/// `key`. A position met again while it is being valued is a cycle: a panic (its value
/// would be undefined).
pub fn minimax<P: Debug, K: Hash + Eq>(
    pos: &P,
    memo: &mut HashMap<K, Option<i64>>,
    key: &impl Fn(&P) -> K,
    expand: &impl Fn(&P) -> Node<P>,
) -> i64 {
    let k = key(pos);
    match memo.get(&k) {
        Some(Some(value)) => return *value,
        Some(None) => panic!("a cycle through {pos:?}"),
        None => {}
    }
    let value = match expand(pos) {
        Node::Over(value) => value,
        Node::Moves(children) => {
            memo.insert(key(pos), None);
            children
                .iter()
                .map(|(child, again)| {
                    let v = minimax(child, memo, key, expand);
                    if *again { v } else { -v }
                })
                .max()
                .expect("a position that is not over has a move")
        }
    };
    memo.insert(k, Some(value));
    value
}

/// The value of `pos` for the side to move by plain minimax over the engine's own rules
/// (its legal moves and final values, in half-points for Kalah and Afrika, ±2 for
/// Fanorona), memoised by the game's full 64-bit hash. A game whose hash holds what its
/// draw rules count (Fanorona's quiet counter) has no cycle; repetition is a rule of a
/// game's history and not of a position, so it plays no part.
pub fn game_minimax<G: Game>(
    game: &G,
    pos: &G::Position,
    memo: &mut HashMap<u64, Option<i64>>,
) -> i32 {
    let value = minimax(pos, memo, &|pos| game.hash(pos), &|pos| {
        let mover = game.to_move(pos);
        if let Some(outcome) = game.outcome(pos) {
            return Node::Over(game.final_value(&outcome, mover).into());
        }
        let mut moves = Vec::new();
        game.legal_moves(pos, &mut moves);
        let children = moves.into_iter().map(|mv| {
            let mut child = pos.clone();
            game.play(&mut child, mv);
            let again = game.to_move(&child) == mover;
            (child, again)
        });
        Node::Moves(children.collect())
    });
    i32::try_from(value).expect("a value that fits i32")
}

/// perft of a reference alone at every ply: the nodes at each ply below `pos` (`[0]` the
/// root, `[depth]` the leaves), as [`walk`] returns them.
pub fn perft_by_ply<R: Reference>(reference: &R, pos: &R::Pos, depth: usize) -> Vec<u64> {
    fn count<R: Reference>(reference: &R, pos: &R::Pos, left: usize, counts: &mut [u64]) {
        counts[counts.len() - 1 - left] += 1;
        if left > 0 {
            for (_, child) in reference.moves(pos) {
                count(reference, &child, left - 1, counts);
            }
        }
    }
    let mut counts = vec![0; depth + 1];
    count(reference, pos, depth, &mut counts);
    counts
}
