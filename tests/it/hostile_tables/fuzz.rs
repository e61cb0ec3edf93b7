//! The table-directory fuzzer: valid tables made hostile from a seed (bytes flipped in
//! headers and data, files truncated or extended, wrong names, FIFOs, directories in place
//! of files, symbolic links and loops, temporary files, layers removed or swapped), then
//! `verify`, `info`, `merge`, `solve`, the engine and the loader in this process run on
//! each. What must hold: no panic, no death by a signal, every run within its time limit,
//! and either a clear error or the right answer (when `verify` passes, the tables load and
//! every entry is the original's, and `solve` gives the original's value).
//!
//! The short run is part of the suite; the long one is ignored, with knobs:
//! `SOWFAN_TABLE_FUZZ_CASES` (default 2000) and `SOWFAN_TABLE_FUZZ_SEED`, e.g.
//! `SOWFAN_TABLE_FUZZ_CASES=20000 cargo test --release --test it table_fuzz_long -- --ignored --nocapture`.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use sowfan::game::Game;
use sowfan::tablebase::Tables;
use sowfan::tablebase::format;

use super::{build_into, kalah, mkfifo, scratch_dir, text};
use crate::support::rng::Rng;
use crate::support::run::{self, Run};
use crate::support::{Engine, scaled};

const LIMIT: Duration = Duration::from_secs(20);
const MAX_LAYER: u32 = 9;
const GAME: &[&str] = &["pits=4"];

/// The pristine tables, built once, and every entry's value.
struct Pristine {
    dir: PathBuf,
    folder_name: String,
    values: Vec<Vec<i8>>,
    /// `sowfan solve kalah pits=4 seeds=2` with the tables: its `Value:` line.
    solved: String,
}

fn pristine(dir: &Path) -> Pristine {
    let game = kalah(GAME);
    let folder = build_into(&game, dir, MAX_LAYER, None);
    let tables = Tables::open(&game, dir).expect("open").expect("tables");
    let values = (0..=MAX_LAYER)
        .map(|l| {
            (0..game.table_layer_size(l))
                .map(|i| tables.value(l, i).expect("value"))
                .collect()
        })
        .collect();
    let solve = solve(dir);
    assert!(solve.success, "{}", solve.stderr);
    Pristine {
        dir: dir.to_path_buf(),
        folder_name: folder
            .file_name()
            .expect("folder")
            .to_string_lossy()
            .into_owned(),
        values,
        solved: value_line(&solve.stdout),
    }
}

fn solve(dir: &Path) -> Run {
    run::sowfan(
        "solve",
        &["kalah", "pits=4", "seeds=2", "--tablebases", &text(dir)],
        LIMIT,
    )
}

fn value_line(out: &str) -> String {
    out.lines()
        .find(|l| l.starts_with("Value:"))
        .unwrap_or_default()
        .to_string()
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read_dir").flatten() {
        let target = to.join(entry.file_name());
        if entry.file_type().expect("type").is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}

/// One hostile change to the folder; what it did, for the failure message.
fn mutate(rng: &mut Rng, dir: &Path, folder: &Path) -> String {
    let layer = rng.below(MAX_LAYER as usize + 2) as u32;
    let path = format::layer_file(folder, layer);
    let name = path.display().to_string();
    // Only a regular file is read or written here: an earlier change of this case may have
    // made it a FIFO (a read would block) or a link to /dev/zero (a read would never end).
    let regular = std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_file());
    let bytes = regular.then(|| std::fs::read(&path).ok()).flatten();
    let replace = |with: &dyn Fn(&Path)| {
        let _ = std::fs::remove_file(&path);
        let _ = std::fs::remove_dir_all(&path);
        with(&path);
    };
    match rng.below(13) {
        0 | 1 => {
            let Some(mut bytes) = bytes else {
                return "nothing".into();
            };
            let at = rng.below(bytes.len().min(128));
            bytes[at] ^= 1 << rng.below(8);
            let _ = std::fs::write(&path, bytes);
            format!("header byte {at} of {name} flipped")
        }
        2 | 3 => {
            let Some(mut bytes) = bytes else {
                return "nothing".into();
            };
            let at = rng.below(bytes.len());
            bytes[at] = rng.next() as u8;
            let _ = std::fs::write(&path, bytes);
            format!("byte {at} of {name} set")
        }
        4 => {
            let Some(bytes) = bytes else {
                return "nothing".into();
            };
            let len = rng.below(bytes.len());
            let _ = std::fs::write(&path, &bytes[..len]);
            format!("{name} truncated to {len}")
        }
        5 => {
            let Some(mut bytes) = bytes else {
                return "nothing".into();
            };
            let more = 1 + rng.below(5000);
            bytes.extend((0..more).map(|_| rng.next() as u8));
            let _ = std::fs::write(&path, bytes);
            format!("{name} extended by {more}")
        }
        6 => {
            replace(&|p| mkfifo(p));
            format!("{name} a FIFO")
        }
        7 => {
            replace(&|p| {
                let _ = std::fs::create_dir(p);
            });
            format!("{name} a directory")
        }
        8 => {
            let target = ["/dev/zero", ".", "..", "/proc/self/mem", "/nonexistent"][rng.below(5)];
            replace(&|p| {
                let _ = std::os::unix::fs::symlink(target, p);
            });
            format!("{name} a link to {target}")
        }
        9 => {
            let link = if rng.one_in(2) {
                dir.join("loop")
            } else {
                folder.join("up")
            };
            let _ = std::os::unix::fs::symlink("..", &link);
            let _ = std::os::unix::fs::symlink(".", dir.join("self"));
            "directory loops".into()
        }
        10 => {
            let other = format::layer_file(folder, rng.below(MAX_LAYER as usize + 1) as u32);
            let _ = std::fs::rename(&other, &path);
            format!("{} renamed to {name}", other.display())
        }
        11 => {
            let _ = std::fs::write(path.with_extension("tmp-999999"), b"half");
            let _ = std::fs::write(
                format::shard_file(folder, layer, 1 + rng.below(2) as u32, 2),
                bytes.unwrap_or_default(),
            );
            format!("a temporary file and a shard next to {name}")
        }
        _ => {
            let _ = std::fs::remove_file(&path);
            format!("{name} removed")
        }
    }
}

fn sound(run: &Run, what: &str, case: &str) {
    assert!(
        run.code.is_some(),
        "{what} died by a signal ({case}): {}",
        run.stderr
    );
    assert!(
        !run.stderr.contains("panicked"),
        "{what} panicked ({case}): {}",
        run.stderr
    );
    assert!(
        run.elapsed < scaled(LIMIT),
        "{what} took {:?} ({case})",
        run.elapsed
    );
}

/// One case: a copy of the pristine tables, made hostile, every consumer run on it.
fn case(pristine: &Pristine, seed: u64, work: &Path, engine_too: bool) {
    let mut rng = Rng::new(seed);
    let dir = work.join(format!("case-{seed}"));
    let _ = std::fs::remove_dir_all(&dir);
    copy_dir(&pristine.dir, &dir);
    let folder = dir.join(&pristine.folder_name);
    let changes: Vec<String> = (0..1 + rng.below(3))
        .map(|_| mutate(&mut rng, &dir, &folder))
        .collect();
    let case = format!("seed {seed}: {}", changes.join("; "));

    let verify = run::sowfan("tablebase", &["verify", "--dir", &text(&dir)], LIMIT);
    sound(&verify, "verify", &case);
    let info = run::sowfan("tablebase", &["info", "--dir", &text(&dir)], LIMIT);
    sound(&info, "info", &case);
    assert!(
        info.success,
        "info fails only on no directory ({case}): {}",
        info.stderr
    );

    // The loader in this process: a clear error, or tables whose every answer is the
    // original's once verify passed, and never a value out of its layer's range.
    let game = kalah(GAME);
    match Tables::open(&game, &dir) {
        Err(e) => assert!(!e.to_string().is_empty()),
        Ok(None) => {}
        Ok(Some(tables)) => {
            for layer in 0..=tables.max_layer() {
                for index in 0..game.table_layer_size(layer) {
                    let Some(pos) = game.table_position(layer, index) else {
                        continue;
                    };
                    let Some(value) = tables.probe(&game, &pos) else {
                        continue;
                    };
                    assert!(value.abs() <= 2 * layer as i32, "{case}: {value}");
                    if verify.success {
                        assert_eq!(
                            value,
                            2 * pristine.values[layer as usize][index as usize] as i32,
                            "{case}: layer {layer} entry {index}"
                        );
                    }
                }
            }
        }
    }

    if engine_too {
        let solve = solve(&dir);
        sound(&solve, "solve", &case);
        if verify.success && solve.success {
            assert_eq!(value_line(&solve.stdout), pristine.solved, "{case}");
        }
        let started = Instant::now();
        let mut engine = Engine::start(&["--tablebases", &text(&dir)]);
        engine.ask("newgame kalah pits=4 seeds=2\nisready", "readyok");
        engine.ask("go depth 10", "bestmove");
        engine.ask("isready", "readyok");
        engine.send("quit");
        assert!(
            engine
                .wait_exit(Duration::from_secs(5))
                .is_some_and(|s| s.code().is_some()),
            "engine did not quit ({case})"
        );
        assert!(started.elapsed() < scaled(LIMIT), "engine slow ({case})");
    }

    let merge = run::sowfan("tablebase", &["merge", "--dir", &text(&dir)], LIMIT);
    sound(&merge, "merge", &case);
    let _ = std::fs::remove_dir_all(&dir);
}

fn fuzz(name: &str, cases: u64, seed: u64) {
    let work = scratch_dir(name);
    let pristine = pristine(&work.join("pristine"));
    let started = Instant::now();
    for i in 0..cases {
        case(&pristine, seed.wrapping_add(i), &work, i % 4 == 0);
        if (i + 1) % 500 == 0 {
            eprintln!(
                "table fuzz: {} cases, {:.1} s",
                i + 1,
                started.elapsed().as_secs_f64()
            );
        }
    }
    eprintln!(
        "table fuzz: {cases} cases from seed {seed} in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    let _ = std::fs::remove_dir_all(&work);
}

#[test]
fn table_fuzz_short() {
    fuzz("fuzz-short", 12, 1);
}

#[test]
#[ignore = "long: SOWFAN_TABLE_FUZZ_CASES and SOWFAN_TABLE_FUZZ_SEED set its size and start"]
fn table_fuzz_long() {
    let knob = |name: &str, default: u64| {
        std::env::var(name)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    fuzz(
        "fuzz-long",
        knob("SOWFAN_TABLE_FUZZ_CASES", 2000),
        knob("SOWFAN_TABLE_FUZZ_SEED", 1000),
    );
}
