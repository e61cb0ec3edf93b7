//! The root's transposition-table entry after a search names the move the search plays,
//! with its score and depth. The root entry is what a helper thread, or the root recurring
//! deeper in the tree, reads; it once held the first move searched in the last iteration,
//! which differs from the best whenever that iteration changed its mind.

use sowfan::game::prelude::*;
use sowfan::games::fanorona::Size;
use sowfan::search::limits::Limits;
use sowfan::search::tt::{Bound, TranspositionTable};
use sowfan::search::{SearchControl, SearchSettings};

use crate::support::games;
use crate::support::rng::Rng;

/// Checks `positions` random positions at `depth`; returns how many of them changed their
/// best move in the last iteration (where only the best move's entry can pass).
fn check<G: Game>(
    g: &G,
    plies: std::ops::Range<usize>,
    depth: u32,
    positions: usize,
    seed: u64,
) -> usize {
    let mut rng = Rng::new(seed);
    let tt = TranspositionTable::new(8).unwrap();
    let mut moves = Vec::new();
    let mut changed = 0;
    let search = |pos: &G::Position, depth: u32| {
        tt.clear();
        sowfan::search::search(
            g,
            pos,
            &[],
            &[],
            &Limits::depth(depth),
            &SearchSettings::default(),
            &tt,
            None,
            &SearchControl::default(),
            &mut |_| {},
        )
    };
    for _ in 0..positions {
        let pos = games::random_position(g, &mut rng, plies.clone());
        g.legal_moves(&pos, &mut moves);
        if g.outcome(&pos).is_some() || moves.len() < 2 {
            continue;
        }
        let shallower = search(&pos, depth - 1);
        let result = search(&pos, depth);
        let (Some(best), Some(before)) = (result.best, shallower.best) else {
            panic!("{}: no best move", g.format_position(&pos));
        };
        if result.depth < depth {
            continue; // proven before the last iteration
        }
        changed += usize::from(best != before);
        let entry = tt
            .probe(g.hash(&pos))
            .unwrap_or_else(|| panic!("{}: no root entry", g.format_position(&pos)));
        let index = moves.iter().position(|&m| m == best).unwrap();
        assert_eq!(
            (entry.move_index, entry.score, entry.depth, entry.bound),
            (Some(index as u16), result.score, result.depth, Bound::Exact),
            "{} {}: the root entry against the search's result",
            g.spec(),
            g.format_position(&pos)
        );
    }
    changed
}

#[test]
fn the_root_entry_names_the_move_played() {
    let changed = check(&games::kalah(&[]), 4..30, 7, 60, 0x2007_0E27)
        + check(&games::fanorona(Size::Dimy, &[]), 4..20, 6, 60, 0x2007_0E28)
        + check(&games::tsivy(), 6..30, 5, 40, 0x2007_0E29);
    assert!(
        changed >= 10,
        "only {changed} searches changed their best move in the last iteration"
    );
}
