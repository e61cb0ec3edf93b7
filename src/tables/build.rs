//! Building tables: layer by layer from the empty board up, each layer from the ones below.
//!
//! Every move keeps the layer (seeds stay in play) or lowers it (seeds banked or captured), so
//! a position's value needs the layers below (already built, memory-mapped) and positions of
//! its own layer. Within a layer the builder evaluates positions depth-first with memoisation:
//! a same-layer child not yet known is evaluated first, on an explicit stack. That is only
//! sound if no position of a layer can come back to itself; the builder checks it (a child
//! found on the current path is a cycle) and refuses the layer with an example instead of
//! writing wrong values. Kalah layers cannot cycle: a move that banks nothing only moves seeds
//! towards the mover's store inside the mover's row. Afrika (no stores, sowing goes round) is
//! checked as it is built; see docs/tablebases.md for what was found.
//!
//! Distance tables (a game whose layers can cycle, with a limit on turns inside a layer:
//! Fanorona) are built by retrograde analysis instead (`retro`).
//!
//! Values are a pure function of the position, so the threads (which share one array of the
//! layer and may evaluate a position twice) and the shards (`--shard I/K`, each computing what
//! its slice needs) all write the same bytes as a single-threaded build.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicI8, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use std::sync::Arc;

use super::format::{self, Header};
use super::job::progress_bar;
pub use super::job::{BuildError, BuildOptions};
use super::mapped::{Health, MappedFile};
use super::retro::Counting;
use crate::cli::CancelToken;
use crate::game::{Game, TableValues};

/// Marks a position of the layer being built whose value is not known yet.
const UNKNOWN: i8 = i8::MIN;
/// Indexes handed to a worker at a time.
const CHUNK: u64 = 1 << 14;

/// One layer as built (or found).
#[derive(Debug, Clone)]
pub struct LayerReport {
    pub layer: u32,
    /// What the layer holds ([`TableIndexing::table_layer_name`](crate::game::TableIndexing::table_layer_name)).
    pub name: String,
    pub entries: u64,
    pub path: PathBuf,
    /// `None` when the layer was already there.
    pub took: Option<Duration>,
    /// The bytes its build held (values, and counters for a distance table; 0 when it was
    /// already there): the planned part of the build's memory.
    pub memory: u64,
}

/// The memory a build may plan with, and what sets it (for messages).
#[derive(Debug, Clone)]
struct MemoryBudget {
    bytes: Option<u64>,
    what: String,
}

impl MemoryBudget {
    fn of(options: &BuildOptions) -> MemoryBudget {
        match options.memory {
            Some(bytes) => MemoryBudget {
                bytes: Some(bytes),
                what: format!("the {} MiB of --memory", bytes >> 20),
            },
            None => {
                let bytes = crate::memory::available_bytes();
                MemoryBudget {
                    bytes,
                    what: bytes.map_or(String::new(), |b| {
                        format!("the {} MiB of memory available here", b >> 20)
                    }),
                }
            }
        }
    }

    fn holds(&self, bytes: u64) -> bool {
        self.bytes.is_none_or(|most| bytes <= most)
    }
}

/// How one layer is built, and the bytes it holds meanwhile.
#[derive(Debug, Clone, Copy)]
struct LayerPlan {
    layer: u32,
    /// `None`: the depth-first builder (a byte an entry); else the retrograde one.
    counting: Option<Counting>,
    bytes: u64,
}

/// Bytes in MiB, rounded up.
fn mib(bytes: u64) -> u64 {
    bytes.div_ceil(1 << 20)
}

/// The least memory that builds `layer` at all: a byte an entry (its values).
fn least_bytes<G: Game>(game: &G, layer: u32) -> u64 {
    game.table_layer_size(layer)
}

/// How to build `layer` within `budget`: a retrograde layer with counters when they fit,
/// else without (slower); refused when not even the values fit, with the
/// most in play whose every layer would.
fn plan_layer<G: Game>(
    game: &G,
    layer: u32,
    budget: &MemoryBudget,
    in_play: u32,
) -> Result<LayerPlan, BuildError> {
    let entries = game.table_layer_size(layer);
    let plan = |counting: Option<Counting>| LayerPlan {
        layer,
        counting,
        bytes: counting.map_or(1, Counting::bytes_per_entry) * entries,
    };
    let candidates: &[Option<Counting>] = match game.table_values() {
        TableValues::Margin => &[None],
        TableValues::Distance { .. } => &[Some(Counting::Counters), Some(Counting::Recount)],
    };
    for &counting in candidates {
        let planned = plan(counting);
        if budget.holds(planned.bytes) {
            return Ok(planned);
        }
    }
    let fits = (0..in_play).rev().find(|&n| {
        game.table_top_layer(n)
            .is_some_and(|top| (0..=top).all(|l| budget.holds(least_bytes(game, l))))
    });
    Err(BuildError::Memory(format!(
        "layer {layer} ({}, {entries} entries) needs at least {} MiB to be built, more than {}; \
         {}",
        game.table_layer_name(layer),
        mib(least_bytes(game, layer)),
        budget.what,
        match fits {
            Some(n) =>
                format!("build up to {n} in play (--seeds/--pieces {n}), or give more memory"),
            None => "give more memory".to_string(),
        }
    )))
}

/// Build the tables of `game` as `options` say, resuming at the first missing layer; with
/// [`BuildOptions::layer`] (or a shard), that layer alone (`build_one`). `report` is told
/// about each layer as it is done; `stop` ends the build between chunks.
pub fn build<G: Game>(
    game: &G,
    options: &BuildOptions,
    stop: &CancelToken,
    report: &mut dyn FnMut(&LayerReport),
) -> Result<Vec<LayerReport>, BuildError> {
    let rules = game
        .table_rules()
        .ok_or_else(|| BuildError::Unsupported(game.spec()))?;
    let max_layer = top_layer(game, options.in_play)?;
    // A shard without a layer is a slice of the top layer.
    match (options.layer, options.shard) {
        (Some(layer), _) if layer > max_layer => {
            return Err(BuildError::Missing(format!(
                "--layer {layer}: the top layer of {} in play is {max_layer} ({}); give a \
                 layer 0..={max_layer} or more in play",
                options.in_play,
                game.table_layer_name(max_layer)
            )));
        }
        (Some(layer), _) => return build_one(game, options, &rules, layer, stop, report),
        (None, Some(_)) => return build_one(game, options, &rules, max_layer, stop, report),
        (None, None) => {}
    }
    let folder = format::rules_folder(&options.dir, &rules);
    // Plan the memory before anything is built: a layer that cannot fit is said now, not
    // found by the kernel's out-of-memory killer an hour in.
    let budget = MemoryBudget::of(options);
    let mut plans = Vec::new();
    for layer in 0..=max_layer {
        if std::fs::symlink_metadata(format::layer_file(&folder, layer)).is_err() {
            plans.push(plan_layer(game, layer, &budget, options.in_play)?);
        }
    }
    std::fs::create_dir_all(&folder).map_err(|error| BuildError::Io {
        path: folder.clone(),
        error,
    })?;
    // The lower layers this run reads, under one health: a fault or a write in any of them
    // stops the build before it writes a layer computed from changed bytes.
    let health = Arc::new(Health::default());
    let mut below: Vec<Option<(usize, MappedFile)>> = Vec::new();
    let mut done = Vec::new();
    let checking = progress_bar(options.progress, "checking", u64::from(max_layer) + 1);
    for layer in 0..=max_layer {
        let path = format::layer_file(&folder, layer);
        if let Some(lower) = existing_layer(game, layer, &path, &health, stop)? {
            checking.inc(1);
            below.push(Some(lower));
            let entry = present(game, layer, path);
            report(&entry);
            done.push(entry);
            continue;
        }
        checking.finish_and_clear();
        let plan = match plans.iter().find(|p| p.layer == layer) {
            Some(plan) => *plan,
            None => plan_layer(game, layer, &budget, options.in_play)?,
        };
        let entry = make_layer(
            game, &rules, plan, &below, None, &path, &budget, options, stop,
        )?;
        report(&entry);
        done.push(entry);
        let (header, file) = super::open_file(&path, &health)?;
        super::check_header(game, &path, &header, file.bytes().len())?;
        below.push(Some((header.len(), file)));
    }
    Ok(done)
}

/// The top layer of `in_play`, refused when tables cannot hold it.
fn top_layer<G: Game>(game: &G, in_play: u32) -> Result<u32, BuildError> {
    let max_layer = game
        .table_top_layer(in_play)
        .ok_or_else(|| BuildError::Missing(format!("no table holds {in_play} in play")))?;
    if max_layer > super::MAX_LAYER {
        let most = super::in_play_covered(game, super::MAX_LAYER)
            .map_or("none".to_string(), |n| n.to_string());
        return Err(BuildError::TooMany(format!(
            "{in_play} in play asked: tables hold at most {most} (their layers go up to {}: a \
             value must fit a byte)",
            super::MAX_LAYER
        )));
    }
    Ok(max_layer)
}

/// The report of a layer found whole.
fn present<G: Game>(game: &G, layer: u32, path: PathBuf) -> LayerReport {
    LayerReport {
        layer,
        name: game.table_layer_name(layer),
        entries: game.table_layer_size(layer),
        path,
        took: None,
        memory: 0,
    }
}

/// The layers a layer reads: those of lower stages ([`TableIndexing::table_layer_stage`](crate::game::TableIndexing::table_layer_stage)).
pub fn layers_read<G: Game>(game: &G, layer: u32) -> Vec<u32> {
    let stage = game.table_layer_stage(layer);
    (0..layer)
        .filter(|&l| game.table_layer_stage(l) < stage)
        .collect()
}

/// One layer, whole or one slice of it (`--layer L [--shard I/K]`), from the layers of
/// lower stages ([`layers_read`]), which must be whole: what is missing is said before any
/// work. A whole layer already there and sound, or the slice already there and sound, is
/// reported present and nothing is done (a job run again redoes nothing finished); a slice
/// file there that is not sound is refused, named, never written over.
fn build_one<G: Game>(
    game: &G,
    options: &BuildOptions,
    rules: &str,
    layer: u32,
    stop: &CancelToken,
    report: &mut dyn FnMut(&LayerReport),
) -> Result<Vec<LayerReport>, BuildError> {
    let folder = format::rules_folder(&options.dir, rules);
    let entries = game.table_layer_size(layer);
    let name = game.table_layer_name(layer);
    if let Some((i, k)) = options.shard
        && u64::from(k) > entries
    {
        return Err(BuildError::TooMany(format!(
            "--shard {i}/{k}: layer {layer} ({name}) has {entries} entries; cut it into at \
             most that many slices"
        )));
    }
    let health = Arc::new(Health::default());
    let path = format::layer_file(&folder, layer);
    if existing_layer(game, layer, &path, &health, stop)?.is_some() {
        let entry = present(game, layer, path);
        report(&entry);
        return Ok(vec![entry]);
    }
    let target = match options.shard {
        Some((i, k)) => format::shard_file(&folder, layer, i, k),
        None => path.clone(),
    };
    if let Some((i, k)) = options.shard
        && std::fs::symlink_metadata(&target).is_ok()
    {
        super::check_file(game, &target).map_err(|e| BuildError::Invalid {
            layer,
            message: format!(
                "{e}; the slice is not built over it: remove it (rm '{}') and build the slice \
                 again",
                target.display()
            ),
        })?;
        let entry = LayerReport {
            entries: shard_range(entries, i, k).1,
            ..present(game, layer, target)
        };
        report(&entry);
        return Ok(vec![entry]);
    }
    let read = layers_read(game, layer);
    let missing: Vec<PathBuf> = read
        .iter()
        .map(|&l| format::layer_file(&folder, l))
        .filter(|p| std::fs::symlink_metadata(p).is_err())
        .collect();
    if !missing.is_empty() {
        let files: Vec<String> = missing
            .iter()
            .map(|p| format!("'{}'", p.display()))
            .collect();
        return Err(BuildError::Missing(format!(
            "layer {layer} ({name}) is built from layers {} whole, and {} missing: {}; build \
             them first ('sowfan tablebase plan' lists what is left; a layer's slices become \
             whole with 'sowfan tablebase merge --dir DIR --layer N')",
            ranges(&read),
            if missing.len() == 1 {
                "one is"
            } else {
                "some are"
            },
            files.join(", ")
        )));
    }
    let budget = MemoryBudget::of(options);
    let plan = plan_layer(game, layer, &budget, options.in_play)?;
    std::fs::create_dir_all(&folder).map_err(|error| BuildError::Io {
        path: folder.clone(),
        error,
    })?;
    let mut below: Vec<Option<(usize, MappedFile)>> = (0..layer).map(|_| None).collect();
    for &l in &read {
        let lower = existing_layer(game, l, &format::layer_file(&folder, l), &health, stop)?;
        below[l as usize] = lower;
    }
    let entry = make_layer(
        game,
        rules,
        plan,
        &below,
        options.shard,
        &target,
        &budget,
        options,
        stop,
    )?;
    report(&entry);
    Ok(vec![entry])
}

/// Layers as ranges, for people: `0..=4, 6, 9..=11`.
fn ranges(layers: &[u32]) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut at = 0;
    while at < layers.len() {
        let mut end = at;
        while end + 1 < layers.len() && layers[end + 1] == layers[end] + 1 {
            end += 1;
        }
        out.push(if end == at {
            layers[at].to_string()
        } else {
            format!("{}..={}", layers[at], layers[end])
        });
        at = end + 1;
    }
    if out.is_empty() {
        "none".to_string()
    } else {
        out.join(", ")
    }
}

/// Compute `layer` as `plan` says from the layers `below` (by index; `None` for a layer it
/// does not read) and write it, or its slice `shard`, to `target`.
#[allow(clippy::too_many_arguments)]
fn make_layer<G: Game>(
    game: &G,
    rules: &str,
    plan: LayerPlan,
    below: &[Option<(usize, MappedFile)>],
    shard: Option<(u32, u32)>,
    target: &Path,
    budget: &MemoryBudget,
    options: &BuildOptions,
    stop: &CancelToken,
) -> Result<LayerReport, BuildError> {
    let layer = plan.layer;
    if stop.is_cancelled() {
        return Err(BuildError::Stopped);
    }
    let started = Instant::now();
    let entries = game.table_layer_size(layer);
    let (first, count) = match shard {
        Some((i, k)) => shard_range(entries, i, k),
        None => (0, entries),
    };
    if plan.counting == Some(Counting::Recount) {
        log::warn!(
            "layer {layer} ({}): its values and counters ({} MiB) are more than {}; it is \
             built without counters ({} MiB, slower)",
            game.table_layer_name(layer),
            mib(Counting::Counters.bytes_per_entry() * entries),
            budget.what,
            mib(plan.bytes)
        );
    }
    let values = match plan.counting {
        None => build_layer(game, layer, below, first, count, options, stop)?,
        // A slice of a retrograde layer needs the whole layer: every shard computes it
        // and writes its slice (materials of one size are independent layers, the way
        // to spread such a build over machines).
        Some(counting) => {
            let lower = lower_maps(below);
            super::retro::build_layer(game, layer, &lower, counting, options, stop)?
        }
    };
    // In place (the same allocation, atomics and bytes alike in size): a copy would
    // double the layer's memory at its peak.
    let values: Vec<u8> = values.into_iter().map(|v| v.into_inner() as u8).collect();
    let data = &values[first as usize..(first + count) as usize];
    if let Some(change) = below.iter().flatten().find_map(|(_, file)| file.changed()) {
        return Err(BuildError::Changed(change));
    }
    let header = Header {
        version: format::VERSION,
        rules: rules.to_string(),
        layer,
        kind: format::value_kind(game.table_values()),
        entries,
        first,
        count,
        checksum: crate::file_header::checksum(data),
    };
    format::write_atomically(target, &header, data).map_err(|error| BuildError::Io {
        path: target.to_path_buf(),
        error,
    })?;
    Ok(LayerReport {
        layer,
        name: game.table_layer_name(layer),
        entries: count,
        path: target.to_path_buf(),
        took: Some(started.elapsed()),
        memory: plan.bytes,
    })
}

/// One layer of a build, as a launcher of jobs sees it (`sowfan tablebase plan`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LayerJob {
    pub layer: u32,
    /// [`TableIndexing::table_layer_stage`](crate::game::TableIndexing::table_layer_stage): the layers of a stage are built side by side.
    pub stage: u32,
    pub entries: u64,
    /// [`TableIndexing::table_layer_name`](crate::game::TableIndexing::table_layer_name).
    pub name: String,
    /// Whether a slice costs only its slice (the depth-first builder): else each slice
    /// computes the whole layer (retrograde), and one job a layer is the most useful.
    pub sliced: bool,
}

/// Every layer of a build up to `in_play`, in the order a chain of jobs builds them: by
/// stage, then layer.
pub fn layer_jobs<G: Game>(game: &G, in_play: u32) -> Result<Vec<LayerJob>, BuildError> {
    if game.table_rules().is_none() {
        return Err(BuildError::Unsupported(game.spec()));
    }
    let top = top_layer(game, in_play)?;
    let sliced = matches!(game.table_values(), TableValues::Margin);
    let mut jobs: Vec<LayerJob> = (0..=top)
        .map(|layer| LayerJob {
            layer,
            stage: game.table_layer_stage(layer),
            entries: game.table_layer_size(layer),
            name: game.table_layer_name(layer),
            sliced,
        })
        .collect();
    jobs.sort_by_key(|job| (job.stage, job.layer));
    Ok(jobs)
}

/// Slice `i` (from 1) of `k` of a layer of `entries`: `(first, count)`.
pub fn shard_range(entries: u64, i: u32, k: u32) -> (u64, u64) {
    let k = u128::from(k.max(1));
    let i = u128::from(i.clamp(1, k as u32)) - 1;
    let start = (entries as u128 * i / k) as u64;
    let end = (entries as u128 * (i + 1) / k) as u64;
    (start, end - start)
}

/// A complete, sound layer file, if there is one (a resumed build keeps it): checked through
/// ([`super::check_file`]: what the loader checks, the checksum, every value), once per run,
/// since every layer above is computed from it. A damaged one stops the build, named.
fn existing_layer<G: Game>(
    game: &G,
    layer: u32,
    path: &Path,
    health: &Arc<Health>,
    stop: &CancelToken,
) -> Result<Option<(usize, MappedFile)>, BuildError> {
    if std::fs::symlink_metadata(path).is_err() {
        return Ok(None);
    }
    if stop.is_cancelled() {
        return Err(BuildError::Stopped);
    }
    let refuse = |e: super::TableError| BuildError::Invalid {
        layer,
        message: format!("{e}; remove it (and every layer above it) to rebuild"),
    };
    super::check_file(game, path).map_err(refuse)?;
    let (header, file) = super::open_file(path, health).map_err(refuse)?;
    super::check_header(game, path, &header, file.bytes().len()).map_err(refuse)?;
    Ok(Some((header.len(), file)))
}

/// Compute the values of `first..first + count` of `layer` (and whatever they need of the
/// same layer) into a fresh array of the whole layer.
fn build_layer<G: Game>(
    game: &G,
    layer: u32,
    below: &[Option<(usize, MappedFile)>],
    first: u64,
    count: u64,
    options: &BuildOptions,
    stop: &CancelToken,
) -> Result<Vec<AtomicI8>, BuildError> {
    let entries = game.table_layer_size(layer);
    let values: Vec<AtomicI8> = (0..entries).map(|_| AtomicI8::new(UNKNOWN)).collect();
    let lower = lower_maps(below);
    let progress = progress_bar(options.progress, &format!("layer {layer:>3}"), count);
    let next = AtomicU64::new(first);
    let failed: std::sync::Mutex<Option<BuildError>> = std::sync::Mutex::new(None);
    let end = first + count;
    std::thread::scope(|scope| {
        for _ in 0..options.threads.max(1) {
            scope.spawn(|| {
                let mut worker = Worker {
                    game,
                    layer,
                    values: &values,
                    lower: &lower,
                    frames: Vec::new(),
                };
                loop {
                    if stop.is_cancelled() || lock(&failed).is_some() {
                        return;
                    }
                    let start = next.fetch_add(CHUNK, Ordering::Relaxed);
                    if start >= end {
                        return;
                    }
                    let stop_at = (start + CHUNK).min(end);
                    for index in start..stop_at {
                        if let Err(e) = worker.ensure(index) {
                            lock(&failed).get_or_insert(e);
                            return;
                        }
                    }
                    progress.inc(stop_at - start);
                }
            });
        }
    });
    progress.finish_and_clear();
    if let Some(e) = lock(&failed).take() {
        return Err(e);
    }
    if stop.is_cancelled() {
        return Err(BuildError::Stopped);
    }
    Ok(values)
}

/// The lower layers' bytes and where their values start; a layer not read (of the same
/// stage, [`layers_read`]) holds nothing, so a move that reached it would be refused as a
/// build error, never read as a value.
fn lower_maps(below: &[Option<(usize, MappedFile)>]) -> Vec<(&[u8], usize)> {
    below
        .iter()
        .map(|lower| match lower {
            Some((offset, file)) => (file.bytes(), *offset),
            None => (&[][..], 0),
        })
        .collect()
}

fn lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// A position on the evaluation stack: its moves, the next to look at, the best so far.
struct Frame<G: Game> {
    index: u64,
    pos: G::Position,
    moves: Vec<G::Move>,
    next: usize,
    best: i32,
}

struct Worker<'a, G: Game> {
    game: &'a G,
    layer: u32,
    values: &'a [AtomicI8],
    lower: &'a [(&'a [u8], usize)],
    /// The evaluation stack (frames are reused: their move lists keep their capacity).
    frames: Vec<Frame<G>>,
}

impl<G: Game> Worker<'_, G> {
    /// Make sure entry `index` of the layer is known.
    fn ensure(&mut self, index: u64) -> Result<(), BuildError> {
        if self.values[index as usize].load(Ordering::Relaxed) != UNKNOWN {
            return Ok(());
        }
        let mut depth = 0;
        self.push(&mut depth, index)?;
        while depth > 0 {
            let top = depth - 1;
            let frame = &mut self.frames[top];
            if frame.next < frame.moves.len() {
                let mv = frame.moves[frame.next];
                let mut child = frame.pos.clone();
                self.game.play(&mut child, mv);
                let mover = self.game.to_move(&frame.pos);
                let same = self.game.to_move(&child) == mover;
                match self.child_value(&child)? {
                    Some(value) => {
                        let frame = &mut self.frames[top];
                        frame.best = frame.best.max(if same { value } else { -value });
                        frame.next += 1;
                    }
                    None => {
                        // A same-layer child not known yet: evaluate it first.
                        let Some((_, child_index)) = self.game.table_index(&child, self.layer)
                        else {
                            return Err(self.invalid("a child lost its index"));
                        };
                        if self.frames[..depth].iter().any(|f| f.index == child_index) {
                            return Err(self.cycle(depth, &child));
                        }
                        self.push(&mut depth, child_index)?;
                    }
                }
            } else {
                let value = frame.best - self.game.banked_value(&frame.pos);
                let index = frame.index;
                let points = value / 2;
                if value % 2 != 0 || !(-127..=127).contains(&points) {
                    return Err(self.invalid(&format!(
                        "value {value} half-points is not a whole number of points within ±127"
                    )));
                }
                self.values[index as usize].store(points as i8, Ordering::Relaxed);
                depth -= 1;
            }
        }
        Ok(())
    }

    /// Put entry `index` on the stack (its value is computed as its moves are looked at); a
    /// finished position is valued at once.
    fn push(&mut self, depth: &mut usize, index: u64) -> Result<(), BuildError> {
        let Some(pos) = self.game.table_position(self.layer, index) else {
            // A slot no position has: never probed, kept at 0.
            self.values[index as usize].store(0, Ordering::Relaxed);
            return Ok(());
        };
        if let Some(outcome) = self.game.outcome(&pos) {
            let value = self.game.final_value(&outcome, self.game.to_move(&pos))
                - self.game.banked_value(&pos);
            let points = value / 2;
            if value % 2 != 0 || !(-127..=127).contains(&points) {
                return Err(self.invalid(&format!("end value {value} half-points")));
            }
            self.values[index as usize].store(points as i8, Ordering::Relaxed);
            return Ok(());
        }
        if *depth == self.frames.len() {
            self.frames.push(Frame {
                index,
                pos: pos.clone(),
                moves: Vec::new(),
                next: 0,
                best: i32::MIN,
            });
        }
        let frame = &mut self.frames[*depth];
        frame.index = index;
        self.game.legal_moves(&pos, &mut frame.moves);
        frame.pos = pos;
        frame.next = 0;
        frame.best = i32::MIN;
        if frame.moves.is_empty() {
            return Err(self.invalid("a position that is not over has no legal move"));
        }
        *depth += 1;
        Ok(())
    }

    /// The child's final value from its own mover's view, if known (`None`: same layer, not
    /// evaluated yet).
    #[inline]
    fn child_value(&self, child: &G::Position) -> Result<Option<i32>, BuildError> {
        let game = self.game;
        if let Some(outcome) = game.outcome(child) {
            return Ok(Some(game.final_value(&outcome, game.to_move(child))));
        }
        let Some((layer, index)) = game.table_index(child, self.layer) else {
            return Err(self.invalid("a move raised the layer (or left the tables)"));
        };
        let stored = if layer == self.layer {
            let v = self.values[index as usize].load(Ordering::Relaxed);
            if v == UNKNOWN {
                return Ok(None);
            }
            v
        } else {
            let (map, offset) = self.lower[layer as usize];
            // A lower file that shrank reads as zeros here (the guard); the build checks
            // the lower files before it writes, so such values are never kept.
            let Some(&byte) = map.get(offset + index as usize) else {
                return Err(self.invalid(&format!(
                    "a move leads to layer {layer}, which is shorter than its entries or not \
                     read by this layer (of a stage not below it)"
                )));
            };
            byte as i8
        };
        Ok(Some(game.banked_value(child) + 2 * stored as i32))
    }

    fn invalid(&self, message: &str) -> BuildError {
        BuildError::Invalid {
            layer: self.layer,
            message: message.to_string(),
        }
    }

    fn cycle(&self, depth: usize, child: &G::Position) -> BuildError {
        let path: Vec<String> = self.frames[..depth]
            .iter()
            .map(|f| self.game.format_position(&f.pos))
            .collect();
        BuildError::Cycle {
            layer: self.layer,
            message: format!(
                "positions can come back to themselves, so this layer cannot be built by \
                 depth-first evaluation: {} -> {}",
                path.join(" -> "),
                self.game.format_position(child)
            ),
        }
    }
}
