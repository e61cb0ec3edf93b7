//! The search past the horizon (`Game::horizon`): a depth-1 search must score exactly what
//! a plain, unpruned minimax over the same quiescence tree scores — the evaluation as the
//! mover's floor (stand pat); while the horizon says `Forced`, every legal move; while it
//! says `Optional`, the moves `Game::is_forcing` names; at most `QUIESCENCE_PLIES` plies.
//! Alpha-beta only prunes: it may not change the value. Checked on Fanorona (compulsory
//! captures: `Forced`) and Kalah (captures and extra moves the mover may decline:
//! `Optional`, with extra moves that keep the mover).

use sowfan::game::prelude::*;
use sowfan::game::{Horizon, QUIESCENCE_PLIES};
use sowfan::games::fanorona::Size;
use sowfan::nnue::accumulator::Accumulator;
use sowfan::search::limits::Limits;
use sowfan::search::tt::TranspositionTable;
use sowfan::search::{SearchControl, SearchSettings, score};

use crate::support::games;
use crate::support::rng::Rng;

/// The quiescence value of `pos` for its mover, `ply` plies from the root, without pruning;
/// `None` when the tree is bigger than `budget` nodes (too slow to check).
fn quiescence<G: Game>(
    g: &G,
    pos: &G::Position,
    ply: usize,
    qply: usize,
    budget: &mut u64,
) -> Option<i32> {
    *budget = budget.checked_sub(1)?;
    let mover = g.to_move(pos);
    if let Some(outcome) = g.outcome(pos) {
        return Some(if g.win_draw_loss() {
            score::terminal(&outcome, mover, ply)
        } else {
            score::exact_at(g.final_value(&outcome, mover), ply)
        });
    }
    let stand = score::clamp_eval(static_eval(g, pos));
    let horizon = g.horizon(pos);
    if qply >= QUIESCENCE_PLIES || horizon == Horizon::Quiet {
        return Some(stand);
    }
    let mut moves = Vec::new();
    g.legal_moves(pos, &mut moves);
    let mut best = stand;
    for mv in moves {
        if horizon == Horizon::Optional && !g.is_forcing(pos, mv) {
            continue;
        }
        let mut child = pos.clone();
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

/// The evaluation the search uses: the network's from an accumulator computed afresh (the
/// search updates its own move by move), else the hand-written one.
fn static_eval<G: Game>(g: &G, pos: &G::Position) -> i32 {
    if g.accumulates() {
        let mut acc = Accumulator::default();
        g.refresh_accumulator(pos, &mut acc);
        g.evaluate_accumulated(pos, &acc).0
    } else {
        g.evaluate(pos)
    }
}

/// Random positions of `g` (random games of a length in `plies`), each searched to depth 1
/// and compared with the reference; returns (positions checked, children not quiet).
fn check<G: Game>(g: &G, plies: std::ops::Range<usize>, games: usize, seed: u64) -> (usize, usize) {
    let mut rng = Rng::new(seed);
    let tt = TranspositionTable::new(4).unwrap();
    let (mut checked, mut noisy_children) = (0, 0);
    let mut moves = Vec::new();
    for _ in 0..games {
        let pos = games::random_position(g, &mut rng, plies.clone());
        if g.outcome(&pos).is_some() {
            continue;
        }
        // The reference: the best root move's value over the quiescence of its child.
        g.legal_moves(&pos, &mut moves);
        let mover = g.to_move(&pos);
        let mut budget = 200_000u64;
        let mut expected = None;
        for &mv in &moves {
            let mut child = pos.clone();
            g.play(&mut child, mv);
            if g.outcome(&child).is_none() && g.horizon(&child) != Horizon::Quiet {
                noisy_children += 1;
            }
            let Some(value) = quiescence(g, &child, 1, 0, &mut budget) else {
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
            g,
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
            "{} {}: depth-1 search against the unpruned quiescence",
            g.spec(),
            g.format_position(&pos)
        );
        checked += 1;
    }
    (checked, noisy_children)
}

#[test]
fn fanorona_depth_one_scores_equal_an_unpruned_quiescence_minimax() {
    let mut total = (0, 0);
    for (size, plies, seed) in [(Size::Dimy, 6..20, 1), (Size::Tsivy, 10..40, 2)] {
        let g = games::fanorona(size, &["repetition=off"]);
        let (checked, noisy) = check(&g, plies, 150, 0x51_0E5C_E4CE + seed);
        total = (total.0 + checked, total.1 + noisy);
    }
    assert!(
        total.0 >= 150,
        "only {} positions were small enough",
        total.0
    );
    assert!(
        total.1 >= 100,
        "only {} children with captures due",
        total.1
    );
}

#[test]
fn kalah_depth_one_scores_equal_an_unpruned_quiescence_minimax() {
    let mut total = (0, 0);
    for (options, plies) in [(&["pits=4", "seeds=3"][..], 2..16), (&[][..], 4..40)] {
        let g = games::kalah(options);
        let (checked, noisy) = check(&g, plies, 150, 0xCA1A);
        total = (total.0 + checked, total.1 + noisy);
    }
    assert!(
        total.0 >= 200,
        "only {} positions were small enough",
        total.0
    );
    assert!(
        total.1 >= 100,
        "only {} children with a capture or extra move",
        total.1
    );
}

/// `Game::null_move` (null-move pruning's pass) is offered exactly where the game's
/// `is_quiet` says nothing forcing is at hand, and the passed position is the same board
/// with the other side to move; games where the pruning lost offer none.
fn passes_only_when_quiet<G: Game>(g: &G, games: usize, seed: u64) -> (usize, usize) {
    let mut rng = Rng::new(seed);
    let (mut offered, mut refused) = (0, 0);
    for _ in 0..games {
        crate::support::selfplay::play_out(g, g.start_position(), |_, pos, moves| {
            if moves.is_empty() {
                return None;
            }
            match g.null_move(pos) {
                Some(passed) => {
                    offered += 1;
                    assert!(
                        g.is_quiet(pos),
                        "a pass offered with a forcing move at hand"
                    );
                    assert_eq!(g.to_move(&passed), g.to_move(pos).other());
                    assert_ne!(g.hash(&passed), g.hash(pos));
                    // The board is the same: after a second pass the position is back
                    // (a quiet counter aside).
                    let back = g.null_move(&passed).map(|p| g.to_move(&p));
                    assert!(back.is_none_or(|side| side == g.to_move(pos)));
                }
                None => {
                    refused += 1;
                }
            }
            Some(*rng.pick(moves))
        });
    }
    (offered, refused)
}

#[test]
fn a_pass_is_offered_only_with_nothing_forcing_at_hand() {
    // Afrika passes when quiet; the other games never (null-move pruning lost Elo in Kalah
    // and Fanorona, and is not proven in Anywoli: docs/strength.md).
    let (offered, refused) = passes_only_when_quiet(&games::afrika(&[]), 20, 3);
    assert!(
        offered > 20 && refused > 20,
        "afrika: {offered} offered, {refused} refused"
    );
    for (name, (offered, refused)) in [
        (
            "fanorona",
            passes_only_when_quiet(&games::fanorona(Size::Dimy, &[]), 10, 1),
        ),
        (
            "kalah",
            passes_only_when_quiet(&games::kalah(&["pie=true"]), 10, 2),
        ),
        (
            "anywoli",
            passes_only_when_quiet(&games::anywoli(&[]), 10, 4),
        ),
    ] {
        assert!(offered == 0 && refused > 20, "{name}: {offered} offered");
    }
    // Where the mover is quiet a pass is offered; with a capture due, none.
    let g = games::afrika(&[]);
    let mut quiet_seen = false;
    let mut due_seen = false;
    crate::support::selfplay::play_out(&g, g.start_position(), |_, pos, moves| {
        if moves.is_empty() {
            return None;
        }
        let quiet = g.is_quiet(pos);
        assert_eq!(g.null_move(pos).is_some(), quiet);
        quiet_seen |= quiet;
        due_seen |= !quiet;
        moves.first().copied()
    });
    assert!(quiet_seen && due_seen);
}

#[test]
fn late_moves_are_pruned_only_where_the_pruning_won() {
    // Kalah won its SPRT at equal time; Fanorona and Anywoli lost theirs, and Afrika's moves
    // are quiet only by its hint's rank (docs/strength.md).
    assert!(games::kalah(&[]).prunes_late_moves());
    assert!(games::kalah(&["pie=true"]).prunes_late_moves());
    assert!(!games::fanorona(Size::Tsivy, &[]).prunes_late_moves());
    assert!(!games::afrika(&[]).prunes_late_moves());
    assert!(!games::anywoli(&[]).prunes_late_moves());
}

#[test]
fn late_moves_are_reduced_by_rank_only_where_the_hint_ranks_quiet_moves() {
    // Afrika's hint is the evaluation after every sowing, and its late sowings reduced
    // won their SPRT at equal time; elsewhere a hint singles out a forcing move, which
    // is never reduced (docs/strength.md).
    assert!(games::afrika(&[]).hint_ranks_quiet_moves());
    assert!(!games::kalah(&[]).hint_ranks_quiet_moves());
    assert!(!games::anywoli(&[]).hint_ranks_quiet_moves());
    assert!(!games::fanorona(Size::Tsivy, &[]).hint_ranks_quiet_moves());
}
