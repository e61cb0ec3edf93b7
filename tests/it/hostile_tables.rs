//! Table directories as a hostile user makes them: FIFOs and directories named like layers,
//! symbolic-link loops, layers truncated under a running search or solve, shards of another
//! rule set, a corrupted lower layer before a resumed build, implausible values, files the
//! loader refuses, temporary files left over. Every tool ends in bounded time with a clear
//! message, and the engine keeps answering.

mod consistency;
mod fuzz;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use sowfan::game::prelude::*;
use sowfan::tables::Tables;
use sowfan::tables::format;

use crate::support::run::{self, Run};
use crate::support::{Engine, fresh_dir, kalah, scaled, tables};

const QUICK: Duration = Duration::from_secs(20);

fn mkfifo(path: &Path) {
    let status = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("mkfifo");
    assert!(status.success());
}

fn tablebase(args: &[&str]) -> Run {
    run::sowfan("tablebase", args, QUICK)
}

fn text(dir: &Path) -> String {
    dir.display().to_string()
}

/// The header's checksum recomputed, so a forged file passes that check (and the others
/// must catch it).
fn forge_checksum(path: &Path) {
    let mut bytes = std::fs::read(path).expect("read");
    let header = format::Header::decode(&bytes).expect("header");
    let sum = header.checksum_of(&bytes[header.len()..]);
    bytes[48..56].copy_from_slice(&sum.to_le_bytes());
    std::fs::write(path, bytes).expect("write");
}

/// Item 1: a FIFO named like a layer. The engine answers `readyok`, obeys `quit` and
/// SIGTERM; every tool errors out promptly naming the FIFO.
#[test]
fn a_fifo_named_like_a_layer_hangs_nothing() {
    let dir = fresh_dir("hostile-fifo");
    let game = kalah(&["pits=4"]);
    let folder = tables::build(&game, &dir, 8, 1, None);
    let layer = format::layer_file(&folder, 5);
    std::fs::remove_file(&layer).expect("remove");
    mkfifo(&layer);

    let mut engine = Engine::start(&[]);
    engine.send("newgame kalah pits=4");
    let lines = engine.ask(
        &format!("setoption name TablebasePath value {}\nisready", text(&dir)),
        "readyok",
    );
    assert!(
        lines
            .iter()
            .any(|l| l.contains("error") && l.contains("FIFO")),
        "{lines:?}"
    );
    engine.ask("go depth 4", "bestmove");
    engine.send("quit");
    assert!(
        engine.wait_exit(Duration::from_secs(3)).is_some(),
        "quit obeyed"
    );

    let mut engine = Engine::start(&["--tablebases", &text(&dir)]);
    engine.ask("newgame kalah pits=4\nisready", "readyok");
    let running = run::start(
        "solve",
        &["kalah", "pits=4", "seeds=1", "--tablebases", &text(&dir)],
    );
    let solve = running.finish(QUICK);
    assert!(solve.stderr.contains("FIFO"), "{}", solve.stderr);
    // SIGTERM ends the engine at once (its first one is not swallowed).
    let pid = engine.id();
    assert!(run::signal(pid, "-TERM"));
    assert!(
        engine.wait_exit(Duration::from_secs(3)).is_some(),
        "SIGTERM obeyed"
    );

    for tool in ["verify", "info", "merge"] {
        let run = tablebase(&[tool, "--dir", &text(&dir)]);
        let all = format!("{}{}", run.stdout, run.stderr);
        assert!(
            run.elapsed < scaled(Duration::from_secs(10)),
            "{tool} took {:?}",
            run.elapsed
        );
        if tool != "merge" {
            assert!(all.contains("FIFO"), "{tool}: {all}");
        }
    }
    let run = tablebase(&[
        "build",
        "kalah",
        "pits=4",
        "--seeds",
        "9",
        "--dir",
        &text(&dir),
    ]);
    assert!(
        !run.success && run.stderr.contains("FIFO"),
        "{}",
        run.stderr
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Item 5: symbolic links to directories are never followed: `ln -s . DIR/a` does not count
/// files twice, two loops do not make the walk endless.
#[test]
fn symlink_loops_are_not_followed() {
    let dir = fresh_dir("hostile-links");
    let game = kalah(&["pits=4"]);
    let folder = tables::build(&game, &dir, 6, 1, None);
    std::os::unix::fs::symlink(".", dir.join("a")).expect("link");
    std::os::unix::fs::symlink("..", folder.join("b")).expect("link");
    std::os::unix::fs::symlink("/", dir.join("root")).expect("link");
    for tool in ["verify", "info", "merge"] {
        let run = tablebase(&[tool, "--dir", &text(&dir)]);
        assert!(run.success, "{tool}: {}{}", run.stdout, run.stderr);
        assert!(
            run.elapsed < scaled(Duration::from_secs(10)),
            "{tool}: {:?}",
            run.elapsed
        );
        if tool == "verify" {
            assert!(run.stdout.contains("7 files, 0 damaged"), "{}", run.stdout);
            assert!(run.stdout.contains("not followed"), "{}", run.stdout);
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Item 5: the first Ctrl-C stops a walk of a huge tree within a second, status 130.
#[test]
fn verify_stops_on_the_first_interrupt() {
    let mut running = run::start("tablebase", &["verify", "--dir", "/"]);
    // Ready once it handles the signal (unless the walk of a tiny file system ended first).
    let walking = running.await_signal_handlers(Duration::from_secs(10));
    let sent = Instant::now();
    if walking {
        assert!(run::signal(running.id(), "-INT"));
    }
    let run = running.finish(Duration::from_secs(5));
    // It may have finished on its own before the signal on a tiny file system.
    if !run.success {
        assert_eq!(run.code, Some(130), "{}", run.stderr);
        assert!(
            sent.elapsed() < scaled(Duration::from_secs(2)),
            "{:?}",
            sent.elapsed()
        );
    }
}

/// Build Kalah pits=4 up to 12 (every layer from 10 up spans several pages) and start an
/// engine on it searching a position beyond the tables.
fn engine_searching(dir: &Path) -> (Engine, PathBuf) {
    let folder = tables::build(&kalah(&["pits=4"]), dir, 12, 1, None);
    let mut engine = Engine::start(&["--tablebases", &text(dir)]);
    let lines = engine.ask("newgame kalah pits=4 seeds=4\nisready", "readyok");
    assert!(
        lines.iter().any(|l| l.contains("layers 0..=12")),
        "{lines:?}"
    );
    (engine, folder)
}

fn truncate_layers(folder: &Path, layers: std::ops::RangeInclusive<u32>) {
    for layer in layers {
        std::fs::OpenOptions::new()
            .write(true)
            .open(format::layer_file(folder, layer))
            .expect("open")
            .set_len(1000)
            .expect("truncate");
    }
}

/// Item 2: layers truncated under a running search: the engine survives (no SIGBUS death),
/// says the tables are unusable, answers a bestmove and goes on.
#[test]
fn a_layer_truncated_under_a_running_search_is_survived() {
    let dir = fresh_dir("hostile-truncated-search");
    let (mut engine, folder) = engine_searching(&dir);
    engine.send("go infinite");
    // The search is under way (its first line), then runs into the truncated layers.
    engine.until(QUICK, |l| l.starts_with("info depth"));
    truncate_layers(&folder, 10..=12);
    std::thread::sleep(scaled(Duration::from_millis(500)));
    engine.send("stop");
    let lines = engine.until(QUICK, |l| l.starts_with("bestmove"));
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("info string error: endgame tables") && l.contains("unusable")),
        "{lines:?}"
    );
    engine.ask("isready", "readyok");
    let again = engine.ask("go depth 6", "bestmove");
    assert!(
        !again.iter().any(|l| l.contains("unusable")),
        "said once: {again:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Item 2: the same under `sowfan solve`: no death by signal, the tables said unusable.
#[test]
fn a_layer_truncated_under_a_running_solve_is_survived() {
    let dir = fresh_dir("hostile-truncated-solve");
    let folder = tables::build(&kalah(&["pits=4"]), &dir, 12, 1, None);
    let mut running = run::start_with_env(
        "solve",
        &["kalah", "pits=4", "seeds=6", "--tablebases", &text(&dir)],
        &[("RUST_LOG", "info")],
    );
    // The tables are open (their log line; the interrupt handler is in place before),
    // then the proof runs into the truncated layers.
    running.await_line(QUICK, |l| l.contains("tables: layers"));
    truncate_layers(&folder, 10..=12);
    std::thread::sleep(scaled(Duration::from_millis(500)));
    run::signal(running.id(), "-INT");
    let run = running.finish(QUICK);
    assert!(run.code.is_some(), "killed by a signal: {}", run.stderr);
    assert!(run.stderr.contains("unusable"), "{}", run.stderr);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The generation check: a layer rewritten in place to the same size (as `cp` of the same
/// tables over themselves does) is found before the next search.
#[test]
fn a_layer_rewritten_in_place_is_found_before_the_next_search() {
    let dir = fresh_dir("hostile-rewritten");
    let (mut engine, folder) = engine_searching(&dir);
    engine.ask("go depth 4", "bestmove");
    let layer = format::layer_file(&folder, 7);
    let bytes = std::fs::read(&layer).expect("read");
    std::thread::sleep(Duration::from_millis(20));
    std::fs::write(&layer, &bytes).expect("rewrite in place");
    let lines = engine.ask("go depth 4", "bestmove");
    assert!(
        lines
            .iter()
            .any(|l| l.contains("unusable") && l.contains("layer-007.sftb")),
        "{lines:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Item 6: shards of pits=6 copied into the pits=4 folder are refused; the valid pits=4
/// layer they are named after stays as it was and the tables still load.
#[test]
fn merge_refuses_shards_of_another_rule_set() {
    let dir = fresh_dir("hostile-alien-shards");
    let four = kalah(&["pits=4"]);
    let six = kalah(&["pits=6"]);
    let folder4 = tables::build(&four, &dir, 5, 1, None);
    tables::build(&six, &dir, 4, 1, None);
    let folder6 = tables::build(&six, &dir, 5, 1, Some((1, 2)));
    tables::build(&six, &dir, 5, 1, Some((2, 2)));
    let before = std::fs::read(format::layer_file(&folder4, 5)).expect("layer 5");
    for i in 1..=2 {
        let from = format::shard_file(&folder6, 5, i, 2);
        std::fs::rename(&from, format::shard_file(&folder4, 5, i, 2)).expect("move shard");
    }
    let run = tablebase(&["merge", "--dir", &text(&dir)]);
    assert!(!run.success, "{}", run.stdout);
    assert!(run.stderr.contains("pits=6"), "{}", run.stderr);
    let after = std::fs::read(format::layer_file(&folder4, 5)).expect("layer 5");
    assert_eq!(before, after, "the valid layer is untouched");
    let tables = Tables::open(&four, &dir)
        .expect("still loads")
        .expect("tables");
    assert_eq!(tables.max_layer(), 5);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Item 7: a resumed build verifies the lower layers it reads: a corrupted layer 5 stops
/// the build, named, and nothing above it is written.
#[test]
fn a_resumed_build_refuses_a_corrupted_lower_layer() {
    let dir = fresh_dir("hostile-resume-corrupt");
    let game = kalah(&["pits=4"]);
    let folder = tables::build(&game, &dir, 8, 1, None);
    let layer5 = format::layer_file(&folder, 5);
    let mut bytes = std::fs::read(&layer5).expect("read");
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    std::fs::write(&layer5, bytes).expect("corrupt");
    std::fs::remove_file(format::layer_file(&folder, 8)).expect("remove 8");
    let run = tablebase(&[
        "build",
        "kalah",
        "pits=4",
        "--seeds",
        "9",
        "--dir",
        &text(&dir),
    ]);
    assert!(!run.success);
    assert!(
        run.stderr.contains("layer-005.sftb") && run.stderr.contains("checksum"),
        "{}",
        run.stderr
    );
    assert!(
        !format::layer_file(&folder, 8).exists(),
        "nothing built on it"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Item 8: a value beyond what its layer allows, or the builder's "unknown", is never
/// served: the probe breaks the tables and says why; verify reports it even when the
/// checksum was forged to match.
#[test]
fn implausible_values_are_not_served() {
    let dir = fresh_dir("hostile-implausible");
    let game = kalah(&["pits=4"]);
    let folder = tables::build(&game, &dir, 6, 1, None);
    for (index, value) in [(3u64, 127i8), (4, i8::MIN)] {
        let layer5 = format::layer_file(&folder, 5);
        let mut bytes = std::fs::read(&layer5).expect("read");
        let header = format::Header::decode(&bytes).expect("header");
        let original = bytes.clone();
        bytes[header.len() + index as usize] = value as u8;
        std::fs::write(&layer5, &bytes).expect("write");
        let tables = Tables::open(&game, &dir).expect("open").expect("tables");
        let pos = game.table_position(5, index).expect("position");
        assert_eq!(tables.probe(&game, &pos), None, "value {value} served");
        let failure = tables.failure().expect("a failure");
        assert!(failure.contains(&format!("holds {value}")), "{failure}");
        // Other entries are not served either: the tables are unusable.
        let other = game.table_position(6, 0).expect("position");
        assert_eq!(tables.probe(&game, &other), None);

        forge_checksum(&layer5);
        let run = tablebase(&["verify", "--dir", &text(&dir)]);
        assert!(!run.success);
        assert!(
            run.stdout.contains("layer-005.sftb") && run.stdout.contains(&format!("holds {value}")),
            "{}",
            run.stdout
        );
        std::fs::write(&layer5, original).expect("restore");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Item 9: verify checks what the loader checks (a directory named as a layer, a header
/// for another layer, another rule set's layer, a wrong entry count), info trusts no header,
/// and temporary files left over are reported with how to remove them.
#[test]
fn verify_refuses_what_the_loader_refuses_and_info_trusts_no_header() {
    let dir = fresh_dir("hostile-loader");
    let four = kalah(&["pits=4"]);
    let folder = tables::build(&four, &dir, 6, 1, None);
    let folder6 = tables::build(&kalah(&["pits=6"]), &dir, 3, 1, None);
    let layer = |l| format::layer_file(&folder, l);
    let ok = tablebase(&["verify", "--dir", &text(&dir)]);
    assert!(ok.success, "{}", ok.stdout);

    // Layer 4's file under layer 3's name: a sound file, the wrong layer.
    std::fs::copy(layer(4), layer(3)).expect("copy");
    let run = tablebase(&["verify", "--dir", &text(&dir)]);
    assert!(
        !run.success && run.stdout.contains("FAIL  '"),
        "{}",
        run.stdout
    );
    assert!(Tables::open(&four, &dir).is_err());
    std::fs::remove_file(layer(3)).expect("rm");

    // A directory named as a layer.
    std::fs::create_dir(layer(3)).expect("dir");
    let run = tablebase(&["verify", "--dir", &text(&dir)]);
    assert!(
        !run.success && run.stdout.contains("a directory"),
        "{}",
        run.stdout
    );
    std::fs::remove_dir(layer(3)).expect("rmdir");

    // Another rule set's layer 3 in this folder.
    std::fs::copy(format::layer_file(&folder6, 3), layer(3)).expect("copy");
    let run = tablebase(&["verify", "--dir", &text(&dir)]);
    assert!(
        !run.success && run.stdout.contains("pits=6"),
        "{}",
        run.stdout
    );
    std::fs::remove_file(layer(3)).expect("rm");

    // A header claiming 2^43 entries: info shows the file's real size, not the header's.
    let original6 = std::fs::read(layer(6)).expect("read");
    let mut bytes = original6.clone();
    let huge = 1u64 << 43;
    bytes[24..32].copy_from_slice(&huge.to_le_bytes());
    bytes[40..48].copy_from_slice(&huge.to_le_bytes());
    std::fs::write(layer(6), &bytes).expect("write");
    let run = tablebase(&["info", "--dir", &text(&dir)]);
    assert!(
        run.stdout.contains("6 files, 0 MB of values"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("truncated"), "{}", run.stdout);
    let run = tablebase(&["verify", "--dir", &text(&dir)]);
    assert!(
        !run.success && run.stdout.contains("entries"),
        "{}",
        run.stdout
    );

    // A truncated layer 6 is not "complete".
    std::fs::write(layer(6), &original6[..original6.len() - 10]).expect("truncate");
    let run = tablebase(&["info", "--dir", &text(&dir)]);
    assert!(
        !run.stdout.contains("complete: layers 0..=6"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("truncated"), "{}", run.stdout);
    std::fs::write(layer(6), &original6).expect("restore");

    // An orphan temporary file.
    let orphan = layer(7).with_extension("tmp-4242");
    std::fs::write(&orphan, b"half a layer").expect("orphan");
    for tool in ["verify", "info"] {
        let run = tablebase(&[tool, "--dir", &text(&dir)]);
        assert!(
            run.stdout.contains("layer-007.tmp-4242") && run.stdout.contains("rm '"),
            "{tool}: {}",
            run.stdout
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `sowfan tablebase info | head -1`: the reader goes before the output is written; the
/// tool ends quietly (status 0) instead of panicking on the broken pipe.
#[test]
fn info_and_verify_into_a_closed_pipe_end_quietly() {
    let dir = fresh_dir("hostile-closed-pipe");
    tables::build(&kalah(&["pits=4"]), &dir, 6, 1, None);
    for what in ["info", "verify"] {
        let mut child = run::piped(&["tablebase", what, "--dir"])
            .arg(&dir)
            .stdin(std::process::Stdio::null())
            .spawn()
            .expect("start sowfan tablebase");
        // Close the reading end before the tool writes a line.
        drop(child.stdout.take());
        let status = run::wait_exit(&mut child, QUICK).expect("the tool ends");
        let mut err = String::new();
        let _ = std::io::Read::read_to_string(&mut child.stderr.take().expect("stderr"), &mut err);
        assert!(!err.contains("panicked"), "{what}: {err}");
        assert_eq!(status.code(), Some(0), "{what}: {err}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 65, point 3: a table folder is written by one build at a time. A second build (or
/// merge) of the same folder is refused at once, before it writes anything, naming the
/// folder; the slices of one layer (`--shard`) share the folder, each its slice alone.
#[test]
fn a_table_folder_in_use_is_refused_before_any_work() {
    let dir = fresh_dir("hostile-locked");
    // Another build holds the folder: its lock, as `sowfan tablebase build` takes it.
    let lock = folder_lock(&dir);
    lock.try_lock().expect("locked");
    let build = ["build", "kalah", "pits=4", "--seeds", "6", "--dir"];
    for args in [
        [&build[..], &[text(&dir).as_str()]].concat(),
        [&build[..], &[text(&dir).as_str(), "--shard", "1/2"]].concat(),
        vec!["merge", "--dir", &text(&dir)],
    ] {
        let run = tablebase(&args);
        assert!(
            !run.success && run.stderr.contains("is in use: another sowfan tablebase"),
            "{args:?}: {}",
            run.stderr
        );
    }
    let written: Vec<_> = std::fs::read_dir(&dir)
        .expect("folder")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name())
        .collect();
    assert_eq!(written.len(), 1, "only the lock: {written:?}");
    // Held shared, as by a slice being built: another slice builds, a whole build does not.
    drop(lock);
    let below = [
        "build",
        "kalah",
        "pits=4",
        "--seeds",
        "5",
        "--dir",
        &text(&dir),
    ];
    assert!(tablebase(&below).success);
    // A build that held the folder alone removed its lock file: none is left behind.
    assert!(!dir.join(".sowfan.lock").exists());
    let lock = folder_lock(&dir);
    lock.try_lock_shared().expect("shared");
    let run = tablebase(&[&build[..], &[text(&dir).as_str(), "--shard", "1/2"]].concat());
    assert!(run.success, "{}", run.stderr);
    let run = tablebase(&[&build[..], &[text(&dir).as_str()]].concat());
    assert!(
        !run.success && run.stderr.contains("is in use"),
        "{}",
        run.stderr
    );
    drop(lock);
    let run = tablebase(&[&build[..], &[text(&dir).as_str()]].concat());
    assert!(run.success, "{}", run.stderr);
    assert!(
        !dir.join("kalah_pits=4_empty-capture=false_end=any-row_leftovers=owner")
            .join(".layer-006.shard-1-of-2.sftb.lock")
            .exists()
            && dir
                .join("kalah_pits=4_empty-capture=false_end=any-row_leftovers=owner")
                .join("layer-006.shard-1-of-2.sftb")
                .exists(),
        "a slice's lock is removed when it ends"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The lock file `tablebase build` holds in a table folder, opened (not locked).
fn folder_lock(dir: &Path) -> std::fs::File {
    std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(dir.join(".sowfan.lock"))
        .expect("lock file")
}
