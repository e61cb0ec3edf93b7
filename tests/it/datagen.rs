//! `sowfan datagen`: self-play training data that reads back, holds only what it says it
//! holds, is the same whatever the threads, and goes on where an earlier run stopped.

use std::path::Path;
use std::time::Duration;

use sowfan::game::Game;
use sowfan::registry;
use sowfan::training_data::{GameBlock, Reader};

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
    let more = datagen(&resumed, &format!("{settings} --threads 2"));
    assert!(more.success, "{}", more.stderr);
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
