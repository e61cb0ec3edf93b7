//! The threads: [`search`] starts one worker a thread (see `worker.rs`), the first one
//! reporting and deciding, and turns the main thread's (or the deepest helper's) iteration
//! into the result.

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::Instant;

use crate::game::{Game, HISTORY_KEYS};
use crate::nnue::accumulator::Accumulator;
use crate::tables::Tables;

use super::control::SearchControl;
use super::limits::{Limits, TimeBudget};
use super::score::{INFINITE, MAX_PLY};
use super::tt::TranspositionTable;
use super::worker::{Frame, HelperBest, RootMove, RootSplit, Shared, Worker};
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
