//! `bench`: fixed-depth searches of fixed positions of every game, for a speed figure and a
//! node count that identifies the search's behaviour (the same for a given build).

use std::time::{Duration, Instant};

use crate::registry;
use crate::search::limits::Limits;
use crate::search::tt::TranspositionTable;
use crate::search::{SearchControl, SearchSettings};

/// Hash size of every bench search: fixed, so that node counts do not depend on `Hash`.
const BENCH_HASH_MB: usize = 16;

pub struct BenchTotals {
    pub nodes: u64,
    pub elapsed: Duration,
    /// False when `stop` ended the bench early (no totals were printed).
    pub complete: bool,
}

/// Run the bench; `depth` overrides each game's own depth. Reports one line per position
/// and the totals through `out`. A `stop` ([`SearchControl::request_stop`]) ends it within milliseconds: the running
/// search stops, `info string bench stopped …` is printed instead of the totals (a partial
/// node count is no signature).
pub fn run(depth: Option<u32>, control: &SearchControl, out: &mut dyn FnMut(&str)) -> BenchTotals {
    let tt = match TranspositionTable::new(BENCH_HASH_MB) {
        Ok(tt) => tt,
        Err(e) => {
            out(&format!("info string error: {e}"));
            return BenchTotals {
                nodes: 0,
                elapsed: Duration::ZERO,
                complete: false,
            };
        }
    };
    let settings = SearchSettings {
        threads: 1,
        multipv: 1,
        move_overhead: 0,
        contempt: 0,
    };
    let start = Instant::now();
    let mut nodes = 0;
    let mut done = 0;
    let total: usize = registry::GAMES
        .iter()
        .filter_map(|entry| registry::create(entry.name, &[]).ok())
        .map(|session| session.bench().positions.len() + 1)
        .sum();
    'games: for entry in registry::GAMES {
        let Ok(mut session) = registry::create(entry.name, &[]) else {
            continue;
        };
        let spec = session.bench();
        let depth = depth.unwrap_or(spec.depth);
        let positions: Vec<Option<&str>> = std::iter::once(None)
            .chain(spec.positions.iter().map(|p| Some(*p)))
            .collect();
        for (i, fen) in positions.iter().enumerate() {
            if control.is_stopped() {
                break 'games;
            }
            if let Err(e) = session.set_position(*fen, &[]) {
                out(&format!(
                    "info string error: bench position of {}: {e}",
                    entry.name
                ));
                continue;
            }
            tt.clear();
            let limits = Limits::depth(depth);
            let t = Instant::now();
            let Ok(summary) = session.search(&limits, &settings, &tt, None, control, &mut |_| {})
            else {
                continue;
            };
            if control.is_stopped() {
                break 'games; // cut short: not counted
            }
            done += 1;
            nodes += summary.nodes;
            out(&format!(
                "info string bench {} {}/{} depth {} bestmove {} nodes {} time {}",
                entry.name,
                i + 1,
                positions.len(),
                depth,
                summary.bestmove,
                summary.nodes,
                t.elapsed().as_millis()
            ));
        }
    }
    let elapsed = start.elapsed();
    if control.is_stopped() {
        out(&format!(
            "info string bench stopped after {done} of {total} positions ({nodes} nodes): no totals"
        ));
        return BenchTotals {
            nodes,
            elapsed,
            complete: false,
        };
    }
    let ms = elapsed.as_millis().max(1) as u64;
    out(&format!("Total time (ms) : {ms}"));
    out(&format!("Nodes searched  : {nodes}"));
    out(&format!("Nodes/second    : {}", nodes * 1000 / ms));
    BenchTotals {
        nodes,
        elapsed,
        complete: true,
    }
}
