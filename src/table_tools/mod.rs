//! The work of `sowfan tablebase`: build a game's tables, and verify, list and merge the
//! table files under a directory of any games' tables (each file checked for the game its
//! header names, as the loader would), and time probes. `commands/tablebase.rs` holds the
//! command line; this holds what it does, callable from a test or another front end.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use crate::cli::OutputLock;
use crate::registry;
use crate::session::Session;
use crate::tablebase::build::{BuildOptions, LayerReport};
use crate::tablebase::format::{self, Header};
use crate::tablebase::{self, TableError};

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

/// `I/K` with 1 ≤ I ≤ K.
pub fn parse_shard(text: &str) -> Result<(u32, u32), String> {
    let usage = format!("--shard {text}: expected I/K with 1 <= I <= K, e.g. --shard 3/8");
    let (i, k) = text.split_once('/').ok_or_else(|| usage.clone())?;
    let i: u32 = i.trim().parse().map_err(|_| usage.clone())?;
    let k: u32 = k.trim().parse().map_err(|_| usage.clone())?;
    if i == 0 || k == 0 || i > k || k > MAX_SHARDS {
        return Err(format!("{usage} (K at most {MAX_SHARDS})"));
    }
    Ok((i, k))
}

pub fn build(
    game: &[String],
    seeds: u32,
    dir: PathBuf,
    threads: usize,
    shard: Option<&str>,
    memory_mb: Option<u64>,
    stop: &AtomicBool,
) -> Result<(), String> {
    let (name, options) = game.split_first().ok_or("no game given")?;
    let options: Vec<&str> = options.iter().map(String::as_str).collect();
    let session = registry::create(name, &options).map_err(|e| e.to_string())?;
    let shard = shard.map(parse_shard).transpose()?;
    let threads = crate::memory::check_threads("--threads", threads)?;
    if seeds > MAX_IN_PLAY {
        return Err(format!(
            "--seeds (--pieces) {seeds}: at most {MAX_IN_PLAY} in play"
        ));
    }
    // One build writes a folder's layers at a time; the slices of one layer (--shard) share
    // the folder, each holding its own slice alone. Taken before any work.
    std::fs::create_dir_all(&dir)
        .map_err(|e| format!("cannot make the table directory '{}': {e}", dir.display()))?;
    let _folder = OutputLock::folder("--dir", &dir, "tablebase build", shard.is_some())?;
    let _slice = match shard {
        Some((i, k)) => Some(OutputLock::file(
            "--shard",
            &dir.join(format!("slice-{i}-of-{k}")),
            "tablebase build",
        )?),
        None => None,
    };
    let options = BuildOptions {
        dir,
        in_play: seeds,
        threads,
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
    session
        .build_tables(&options, stop, &mut print)
        .map_err(|e| e.to_string())?;
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

pub fn bench(game: &[String], dir: &Path, positions: usize, seed: u64) -> Result<(), String> {
    if !(1..=10_000_000).contains(&positions) {
        return Err(format!("--positions {positions}: give 1..=10000000"));
    }
    let (name, options) = game.split_first().ok_or("no game given")?;
    let options: Vec<&str> = options.iter().map(String::as_str).collect();
    let mut session = registry::create(name, &options).map_err(|e| e.to_string())?;
    let tables = session
        .open_tables(dir)
        .map_err(|e| e.to_string())?
        .ok_or_else(|| format!("{name} has no endgame tables"))?;
    say!(
        "{}: layers 0..={} in {}",
        tables.rules(),
        tables.max_layer(),
        tables.folder().display()
    );
    session.set_tables(Some(tables));
    let result = session
        .bench_table_probes(positions, seed)
        .ok_or("the tables hold no position")?;
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
fn walk(dir: &Path, stop: &AtomicBool) -> Result<Found, String> {
    if !dir.is_dir() {
        return Err(format!("no table directory '{}'", dir.display()));
    }
    let mut found = Found::default();
    let mut folders = vec![(dir.to_path_buf(), 0usize)];
    let mut seen = 0usize;
    while let Some((folder, depth)) = folders.pop() {
        let entries = match std::fs::read_dir(&folder) {
            Ok(entries) => entries,
            Err(e) if depth == 0 => return Err(format!("'{}': {e}", folder.display())),
            Err(_) => {
                found.skipped.push((folder, "unreadable, not looked into"));
                continue;
            }
        };
        for entry in entries.flatten() {
            if stop.load(Ordering::Relaxed) {
                return Err(INTERRUPTED.to_string());
            }
            seen += 1;
            if seen > MAX_ENTRIES {
                return Err(format!(
                    "'{}' holds more than {MAX_ENTRIES} entries: not a table directory?",
                    dir.display()
                ));
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

/// What an interrupted tool says (and its status is 130).
const INTERRUPTED: &str = "interrupted";

/// The game whose rules a table's header names (the rules string is a game and its
/// options), to check the file against.
/// What layers `0..=top` hold, for people: every position with at most so many in play.
fn covered(session: &dyn Session, top: u32) -> String {
    match session.table_in_play(top) {
        Some(n) => format!("every position with at most {n} in play"),
        None => "no count of pieces in play whole".to_string(),
    }
}

fn game_of(rules: &str) -> Result<Box<dyn Session>, String> {
    let session = registry::create_from_spec(rules)
        .map_err(|e| format!("the header names rules '{rules}', which are no game here: {e}"))?;
    if session.table_rules().as_deref() != Some(rules) {
        return Err(format!(
            "the header names rules '{rules}', which are not the rules of any game's tables"
        ));
    }
    Ok(session)
}

/// Check one file through and through: what the loader checks (for the rules its header
/// names), the checksum and every value.
fn check_file(path: &Path) -> Result<(Header, Box<dyn Session>), String> {
    let (header, _) = tablebase::open_alone(path).map_err(|e| e.to_string())?;
    let session = game_of(&header.rules).map_err(|e| format!("'{}': {e}", path.display()))?;
    let header = session.check_table_file(path).map_err(|e| e.to_string())?;
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

pub fn verify(dir: &Path, stop: &AtomicBool) -> Result<(), String> {
    let found = walk(dir, stop)?;
    let mut bad = 0;
    let mut unloadable = 0;
    // The table directories and rules seen, for the loader's own look at each.
    let mut sets: BTreeMap<(PathBuf, String), Box<dyn Session>> = BTreeMap::new();
    for path in &found.tables {
        if stop.load(Ordering::Relaxed) {
            return Err(INTERRUPTED.to_string());
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
        if stop.load(Ordering::Relaxed) {
            return Err(INTERRUPTED.to_string());
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
        return Err(format!(
            "{bad} damaged table files, {unloadable} table sets that do not load"
        ));
    }
    Ok(())
}

/// One file as `info` sees it: its header (if readable) and its real length.
struct Listed {
    path: PathBuf,
    header: Header,
    len: u64,
}

pub fn info(dir: &Path, stop: &AtomicBool) -> Result<(), String> {
    let found = walk(dir, stop)?;
    let mut sets: BTreeMap<String, Vec<Listed>> = BTreeMap::new();
    for path in found.tables {
        if stop.load(Ordering::Relaxed) {
            return Err(INTERRUPTED.to_string());
        }
        match tablebase::open_alone(&path) {
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

/// Assemble every layer whose shards are all present and valid. Every shard is checked
/// through ([`check_file`]: its header names the rules of the folder it sits in and the
/// slice its name says, its checksum holds), so shards of other rules never land in a
/// folder; a whole layer already there and sound is kept.
pub fn merge(dir: &Path, stop: &AtomicBool) -> Result<(), String> {
    let found = walk(dir, stop)?;
    let _folder = OutputLock::folder("--dir", dir, "tablebase build or merge", false)?;
    let mut groups: BTreeMap<(PathBuf, u32), Vec<(Header, PathBuf)>> = BTreeMap::new();
    for path in found.tables {
        if stop.load(Ordering::Relaxed) {
            return Err(INTERRUPTED.to_string());
        }
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(format::FileName::parse);
        if !matches!(name, Some(format::FileName::Shard { .. })) {
            continue;
        }
        let (header, _) = check_file(&path).map_err(|e| format!("{e}; nothing merged"))?;
        let folder = path.parent().map(Path::to_path_buf).unwrap_or_default();
        groups
            .entry((folder, header.layer))
            .or_default()
            .push((header, path));
    }
    if groups.is_empty() {
        say!("no shards to merge in '{}'", dir.display());
        return Ok(());
    }
    for ((folder, layer), mut shards) in groups {
        if stop.load(Ordering::Relaxed) {
            return Err(INTERRUPTED.to_string());
        }
        shards.sort_by_key(|(h, _)| h.first);
        let rules = shards[0].0.rules.clone();
        let entries = shards[0].0.entries;
        let mut next = 0;
        for (h, path) in &shards {
            if h.rules != rules || h.entries != entries || h.first != next {
                return Err(format!(
                    "{rules}, layer {layer}: the shards do not tile the layer: '{}' holds \
                     {}..{}, expected it to start at {next}",
                    path.display(),
                    h.first,
                    h.first + h.count
                ));
            }
            next = h.first + h.count;
        }
        if next != entries {
            return Err(format!(
                "{rules}, layer {layer}: shards cover 0..{next} of {entries} entries; build \
                 the missing ones first"
            ));
        }
        let target = format::layer_file(&folder, layer);
        if std::fs::symlink_metadata(&target).is_ok() {
            match check_file(&target) {
                Ok(_) => {
                    say!(
                        "{rules}, layer {layer}: {} is already there and sound; shards not \
                         merged",
                        target.display()
                    );
                    continue;
                }
                Err(e) => {
                    return Err(format!(
                        "{e}; the shards were not merged over it: remove it first"
                    ));
                }
            }
        }
        let mut data = Vec::with_capacity(entries as usize);
        for (h, path) in &shards {
            let (_, file) = tablebase::open_alone(path).map_err(|e| e.to_string())?;
            data.extend_from_slice(file.bytes().get(h.len()..).unwrap_or_default());
            if let Some(change) = file.changed() {
                return Err(format!("{change}; nothing merged"));
            }
        }
        // Each slice still has its shard's checksum: the files did not change between the
        // check above and the copy.
        for (h, path) in &shards {
            let slice = data.get(h.first as usize..(h.first + h.count) as usize);
            if slice.is_none_or(|slice| h.checksum_of(slice) != h.checksum) {
                return Err(format!(
                    "'{}' changed while it was merged; nothing merged",
                    path.display()
                ));
            }
        }
        let header = Header {
            version: format::VERSION,
            rules: rules.clone(),
            layer,
            entries,
            kind: shards[0].0.kind,
            first: 0,
            count: entries,
            checksum: format::checksum(&data),
        };
        format::write_atomically(&target, &header, &data)
            .map_err(|e| format!("'{}': {e}", target.display()))?;
        check_file(&target).map_err(|e| format!("the merged layer is not sound: {e}"))?;
        say!(
            "{rules}, layer {layer}: {} shards merged into {}",
            shards.len(),
            target.display()
        );
    }
    Ok(())
}
