//! The work of `sowfan tablebase`: build a game's tables, and verify, list and merge the
//! table files under a directory of any games' tables (each file checked for the game its
//! header names, as the loader would), and time probes. `commands/tablebase.rs` holds the
//! command line; this holds what it does, callable from a test or another front end.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::cli::OutputError;
use crate::cli::{CancelToken, Interrupted, OutputLock};
use crate::memory::ThreadsError;
use crate::registry::{self, RegistryError};
use crate::session::Session;
use crate::tables::build::{BuildError, BuildOptions, LayerReport};
use crate::tables::format::{self, Header};
use crate::tables::{self, TableError};

/// `println!` that ends the program quietly when its reader has gone (`sowfan tablebase info
/// | head`), as a pipeline expects, instead of panicking on the broken pipe.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        if let Err(e) = writeln!(std::io::stdout(), $($arg)*) {
            if e.kind() == std::io::ErrorKind::BrokenPipe {
                std::process::exit(0);
            }
            eprintln!("sowfan tablebase: cannot write the output: {e}");
            std::process::exit(1);
        }
    }};
}

/// The most slices a layer is cut into (`--shard I/K`): more would leave slices empty.
const MAX_SHARDS: u32 = 4096;
/// The most seeds or stones in play a build is asked for (`--seeds`, `--pieces`): far above
/// what a table can hold (a value must fit a byte), so the builder's own check speaks.
const MAX_IN_PLAY: u32 = 1000;

/// Why a tablebase command did not do its work; each text is what the user is shown.
#[derive(Debug, thiserror::Error)]
pub enum TablebaseError {
    /// Ctrl-C (or SIGTERM) stopped it.
    #[error(transparent)]
    Interrupted(#[from] Interrupted),
    #[error("no game given")]
    NoGame,
    #[error(transparent)]
    Registry(#[from] RegistryError),
    #[error(transparent)]
    Shard(#[from] ShardError),
    /// `--threads` refused (`memory::check_threads` says why).
    #[error("{0}")]
    Threads(ThreadsError),
    /// The folder or a layer file is held by another build or merge (`OutputLock` says which).
    #[error("{0}")]
    Locked(OutputError),
    #[error("--seeds (--pieces) {0}: at most {MAX_IN_PLAY} in play")]
    TooManyInPlay(u32),
    #[error("--slices {0}: give 1..={MAX_SHARDS}")]
    Slices(u32),
    #[error("--positions {0}: give 1..=10000000")]
    Positions(usize),
    #[error("{0} has no endgame tables")]
    NoTables(String),
    #[error(transparent)]
    Build(#[from] BuildError),
    #[error(transparent)]
    Table(#[from] TableError),
    #[error("cannot make the table directory '{}': {source}", dir.display())]
    MakeTableDir {
        dir: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot make the folder '{}': {source}", folder.display())]
    MakeFolder {
        folder: PathBuf,
        source: std::io::Error,
    },
    /// `plan` met a layer file that does not check.
    #[error(
        "{0}; a layer file that is not sound is not built over: remove it (and every layer \
         above it) and plan again"
    )]
    UnsoundLayer(TableError),
    #[error("the tables hold no position")]
    NoPositions,
    #[error("no table directory '{}'", .0.display())]
    NoTableDir(PathBuf),
    #[error("'{}': {source}", dir.display())]
    ReadDir {
        dir: PathBuf,
        source: std::io::Error,
    },
    #[error("'{}' holds more than {MAX_ENTRIES} entries: not a table directory?", .0.display())]
    TooManyEntries(PathBuf),
    /// `verify` found files or sets that do not check (each said on its own line).
    #[error("{bad} damaged table files, {unloadable} table sets that do not load")]
    Damaged { bad: usize, unloadable: usize },
    /// Boxed: a merge's errors carry paths, and every command's result would be as large.
    #[error(transparent)]
    Merge(Box<MergeError>),
}

impl From<MergeError> for TablebaseError {
    fn from(error: MergeError) -> TablebaseError {
        TablebaseError::Merge(Box::new(error))
    }
}

/// `--shard` that is not `I/K` with 1 ≤ I ≤ K ≤ `MAX_SHARDS`.
#[derive(Debug, thiserror::Error)]
pub enum ShardError {
    #[error("--shard {0}: expected I/K with 1 <= I <= K, e.g. --shard 3/8")]
    NotIOfK(String),
    #[error(
        "--shard {0}: expected I/K with 1 <= I <= K, e.g. --shard 3/8 (K at most {MAX_SHARDS})"
    )]
    OutOfRange(String),
}

/// Why a table file does not check through (`check_file`).
#[derive(Debug, thiserror::Error)]
pub enum FileCheckError {
    /// Its header, its checksum or a value.
    #[error(transparent)]
    Table(#[from] TableError),
    #[error("'{}': {source}", path.display())]
    Rules { path: PathBuf, source: RulesError },
}

/// A table header's rules that name no game's tables here (`game_of`).
#[derive(Debug, thiserror::Error)]
pub enum RulesError {
    #[error("the header names rules '{rules}', which are no game here: {source}")]
    NoGame {
        rules: String,
        source: RegistryError,
    },
    #[error("the header names rules '{0}', which are not the rules of any game's tables")]
    NotTables(String),
}

/// Why `merge` merged nothing in a folder; the texts say what to do.
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    #[error(
        "'{}' is named like a file of layer {number}, but not as sowfan names its files (a copy \
         of a slice?): nothing merged beside it; remove it or give it its own name \
         (layer-NNN.sftb, layer-NNN.shard-I-of-K.sftb)",
        path.display()
    )]
    OddName { path: PathBuf, number: u32 },
    #[error(
        "no slices of layer {layer} and no whole layer {layer} under '{}': build its slices \
         first (sowfan tablebase build GAME --seeds N --dir '{}' --layer {layer} --shard I/K)",
        dir.display(),
        dir.display()
    )]
    NoLayer { layer: u32, dir: PathBuf },
    /// `cuts`: each cut and its slices (`cut into K (1/K, 3/K)`).
    #[error(
        "'{}', layer {layer}: slices of different cuts lie side by side: {}; a layer is \
         merged from one cut: remove the slices of the cuts not used \
         (layer-{layer:03}.shard-*-of-K.sftb in '{}'), then merge again; nothing merged",
        folder.display(),
        cuts.join("; "),
        folder.display()
    )]
    MixedCuts {
        folder: PathBuf,
        layer: u32,
        cuts: Vec<String>,
    },
    #[error(
        "{source}; nothing merged: remove it (rm '{}') and build that slice again",
        path.display()
    )]
    BadSlice {
        path: PathBuf,
        source: FileCheckError,
    },
    #[error("{0}; the slices were not merged over it: remove it first")]
    BadWhole(FileCheckError),
    #[error(
        "'{}', layer {layer}: '{}' holds other values than the whole layer '{}' already \
         there; nothing merged or removed: one of them was built from other data (check the \
         layers below with 'sowfan tablebase verify')",
        folder.display(),
        path.display(),
        target.display()
    )]
    OtherValues {
        folder: PathBuf,
        layer: u32,
        path: PathBuf,
        target: PathBuf,
    },
    #[error(
        "'{}', layer {layer}: no slices and no whole layer; build the slices first (sowfan \
         tablebase build GAME --seeds N --dir DIR --layer {layer} --shard I/K)",
        folder.display()
    )]
    NoSlices { folder: PathBuf, layer: u32 },
    /// `missing`: the slices not there, as `I/K`.
    #[error(
        "'{}', layer {layer}: missing slices: {} (of {count}); build them (sowfan tablebase \
         build GAME --seeds N --dir DIR --layer {layer} --shard I/K), then merge again; \
         nothing merged",
        folder.display(),
        missing.join(", ")
    )]
    MissingSlices {
        folder: PathBuf,
        layer: u32,
        missing: Vec<String>,
        count: u32,
    },
    #[error(
        "{rules}, layer {layer}: the slices do not tile the layer: '{}' holds {first}..{end}, \
         expected it to start at {next}; nothing merged",
        path.display()
    )]
    NotTiled {
        rules: String,
        layer: u32,
        path: PathBuf,
        first: u64,
        end: u64,
        next: u64,
    },
    #[error(
        "{rules}, layer {layer}: the slices cover 0..{next} of {entries} entries; nothing merged"
    )]
    NotCovered {
        rules: String,
        layer: u32,
        next: u64,
        entries: u64,
    },
    /// A slice's file changed under its mapping (the mapping says how).
    #[error("{0}; nothing merged")]
    Changed(String),
    #[error("'{}' changed while it was merged; nothing merged", .0.display())]
    ChangedWhileMerged(PathBuf),
    #[error("'{}': {source}", target.display())]
    Write {
        target: PathBuf,
        source: std::io::Error,
    },
    #[error("the merged layer is not sound: {0}")]
    MergedUnsound(FileCheckError),
}

/// `I/K` with 1 ≤ I ≤ K.
pub fn parse_shard(text: &str) -> Result<(u32, u32), ShardError> {
    let usage = || ShardError::NotIOfK(text.to_string());
    let (i, k) = text.split_once('/').ok_or_else(usage)?;
    let i: u32 = i.trim().parse().map_err(|_| usage())?;
    let k: u32 = k.trim().parse().map_err(|_| usage())?;
    if i == 0 || k == 0 || i > k || k > MAX_SHARDS {
        return Err(ShardError::OutOfRange(text.to_string()));
    }
    Ok((i, k))
}

/// `sowfan tablebase build`: every layer up to `seeds` in play, or with `layer` (or a
/// `shard`) that layer alone, whole or one slice ([`crate::tables::build::build`]).
#[allow(clippy::too_many_arguments)]
pub fn build(
    game: &[String],
    seeds: u32,
    dir: PathBuf,
    threads: usize,
    layer: Option<u32>,
    shard: Option<&str>,
    memory_mb: Option<u64>,
    stop: &CancelToken,
) -> Result<(), TablebaseError> {
    let (name, options) = game.split_first().ok_or(TablebaseError::NoGame)?;
    let options: Vec<&str> = options.iter().map(String::as_str).collect();
    let session = registry::create(name, &options)?;
    let shard = shard.map(parse_shard).transpose()?;
    let threads =
        crate::memory::check_threads("--threads", threads).map_err(TablebaseError::Threads)?;
    if seeds > MAX_IN_PLAY {
        return Err(TablebaseError::TooManyInPlay(seeds));
    }
    let rules = session
        .table_rules()
        .ok_or_else(|| TablebaseError::NoTables(name.clone()))?;
    // The layer alone (`--layer`, or `--shard` of the top layer), or every layer.
    let one = match (layer, shard) {
        (Some(layer), _) => Some(layer),
        (None, Some(_)) => session
            .table_layer_jobs(seeds)?
            .iter()
            .map(|job| job.layer)
            .max(),
        (None, None) => None,
    };
    // One build writes a folder's layers at a time; builds of one layer or slice each
    // (--layer, --shard) share the folder, each holding its own file alone: the slices of a
    // layer and the layers of a stage run side by side, and a whole build is refused
    // meanwhile. Taken before any work.
    std::fs::create_dir_all(&dir).map_err(|source| TablebaseError::MakeTableDir {
        dir: dir.clone(),
        source,
    })?;
    let _folder = OutputLock::folder("--dir", &dir, "tablebase build", one.is_some())
        .map_err(TablebaseError::Locked)?;
    let folder = format::rules_folder(&dir, &rules);
    if one.is_some() {
        std::fs::create_dir_all(&folder).map_err(|source| TablebaseError::MakeFolder {
            folder: folder.clone(),
            source,
        })?;
    }
    let _own = match (one, shard) {
        (Some(layer), Some((i, k))) => Some(
            OutputLock::file(
                "--shard",
                &format::shard_file(&folder, layer, i, k),
                "tablebase build",
            )
            .map_err(TablebaseError::Locked)?,
        ),
        (Some(layer), None) => Some(
            OutputLock::file(
                "--layer",
                &format::layer_file(&folder, layer),
                "tablebase build or merge",
            )
            .map_err(TablebaseError::Locked)?,
        ),
        (None, _) => None,
    };
    let options = BuildOptions {
        dir,
        in_play: seeds,
        threads,
        layer,
        shard,
        progress: true,
        memory: memory_mb.map(|mb| mb.saturating_mul(1 << 20)),
    };
    let started = std::time::Instant::now();
    let mut bytes = 0u64;
    let mut planned = 0u64;
    let mut print = |layer: &LayerReport| {
        planned = planned.max(layer.memory);
        // What this run wrote, not the layers it found in place.
        if layer.took.is_some() {
            bytes += layer.entries;
        }
        match layer.took {
            Some(took) => say!(
                "layer {:>3} ({}): {:>13} entries  built in {:.1} s  {}",
                layer.layer,
                layer.name,
                layer.entries,
                took.as_secs_f64(),
                layer.path.display()
            ),
            None => say!(
                "layer {:>3} ({}): {:>13} entries  present      {}",
                layer.layer,
                layer.name,
                layer.entries,
                layer.path.display()
            ),
        }
    };
    let reports = session.build_tables(&options, stop, &mut print)?;
    if let Some(layer) = one
        && reports.iter().all(|r| r.took.is_none())
    {
        let whole = format::layer_file(&folder, layer);
        match shard {
            Some((i, k)) if reports.iter().all(|r| r.path != whole) => {
                say!("slice {i}/{k} of layer {layer} is already there and sound: nothing to do")
            }
            _ => say!(
                "layer {layer} is already whole ({}): nothing to do",
                whole.display()
            ),
        }
        return Ok(());
    }
    say!(
        "Done: {} of values written in {:.1} s",
        if bytes >= 1 << 20 {
            format!("{} MB", bytes >> 20)
        } else {
            format!("{bytes} bytes")
        },
        started.elapsed().as_secs_f64()
    );
    if let Some(peak) = crate::memory::peak_resident_bytes()
        && planned > 0
    {
        say!(
            "Memory: peak resident {} MiB (planned for the largest layer: {} MiB)",
            peak >> 20,
            planned.div_ceil(1 << 20)
        );
    }
    Ok(())
}

/// `sowfan tablebase plan`: the jobs still to do for a build up to `seeds` in play cut
/// into at most `slices` slices a layer, one line a layer, in stage order (see
/// docs/tablebases.md, "Threads, shards and merging"):
///
/// ```text
/// stage=S layer=L slices=J entries=E name=NAME
/// ```
///
/// `J` is `min(slices, E)` for a layer whose slice costs only its slice (depth-first), 1
/// for one where each slice computes the whole layer (retrograde): those run side by side
/// by stage. `NAME` is the layer's name with `_` for blanks. A layer already whole (and
/// sound) is left out; one whose file is damaged is an error naming it.
pub fn plan(game: &[String], seeds: u32, dir: &Path, slices: u32) -> Result<(), TablebaseError> {
    let (name, options) = game.split_first().ok_or(TablebaseError::NoGame)?;
    let options: Vec<&str> = options.iter().map(String::as_str).collect();
    let session = registry::create(name, &options)?;
    if !(1..=MAX_SHARDS).contains(&slices) {
        return Err(TablebaseError::Slices(slices));
    }
    if seeds > MAX_IN_PLAY {
        return Err(TablebaseError::TooManyInPlay(seeds));
    }
    let rules = session
        .table_rules()
        .ok_or_else(|| TablebaseError::NoTables(name.clone()))?;
    let jobs = session.table_layer_jobs(seeds)?;
    let folder = format::rules_folder(dir, &rules);
    let mut left = 0;
    for job in &jobs {
        let path = format::layer_file(&folder, job.layer);
        if std::fs::symlink_metadata(&path).is_ok() {
            session
                .check_table_file(&path)
                .map_err(TablebaseError::UnsoundLayer)?;
            continue;
        }
        let slices = if job.sliced {
            u64::from(slices).min(job.entries).max(1)
        } else {
            1
        };
        let name: String = job
            .name
            .chars()
            .map(|c| if c.is_whitespace() { '_' } else { c })
            .collect();
        say!(
            "stage={} layer={} slices={slices} entries={} name={name}",
            job.stage,
            job.layer,
            job.entries
        );
        left += 1;
    }
    if left == 0 {
        eprintln!(
            "sowfan tablebase plan: nothing to do: layers 0..={} of '{rules}' are whole in '{}'",
            jobs.iter().map(|j| j.layer).max().unwrap_or(0),
            dir.display()
        );
    }
    Ok(())
}

pub fn bench(
    game: &[String],
    dir: &Path,
    positions: usize,
    seed: u64,
) -> Result<(), TablebaseError> {
    if !(1..=10_000_000).contains(&positions) {
        return Err(TablebaseError::Positions(positions));
    }
    let (name, options) = game.split_first().ok_or(TablebaseError::NoGame)?;
    let options: Vec<&str> = options.iter().map(String::as_str).collect();
    let mut session = registry::create(name, &options)?;
    let tables = session
        .open_tables(dir)?
        .ok_or_else(|| TablebaseError::NoTables(name.clone()))?;
    say!(
        "{}: layers 0..={} in {}",
        tables.rules(),
        tables.max_layer(),
        tables.folder().display()
    );
    session.set_tables(Some(tables));
    let result = session
        .bench_table_probes(positions, seed)
        .ok_or(TablebaseError::NoPositions)?;
    say!(
        "{} positions ({} answered): cold {} ns a probe, warm {} ns a probe",
        result.positions,
        result.answered,
        result.cold.as_nanos(),
        result.warm.as_nanos()
    );
    Ok(())
}

/// How deep below the table directory the tools look (a table directory holds one folder
/// per rule set: depth 2 is enough; more is allowed for directories of directories).
const MAX_DEPTH: usize = 8;
/// How many directory entries the tools look at before deciding this is no table directory.
const MAX_ENTRIES: usize = 1_000_000;

/// What a walk of a table directory found.
#[derive(Default)]
struct Found {
    /// Everything named `*.sftb` (whatever it is: a FIFO or a directory so named is found
    /// too, so that `verify` can say what it is), sorted.
    tables: Vec<PathBuf>,
    /// Temporary files of a writer that did not finish (`layer-….tmp-PID`).
    temporary: Vec<PathBuf>,
    /// Symbolic links to directories, not followed (they could loop), and folders too deep.
    skipped: Vec<(PathBuf, &'static str)>,
}

/// Walk `dir` for table files. Symbolic links to directories are never followed (a link to
/// `.` would count every file again, two would loop); a symlinked file is listed like a
/// file (it is read only if it is a regular file). Depth and entries are bounded, and a
/// Ctrl-C stops the walk.
fn walk(dir: &Path, stop: &CancelToken) -> Result<Found, TablebaseError> {
    if !dir.is_dir() {
        return Err(TablebaseError::NoTableDir(dir.to_path_buf()));
    }
    let mut found = Found::default();
    let mut folders = vec![(dir.to_path_buf(), 0usize)];
    let mut seen = 0usize;
    while let Some((folder, depth)) = folders.pop() {
        let entries = match std::fs::read_dir(&folder) {
            Ok(entries) => entries,
            Err(source) if depth == 0 => {
                return Err(TablebaseError::ReadDir {
                    dir: folder,
                    source,
                });
            }
            Err(_) => {
                found.skipped.push((folder, "unreadable, not looked into"));
                continue;
            }
        };
        for entry in entries.flatten() {
            if stop.is_cancelled() {
                return Err(Interrupted.into());
            }
            seen += 1;
            if seen > MAX_ENTRIES {
                return Err(TablebaseError::TooManyEntries(dir.to_path_buf()));
            }
            let path = entry.path();
            let name = entry.file_name();
            let name = name.to_string_lossy();
            // DirEntry::file_type does not follow symbolic links.
            let Ok(file_type) = entry.file_type() else {
                continue;
            };
            let is_dir = file_type.is_dir();
            if file_type.is_symlink() && path.is_dir() {
                found
                    .skipped
                    .push((path, "a symbolic link to a directory, not followed"));
                continue;
            }
            if name.ends_with(".sftb") {
                found.tables.push(path);
            } else if format::is_temporary(&name) {
                found.temporary.push(path);
            } else if is_dir {
                if depth + 1 >= MAX_DEPTH {
                    found.skipped.push((path, "too deep, not looked into"));
                } else {
                    folders.push((path, depth + 1));
                }
            }
        }
    }
    found.tables.sort();
    found.temporary.sort();
    found.skipped.sort();
    Ok(found)
}

/// The table directory a table file sits in (the parent of its rules folder), made
/// absolute when the path alone does not say (`./layer-000.sftb`).
fn table_dir(file: &Path) -> Option<PathBuf> {
    let folder = file.parent()?;
    match folder.parent() {
        Some(dir) if folder.file_name().is_some() && !dir.as_os_str().is_empty() => {
            Some(dir.to_path_buf())
        }
        Some(_) if folder.file_name().is_some() => Some(PathBuf::from(".")),
        _ => folder.canonicalize().ok()?.parent().map(Path::to_path_buf),
    }
}

/// The game whose rules a table's header names (the rules string is a game and its
/// options), to check the file against.
/// What layers `0..=top` hold, for people: every position with at most so many in play.
fn covered(session: &dyn Session, top: u32) -> String {
    match session.table_in_play(top) {
        Some(n) => format!("every position with at most {n} in play"),
        None => "no count of pieces in play whole".to_string(),
    }
}

fn game_of(rules: &str) -> Result<Box<dyn Session>, RulesError> {
    let session = registry::create_from_spec(rules).map_err(|source| RulesError::NoGame {
        rules: rules.to_string(),
        source,
    })?;
    if session.table_rules().as_deref() != Some(rules) {
        return Err(RulesError::NotTables(rules.to_string()));
    }
    Ok(session)
}

/// Check one file through and through: what the loader checks (for the rules its header
/// names), the checksum and every value.
fn check_file(path: &Path) -> Result<(Header, Box<dyn Session>), FileCheckError> {
    let (header, _) = tables::open_alone(path)?;
    let session = game_of(&header.rules).map_err(|source| FileCheckError::Rules {
        path: path.to_path_buf(),
        source,
    })?;
    let header = session.check_table_file(path)?;
    Ok((header, session))
}

fn print_leftovers(found: &Found) {
    for path in &found.temporary {
        say!(
            "tmp   {}  (left by a build or merge that was killed; remove it: rm '{}')",
            path.display(),
            path.display()
        );
    }
    for (path, why) in &found.skipped {
        say!("skip  {}  ({why})", path.display());
    }
}

pub fn verify(dir: &Path, stop: &CancelToken) -> Result<(), TablebaseError> {
    let found = walk(dir, stop)?;
    let mut bad = 0;
    let mut unloadable = 0;
    // The table directories and rules seen, for the loader's own look at each.
    let mut sets: BTreeMap<(PathBuf, String), Box<dyn Session>> = BTreeMap::new();
    for path in &found.tables {
        if stop.is_cancelled() {
            return Err(Interrupted.into());
        }
        match check_file(path) {
            Ok((h, session)) => {
                say!(
                    "ok    {}  ({}, layer {}, {} entries)",
                    path.display(),
                    h.rules,
                    h.layer,
                    h.count
                );
                if let Some(base) = table_dir(path) {
                    sets.entry((base.to_path_buf(), h.rules.clone()))
                        .or_insert(session);
                }
            }
            Err(e) => {
                bad += 1;
                say!("FAIL  {e}");
            }
        }
    }
    // The loader itself, as the engine and the tools open the tables.
    for ((base, rules), session) in &sets {
        if stop.is_cancelled() {
            return Err(Interrupted.into());
        }
        match session.open_tables(base) {
            Ok(Some(tables)) => say!(
                "ok    {rules}: layers 0..={} load from '{}'",
                tables.max_layer(),
                base.display()
            ),
            Ok(None) => {}
            Err(TableError::Absent { .. }) => say!(
                "note  {rules}: no layer 0 in '{}', so these tables do not load",
                base.display()
            ),
            Err(e) => {
                unloadable += 1;
                say!("FAIL  {rules}: the tables do not load: {e}");
            }
        }
    }
    print_leftovers(&found);
    let mut summary = format!("{} files, {bad} damaged", found.tables.len());
    if unloadable > 0 {
        summary += &format!(", {unloadable} table sets that do not load");
    }
    if !found.temporary.is_empty() {
        summary += &format!(", {} temporary files left over", found.temporary.len());
    }
    say!("{summary}");
    if bad + unloadable > 0 {
        return Err(TablebaseError::Damaged { bad, unloadable });
    }
    Ok(())
}

/// One file as `info` sees it: its header (if readable) and its real length.
struct Listed {
    path: PathBuf,
    header: Header,
    len: u64,
}

pub fn info(dir: &Path, stop: &CancelToken) -> Result<(), TablebaseError> {
    let found = walk(dir, stop)?;
    let mut sets: BTreeMap<String, Vec<Listed>> = BTreeMap::new();
    for path in found.tables {
        if stop.is_cancelled() {
            return Err(Interrupted.into());
        }
        match tables::open_alone(&path) {
            Ok((header, file)) => {
                let len = file.bytes().len() as u64;
                sets.entry(header.rules.clone())
                    .or_default()
                    .push(Listed { path, header, len })
            }
            Err(e) => say!("unreadable: {e}"),
        }
    }
    if sets.is_empty() {
        say!("no tables in '{}'", dir.display());
    }
    for (rules, mut files) in sets {
        files.sort_by_key(|f| (f.header.layer, f.header.first));
        say!("{rules}");
        // Complete is what the loader accepts, not what headers claim.
        let bases: std::collections::BTreeSet<PathBuf> =
            files.iter().filter_map(|f| table_dir(&f.path)).collect();
        match game_of(&rules) {
            Err(e) => say!("  complete: none ({e})"),
            Ok(session) => {
                for base in &bases {
                    match session.open_tables(base) {
                        Ok(Some(tables)) => say!(
                            "  complete: layers 0..={top} ({}) in '{}'",
                            covered(session.as_ref(), tables.max_layer()),
                            base.display(),
                            top = tables.max_layer()
                        ),
                        Ok(None) | Err(TableError::Absent { .. }) => say!(
                            "  complete: none in '{}' (layer 0 is missing)",
                            base.display()
                        ),
                        Err(e) => say!("  complete: none in '{}': {e}", base.display()),
                    }
                }
            }
        }
        let bytes: u64 = files
            .iter()
            .map(|f| f.len.saturating_sub(f.header.len() as u64))
            .sum();
        say!("  {} files, {} MB of values", files.len(), bytes >> 20);
        for f in &files {
            let h = &f.header;
            let what = if h.is_whole_layer() {
                "layer".to_string()
            } else {
                format!("slice {}..{} of", h.first, h.first.saturating_add(h.count))
            };
            let expected = (h.len() as u64).saturating_add(h.count);
            let size = if f.len == expected {
                String::new()
            } else {
                format!(
                    "  ({} bytes, the header promises {expected}: {})",
                    f.len,
                    if f.len < expected {
                        "truncated"
                    } else {
                        "extended"
                    }
                )
            };
            say!(
                "    {what} {:>3}: {:>13} entries  {}{size}",
                h.layer,
                h.count,
                f.path
                    .file_name()
                    .map(|f| f.to_string_lossy())
                    .unwrap_or_default()
            );
        }
    }
    print_leftovers(&Found {
        tables: Vec::new(),
        ..found
    });
    Ok(())
}

/// A slice file found by `merge`: its path and what its name says.
struct Slice {
    path: PathBuf,
    shard: u32,
    shards: u32,
}

/// The layer number a file's name starts with (`layer-NNN.`…), however spelt: to find
/// files named like a layer's that are not the names sowfan writes.
fn layer_number(name: &str) -> Option<u32> {
    let rest = name.strip_prefix("layer-")?;
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Assemble slices into whole layers: every layer that has slices under `dir`, or `layer`
/// alone (in every rules folder that has its slices or its file). Every slice is checked
/// through (`check_file`: its header names the rules of the folder it sits in and the
/// slice its name says, its checksum holds), the slices of a layer must come from one cut
/// (one K) and tile the layer, and a file named like one of the layer's but not as sowfan
/// names its files (a copy of a slice) is refused: nothing is merged beside it. The whole
/// layer is written atomically and checked through, then its slices are removed. A whole
/// layer already there and sound is kept (its slices, when they hold its bytes, are
/// removed). `.tmp-PID` files of writers killed are ignored and listed.
pub fn merge(dir: &Path, layer: Option<u32>, stop: &CancelToken) -> Result<(), TablebaseError> {
    let found = walk(dir, stop)?;
    // Every layer: the folder alone. One layer: the folder shared with the builds and merges
    // of other layers; its layer file alone (taken in each rules folder below).
    let _folder = OutputLock::folder("--dir", dir, "tablebase build or merge", layer.is_some())
        .map_err(TablebaseError::Locked)?;
    let wanted = |n: u32| layer.is_none_or(|l| l == n);
    for path in &found.temporary {
        if layer_number(&file_name(path)).is_some_and(wanted) {
            say!(
                "tmp   {}  (ignored: left by a writer that was killed, or one still at work; \
                 once none runs: rm '{}')",
                path.display(),
                path.display()
            );
        }
    }
    let mut groups: BTreeMap<(PathBuf, u32), Vec<Slice>> = BTreeMap::new();
    for path in found.tables {
        if stop.is_cancelled() {
            return Err(Interrupted.into());
        }
        let name = file_name(&path);
        let Some(number) = layer_number(&name).filter(|&n| wanted(n)) else {
            continue;
        };
        let folder = path.parent().map(Path::to_path_buf).unwrap_or_default();
        match format::FileName::parse(&name) {
            Some(format::FileName::Shard {
                layer,
                shard,
                shards,
            }) => groups.entry((folder, layer)).or_default().push(Slice {
                path,
                shard,
                shards,
            }),
            Some(format::FileName::Layer(n)) => {
                if layer.is_some() {
                    groups.entry((folder, n)).or_default();
                }
            }
            None => {
                return Err(MergeError::OddName { path, number }.into());
            }
        }
    }
    if groups.is_empty() {
        return match layer {
            Some(layer) => Err(MergeError::NoLayer {
                layer,
                dir: dir.to_path_buf(),
            }
            .into()),
            None => {
                say!("no shards to merge in '{}'", dir.display());
                Ok(())
            }
        };
    }
    for ((folder, number), slices) in groups {
        if stop.is_cancelled() {
            return Err(Interrupted.into());
        }
        merge_layer(&folder, number, slices, layer.is_some(), stop)?;
    }
    Ok(())
}

/// Merge the `slices` of `layer` in `folder` into the whole layer (see [`merge`]); `hold`:
/// take the layer file's lock (the folder is held shared).
fn merge_layer(
    folder: &Path,
    layer: u32,
    mut slices: Vec<Slice>,
    hold: bool,
    stop: &CancelToken,
) -> Result<(), TablebaseError> {
    let target = format::layer_file(folder, layer);
    let _own = if hold {
        Some(
            OutputLock::file("--layer", &target, "tablebase build or merge")
                .map_err(TablebaseError::Locked)?,
        )
    } else {
        None
    };
    slices.sort_by_key(|s| (s.shards, s.shard));
    let cuts: std::collections::BTreeSet<u32> = slices.iter().map(|s| s.shards).collect();
    if cuts.len() > 1 {
        let cuts: Vec<String> = cuts
            .iter()
            .map(|&k| {
                let of: Vec<String> = slices
                    .iter()
                    .filter(|s| s.shards == k)
                    .map(|s| format!("{}/{k}", s.shard))
                    .collect();
                format!("cut into {k} ({})", of.join(", "))
            })
            .collect();
        return Err(MergeError::MixedCuts {
            folder: folder.to_path_buf(),
            layer,
            cuts,
        }
        .into());
    }
    let mut checked: Vec<(Header, PathBuf)> = Vec::new();
    for slice in &slices {
        if stop.is_cancelled() {
            return Err(Interrupted.into());
        }
        let (header, _) = check_file(&slice.path).map_err(|source| MergeError::BadSlice {
            path: slice.path.clone(),
            source,
        })?;
        checked.push((header, slice.path.clone()));
    }
    if std::fs::symlink_metadata(&target).is_ok() {
        let (whole, _) = check_file(&target).map_err(MergeError::BadWhole)?;
        if checked.is_empty() {
            say!(
                "'{}', layer {layer}: already whole ({}); nothing to merge",
                folder.display(),
                target.display()
            );
            return Ok(());
        }
        let (_, file) = tables::open_alone(&target)?;
        let data = file.bytes().get(whole.len()..).unwrap_or_default();
        for (h, path) in &checked {
            let (_, slice) = tables::open_alone(path)?;
            let part = data.get(h.first as usize..(h.first + h.count) as usize);
            if part != slice.bytes().get(h.len()..) {
                return Err(MergeError::OtherValues {
                    folder: folder.to_path_buf(),
                    layer,
                    path: path.clone(),
                    target,
                }
                .into());
            }
        }
        remove_slices(&checked);
        say!(
            "'{}', layer {layer}: already whole ({}); its {} slices hold the same values and \
             are removed",
            folder.display(),
            target.display(),
            checked.len()
        );
        return Ok(());
    }
    let Some((first, _)) = checked.first() else {
        return Err(MergeError::NoSlices {
            folder: folder.to_path_buf(),
            layer,
        }
        .into());
    };
    let (rules, entries, kind) = (first.rules.clone(), first.entries, first.kind);
    let k = slices[0].shards;
    let missing: Vec<String> = (1..=k)
        .filter(|i| !slices.iter().any(|s| s.shard == *i))
        .map(|i| format!("{i}/{k}"))
        .collect();
    if !missing.is_empty() {
        return Err(MergeError::MissingSlices {
            folder: folder.to_path_buf(),
            layer,
            missing,
            count: k,
        }
        .into());
    }
    let mut next = 0;
    for (h, path) in &checked {
        if h.rules != rules || h.entries != entries || h.kind != kind || h.first != next {
            return Err(MergeError::NotTiled {
                rules,
                layer,
                path: path.clone(),
                first: h.first,
                end: h.first + h.count,
                next,
            }
            .into());
        }
        next = h.first + h.count;
    }
    if next != entries {
        return Err(MergeError::NotCovered {
            rules,
            layer,
            next,
            entries,
        }
        .into());
    }
    let mut data = Vec::with_capacity(entries as usize);
    for (h, path) in &checked {
        let (_, file) = tables::open_alone(path)?;
        data.extend_from_slice(file.bytes().get(h.len()..).unwrap_or_default());
        if let Some(change) = file.changed() {
            return Err(MergeError::Changed(change).into());
        }
    }
    // Each slice still has its checksum: the files did not change between the check above
    // and the copy.
    for (h, path) in &checked {
        let slice = data.get(h.first as usize..(h.first + h.count) as usize);
        if slice.is_none_or(|slice| h.checksum_of(slice) != h.checksum) {
            return Err(MergeError::ChangedWhileMerged(path.clone()).into());
        }
    }
    let header = Header {
        version: format::VERSION,
        rules: rules.clone(),
        layer,
        entries,
        kind,
        first: 0,
        count: entries,
        checksum: crate::file_header::checksum(&data),
    };
    format::write_atomically(&target, &header, &data).map_err(|source| MergeError::Write {
        target: target.clone(),
        source,
    })?;
    check_file(&target).map_err(MergeError::MergedUnsound)?;
    remove_slices(&checked);
    say!(
        "{rules}, layer {layer}: {} slices merged into {}; the slices are removed",
        checked.len(),
        target.display()
    );
    Ok(())
}

/// Remove slices whose values a whole layer, written and checked, holds.
fn remove_slices(slices: &[(Header, PathBuf)]) {
    for (_, path) in slices {
        if let Err(e) = std::fs::remove_file(path) {
            eprintln!(
                "sowfan tablebase merge: cannot remove the merged slice '{}': {e}",
                path.display()
            );
        }
    }
}
