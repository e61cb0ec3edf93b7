//! Table builds as a chain of cluster jobs (issue 66): `tablebase plan` lists the layers
//! left by stage, each layer is built in slices (`build --layer L --shard I/K`) and merged
//! (`merge --layer L`), and the folder is byte for byte a one-machine build. A finished job
//! run again does nothing; bad slices and missing lower layers are refused by name.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use sowfan::tables::format;

use crate::support::fresh_dir;
use crate::support::run::{self, Run};

const LIMIT: Duration = Duration::from_secs(180);

fn tablebase(args: &[&str]) -> Run {
    run::sowfan("tablebase", args, LIMIT)
}

fn text(dir: &Path) -> String {
    dir.display().to_string()
}

/// One line of `tablebase plan`, read as a launcher's `read` loop reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Job {
    stage: u32,
    layer: u32,
    slices: u32,
    entries: u64,
    name: String,
}

fn plan(game: &[&str], dir: &Path, slices: u32) -> (Vec<Job>, Run) {
    let slices = slices.to_string();
    let d = text(dir);
    let args = [&["plan"], game, &["--dir", &d, "--slices", &slices]].concat();
    let run = tablebase(&args);
    assert!(run.success, "plan: {}", run.stderr);
    let jobs = run
        .stdout
        .lines()
        .map(|line| {
            let fields: Vec<&str> = line.split(' ').collect();
            assert_eq!(fields.len(), 5, "five fields, no blank in a name: {line}");
            let value = |at: usize, key: &str| {
                fields[at]
                    .strip_prefix(&format!("{key}="))
                    .unwrap_or_else(|| panic!("{key}= at field {at}: {line}"))
                    .to_string()
            };
            let number = |at: usize, key: &str| {
                value(at, key)
                    .parse::<u64>()
                    .unwrap_or_else(|_| panic!("{key}: {line}"))
            };
            Job {
                stage: number(0, "stage") as u32,
                layer: number(1, "layer") as u32,
                slices: number(2, "slices") as u32,
                entries: number(3, "entries"),
                name: value(4, "name"),
            }
        })
        .collect();
    (jobs, run)
}

/// Every file of a folder by name, with its bytes.
fn files(folder: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(folder)
        .expect("the rules folder")
        .filter_map(|e| e.ok())
        .map(|e| {
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).expect("read"),
            )
        })
        .collect()
}

/// Run the plan's jobs as a launcher would: stage by stage, every slice of every layer of
/// the stage at once (side by side, as on a cluster), then every layer's merge at once.
fn run_chain(game: &[&str], dir: &Path, jobs: &[Job]) {
    let d = text(dir);
    let mut stages: BTreeMap<u32, Vec<&Job>> = BTreeMap::new();
    for job in jobs {
        stages.entry(job.stage).or_default().push(job);
    }
    for (stage, layers) in stages {
        let mut running = Vec::new();
        for job in &layers {
            for i in 1..=job.slices {
                let layer = job.layer.to_string();
                let shard = format!("{i}/{}", job.slices);
                let args = [
                    &["build"],
                    game,
                    &["--dir", &d, "--layer", &layer, "--shard", &shard],
                ]
                .concat();
                running.push((format!("stage {stage}, layer {layer}, slice {shard}"), {
                    run::start("tablebase", &args)
                }));
            }
        }
        for (what, job) in running {
            let run = job.finish(LIMIT);
            assert!(run.success, "{what}: {}", run.stderr);
        }
        let merges: Vec<_> = layers
            .iter()
            .map(|job| {
                let layer = job.layer.to_string();
                let merge = run::start("tablebase", &["merge", "--dir", &d, "--layer", &layer]);
                (job.layer, merge)
            })
            .collect();
        for (layer, merge) in merges {
            let run = merge.finish(LIMIT);
            assert!(run.success, "merge --layer {layer}: {}", run.stderr);
            assert!(run.stdout.contains("merged into"), "{}", run.stdout);
        }
    }
}

/// Issue 66: `plan`, then each line's slices and its merge, by the command line, give the
/// folder a one-machine build writes, byte for byte; the plan then says nothing is left.
/// Kalah: 3 slices a layer, one layer a stage. Fanorona: one job a layer (each slice would
/// compute the whole layer), the two materials of 4 stones side by side in one stage.
#[test]
fn a_chain_of_layer_jobs_builds_what_one_build_does() {
    let cases: [(&[&str], &str, usize); 2] = [
        (
            &["kalah", "--seeds", "10"],
            "kalah_pits=6_empty-capture=false_end=any-row_leftovers=owner",
            11,
        ),
        (
            &["fanorona-dimy", "--pieces", "4"],
            "fanorona-dimy_quiet-limit=100",
            4,
        ),
    ];
    for (game, folder, layers) in cases {
        let whole = fresh_dir(&format!("chain-whole-{}", game[0]));
        let d = text(&whole);
        let run = tablebase(&[&["build"], game, &["--dir", &d]].concat());
        assert!(run.success, "{}", run.stderr);
        let chained = fresh_dir(&format!("chain-jobs-{}", game[0]));
        let (jobs, _) = plan(game, &chained, 3);
        assert_eq!(jobs.len(), layers, "{jobs:?}");
        run_chain(game, &chained, &jobs);
        let (a, b) = (files(&whole.join(folder)), files(&chained.join(folder)));
        assert_eq!(a.len(), layers, "{:?}", a.keys());
        assert_eq!(
            a.keys().collect::<Vec<_>>(),
            b.keys().collect::<Vec<_>>(),
            "the same files (the merged slices removed)"
        );
        for (name, bytes) in &a {
            assert!(b[name] == *bytes, "{}: {name} differs", game[0]);
        }
        let (left, run) = plan(game, &chained, 3);
        assert!(left.is_empty(), "{left:?}");
        assert!(run.stderr.contains("nothing to do"), "{}", run.stderr);
        let _ = std::fs::remove_dir_all(&whole);
        let _ = std::fs::remove_dir_all(&chained);
    }
}

/// The plan's lines, pinned: stage order, slices capped by the entries (Kalah's layer 0 has
/// one position), one slice a retrograde layer, Fanorona's stages the stones in play, and
/// only the layers left after part of a build.
#[test]
fn the_plan_lists_the_layers_left_by_stage() {
    let dir = fresh_dir("chain-plan");
    let (jobs, _) = plan(&["kalah", "--seeds", "3"], &dir, 50);
    let lines: Vec<String> = jobs
        .iter()
        .map(|j| {
            format!(
                "stage={} layer={} slices={} entries={} name={}",
                j.stage, j.layer, j.slices, j.entries, j.name
            )
        })
        .collect();
    assert_eq!(
        lines,
        [
            "stage=0 layer=0 slices=1 entries=1 name=0_in_play",
            "stage=1 layer=1 slices=12 entries=12 name=1_in_play",
            "stage=2 layer=2 slices=50 entries=78 name=2_in_play",
            "stage=3 layer=3 slices=50 entries=364 name=3_in_play",
        ]
    );
    let (jobs, _) = plan(&["fanorona-dimy", "--pieces", "5"], &dir, 8);
    let seen: Vec<(u32, u32, u32, &str)> = jobs
        .iter()
        .map(|j| (j.stage, j.layer, j.slices, j.name.as_str()))
        .collect();
    assert_eq!(
        seen,
        [
            (2, 0, 1, "1_and_1_stones"),
            (3, 1, 1, "1_and_2_stones"),
            (4, 2, 1, "1_and_3_stones"),
            (4, 3, 1, "2_and_2_stones"),
            (5, 4, 1, "1_and_4_stones"),
            (5, 5, 1, "2_and_3_stones"),
        ]
    );
    let run = tablebase(&["build", "kalah", "--seeds", "1", "--dir", &text(&dir)]);
    assert!(run.success, "{}", run.stderr);
    let (jobs, run) = plan(&["kalah", "--seeds", "3"], &dir, 2);
    let layers: Vec<(u32, u32)> = jobs.iter().map(|j| (j.layer, j.slices)).collect();
    assert_eq!(layers, [(2, 2), (3, 2)], "{}", run.stdout);
    let _ = std::fs::remove_dir_all(&dir);
}

fn modified(path: &Path) -> std::time::SystemTime {
    std::fs::metadata(path)
        .and_then(|m| m.modified())
        .expect("mtime")
}

const KALAH: &str = "kalah_pits=6_empty-capture=false_end=any-row_leftovers=owner";

/// Kalah up to 5 seeds whole in a fresh `dir`, and its rules folder.
fn below_six(dir: &Path) -> PathBuf {
    let run = tablebase(&["build", "kalah", "--seeds", "5", "--dir", &text(dir)]);
    assert!(run.success, "{}", run.stderr);
    dir.join(KALAH)
}

fn slice(dir: &Path, layer: u32, shard: &str) -> Run {
    let layer = layer.to_string();
    tablebase(&[
        "build",
        "kalah",
        "--seeds",
        "6",
        "--dir",
        &text(dir),
        "--layer",
        &layer,
        "--shard",
        shard,
    ])
}

/// A slice, or a layer, already done is not done again: the file is untouched (bytes and
/// modification time), and the run says so. A slice file there that is not sound is
/// refused by name and left as it is, never written over.
#[test]
fn a_finished_job_run_again_does_nothing() {
    let dir = fresh_dir("chain-rerun");
    let folder = below_six(&dir);
    let run = slice(&dir, 6, "2/3");
    assert!(run.success, "{}", run.stderr);
    let path = format::shard_file(&folder, 6, 2, 3);
    let (bytes, when) = (std::fs::read(&path).expect("the slice"), modified(&path));
    // Coarse file-system clocks: a rewrite would show a later time.
    std::thread::sleep(Duration::from_millis(1100));
    let again = slice(&dir, 6, "2/3");
    assert!(again.success, "{}", again.stderr);
    assert!(
        again
            .stdout
            .contains("already there and sound: nothing to do"),
        "{}",
        again.stdout
    );
    assert_eq!(modified(&path), when, "the slice is not written again");
    assert_eq!(std::fs::read(&path).expect("the slice"), bytes);
    // Damaged (one byte of its values, or cut short): refused, named, kept as it is.
    let mut flipped = bytes.clone();
    let last = flipped.len() - 1;
    flipped[last] ^= 0x11;
    for (what, damaged) in [
        ("a flipped byte", flipped),
        ("cut short", bytes[..100].to_vec()),
    ] {
        std::fs::write(&path, &damaged).expect("damage");
        let run = slice(&dir, 6, "2/3");
        assert!(!run.success, "{what}: {}", run.stdout);
        assert!(
            run.stderr.contains("layer-006.shard-2-of-3.sftb") && run.stderr.contains("remove it"),
            "{what}: {}",
            run.stderr
        );
        assert_eq!(std::fs::read(&path).expect("kept"), damaged, "{what}");
    }
    std::fs::write(&path, &bytes).expect("restore");
    // The whole layer done (the whole build of one layer): a slice of it is nothing to do,
    // and the layer itself neither.
    let run = tablebase(&[
        "build",
        "kalah",
        "--seeds",
        "6",
        "--dir",
        &text(&dir),
        "--layer",
        "6",
    ]);
    assert!(run.success, "{}", run.stderr);
    let layer = format::layer_file(&folder, 6);
    let when = modified(&layer);
    std::thread::sleep(Duration::from_millis(1100));
    let run = slice(&dir, 6, "1/3");
    assert!(run.success, "{}", run.stderr);
    assert!(run.stdout.contains("already whole"), "{}", run.stdout);
    assert!(!format::shard_file(&folder, 6, 1, 3).exists());
    let run = tablebase(&[
        "build",
        "kalah",
        "--seeds",
        "6",
        "--dir",
        &text(&dir),
        "--layer",
        "6",
    ]);
    assert!(
        run.success && run.stdout.contains("already whole"),
        "{}",
        run.stdout
    );
    assert_eq!(modified(&layer), when, "the layer is not written again");
    // The leftover slice holds the layer's bytes: merge keeps the layer, removes the slice.
    let run = tablebase(&["merge", "--dir", &text(&dir), "--layer", "6"]);
    assert!(run.success, "{}", run.stderr);
    assert!(run.stdout.contains("already whole"), "{}", run.stdout);
    assert!(!path.exists(), "the slice the layer holds is removed");
    assert_eq!(modified(&layer), when);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `merge --layer` refuses, naming what and what to do, and writes nothing: missing slices
/// (named exactly, I/K), slices of two cuts, a slice of other rules, a slice cut short, a
/// copy of a slice under another name. A temporary file is mentioned and ignored. A
/// `--layer` build whose lower layers are missing is refused before any work, naming them.
#[test]
fn bad_slices_and_missing_layers_are_refused_by_name() {
    let dir = fresh_dir("chain-bad");
    let d = text(&dir);
    // No lower layers: refused, naming them, nothing written.
    let run = slice(&dir, 6, "1/3");
    assert!(!run.success, "{}", run.stdout);
    for l in 0..=5 {
        assert!(
            run.stderr.contains(&format!("layer-{l:03}.sftb")),
            "{l}: {}",
            run.stderr
        );
    }
    assert!(run.stderr.contains("build them first"), "{}", run.stderr);
    let folder = dir.join(KALAH);
    let written: Vec<_> = std::fs::read_dir(&folder)
        .map(|d| d.filter_map(|e| e.ok()).map(|e| e.file_name()).collect())
        .unwrap_or_default();
    assert!(written.is_empty(), "nothing written: {written:?}");
    // Half the layers below: the missing ones named, not the others.
    let run = tablebase(&["build", "kalah", "--seeds", "3", "--dir", &d]);
    assert!(run.success, "{}", run.stderr);
    let run = slice(&dir, 6, "1/3");
    assert!(!run.success);
    assert!(
        run.stderr.contains("layer-004.sftb")
            && run.stderr.contains("layer-005.sftb")
            && !run.stderr.contains("layer-003.sftb"),
        "{}",
        run.stderr
    );
    let folder = below_six(&dir);
    let layer = format::layer_file(&folder, 6);
    let merge = || tablebase(&["merge", "--dir", &d, "--layer", "6"]);
    // Nothing of the layer at all.
    let run = merge();
    assert!(
        !run.success && run.stderr.contains("no slices of layer 6"),
        "{}",
        run.stderr
    );
    // Slices 1/3 and 3/3: 2/3 is missing, exactly.
    for shard in ["1/3", "3/3"] {
        let run = slice(&dir, 6, shard);
        assert!(run.success, "{}", run.stderr);
    }
    let run = merge();
    assert!(!run.success, "{}", run.stdout);
    assert!(
        run.stderr.contains("missing slices: 2/3 (of 3)"),
        "{}",
        run.stderr
    );
    assert!(!layer.exists());
    // A slice of another cut beside them.
    let run = slice(&dir, 6, "1/4");
    assert!(run.success, "{}", run.stderr);
    let run = merge();
    assert!(!run.success, "{}", run.stdout);
    assert!(
        run.stderr.contains("different cuts") && run.stderr.contains("1/4"),
        "{}",
        run.stderr
    );
    std::fs::remove_file(format::shard_file(&folder, 6, 1, 4)).expect("remove 1/4");
    // A slice being built (its lock held, as a run of it holds it) is not built twice at
    // once, nor merged meanwhile as whole; the folder stays open to the other slices.
    let held = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(folder.join(".layer-006.shard-2-of-3.sftb.lock"))
        .expect("the slice's lock file");
    held.try_lock().expect("locked");
    let shared = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(dir.join(".sowfan.lock"))
        .expect("the folder's lock file");
    shared.try_lock_shared().expect("shared");
    let run = slice(&dir, 6, "2/3");
    assert!(
        !run.success && run.stderr.contains("is in use"),
        "{}",
        run.stderr
    );
    assert!(!format::shard_file(&folder, 6, 2, 3).exists());
    let run = tablebase(&["build", "kalah", "--seeds", "6", "--dir", &d]);
    assert!(
        !run.success && run.stderr.contains("is in use"),
        "{}",
        run.stderr
    );
    drop((held, shared));
    let run = slice(&dir, 6, "2/3");
    assert!(run.success, "{}", run.stderr);
    let two = format::shard_file(&folder, 6, 2, 3);
    let good = std::fs::read(&two).expect("slice 2/3");
    // A slice cut short: refused by name.
    std::fs::write(&two, &good[..good.len() - 1]).expect("cut");
    let run = merge();
    assert!(!run.success);
    assert!(
        run.stderr.contains("layer-006.shard-2-of-3.sftb") && run.stderr.contains("remove it"),
        "{}",
        run.stderr
    );
    // A slice of other rules (pits=4) in its place: refused, naming the rules.
    let other = fresh_dir("chain-bad-other");
    let four = ["build", "kalah", "pits=4", "--seeds", "6", "--dir"];
    let run = tablebase(
        &[
            &four[..],
            &[text(&other).as_str(), "--layer", "6", "--shard", "2/3"],
        ]
        .concat(),
    );
    assert!(!run.success, "lower layers first");
    let run = tablebase(&[
        "build",
        "kalah",
        "pits=4",
        "--seeds",
        "5",
        "--dir",
        &text(&other),
    ]);
    assert!(run.success, "{}", run.stderr);
    let run = tablebase(
        &[
            &four[..],
            &[text(&other).as_str(), "--layer", "6", "--shard", "2/3"],
        ]
        .concat(),
    );
    assert!(run.success, "{}", run.stderr);
    let alien = format::shard_file(
        &other.join("kalah_pits=4_empty-capture=false_end=any-row_leftovers=owner"),
        6,
        2,
        3,
    );
    std::fs::copy(&alien, &two).expect("the alien slice");
    let run = merge();
    assert!(!run.success);
    assert!(run.stderr.contains("pits=4"), "{}", run.stderr);
    // A copy of a slice under a name sowfan does not write: refused by name.
    std::fs::write(&two, &good).expect("restore");
    let copy = folder.join("layer-006.shard-02-of-3.sftb");
    std::fs::copy(&two, &copy).expect("a copy");
    let run = merge();
    assert!(!run.success);
    assert!(run.stderr.contains("shard-02-of-3"), "{}", run.stderr);
    assert!(!layer.exists(), "nothing merged");
    std::fs::remove_file(&copy).expect("remove the copy");
    // A temporary file of a killed writer: mentioned, ignored; the merge goes through and
    // removes the slices it merged.
    let temporary = format::shard_file(&folder, 6, 2, 3).with_extension("tmp-999999");
    std::fs::write(&temporary, b"half").expect("temporary");
    let run = merge();
    assert!(run.success, "{}", run.stderr);
    assert!(
        run.stdout.contains("tmp-999999") && run.stdout.contains("ignored"),
        "{}",
        run.stdout
    );
    assert!(layer.exists());
    assert!(temporary.exists(), "not ours to remove");
    for i in 1..=3 {
        assert!(!format::shard_file(&folder, 6, i, 3).exists(), "slice {i}");
    }
    let single = fresh_dir("chain-bad-single");
    let run = tablebase(&["build", "kalah", "--seeds", "6", "--dir", &text(&single)]);
    assert!(run.success, "{}", run.stderr);
    assert!(
        std::fs::read(&layer).expect("merged")
            == std::fs::read(format::layer_file(&single.join(KALAH), 6)).expect("single"),
        "the merged layer is the single build's"
    );
    // Merged again: nothing to do.
    let run = merge();
    assert!(
        run.success && run.stdout.contains("already whole"),
        "{}",
        run.stdout
    );
    for d in [dir, other, single] {
        let _ = std::fs::remove_dir_all(d);
    }
}
