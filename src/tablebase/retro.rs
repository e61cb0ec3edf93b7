//! Building a layer of distance tables ([`TableValues::Distance`]) by retrograde analysis.
//!
//! Inside such a layer positions can come back to themselves (Fanorona: stones step to and
//! fro), so the depth-first builder of [`super::build`] cannot value them; and the limit on
//! turns inside a layer (the quiet-limit) makes a value depend on the turns left. The
//! turns left only ever help the side that can win: with `r` turns left a position is won
//! (or lost) exactly when `r` is at least its distance `d`, and drawn otherwise. So one
//! byte holds a position's value under every counter: its result and `d`.
//!
//! The build, for one layer, from the layers below (already built):
//! 1. every position once: an end of the game is decided at distance 0 (lost: its mover
//!    cannot move); a move that leaves the layer (a capture) leads to a position whose
//!    value the layers below give for a fresh counter, so a position that can win by one
//!    is won at distance 1, one whose every move leaves the layer and loses is lost at 1;
//!    the others count their distinct children inside the layer (a child leaving the layer
//!    to a draw counts as one that never turns out won);
//! 2. then distance by distance, from the positions decided at distance `k`: each position
//!    of the layer with a move to one (the game's [`Game::table_unmoves`]) is won at
//!    `k + 1` if the child is lost for its mover, and lost at `k + 1` when the child was
//!    the last of its children to be decided won. Distances grow to the limit; what is
//!    still undecided then is a draw whatever the counter.
//!
//! A position reached from a child by several un-moves (mirror images of one child, under
//! the board's symmetries that the index folds together) counts that child once: the
//! predecessors of a child are deduplicated, as its children were counted distinct.
//!
//! Threads split each step's positions; values are set once (compare-and-swap from
//! "unknown"), counters fall atomically, so the bytes do not depend on the threads.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicI8, AtomicU8, AtomicU64, Ordering};

use super::job::{BuildError, BuildOptions, progress_bar};
use crate::game::{Game, TableValues};

/// Marks a position whose value is not known yet.
pub(super) const UNKNOWN: i8 = i8::MIN;
/// Positions handed to a worker at a time.
const CHUNK: usize = 1 << 12;

/// The byte of a win at distance `d`, a loss at distance `d`.
fn won(d: u32) -> i8 {
    d as i8
}

fn lost(d: u32) -> i8 {
    -(d as i8) - 1
}

/// Compute every value of `layer` (distance tables) into a fresh array of the whole layer.
pub(super) fn build_layer<G: Game>(
    game: &G,
    layer: u32,
    lower: &[(&[u8], usize)],
    options: &BuildOptions,
    stop: &AtomicBool,
) -> Result<Vec<AtomicI8>, BuildError> {
    let TableValues::Distance { limit, .. } = game.table_values() else {
        return Err(invalid(layer, "not a distance table"));
    };
    let values_kind = game.table_values();
    let entries = game.table_layer_size(layer);
    let size = usize::try_from(entries).map_err(|_| invalid(layer, "too many entries"))?;
    let values: Vec<AtomicI8> = (0..size).map(|_| AtomicI8::new(UNKNOWN)).collect();
    let counts: Vec<AtomicU8> = (0..size).map(|_| AtomicU8::new(0)).collect();
    let failed: Mutex<Option<BuildError>> = Mutex::new(None);
    let threads = options.threads.max(1);
    let name = game.table_layer_name(layer);

    let started = std::time::Instant::now();
    // 1. Every position once.
    let bar = progress_bar(
        options.progress,
        &format!("layer {layer:>3} ({name}) start"),
        entries,
    );
    let next = AtomicU64::new(0);
    let mut firsts: Vec<Vec<u64>> = Vec::new();
    let mut seconds: Vec<Vec<u64>> = Vec::new();
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut start = Start {
                        game,
                        layer,
                        lower,
                        values_kind,
                        moves: Vec::new(),
                        inside: Vec::new(),
                        at_zero: Vec::new(),
                        at_one: Vec::new(),
                    };
                    loop {
                        if stop.load(Ordering::Relaxed) || lock(&failed).is_some() {
                            break;
                        }
                        let from = next.fetch_add(CHUNK as u64, Ordering::Relaxed);
                        if from >= entries {
                            break;
                        }
                        let to = (from + CHUNK as u64).min(entries);
                        for index in from..to {
                            if let Err(e) = start.position(index, &values, &counts) {
                                lock(&failed).get_or_insert(e);
                                break;
                            }
                        }
                        bar.inc(to - from);
                    }
                    (start.at_zero, start.at_one)
                })
            })
            .collect();
        for worker in workers {
            if let Ok((zero, one)) = worker.join() {
                firsts.push(zero);
                seconds.push(one);
            }
        }
    });
    bar.finish_and_clear();
    if let Some(e) = lock(&failed).take() {
        return Err(e);
    }
    if stop.load(Ordering::Relaxed) {
        return Err(BuildError::Stopped);
    }

    log::info!(
        "layer {layer} ({name}): {entries} positions looked at in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    let started = std::time::Instant::now();
    // 2. Distance by distance.
    let mut current: Vec<u64> = firsts.concat();
    let mut following: Vec<u64> = seconds.concat();
    drop((firsts, seconds));
    let decided_at_start = (current.len() + following.len()) as u64;
    let bar = progress_bar(
        options.progress,
        &format!("layer {layer:>3} ({name}) retro"),
        entries,
    );
    bar.inc(decided_at_start);
    for k in 0..limit {
        if current.is_empty() && following.is_empty() {
            break;
        }
        let found = step(
            game, layer, k, &current, &values, &counts, threads, stop, &failed,
        );
        if let Some(e) = lock(&failed).take() {
            return Err(e);
        }
        if stop.load(Ordering::Relaxed) {
            return Err(BuildError::Stopped);
        }
        bar.inc(found.len() as u64);
        current = std::mem::take(&mut following);
        current.extend(found);
    }
    bar.finish_and_clear();
    log::info!(
        "layer {layer} ({name}): retrograde steps in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    // Undecided within the limit: a draw whatever the counter.
    for value in &values {
        if value.load(Ordering::Relaxed) == UNKNOWN {
            value.store(0, Ordering::Relaxed);
        }
    }
    Ok(values)
}

/// From the positions decided at distance `k`, decide their predecessors at `k + 1`: the
/// indexes so decided.
#[allow(clippy::too_many_arguments)]
fn step<G: Game>(
    game: &G,
    layer: u32,
    k: u32,
    decided: &[u64],
    values: &[AtomicI8],
    counts: &[AtomicU8],
    threads: usize,
    stop: &AtomicBool,
    failed: &Mutex<Option<BuildError>>,
) -> Vec<u64> {
    let next = AtomicU64::new(0);
    let mut found = Vec::new();
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut out = Vec::new();
                    let mut preds = Vec::new();
                    let mut indexes: Vec<u64> = Vec::new();
                    loop {
                        if stop.load(Ordering::Relaxed) || lock(failed).is_some() {
                            break;
                        }
                        let from = next.fetch_add(CHUNK as u64, Ordering::Relaxed) as usize;
                        if from >= decided.len() {
                            break;
                        }
                        let to = (from + CHUNK).min(decided.len());
                        for &child in &decided[from..to] {
                            let child_lost = values[child as usize].load(Ordering::Relaxed) < 0;
                            let Some(pos) = game.table_position(layer, child) else {
                                lock(failed).get_or_insert(invalid(
                                    layer,
                                    "a decided index has no position",
                                ));
                                return out;
                            };
                            game.table_unmoves(&pos, &mut preds);
                            indexes.clear();
                            for pred in &preds {
                                match game.table_index(pred, layer) {
                                    Some((l, i)) if l == layer => indexes.push(i),
                                    _ => {
                                        lock(failed).get_or_insert(invalid(
                                            layer,
                                            &format!(
                                                "an un-move of {} leaves the layer",
                                                game.format_position(&pos)
                                            ),
                                        ));
                                        return out;
                                    }
                                }
                            }
                            indexes.sort_unstable();
                            indexes.dedup();
                            for &p in &indexes {
                                let slot = &values[p as usize];
                                if slot.load(Ordering::Relaxed) != UNKNOWN {
                                    continue;
                                }
                                let decided_now = if child_lost {
                                    slot.compare_exchange(
                                        UNKNOWN,
                                        won(k + 1),
                                        Ordering::Relaxed,
                                        Ordering::Relaxed,
                                    )
                                    .is_ok()
                                } else {
                                    counts[p as usize].fetch_sub(1, Ordering::Relaxed) == 1
                                        && slot
                                            .compare_exchange(
                                                UNKNOWN,
                                                lost(k + 1),
                                                Ordering::Relaxed,
                                                Ordering::Relaxed,
                                            )
                                            .is_ok()
                                };
                                if decided_now {
                                    out.push(p);
                                }
                            }
                        }
                    }
                    out
                })
            })
            .collect();
        for worker in workers {
            if let Ok(out) = worker.join() {
                found.extend(out);
            }
        }
    });
    found
}

/// The first look at every position of a layer (one per worker thread).
struct Start<'a, G: Game> {
    game: &'a G,
    layer: u32,
    lower: &'a [(&'a [u8], usize)],
    values_kind: TableValues,
    moves: Vec<G::Move>,
    inside: Vec<u64>,
    /// Decided at distance 0, 1.
    at_zero: Vec<u64>,
    at_one: Vec<u64>,
}

impl<G: Game> Start<'_, G> {
    fn position(
        &mut self,
        index: u64,
        values: &[AtomicI8],
        counts: &[AtomicU8],
    ) -> Result<(), BuildError> {
        let game = self.game;
        let Some(pos) = game.table_position(self.layer, index) else {
            // A slot no position has.
            values[index as usize].store(0, Ordering::Relaxed);
            return Ok(());
        };
        let mover = game.to_move(&pos);
        if let Some(outcome) = game.outcome(&pos) {
            let value = game.final_value(&outcome, mover);
            if value > 0 {
                return Err(invalid(
                    self.layer,
                    &format!(
                        "{}: a table position whose mover has already won",
                        game.format_position(&pos)
                    ),
                ));
            }
            if value < 0 {
                values[index as usize].store(lost(0), Ordering::Relaxed);
                self.at_zero.push(index);
            } else {
                values[index as usize].store(0, Ordering::Relaxed);
            }
            return Ok(());
        }
        game.legal_moves(&pos, &mut self.moves);
        if self.moves.is_empty() {
            return Err(invalid(
                self.layer,
                "a position that is not over has no legal move",
            ));
        }
        self.inside.clear();
        let mut best_exit: Option<i32> = None;
        for &mv in &self.moves {
            let mut child = pos.clone();
            game.play(&mut child, mv);
            if game.to_move(&child) == mover {
                return Err(invalid(
                    self.layer,
                    "distance tables need turns that alternate",
                ));
            }
            let child_value = match game.table_index(&child, self.layer) {
                Some((l, i)) if l == self.layer => {
                    self.inside.push(i);
                    continue;
                }
                Some((l, i)) => {
                    let (map, offset) = self.lower.get(l as usize).copied().ok_or_else(|| {
                        invalid(self.layer, "a move leads to a layer that is not built")
                    })?;
                    // A lower file that shrank reads as zeros here (the guard); the build
                    // checks the lower files before it writes, so such values are never kept.
                    let byte = *map.get(offset + i as usize).ok_or_else(|| {
                        invalid(self.layer, "a lower layer is shorter than its entries")
                    })? as i8;
                    self.values_kind.value(byte, game.table_turns_left(&child))
                }
                None => match game.outcome(&child) {
                    Some(outcome) => game.final_value(&outcome, game.to_move(&child)),
                    None => {
                        return Err(invalid(
                            self.layer,
                            "a move raised the layer (or left the tables)",
                        ));
                    }
                },
            };
            best_exit = Some(best_exit.map_or(-child_value, |b| b.max(-child_value)));
        }
        let slot = &values[index as usize];
        if best_exit.is_some_and(|v| v > 0) {
            slot.store(won(1), Ordering::Relaxed);
            self.at_one.push(index);
            return Ok(());
        }
        self.inside.sort_unstable();
        self.inside.dedup();
        // A draw by leaving the layer: a child that is never won for its mover.
        let open = self.inside.len() + usize::from(best_exit == Some(0));
        if open == 0 {
            slot.store(lost(1), Ordering::Relaxed);
            self.at_one.push(index);
            return Ok(());
        }
        let open = u8::try_from(open).map_err(|_| invalid(self.layer, "more than 255 children"))?;
        counts[index as usize].store(open, Ordering::Relaxed);
        Ok(())
    }
}

fn invalid(layer: u32, message: &str) -> BuildError {
    BuildError::Invalid {
        layer,
        message: message.to_string(),
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}
