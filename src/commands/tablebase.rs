//! `sowfan tablebase build|verify|info|merge`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;

use crate::cli::{cancel_on_interrupt, exit_status};
use crate::registry;
use crate::tablebase;
use crate::tablebase::build::{BuildOptions, LayerReport};
use crate::tablebase::format::{self, Header};

/// Build, check and list endgame tables.
#[derive(Debug, Clone, clap::Subcommand)]
pub enum TablebaseCommand {
    /// Build the tables of a game up to --seeds seeds (stones) in play, resuming at the
    /// first missing layer.
    ///
    /// Example: sowfan tablebase build kalah --seeds 20 --dir tables --threads 2
    #[command(verbatim_doc_comment)]
    Build {
        /// Game name followed by key=value options (only options that change values matter).
        #[arg(value_name = "GAME [KEY=VALUE ...]", required = true)]
        game: Vec<String>,
        /// Build every layer up to this many seeds (stones) in play.
        #[arg(long, value_name = "N")]
        seeds: u32,
        /// The table directory.
        #[arg(long, value_name = "DIR")]
        dir: PathBuf,
        #[arg(long, default_value_t = 1, value_name = "T")]
        threads: usize,
        /// I/K: build only slice I (from 1) of K of the top layer (the layers below must
        /// exist); `sowfan tablebase merge` assembles the slices.
        #[arg(long, value_name = "I/K")]
        shard: Option<String>,
    },
    /// Check every table file under DIR: header, size, checksum.
    Verify {
        #[arg(long, value_name = "DIR")]
        dir: PathBuf,
    },
    /// List what DIR holds: rule sets, layers, entries, sizes.
    Info {
        #[arg(long, value_name = "DIR")]
        dir: PathBuf,
    },
    /// Assemble the shards of layers into whole layer files, verifying every slice.
    Merge {
        #[arg(long, value_name = "DIR")]
        dir: PathBuf,
    },
}

/// `sowfan tablebase …`: Ctrl-C stops a build between chunks (the layers written so far are
/// complete, a rerun resumes); status 1 on an error.
pub fn run(command: TablebaseCommand) -> ExitCode {
    let stop = cancel_on_interrupt("tablebase");
    exit_status(execute(command, stop.flag()))
}

pub fn execute(command: TablebaseCommand, stop: &AtomicBool) -> Result<(), String> {
    match command {
        TablebaseCommand::Build {
            game,
            seeds,
            dir,
            threads,
            shard,
        } => build(&game, seeds, dir, threads, shard.as_deref(), stop),
        TablebaseCommand::Verify { dir } => verify(&dir),
        TablebaseCommand::Info { dir } => info(&dir),
        TablebaseCommand::Merge { dir } => merge(&dir),
    }
}

/// `I/K` with 1 ≤ I ≤ K.
pub fn parse_shard(text: &str) -> Result<(u32, u32), String> {
    let usage = format!("--shard {text}: expected I/K with 1 <= I <= K, e.g. --shard 3/8");
    let (i, k) = text.split_once('/').ok_or_else(|| usage.clone())?;
    let i: u32 = i.trim().parse().map_err(|_| usage.clone())?;
    let k: u32 = k.trim().parse().map_err(|_| usage.clone())?;
    if i == 0 || k == 0 || i > k {
        return Err(usage);
    }
    Ok((i, k))
}

fn build(
    game: &[String],
    seeds: u32,
    dir: PathBuf,
    threads: usize,
    shard: Option<&str>,
    stop: &AtomicBool,
) -> Result<(), String> {
    let (name, options) = game.split_first().ok_or("no game given")?;
    let options: Vec<&str> = options.iter().map(String::as_str).collect();
    let session = registry::create(name, &options).map_err(|e| e.to_string())?;
    let shard = shard.map(parse_shard).transpose()?;
    let options = BuildOptions {
        dir,
        max_layer: seeds,
        threads: threads.max(1),
        shard,
        progress: true,
    };
    let started = std::time::Instant::now();
    let mut bytes = 0u64;
    let mut print = |layer: &LayerReport| {
        bytes += layer.entries;
        match layer.took {
            Some(took) => println!(
                "layer {:>3}: {:>13} entries  built in {:.1} s  {}",
                layer.layer,
                layer.entries,
                took.as_secs_f64(),
                layer.path.display()
            ),
            None => println!(
                "layer {:>3}: {:>13} entries  present      {}",
                layer.layer,
                layer.entries,
                layer.path.display()
            ),
        }
    };
    session
        .build_tables(&options, stop, &mut print)
        .map_err(|e| e.to_string())?;
    println!(
        "Done: {} MB of values in {:.1} s",
        bytes >> 20,
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Every `.sftb` file under `dir`, sorted.
fn table_files(dir: &Path) -> Result<Vec<PathBuf>, String> {
    if !dir.is_dir() {
        return Err(format!("no table directory '{}'", dir.display()));
    }
    let mut files = Vec::new();
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        let entries =
            std::fs::read_dir(&folder).map_err(|e| format!("'{}': {e}", folder.display()))?;
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|e| e == "sftb") {
                files.push(path);
            }
        }
    }
    files.sort();
    Ok(files)
}

/// Check one file's header against its size and its data against the checksum.
fn check_file(path: &Path) -> Result<Header, String> {
    let (header, map) = tablebase::open_layer(path).map_err(|e| e.to_string())?;
    let expected = header.len() as u64 + header.count;
    if map.len() as u64 != expected {
        return Err(format!(
            "'{}': {} bytes, the header promises {expected}",
            path.display(),
            map.len()
        ));
    }
    let sum = format::checksum(&map[header.len()..]);
    if sum != header.checksum {
        return Err(format!(
            "'{}': checksum {sum:016x}, the header says {:016x}: the data is damaged",
            path.display(),
            header.checksum
        ));
    }
    Ok(header)
}

fn verify(dir: &Path) -> Result<(), String> {
    let files = table_files(dir)?;
    let mut bad = 0;
    for path in &files {
        match check_file(path) {
            Ok(h) => println!(
                "ok    {}  ({}, layer {}, {} entries)",
                path.display(),
                h.rules,
                h.layer,
                h.count
            ),
            Err(e) => {
                bad += 1;
                println!("FAIL  {e}");
            }
        }
    }
    println!("{} files, {} damaged", files.len(), bad);
    if bad > 0 {
        return Err(format!("{bad} damaged table files"));
    }
    Ok(())
}

fn info(dir: &Path) -> Result<(), String> {
    let mut sets: BTreeMap<String, Vec<(Header, PathBuf)>> = BTreeMap::new();
    for path in table_files(dir)? {
        match tablebase::open_layer(&path) {
            Ok((header, _)) => sets
                .entry(header.rules.clone())
                .or_default()
                .push((header, path)),
            Err(e) => println!("unreadable: {e}"),
        }
    }
    if sets.is_empty() {
        println!("no tables in '{}'", dir.display());
    }
    for (rules, mut files) in sets {
        files.sort_by_key(|(h, _)| (h.layer, h.first));
        let whole: Vec<u32> = files
            .iter()
            .filter(|(h, _)| h.is_whole_layer())
            .map(|(h, _)| h.layer)
            .collect();
        let complete_to = (0..).take_while(|l| whole.contains(l)).last();
        let bytes: u64 = files.iter().map(|(h, _)| h.count).sum();
        println!("{rules}");
        match complete_to {
            Some(top) => {
                println!("  complete: layers 0..={top} (positions with at most {top} in play)")
            }
            None => println!("  complete: none (layer 0 is missing)"),
        }
        println!("  {} files, {} MB of values", files.len(), bytes >> 20);
        for (h, path) in &files {
            let what = if h.is_whole_layer() {
                "layer".to_string()
            } else {
                format!("slice {}..{} of", h.first, h.first + h.count)
            };
            println!(
                "    {what} {:>3}: {:>13} entries  {}",
                h.layer,
                h.count,
                path.file_name()
                    .map(|f| f.to_string_lossy())
                    .unwrap_or_default()
            );
        }
    }
    Ok(())
}

/// Assemble every layer whose shards are all present and valid.
fn merge(dir: &Path) -> Result<(), String> {
    let mut groups: BTreeMap<(String, u32), Vec<(Header, PathBuf)>> = BTreeMap::new();
    for path in table_files(dir)? {
        let header = check_file(&path)?;
        if !header.is_whole_layer() {
            groups
                .entry((header.rules.clone(), header.layer))
                .or_default()
                .push((header, path));
        }
    }
    if groups.is_empty() {
        println!("no shards to merge in '{}'", dir.display());
        return Ok(());
    }
    for ((rules, layer), mut shards) in groups {
        shards.sort_by_key(|(h, _)| h.first);
        let entries = shards[0].0.entries;
        let mut next = 0;
        for (h, path) in &shards {
            if h.entries != entries || h.first != next {
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
        let mut data = Vec::with_capacity(entries as usize);
        for (h, path) in &shards {
            let (_, map) = tablebase::open_layer(path).map_err(|e| e.to_string())?;
            data.extend_from_slice(&map[h.len()..]);
        }
        let header = Header {
            rules: rules.clone(),
            layer,
            entries,
            first: 0,
            count: entries,
            checksum: format::checksum(&data),
        };
        let folder = shards[0]
            .1
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default();
        let target = format::layer_file(&folder, layer);
        format::write_atomically(&target, &header, &data)
            .map_err(|e| format!("'{}': {e}", target.display()))?;
        println!(
            "{rules}, layer {layer}: {} shards merged into {}",
            shards.len(),
            target.display()
        );
    }
    Ok(())
}
