//! The search past the horizon (`Game::horizon`, `Horizon::Forced`): a depth-1 search of a
//! Fanorona position with captures pending must score exactly what a plain, unpruned
//! minimax over the same quiescence tree scores — the evaluation as the mover's floor
//! (stand pat), every capture turn tried while captures are due, at most
//! `QUIESCENCE_PLIES` forced turns. Alpha-beta only prunes: it may not change the value.

use sowfan::game::{Game, Horizon, QUIESCENCE_PLIES};
use sowfan::games::fanorona::{Fanorona, FanoronaPosition, OPTIONS, Size};
use sowfan::options::GameOptions;
use sowfan::search::limits::Limits;
use sowfan::search::tt::TranspositionTable;
use sowfan::search::{SearchControl, SearchSettings, score};

use crate::support::rng::Rng;

/// The quiescence value of `pos` for its mover, `ply` plies from the root, without pruning;
/// `None` when the tree is bigger than `budget` nodes (too slow to check).
fn quiescence(
    g: &Fanorona,
    pos: &FanoronaPosition,
    ply: usize,
    qply: usize,
    budget: &mut u64,
) -> Option<i32> {
    *budget = budget.checked_sub(1)?;
    let mover = g.to_move(pos);
    if let Some(outcome) = g.outcome(pos) {
        return Some(score::terminal(&outcome, mover, ply));
    }
    let stand = score::clamp_eval(g.evaluate(pos));
    if qply >= QUIESCENCE_PLIES || g.horizon(pos) == Horizon::Quiet {
        return Some(stand);
    }
    let mut moves = Vec::new();
    g.legal_moves(pos, &mut moves);
    let mut best = stand;
    for mv in moves {
        let mut child = *pos;
        g.play(&mut child, mv);
        let value = quiescence(g, &child, ply + 1, qply + 1, budget)?;
        best = best.max(if g.to_move(&child) == mover {
            value
        } else {
            -value
        });
    }
    Some(best)
}

#[test]
fn depth_one_scores_equal_an_unpruned_quiescence_minimax() {
    let mut rng = Rng::new(0x51_0E5C_E4CE);
    let tt = TranspositionTable::new(4).unwrap();
    let mut checked = 0;
    let mut forced_children = 0;
    for (size, plies) in [(Size::Dimy, 6..20), (Size::Tsivy, 10..40)] {
        let g = Fanorona::new(
            size,
            GameOptions::parse(size.game_name(), OPTIONS, &["repetition=off"]).unwrap(),
        );
        for _ in 0..150 {
            // A random game of a random length: varied positions, many with captures due.
            let mut pos = g.start_position();
            let length = plies.start + rng.below(plies.end - plies.start);
            let mut moves = Vec::new();
            for _ in 0..length {
                g.legal_moves(&pos, &mut moves);
                if moves.is_empty() || g.outcome(&pos).is_some() {
                    break;
                }
                let mv = moves[rng.below(moves.len())];
                g.play(&mut pos, mv);
            }
            if g.outcome(&pos).is_some() {
                continue;
            }
            // The reference: the best root move's value over the quiescence of its child.
            g.legal_moves(&pos, &mut moves);
            let mover = g.to_move(&pos);
            let mut budget = 200_000u64;
            let mut expected = None;
            for &mv in &moves {
                let mut child = pos;
                g.play(&mut child, mv);
                if g.horizon(&child) == Horizon::Forced {
                    forced_children += 1;
                }
                let Some(value) = quiescence(&g, &child, 1, 0, &mut budget) else {
                    expected = None;
                    break;
                };
                let value = if g.to_move(&child) == mover {
                    value
                } else {
                    -value
                };
                expected = Some(expected.map_or(value, |e: i32| e.max(value)));
            }
            let Some(expected) = expected else {
                continue; // too big a tree for the reference
            };
            tt.clear();
            let result = sowfan::search::search(
                &g,
                &pos,
                &[],
                &[],
                &Limits::depth(1),
                &SearchSettings::default(),
                &tt,
                None,
                &SearchControl::default(),
                &mut |_| {},
            );
            assert_eq!(
                result.score,
                expected,
                "{}: depth-1 search against the unpruned quiescence",
                g.format_position(&pos)
            );
            checked += 1;
        }
    }
    assert!(checked >= 150, "only {checked} positions were small enough");
    assert!(
        forced_children >= 100,
        "only {forced_children} children with captures due: the test checks too little"
    );
}
