//! `sowfan datagen`: self-play training data that reads back, holds only what it says it
//! holds, is the same whatever the threads, and goes on where an earlier run stopped.

use std::path::Path;
use std::time::Duration;

use sowfan::game::prelude::*;
use sowfan::nnue::training_data::{GameBlock, Reader};
use sowfan::registry;

use crate::nnue::random_network;
use crate::support::{fresh_dir, games as game_of, run};

const LIMIT: Duration = Duration::from_secs(120);

fn datagen(output: &Path, words: &str) -> run::Run {
    let mut args = run::args(words);
    args.push("--output".into());
    args.push(output.display().to_string());
    run::sowfan("datagen", &args, LIMIT)
}

/// Every game of a file, by game number.
fn games(path: &Path) -> Vec<GameBlock> {
    let mut reader = Reader::open(path).expect("open");
    let mut games = Vec::new();
    while let Some(game) = reader.next_game().expect("a whole block") {
        games.push(game);
    }
    games.sort_by_key(|g| g.number);
    games
}

#[test]
fn self_play_data_holds_quiet_undecided_positions_the_same_on_any_threads_and_resumes() {
    let dir = fresh_dir("datagen");
    let (two, one, resumed) = (dir.join("two"), dir.join("one"), dir.join("resumed"));
    let settings = "fanorona-dimy --games 6 --nodes 400 --openings plies=4 balanced=3";
    let made = datagen(&two, &format!("{settings} --threads 2"));
    assert!(made.success, "{}", made.stderr);
    assert!(made.stdout.contains("6 games"), "{}", made.stdout);
    assert!(made.stdout.contains("positions/s"), "{}", made.stdout);

    let data = games(&two);
    assert_eq!(
        data.iter().map(|g| g.number).collect::<Vec<_>>(),
        [0, 1, 2, 3, 4, 5]
    );
    let header = Reader::open(&two).expect("open").header;
    assert_eq!(header.get("game"), Some("fanorona-dimy"));
    assert_eq!(header.get("nodes"), Some("400"));
    assert_eq!(header.get("evaluation"), Some("hand-written"));
    let mut session = registry::create_from_spec("fanorona-dimy").expect("game");
    let mut positions = 0;
    for game in &data {
        assert!((-1..=1).contains(&game.result));
        for sample in &game.samples {
            let fen = session.unpack_to_fen(&sample.packed).expect("a position");
            session.set_position(Some(&fen), &[]).expect("legal");
            assert!(
                session.outcome().is_none(),
                "game {}: over: {fen}",
                game.number
            );
            assert!(
                session.is_quiet(),
                "game {}: a capture is due: {fen}",
                game.number
            );
            assert_eq!(
                usize::from(sample.mover),
                session.to_move().index(),
                "{fen}"
            );
            assert!(sample.ply >= 4, "the opening's positions are left out");
            // Decided positions end the game: no score is a forced result's.
            assert!(sample.score.abs() < 10_000, "{fen}: {}", sample.score);
            positions += 1;
        }
    }
    assert!(positions > 20, "{positions} positions");

    // One thread makes the same games.
    assert!(datagen(&one, &format!("{settings} --threads 1")).success);
    assert_eq!(games(&one), data);

    // Four games, then the same command for six: the file goes on with games 4 and 5.
    let four = settings.replace("--games 6", "--games 4");
    assert!(datagen(&resumed, &format!("{four} --threads 2")).success);
    assert_eq!(games(&resumed).len(), 4);
    // An interrupted write: half a block at the end is cut off when the run goes on.
    let mut bytes = std::fs::read(&resumed).expect("read");
    let whole = bytes.len();
    bytes.extend_from_slice(b"GAME\x07\0\0\0");
    std::fs::write(&resumed, &bytes).expect("write");
    // The openings' words in another order and spelling are the same openings.
    let reordered = settings.replace("plies=4 balanced=3", "balanced=3.0 plies=4");
    let more = datagen(&resumed, &format!("{reordered} --threads 2"));
    assert!(more.success, "{}", more.stderr);
    assert!(
        more.stderr
            .contains("ends inside a game's block (a write cut short"),
        "{}",
        more.stderr
    );
    assert!(more.stdout.contains("2 games"), "{}", more.stdout);
    assert!(more.stdout.contains("holds 6 games"), "{}", more.stdout);
    assert_eq!(games(&resumed), data);
    assert!(std::fs::metadata(&resumed).expect("size").len() as usize > whole);

    // Other settings do not go on with this file; a file that is not data is refused.
    let other = datagen(&resumed, &settings.replace("--nodes 400", "--nodes 401"));
    assert_eq!(other.code, Some(1));
    assert!(
        other.stderr.contains("its nodes is '400'"),
        "{}",
        other.stderr
    );
    let junk = dir.join("junk");
    std::fs::write(&junk, "not data").expect("write");
    let refused = datagen(&junk, settings);
    assert_eq!(refused.code, Some(1));
    assert!(
        refused.stderr.contains("not a sowfan training data file"),
        "{}",
        refused.stderr
    );
    for bad in ["--nodes 0", "--openings file=x.txt", "--hash 0"] {
        let r = datagen(&dir.join("bad"), &format!("fanorona-dimy {bad}"));
        assert_eq!(r.code, Some(1), "{bad}: {}", r.stderr);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--network FILE` plays with that network: given the game's own, the same games as
/// without it and a header that agrees (the file goes on without the option); given
/// another, other games in a file the game's own does not continue; a file that is no
/// network, or one for another game, or with `--eval classic`, is refused.
#[test]
fn datagen_plays_with_a_network_file_as_with_the_games_own() {
    let dir = fresh_dir("datagen-network");
    let own = dir.join("own.nnue");
    let bytes = game_of::tsivy()
        .default_network()
        .expect("9x5 has a network");
    std::fs::write(&own, bytes).expect("write");
    let settings = "fanorona --games 3 --nodes 300 --threads 2 --seed 5";
    let plain = dir.join("plain.data");
    let by_file = dir.join("file.data");
    let a = datagen(&plain, settings);
    assert!(a.success, "{}", a.stderr);
    let b = datagen(&by_file, &format!("{settings} --network {}", own.display()));
    assert!(b.success, "{}", b.stderr);
    assert_eq!(games(&plain), games(&by_file));
    let more = datagen(&by_file, &settings.replace("--games 3", "--games 4"));
    assert!(more.success, "{}", more.stderr);
    assert!(more.stdout.contains("holds 4 games"), "{}", more.stdout);
    // Another network plays other games, and its file is not the game's own data.
    let other = dir.join("other.nnue");
    let mut rng = crate::support::rng::Rng::new(52);
    std::fs::write(&other, random_network(&game_of::tsivy(), &mut rng)).expect("write");
    let by_other = dir.join("other.data");
    let c = datagen(
        &by_other,
        &format!("{settings} --network {}", other.display()),
    );
    assert!(c.success, "{}", c.stderr);
    assert_ne!(games(&plain), games(&by_other));
    let mixed = datagen(&by_other, &settings.replace("--games 3", "--games 4"));
    assert_eq!(mixed.code, Some(1), "{}", mixed.stderr);
    assert!(
        mixed.stderr.contains("its evaluation is"),
        "{}",
        mixed.stderr
    );
    let refused = [
        (
            format!("{settings} --network /dev/zero"),
            "not a regular file".to_string(),
        ),
        (
            format!("{settings} --network {} --eval classic", own.display()),
            "not with --eval classic".to_string(),
        ),
        (
            format!("kalah --games 1 --network {}", own.display()),
            "not for 'kalah 6x4'".to_string(),
        ),
    ];
    for (words, says) in refused {
        let r = datagen(&dir.join("refused.data"), &words);
        assert_eq!(r.code, Some(1), "{words}: {}", r.stderr);
        assert!(r.stderr.contains(&says), "{words}: {}", r.stderr);
        assert!(!dir.join("refused.data").exists(), "{words}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A packed position is the position: every game packs and unpacks each position it
/// reaches, and bytes that are no position are refused, never a panic.
#[test]
fn packed_positions_read_back_and_hostile_bytes_are_refused() {
    use sowfan::game::Game;
    use sowfan::games::fanorona::Size;

    use crate::support::games;
    use crate::support::rng::Rng;
    use crate::support::selfplay::play_out;

    fn round_trip<G: Game>(game: &G, rng: &mut Rng) {
        let mut packed = Vec::new();
        for _ in 0..10 {
            play_out(game, game.start_position(), |ply, pos, moves| {
                packed.clear();
                game.pack_position(pos, &mut packed);
                let back = game.unpack_position(&packed).expect("unpacks");
                assert_eq!(game.format_position(&back), game.format_position(pos));
                // Flipped bits and cut bytes: an error or some position, never a panic.
                let mut bad = packed.clone();
                let at = rng.below(bad.len());
                bad[at] ^= 1 << rng.below(8);
                let _ = game.unpack_position(&bad);
                let _ = game.unpack_position(&packed[..packed.len() - 1]);
                (ply < 200 && !moves.is_empty()).then(|| moves[rng.below(moves.len())])
            });
        }
    }
    let mut rng = Rng::new(77);
    round_trip(&games::kalah(&[]), &mut rng);
    round_trip(&games::afrika(&[]), &mut rng);
    round_trip(&games::anywoli(&[]), &mut rng);
    for size in [Size::Tsivy, Size::Dimy, Size::Telo] {
        round_trip(&games::fanorona(size, &[]), &mut rng);
    }
    let tsivy = games::tsivy();
    for bad in [&[][..], &[0u8; 19][..], &[0xFF; 20][..]] {
        assert!(tsivy.unpack_position(bad).is_err(), "{bad:?}");
    }
    let mut overlap = vec![0u8; 20];
    overlap[0] = 1;
    overlap[8] = 1;
    let e = tsivy.unpack_position(&overlap).unwrap_err().to_string();
    assert!(e.contains("two stones on one point"), "{e}");
}

/// Where each block of a data file (version 2) begins.
fn block_starts(bytes: &[u8]) -> Vec<usize> {
    let word = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"));
    let mut at = 14 + word(10) as usize + 8;
    let mut starts = Vec::new();
    while at < bytes.len() {
        starts.push(at);
        at += 27 + word(at + 15) as usize + 8;
    }
    starts
}

/// One flipped bit of a block's length field, in the middle or in the last block: refused
/// by block number by `datagen` (the file left as it was) and by `train`, never taken for a
/// torn end (issue 65: a continued run cut a 60-game file to its first game).
#[test]
fn a_damaged_block_is_refused_by_number_and_the_file_left_whole() {
    let dir = fresh_dir("datagen-damaged");
    let data = dir.join("d.data");
    let settings = "fanorona-dimy --nodes 200 --threads 2 --openings plies=4";
    let made = datagen(&data, &format!("{settings} --games 5"));
    assert!(made.success, "{}", made.stderr);
    let bytes = std::fs::read(&data).expect("read");
    let starts = block_starts(&bytes);
    assert_eq!(starts.len(), 5);
    for (block, bit) in [(2, 4), (4, 4), (4, 17), (1, 31)] {
        let mut bad = bytes.clone();
        bad[starts[block] + 15 + bit / 8] ^= 1 << (bit % 8);
        std::fs::write(&data, &bad).expect("write");
        let says = format!(
            "block {} of '{}' (byte offset {}) is damaged",
            block + 1,
            data.display(),
            starts[block]
        );
        let more = datagen(&data, &format!("{settings} --games 7"));
        assert_eq!(
            more.code,
            Some(1),
            "block {block}, bit {bit}: {}",
            more.stderr
        );
        assert!(more.stderr.contains(&says), "{says}: {}", more.stderr);
        assert_eq!(std::fs::read(&data).expect("read"), bad, "left as it was");
        let train = run::sowfan(
            "train",
            &run::args(&format!(
                "fanorona-dimy --epochs 1 --data {} --output {}",
                data.display(),
                dir.join("n.nnue").display()
            )),
            LIMIT,
        );
        assert_eq!(train.code, Some(1), "{}", train.stderr);
        assert!(train.stderr.contains(&says), "{says}: {}", train.stderr);
        assert!(!dir.join("n.nnue").exists());
    }
    // A file of version 1 (before the blocks' head checksums) is read and continued in its
    // version: the same games as a new file's.
    std::fs::write(&data, &bytes).expect("write");
    let mut old = Vec::new();
    let mut reader = Reader::open(&data).expect("open");
    let header_length = starts[0];
    old.extend_from_slice(&bytes[..header_length]);
    old[8..10].copy_from_slice(&1u16.to_le_bytes());
    while let Some(game) = reader.next_game().expect("a block") {
        old.extend(game.to_bytes_of(1).expect("a block"));
    }
    let version_1 = dir.join("v1.data");
    std::fs::write(&version_1, &old).expect("write");
    let more = datagen(&version_1, &format!("{settings} --games 7"));
    assert!(more.success, "{}", more.stderr);
    assert!(more.stdout.contains("holds 7 games"), "{}", more.stdout);
    assert_eq!(Reader::open(&version_1).expect("open").version, 1);
    let fresh = dir.join("fresh.data");
    assert!(datagen(&fresh, &format!("{settings} --games 7")).success);
    assert_eq!(games(&version_1), games(&fresh));
    let _ = std::fs::remove_dir_all(&dir);
}

/// One `datagen` a file: a second run on it is refused at once while the first runs; the
/// first's Ctrl-C stops the search under way at once (a search of 10^12 nodes), drops the
/// game under way and keeps the file readable; a user's `X.partial` is never touched.
#[test]
fn one_datagen_a_file_and_ctrl_c_stops_the_search_under_way() {
    use crate::support::timing::scaled;
    let dir = fresh_dir("datagen-lock");
    let data = dir.join("d.data");
    let mine = dir.join("d.partial");
    std::fs::write(&mine, "mine").expect("write");
    let mut first = run::start(
        "datagen",
        &run::args(&format!(
            "fanorona --games 3 --nodes 1000000000000 --threads 1 --hash 1 --openings \
             plies=4 --output {}",
            data.display()
        )),
    );
    assert!(first.await_signal_handlers(Duration::from_secs(30)));
    first.await_line(Duration::from_secs(30), |l| l.contains("to play, "));
    assert_eq!(std::fs::read(&mine).expect("read"), b"mine");
    let link = dir.join("link.data");
    std::os::unix::fs::symlink(&data, &link).expect("a link");
    for other in [&data, &link] {
        let second = datagen(other, "fanorona --games 3 --nodes 300 --threads 1");
        assert_eq!(second.code, Some(1), "{}", second.stderr);
        assert!(
            second.stderr.contains("is in use: another sowfan datagen"),
            "{}",
            second.stderr
        );
    }
    // Signalled once the search is under way: the process has used 0.3 s of processor
    // time (nothing before the search takes a tenth of that with a 1 MB table).
    let deadline = std::time::Instant::now() + scaled(Duration::from_secs(30));
    while cpu_ticks(first.id()) < 30 {
        assert!(std::time::Instant::now() < deadline, "no search under way");
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(run::signal(first.id(), "-INT"));
    let stopped = first.finish(Duration::from_secs(5));
    assert_eq!(stopped.code, Some(130), "{}", stopped.stderr);
    assert!(
        stopped.stdout.contains("holds 0 games"),
        "{}",
        stopped.stdout
    );
    assert!(games(&data).is_empty());
    assert_eq!(std::fs::read(&mine).expect("read"), b"mine");
    let left: Vec<_> = std::fs::read_dir(&dir)
        .expect("list")
        .map(|e| e.expect("entry").file_name())
        .collect();
    assert_eq!(left.len(), 3, "no temporary or lock file left: {left:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The processor time process `pid` has used, in clock ticks (user and system).
fn cpu_ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // The fields after the command's name (which is in brackets): utime is the 12th.
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map_or(Vec::new(), |(_, rest)| rest.split_whitespace().collect());
    let field = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<u64>().ok())
            .unwrap_or(0)
    };
    field(11) + field(12)
}

/// A FIFO, a device or a folder as `--output` and an absurd `--games` are refused at once
/// (a FIFO blocked `open` for ever; 10^9 games allocated 8 GB).
#[test]
fn datagen_refuses_what_is_no_file_and_absurd_counts_at_once() {
    let dir = fresh_dir("datagen-fifo");
    let fifo = dir.join("fifo");
    let name = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).expect("path");
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
    let quick = Duration::from_secs(20);
    for output in [fifo.as_path(), Path::new("/dev/null"), dir.as_path()] {
        let mut args = run::args("fanorona-dimy --games 2 --nodes 100 --output");
        args.push(output.display().to_string());
        let r = run::sowfan("datagen", &args, quick);
        assert_eq!(r.code, Some(1), "{}", r.stderr);
        assert!(r.stderr.contains("is not a regular file"), "{}", r.stderr);
    }
    let r = run::sowfan(
        "datagen",
        &run::args(&format!(
            "fanorona-dimy --games 1000000000 --output {}",
            dir.join("d.data").display()
        )),
        quick,
    );
    assert_eq!(r.code, Some(1), "{}", r.stderr);
    assert!(r.stderr.contains("at most 100000000"), "{}", r.stderr);
    assert!(!dir.join("d.data").exists());
    let _ = std::fs::remove_dir_all(&dir);
}
