//! Two threads that split the root's moves between them (`Game::threads_split_root_moves`)
//! return the value one thread proves. Each thread searches only some of the moves after the
//! first, so the result is right only if the best move either thread found becomes the
//! search's, and a value is called proven only if no thread's moves rested on a heuristic
//! leaf.

use sowfan::game::prelude::*;
use sowfan::games::fanorona::Size;
use sowfan::search::limits::Limits;
use sowfan::search::tt::TranspositionTable;
use sowfan::search::{SearchControl, SearchResult, SearchSettings};

use crate::support::games;
use crate::support::rng::Rng;

fn search<G: Game>(g: &G, pos: &G::Position, depth: u32, threads: usize) -> SearchResult<G::Move> {
    let tt = TranspositionTable::new(8).unwrap();
    let settings = SearchSettings {
        threads,
        ..SearchSettings::default()
    };
    sowfan::search::search(
        g,
        pos,
        &[],
        &[],
        &Limits::depth(depth),
        &settings,
        &tt,
        None,
        &SearchControl::default(),
        &mut |_| {},
    )
}

/// Over `positions` random positions: every value proven by one thread and by two is the
/// same. Returns how many positions both proved.
fn check<G: Game>(
    g: &G,
    plies: std::ops::Range<usize>,
    depth: u32,
    positions: usize,
    seed: u64,
) -> usize {
    assert!(g.threads_split_root_moves(), "{}", g.spec());
    let mut rng = Rng::new(seed);
    let mut moves = Vec::new();
    let mut both = 0;
    for _ in 0..positions {
        let pos = games::random_position(g, &mut rng, plies.clone());
        g.legal_moves(&pos, &mut moves);
        if g.outcome(&pos).is_some() || moves.len() < 2 {
            continue;
        }
        let one = search(g, &pos, depth, 1);
        let two = search(g, &pos, depth, 2);
        if one.proven && two.proven {
            both += 1;
            assert_eq!(
                two.score,
                one.score,
                "{} {}: two threads against one",
                g.spec(),
                g.format_position(&pos)
            );
        }
    }
    both
}

#[test]
fn two_threads_splitting_the_root_prove_what_one_thread_proves() {
    let kalah = check(
        &games::kalah(&["pits=4", "seeds=3"]),
        4..30,
        30,
        800,
        0x5B1_7001,
    );
    let telo = check(&games::fanorona(Size::Telo, &[]), 0..6, 30, 200, 0x5B1_7002);
    assert!(
        kalah >= 150 && telo >= 120,
        "too few proven positions to compare: kalah {kalah}, telo {telo}"
    );
}
