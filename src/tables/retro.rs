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
//!    of the layer with a move to one (the game's [`TableIndexing::table_unmoves`](crate::game::TableIndexing::table_unmoves)) is won at
//!    `k + 1` if the child is lost for its mover, and lost at `k + 1` when the child was
//!    the last of its children to be decided won. Distances grow to the limit; what is
//!    still undecided then is a draw whatever the counter.
//!
//! A position reached from a child by several un-moves (mirror images of one child, under
//! the board's symmetries that the index folds together) counts that child once: the
//! predecessors of a child are deduplicated, as its children were counted distinct.
//!
//! Memory: the layer's values (a byte an entry) and its counters (another byte, or none with
//! [`Counting::Recount`], which looks at a predecessor whole instead), and nothing that grows
//! with the positions decided: a step finds the positions decided at its distance by
//! scanning the values, in the blocks of 4096 that a bit marks as holding one.
//!
//! Threads split each step's positions; values are set once (compare-and-swap from
//! "unknown"), counters fall atomically, so the bytes do not depend on the threads.

use std::sync::Mutex;
use std::sync::atomic::{AtomicI8, AtomicU8, AtomicU64, Ordering};

use super::job::{BuildError, BuildOptions, progress_bar};
use crate::cli::CancelToken;
use crate::game::{Game, TableValues};

/// Marks a position whose value is not known yet.
pub(super) const UNKNOWN: i8 = i8::MIN;
/// Positions handed to a worker at a time in the first look.
const CHUNK: usize = 1 << 14;
/// Positions a bit of a [`Marks`] stands for.
const BLOCK: usize = 1 << 12;

/// The byte of a win at distance `d`, a loss at distance `d`.
fn won(d: u32) -> i8 {
    d as i8
}

fn lost(d: u32) -> i8 {
    -(d as i8) - 1
}

/// Whether `byte` is a value decided at distance `k` (a draw, 0, is at none).
fn at_distance(byte: i8, k: u32) -> bool {
    byte == lost(k) || (k > 0 && byte == won(k))
}

/// How a layer keeps what its undecided positions still wait for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Counting {
    /// A byte a position: how many of its children may still turn out not won for their
    /// mover. Two bytes an entry in all; each child decided costs one decrement.
    Counters,
    /// No counters: a predecessor of a child decided won is looked at whole (its moves
    /// generated, every child's value read) to see whether all its children are now won.
    /// One byte an entry; slower, as a position is looked at once per child won.
    Recount,
}

impl Counting {
    /// Bytes an entry of the layer this way needs while it is built.
    pub fn bytes_per_entry(self) -> u64 {
        match self {
            Counting::Counters => 2,
            Counting::Recount => 1,
        }
    }
}

/// Compute every value of `layer` (distance tables) into a fresh array of the whole layer.
///
/// The positions decided at a distance are not listed (a list of 8-byte indexes can outgrow
/// the layer many times over: most positions of a large layer are decided at distance 1):
/// each step scans the values for the bytes of its distance, a pass over one byte an entry.
pub(super) fn build_layer<G: Game>(
    game: &G,
    layer: u32,
    lower: &[(&[u8], usize)],
    counting: Counting,
    options: &BuildOptions,
    stop: &CancelToken,
) -> Result<Vec<AtomicI8>, BuildError> {
    let TableValues::Distance { limit, .. } = game.table_values() else {
        return Err(invalid(layer, "not a distance table"));
    };
    let entries = game.table_layer_size(layer);
    let size = usize::try_from(entries).map_err(|_| invalid(layer, "too many entries"))?;
    let values: Vec<AtomicI8> = (0..size).map(|_| AtomicI8::new(UNKNOWN)).collect();
    let counts: Vec<AtomicU8> = match counting {
        Counting::Counters => (0..size).map(|_| AtomicU8::new(0)).collect(),
        Counting::Recount => Vec::new(),
    };
    let shared = Shared {
        game,
        layer,
        lower,
        values_kind: game.table_values(),
        values: &values,
        counts: (counting == Counting::Counters).then_some(&counts[..]),
        marks: [Marks::new(size), Marks::new(size)],
        failed: Mutex::new(None),
        stop,
    };
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
    // How many positions are decided at each distance (0 ..= limit).
    let mut decided = vec![0u64; limit as usize + 2];
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut look = Look::new(&shared);
                    let mut at = [0u64; 2];
                    while !shared.ended() {
                        let from = next.fetch_add(CHUNK as u64, Ordering::Relaxed);
                        if from >= entries {
                            break;
                        }
                        let to = (from + CHUNK as u64).min(entries);
                        for index in from..to {
                            match look.start(index) {
                                Ok(Some(d)) => {
                                    at[d as usize] += 1;
                                    shared.decided(index, d);
                                }
                                Ok(None) => {}
                                Err(e) => {
                                    shared.fail(e);
                                    break;
                                }
                            }
                        }
                        bar.inc(to - from);
                    }
                    at
                })
            })
            .collect();
        for worker in workers {
            if let Ok(at) = worker.join() {
                decided[0] += at[0];
                decided[1] += at[1];
            }
        }
    });
    bar.finish_and_clear();
    shared.check()?;

    log::info!(
        "layer {layer} ({name}): {entries} positions looked at in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    let started = std::time::Instant::now();
    // 2. Distance by distance.
    let bar = progress_bar(
        options.progress,
        &format!("layer {layer:>3} ({name}) retro"),
        entries,
    );
    bar.inc(decided[0] + decided[1]);
    let mut steps = 0;
    for k in 0..limit {
        if decided[k as usize] == 0 && decided[k as usize + 1] == 0 {
            break;
        }
        if decided[k as usize] == 0 {
            continue;
        }
        let found = step(&shared, k, threads);
        steps += 1;
        shared.check()?;
        bar.inc(found);
        decided[k as usize + 1] += found;
    }
    bar.finish_and_clear();
    log::info!(
        "layer {layer} ({name}): {steps} retrograde steps in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    drop(shared);
    drop(counts);
    // Undecided within the limit: a draw whatever the counter.
    for value in &values {
        if value.load(Ordering::Relaxed) == UNKNOWN {
            value.store(0, Ordering::Relaxed);
        }
    }
    Ok(values)
}

/// What the workers of a layer share.
struct Shared<'a, G: Game> {
    game: &'a G,
    layer: u32,
    lower: &'a [(&'a [u8], usize)],
    values_kind: TableValues,
    values: &'a [AtomicI8],
    /// `None`: [`Counting::Recount`].
    counts: Option<&'a [AtomicU8]>,
    /// The blocks holding positions decided at an even distance, an odd one (the next step's
    /// and the current one's): a step scans only the blocks its distance marked.
    marks: [Marks; 2],
    failed: Mutex<Option<BuildError>>,
    stop: &'a CancelToken,
}

impl<G: Game> Shared<'_, G> {
    /// Note that position `index` was decided at distance `d`.
    fn decided(&self, index: u64, d: u32) {
        self.marks[d as usize % 2].mark(index as usize / BLOCK);
    }

    fn ended(&self) -> bool {
        self.stop.is_cancelled() || lock(&self.failed).is_some()
    }

    fn fail(&self, error: BuildError) {
        lock(&self.failed).get_or_insert(error);
    }

    /// The first failure, or `Stopped`.
    fn check(&self) -> Result<(), BuildError> {
        if let Some(e) = lock(&self.failed).take() {
            return Err(e);
        }
        if self.stop.is_cancelled() {
            return Err(BuildError::Stopped);
        }
        Ok(())
    }
}

/// A bit for each block of [`BLOCK`] positions.
struct Marks(Vec<AtomicU64>);

impl Marks {
    fn new(entries: usize) -> Marks {
        Marks(
            (0..entries.div_ceil(BLOCK).div_ceil(64))
                .map(|_| AtomicU64::new(0))
                .collect(),
        )
    }

    fn mark(&self, block: usize) {
        let (word, bit) = (&self.0[block / 64], 1u64 << (block % 64));
        // Most marks find their bit set already: a load, not a locked write.
        if word.load(Ordering::Relaxed) & bit == 0 {
            word.fetch_or(bit, Ordering::Relaxed);
        }
    }

    fn clear(&self) {
        for word in &self.0 {
            word.store(0, Ordering::Relaxed);
        }
    }
}

/// Where a move of a layer's position leads.
enum Child {
    /// To this index of the same layer.
    Inside(u64),
    /// Out of the layer (a lower layer, fresh counter, or the end of the game): the value
    /// for the child's mover.
    Outside(i32),
}

/// From the positions decided at distance `k`, decide their predecessors at `k + 1`: how
/// many were so decided. Only the blocks marked for distance `k` are scanned; their marks
/// are cleared after, for distance `k + 2`.
fn step<G: Game>(shared: &Shared<'_, G>, k: u32, threads: usize) -> u64 {
    let next = AtomicU64::new(0);
    let entries = shared.values.len();
    let marks = &shared.marks[k as usize % 2];
    let mut found = 0;
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut look = Look::new(shared);
                    let mut here: Vec<u64> = Vec::with_capacity(BLOCK);
                    let mut found = 0u64;
                    while !shared.ended() {
                        let w = next.fetch_add(1, Ordering::Relaxed) as usize;
                        let Some(word) = marks.0.get(w) else {
                            break;
                        };
                        let mut bits = word.load(Ordering::Relaxed);
                        while bits != 0 {
                            let block = w * 64 + bits.trailing_zeros() as usize;
                            bits &= bits - 1;
                            let from = block * BLOCK;
                            let to = (from + BLOCK).min(entries);
                            here.clear();
                            here.extend(
                                (from..to)
                                    .filter(|&i| {
                                        at_distance(shared.values[i].load(Ordering::Relaxed), k)
                                    })
                                    .map(|i| i as u64),
                            );
                            for &child in &here {
                                match look.predecessors(child, k) {
                                    Ok(n) => found += n,
                                    Err(e) => {
                                        shared.fail(e);
                                        return found;
                                    }
                                }
                            }
                        }
                    }
                    found
                })
            })
            .collect();
        for worker in workers {
            if let Ok(n) = worker.join() {
                found += n;
            }
        }
    });
    marks.clear();
    found
}

/// One worker's view of a layer, with its scratch lists (reused: no allocation per
/// position).
struct Look<'s, 'a, G: Game> {
    shared: &'s Shared<'a, G>,
    moves: Vec<G::Move>,
    inside: Vec<u64>,
    preds: Vec<G::Position>,
    indexes: Vec<u64>,
}

impl<'s, 'a, G: Game> Look<'s, 'a, G> {
    fn new(shared: &'s Shared<'a, G>) -> Self {
        Look {
            shared,
            moves: Vec::new(),
            inside: Vec::new(),
            preds: Vec::new(),
            indexes: Vec::new(),
        }
    }

    fn position(&self, index: u64) -> Result<G::Position, BuildError> {
        let s = self.shared;
        s.game
            .table_position(s.layer, index)
            .ok_or_else(|| invalid(s.layer, "a decided index has no position"))
    }

    /// Where `child` (a position after a move of this layer) lies.
    fn child(&self, child: &G::Position) -> Result<Child, BuildError> {
        let s = self.shared;
        let game = s.game;
        Ok(match game.table_index(child, s.layer) {
            Some((l, i)) if l == s.layer => Child::Inside(i),
            Some((l, i)) => {
                let (map, offset) =
                    s.lower.get(l as usize).copied().ok_or_else(|| {
                        invalid(s.layer, "a move leads to a layer that is not built")
                    })?;
                // A lower file that shrank reads as zeros here (the guard); the build
                // checks the lower files before it writes, so such values are never kept.
                let byte = *map.get(offset + i as usize).ok_or_else(|| {
                    invalid(
                        s.layer,
                        "a move leads to a lower layer that is shorter than its entries \
                             or not read by this layer (of a stage not below it)",
                    )
                })? as i8;
                Child::Outside(s.values_kind.value(byte, game.table_turns_left(child)))
            }
            None => match game.outcome(child) {
                Some(outcome) => Child::Outside(game.final_value(&outcome, game.to_move(child))),
                None => {
                    return Err(invalid(
                        s.layer,
                        "a move raised the layer (or left the tables)",
                    ));
                }
            },
        })
    }

    /// The first look at position `index`: its value when it is decided at once (ended,
    /// or every move leaving the layer), else its counter. The distance it was decided
    /// at, if it was.
    fn start(&mut self, index: u64) -> Result<Option<u32>, BuildError> {
        let s = self.shared;
        let (game, layer, values) = (s.game, s.layer, s.values);
        let Some(pos) = game.table_position(layer, index) else {
            // A slot no position has.
            values[index as usize].store(0, Ordering::Relaxed);
            return Ok(None);
        };
        let mover = game.to_move(&pos);
        if let Some(outcome) = game.outcome(&pos) {
            let value = game.final_value(&outcome, mover);
            if value > 0 {
                return Err(invalid(
                    layer,
                    &format!(
                        "{}: a table position whose mover has already won",
                        game.format_position(&pos)
                    ),
                ));
            }
            if value < 0 {
                values[index as usize].store(lost(0), Ordering::Relaxed);
                return Ok(Some(0));
            }
            values[index as usize].store(0, Ordering::Relaxed);
            return Ok(None);
        }
        game.legal_moves(&pos, &mut self.moves);
        if self.moves.is_empty() {
            return Err(invalid(
                layer,
                "a position that is not over has no legal move",
            ));
        }
        self.inside.clear();
        let mut best_exit: Option<i32> = None;
        for m in 0..self.moves.len() {
            let mut child = pos.clone();
            game.play(&mut child, self.moves[m]);
            if game.to_move(&child) == mover {
                return Err(invalid(layer, "distance tables need turns that alternate"));
            }
            match self.child(&child)? {
                Child::Inside(i) => self.inside.push(i),
                Child::Outside(value) => {
                    best_exit = Some(best_exit.map_or(-value, |b| b.max(-value)));
                }
            }
        }
        let slot = &values[index as usize];
        if best_exit.is_some_and(|v| v > 0) {
            slot.store(won(1), Ordering::Relaxed);
            return Ok(Some(1));
        }
        self.inside.sort_unstable();
        self.inside.dedup();
        // A draw by leaving the layer: a child that is never won for its mover.
        let open = self.inside.len() + usize::from(best_exit == Some(0));
        if open == 0 {
            slot.store(lost(1), Ordering::Relaxed);
            return Ok(Some(1));
        }
        let open = u8::try_from(open).map_err(|_| invalid(layer, "more than 255 children"))?;
        if let Some(counts) = s.counts {
            counts[index as usize].store(open, Ordering::Relaxed);
        }
        Ok(None)
    }

    /// Decide the predecessors of `child`, decided at distance `k`, that it decides at
    /// `k + 1`: how many.
    fn predecessors(&mut self, child: u64, k: u32) -> Result<u64, BuildError> {
        let s = self.shared;
        let (game, layer, values) = (s.game, s.layer, s.values);
        let child_lost = values[child as usize].load(Ordering::Relaxed) < 0;
        let pos = self.position(child)?;
        game.table_unmoves(&pos, &mut self.preds);
        self.indexes.clear();
        for pred in &self.preds {
            match game.table_index(pred, layer) {
                Some((l, i)) if l == layer => self.indexes.push(i),
                _ => {
                    return Err(invalid(
                        layer,
                        &format!(
                            "an un-move of {} leaves the layer",
                            game.format_position(&pos)
                        ),
                    ));
                }
            }
        }
        // A predecessor reached by several un-moves (mirror images folded by the index)
        // counts its child once, as its children were counted distinct.
        self.indexes.sort_unstable();
        self.indexes.dedup();
        let mut found = 0;
        for n in 0..self.indexes.len() {
            let p = self.indexes[n];
            let slot = &values[p as usize];
            if slot.load(Ordering::Relaxed) != UNKNOWN {
                continue;
            }
            let decided = if child_lost {
                set(slot, won(k + 1))
            } else {
                let last = match s.counts {
                    Some(counts) => counts[p as usize].fetch_sub(1, Ordering::Relaxed) == 1,
                    None => self.all_won_by(p, k)?,
                };
                last && set(slot, lost(k + 1))
            };
            if decided {
                s.decided(p, k + 1);
                found += 1;
            }
        }
        Ok(found)
    }

    /// Whether every child of undecided position `p` is won for its mover at a distance of
    /// at most `k` (what its counter reaching zero at step `k` says, [`Counting::Counters`]):
    /// the children of the layer by the values decided so far (at most `k`, so that one
    /// decided at `k + 1` in this very step, by another thread or not, never counts: the
    /// bytes do not depend on the order), the ones leaving it by the layers below.
    fn all_won_by(&mut self, p: u64, k: u32) -> Result<bool, BuildError> {
        let s = self.shared;
        let game = s.game;
        let pos = self.position(p)?;
        game.legal_moves(&pos, &mut self.moves);
        for m in 0..self.moves.len() {
            let mut child = pos.clone();
            game.play(&mut child, self.moves[m]);
            let won_soon_enough = match self.child(&child)? {
                Child::Inside(i) => {
                    let byte = s.values[i as usize].load(Ordering::Relaxed);
                    (1..=k as i32).contains(&i32::from(byte))
                }
                Child::Outside(value) => value > 0,
            };
            if !won_soon_enough {
                return Ok(false);
            }
        }
        Ok(true)
    }
}

/// Set an undecided value once (compare-and-swap from "unknown"): whether this call did.
fn set(slot: &AtomicI8, value: i8) -> bool {
    slot.compare_exchange(UNKNOWN, value, Ordering::Relaxed, Ordering::Relaxed)
        .is_ok()
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
