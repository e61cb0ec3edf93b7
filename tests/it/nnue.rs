//! The learned evaluation: the accumulator kept move by move equals one computed afresh,
//! network files are hostile input, and `datagen` → `train` → `EvalFile` works end to end.

use std::path::PathBuf;
use std::time::Duration;

use sowfan::game::prelude::*;
use sowfan::games::fanorona::Size;
use sowfan::nnue::accumulator::Accumulator;
use sowfan::nnue::network::{
    MAX_OUTPUT_BIAS_Q, MAX_OUTPUT_CP, MAX_OUTPUT_Q, Network, NetworkError,
};
use sowfan::nnue::training_data::{GameBlock, Header, Reader, Writer};

use crate::support::rng::Rng;
use crate::support::selfplay::play_out;
use crate::support::{Engine, cp, fresh_dir, games, last_score, run, scaled};

/// A network with seeded weights for `game`: 128 wide, 4 output buckets (so that a test of
/// the evaluation also checks that it picks the bucket training gives the position).
pub(crate) fn random_network<G: Game>(game: &G, rng: &mut Rng) -> Vec<u8> {
    let mut net = Network::zeros(&game.network_id(), game.network_inputs(), 128, 4);
    let mut small = || rng.below(301) as i16 - 150;
    net.w0.iter_mut().for_each(|w| *w = small());
    net.b0.iter_mut().for_each(|b| *b = small());
    net.w1.iter_mut().for_each(|w| *w = small() / 4);
    for (k, b) in net.b1.iter_mut().enumerate() {
        *b = 999 + 40_000 * k as i32;
    }
    net.to_bytes()
}

#[test]
fn the_accumulator_kept_move_by_move_equals_a_fresh_one() {
    let mut rng = Rng::new(50);
    for size in [Size::Tsivy, Size::Dimy, Size::Telo] {
        let mut game = games::fanorona(size, &[]);
        // The 9×5 board evaluates with its embedded network unless told otherwise.
        assert_eq!(game.accumulates(), size == Size::Tsivy);
        assert_eq!(game.default_network().is_some(), size == Size::Tsivy);
        let bytes = random_network(&game, &mut rng);
        game.set_network(Some(&bytes)).expect("fits");
        assert!(game.accumulates());
        for _ in 0..20 {
            let mut acc = Accumulator::default();
            game.refresh_accumulator(&game.start_position(), &mut acc);
            play_out(&game, game.start_position(), |ply, pos, moves| {
                if ply > 0 {
                    let mut fresh = Accumulator::default();
                    game.refresh_accumulator(pos, &mut fresh);
                    assert_eq!(acc, fresh, "{}", game.format_position(pos));
                    assert_eq!(
                        game.evaluate_accumulated(pos, &acc).1,
                        game.evaluate_at_horizon(pos).1
                    );
                }
                let mv = *moves.get(rng.below(moves.len().max(1)))?;
                let mut after = *pos;
                game.play(&mut after, mv);
                let mut child = Accumulator::default();
                game.update_accumulator(pos, mv, &after, &acc, &mut child);
                acc = child;
                (ply < 150).then_some(mv)
            });
        }
        // A network for another board, a damaged one: refused, the evaluation unchanged.
        let other = random_network(&games::fanorona(Size::Telo, &[]), &mut rng);
        if size != Size::Telo {
            let e = game.set_network(Some(&other)).unwrap_err();
            assert!(matches!(e, NetworkError::OtherGame { .. }), "{e}");
            assert!(e.to_string().contains("not for 'fanorona"), "{e}");
        }
        let mut damaged = bytes.clone();
        damaged[100] ^= 1;
        assert_eq!(
            game.set_network(Some(&damaged)).unwrap_err(),
            NetworkError::Checksum
        );
        assert!(game.accumulates());
        game.set_network(None).expect("hand-written");
        assert!(!game.accumulates());
    }
    // A sowing game's network is no Fanorona one.
    let mut kalah = games::kalah(&[]);
    let e = kalah
        .set_network(Some(&bytes_of_tsivy(&mut rng)))
        .unwrap_err()
        .to_string();
    assert!(e.contains("not for 'kalah 6x4'"), "{e}");
    assert!(kalah.set_network(Some(b"SOWFANNN")).is_err());
}

fn bytes_of_tsivy(rng: &mut Rng) -> Vec<u8> {
    random_network(&games::tsivy(), rng)
}

/// What the search gets from a sowing game with a network equals the network's output over
/// the features training reads (`network_features`), from the mover's view then the
/// other's: what is trained is what plays. Afrika's evaluation first plays out the captures
/// due, so only positions without one are compared there.
fn check_sowing_network<G: Game>(mut game: G, rng: &mut Rng) {
    let label = game.spec();
    assert!(game.network_inputs() > 0, "{label}");
    let bytes = random_network(&game, rng);
    let net = Network::from_bytes(&bytes, &game.network_id(), game.network_inputs()).expect("fits");
    let own = game.evaluate(&game.start_position());
    game.set_network(None).expect("hand-written");
    let classic = game.evaluate(&game.start_position());
    // The game's own network, where it has one, is what it evaluates with at first.
    if let Some(own_bytes) = game.default_network() {
        game.set_network(Some(own_bytes))
            .expect("its own network fits");
        assert_eq!(game.evaluate(&game.start_position()), own, "{label}");
    } else {
        assert_eq!(own, classic, "{label}");
    }
    game.set_network(Some(&bytes)).expect("fits");
    // Sowing boards are evaluated afresh: no accumulator is kept.
    assert!(!game.accumulates(), "{label}");
    let mut compared = 0;
    for _ in 0..30 {
        play_out(&game, game.start_position(), |ply, pos, moves| {
            if game.is_quiet(pos) && game.outcome(pos).is_none() {
                let mover = game.to_move(pos);
                let mut acc = Accumulator::default();
                for (slot, view) in acc.views.iter_mut().zip([mover, mover.other()]) {
                    let mut features = Vec::new();
                    game.network_features(pos, view, &mut features);
                    assert!(
                        features
                            .iter()
                            .all(|&f| usize::from(f) < game.network_inputs()),
                        "{label}: {features:?}"
                    );
                    net.refresh(slot, features.iter().map(|&f| usize::from(f)));
                }
                assert_eq!(
                    game.evaluate(pos),
                    net.output(&acc, 0, game.network_bucket(pos, net.buckets)),
                    "{label}: {}",
                    game.format_position(pos)
                );
                compared += 1;
            }
            let mv = *moves.get(rng.below(moves.len().max(1)))?;
            (ply < 300).then_some(mv)
        });
    }
    assert!(compared > 100, "{label}: {compared}");
    game.set_network(None).expect("hand-written");
    assert_eq!(game.evaluate(&game.start_position()), classic, "{label}");
}

#[test]
fn a_sowing_games_evaluation_is_its_network_over_the_features_it_trains_on() {
    let mut rng = Rng::new(51);
    // The default rules of Kalah(6,4), Afrika and Anywoli have their own network; other boards and
    // rules evaluate by hand.
    assert!(games::kalah(&[]).default_network().is_some());
    assert!(games::afrika(&[]).default_network().is_some());
    assert!(games::kalah(&["pits=4"]).default_network().is_none());
    assert!(games::kalah(&["pie=true"]).default_network().is_none());
    assert!(games::afrika(&["komi=2.5"]).default_network().is_none());
    assert!(games::anywoli(&[]).default_network().is_some());
    assert!(games::anywoli(&["houses=6"]).default_network().is_none());
    check_sowing_network(games::kalah(&[]), &mut rng);
    check_sowing_network(games::kalah(&["pits=4", "seeds=3", "pie=true"]), &mut rng);
    check_sowing_network(games::afrika(&[]), &mut rng);
    check_sowing_network(games::anywoli(&[]), &mut rng);
    check_sowing_network(games::anywoli(&["houses=6", "seeds=3"]), &mut rng);
    // A network for another board of the same game is refused.
    let other = random_network(&games::kalah(&["pits=4"]), &mut rng);
    let e = games::kalah(&[])
        .set_network(Some(&other))
        .unwrap_err()
        .to_string();
    assert!(e.contains("not for 'kalah 6x4'"), "{e}");
}

/// `sowfan train fanorona-dimy` on `data` with `settings`, batches of 64 on 2 threads, writing
/// `output` (and `checkpoint`) in `dir`.
fn train_dimy(
    data: &std::path::Path,
    dir: &std::path::Path,
    settings: &str,
    output: &str,
    checkpoint: Option<&str>,
) -> run::Run {
    let mut words = format!(
        "fanorona-dimy --data {} --output {} --batch 64 --threads 2 {settings}",
        data.display(),
        dir.join(output).display()
    );
    if let Some(c) = checkpoint {
        words += &format!(" --checkpoint {}", dir.join(c).display());
    }
    run::sowfan("train", &run::args(&words), Duration::from_secs(120))
}

/// One epoch of `train_dimy` that must succeed: the run, for its report.
fn train_dimy_one_epoch(data: &std::path::Path, dir: &std::path::Path, output: &str) -> run::Run {
    let run = train_dimy(data, dir, "--epochs 1", output, None);
    assert!(run.success, "{}", run.stderr);
    run
}

#[test]
fn positions_the_tables_cover_are_trained_toward_their_exact_value() {
    let dir = fresh_dir("nnue-tables");
    let data = dir.join("dimy.data");
    dimy_data(&data, 30, 300);
    let tables = dir.join("tables");
    let built = run::sowfan(
        "tablebase",
        &run::args(&format!(
            "build fanorona-dimy --pieces 5 --threads 1 --dir {}",
            tables.display()
        )),
        Duration::from_secs(120),
    );
    assert!(built.success, "{}", built.stderr);
    let with_tables = format!("--epochs 2 --tablebases {}", tables.display());
    let rescored = train_dimy(&data, &dir, &with_tables, "exact.nnue", Some("ck"));
    assert!(rescored.success, "{}", rescored.stderr);
    let count = rescored
        .stderr
        .lines()
        .find_map(|line| line.strip_suffix(" targets from the tables"))
        .and_then(|head| head.rsplit("; ").next())
        .and_then(|n| n.parse::<usize>().ok())
        .unwrap_or_else(|| panic!("{}", rescored.stderr));
    assert!(count > 0, "{}", rescored.stderr);
    let plain = train_dimy(&data, &dir, "--epochs 2", "plain.nnue", None);
    assert!(plain.success, "{}", plain.stderr);
    let read = |name: &str| std::fs::read(dir.join(name)).expect("network");
    assert_ne!(
        read("exact.nnue"),
        read("plain.nnue"),
        "the targets changed"
    );
    // The checkpoint of a rescored run is not one of a plain run.
    let other = train_dimy(&data, &dir, "--epochs 3", "x.nnue", Some("ck"));
    assert_eq!(other.code, Some(1), "{}", other.stderr);
    assert!(other.stderr.contains("other settings"), "{}", other.stderr);
    // A folder without these tables, a game without any: refused, saying which.
    let missing = train_dimy(
        &data,
        &dir,
        &format!("--tablebases {}", dir.display()),
        "y.nnue",
        None,
    );
    assert_eq!(missing.code, Some(1), "{}", missing.stderr);
    assert!(
        missing.stderr.contains("--tablebases") && missing.stderr.contains("no endgame tables"),
        "{}",
        missing.stderr
    );
    let anywoli = run::sowfan(
        "train",
        &run::args(&format!(
            "anywoli --data {} --output {} --tablebases {}",
            data.display(),
            dir.join("z.nnue").display(),
            tables.display()
        )),
        Duration::from_secs(60),
    );
    assert_eq!(anywoli.code, Some(1), "{}", anywoli.stderr);
    assert!(
        anywoli.stderr.contains("no endgame tables"),
        "{}",
        anywoli.stderr
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_wider_network_with_output_buckets_trains_resumes_and_plays() {
    let dir = fresh_dir("nnue-wide");
    let data = dir.join("dimy.data");
    dimy_data(&data, 12, 300);
    let train = |shape: &str, epochs: u32, output: &str, checkpoint: Option<&str>| {
        train_dimy(
            &data,
            &dir,
            &format!("--epochs {epochs} {shape}"),
            output,
            checkpoint,
        )
    };
    let shape = "--width 128 --buckets 4";
    let straight = train(shape, 2, "wide.nnue", None);
    assert!(straight.success, "{}", straight.stderr);
    assert!(
        straight.stderr.contains("× 128 wide, 4 output buckets"),
        "{}",
        straight.stderr
    );
    assert!(train(shape, 1, "first.nnue", Some("ck")).success);
    // A checkpoint of another shape is other settings.
    let other = train("--width 64 --buckets 4", 2, "x.nnue", Some("ck"));
    assert_eq!(other.code, Some(1), "{}", other.stderr);
    assert!(other.stderr.contains("other settings"), "{}", other.stderr);
    let resumed = train(shape, 2, "resumed.nnue", Some("ck"));
    assert!(resumed.success, "{}", resumed.stderr);
    let read = |name: &str| std::fs::read(dir.join(name)).expect("network");
    assert_eq!(read("wide.nnue"), read("resumed.nnue"));
    let game = games::fanorona(Size::Dimy, &[]);
    let net = Network::from_bytes(
        &read("wide.nnue"),
        &game.network_id(),
        game.network_inputs(),
    )
    .expect("a network the engine loads");
    assert_eq!((net.width, net.buckets), (128, 4));
    // A bucket's bias starts at 0 and only positions of its material move it: the data's
    // positions (Dimy's quiet positions, mostly after the first captures) reached at least
    // two buckets, so training picks a bucket by material and not always the first.
    let trained = net.b1.iter().filter(|&&b| b != 0).count();
    assert!(trained >= 2, "{:?}", net.b1);

    // The engine plays with it: the search differs from the 64-wide one-bucket network's.
    assert!(train("", 2, "narrow.nnue", None).success);
    let with = |name: &str| {
        let load = format!(
            "newgame fanorona-dimy\nsetoption name EvalFile value {}",
            dir.join(name).display()
        );
        search_after(&load, 5)
    };
    let (said, wide) = with("wide.nnue");
    assert!(!said.iter().any(|l| l.contains("error")), "{said:?}");
    let (_, narrow) = with("narrow.nnue");
    assert_ne!(wide, narrow, "the wider network changes the search");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn data_train_and_evalfile_work_end_to_end_and_training_resumes_exactly() {
    let dir = fresh_dir("nnue");
    let data = dir.join("dimy.data");
    let limit = Duration::from_secs(120);
    dimy_data(&data, 12, 300);
    let train = |epochs: u32, output: &str, checkpoint: Option<&str>| {
        train_dimy(
            &data,
            &dir,
            &format!("--epochs {epochs}"),
            output,
            checkpoint,
        )
    };
    let straight = train(2, "straight.nnue", None);
    assert!(straight.success, "{}", straight.stderr);
    assert!(
        straight.stderr.contains("validation loss"),
        "{}",
        straight.stderr
    );
    assert!(train(1, "first.nnue", Some("ck")).success);
    let resumed = train(2, "resumed.nnue", Some("ck"));
    assert!(
        resumed.stderr.contains("going on from"),
        "{}",
        resumed.stderr
    );
    let read = |name: &str| std::fs::read(dir.join(name)).expect("network");
    assert_eq!(read("straight.nnue"), read("resumed.nnue"));
    // Another game's data, a file that is no data: refused.
    let wrong = run::sowfan(
        "train",
        &run::args(&format!(
            "fanorona --data {} --output {}",
            data.display(),
            dir.join("x.nnue").display()
        )),
        limit,
    );
    assert_eq!(wrong.code, Some(1), "{}", wrong.stderr);
    assert!(
        wrong.stderr.contains("holds data of 'fanorona-dimy'"),
        "{}",
        wrong.stderr
    );

    // The engine plays with it, and refuses what is no network for it. Each search in a
    // fresh engine (a second search would find the first one's hash entries).
    let net = dir.join("straight.nnue");
    let load = format!("setoption name EvalFile value {}", net.display());
    let depth5 = |setup: &str| search_after(setup, 5);
    let (said, _) = depth5(&load);
    assert!(
        said.iter().any(|l| l.contains("is not for kalah")),
        "{said:?}"
    );
    let (_, classic) = depth5("newgame fanorona-dimy\nsetoption name Eval value classic");
    let (_, learned) = depth5(&format!("newgame fanorona-dimy\n{load}"));
    let (_, first_options) = depth5(&format!("{load}\nnewgame fanorona-dimy"));
    assert_ne!(classic, learned, "the network changes the search");
    assert_eq!(
        first_options, learned,
        "a network set before the game applies to it"
    );
    for bad in [
        "/nonexistent/x.nnue",
        data.to_str().unwrap_or(""),
        "/dev/zero",
    ] {
        let (said, kept) = depth5(&format!(
            "newgame fanorona-dimy\n{load}\nsetoption name EvalFile value {bad}"
        ));
        assert!(
            said.iter().any(|l| l.contains("error: option 'EvalFile'")),
            "{said:?}"
        );
        assert_eq!(kept, learned, "a refused file keeps the network");
    }
    let (_, back) = depth5(&format!(
        "newgame fanorona-dimy\n{load}\nsetoption name Eval value classic"
    ));
    assert_eq!(back, classic);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The same games written in another order (as `datagen` on several threads writes them)
/// train the same network, byte for byte; a change of the games does not.
#[test]
fn training_takes_the_games_in_the_order_of_their_numbers_not_of_the_file() {
    let dir = fresh_dir("nnue-order");
    let data = dir.join("dimy.data");
    dimy_data(&data, 12, 200);
    let (header, mut blocks) = game_blocks(&data);
    assert!(blocks.len() >= 12, "{} games", blocks.len());
    let copy = |name: &str, blocks: &[GameBlock]| write_blocks(&dir.join(name), &header, blocks);
    blocks.reverse();
    let reversed = copy("reversed.data", &blocks);
    // A training game (one in 20 by number is kept for validation) with positions.
    let trained = blocks
        .iter()
        .position(|b| b.number % 20 != 0 && !b.samples.is_empty())
        .expect("a training game with positions");
    blocks.remove(trained);
    let fewer = copy("fewer.data", &blocks);
    let network = |data: &std::path::Path, output: &str| {
        train_dimy_one_epoch(data, &dir, output);
        std::fs::read(dir.join(output)).expect("network")
    };
    let straight = network(&data, "straight.nnue");
    assert!(
        straight == network(&reversed, "reversed.nnue"),
        "the games' order changed the network"
    );
    assert!(
        straight != network(&fewer, "fewer.nnue"),
        "a game fewer left the network unchanged"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Repeated games make the validation loss a measure of memory: `train` counts the
/// validation positions that are training positions too, warns when they are many, and
/// gives the loss over the others beside it.
#[test]
fn training_says_how_many_validation_positions_it_was_trained_on() {
    let dir = fresh_dir("nnue-seen");
    let data = dir.join("dimy.data");
    dimy_data(&data, 41, 200);
    let (header, mut blocks) = game_blocks(&data);
    blocks.sort_by_key(|b| b.number);
    let copy = |name: &str, blocks: &[GameBlock]| write_blocks(&dir.join(name), &header, blocks);
    let trained = |data: &std::path::Path, output: &str| train_dimy_one_epoch(data, &dir, output);
    // Validation games (numbers 0, 20, 40) played again as training games: every
    // validation position is a training position.
    let validation: Vec<GameBlock> = blocks
        .iter()
        .filter(|b| b.number % 20 == 0 && !b.samples.is_empty())
        .cloned()
        .collect();
    assert!(!validation.is_empty(), "no validation game with positions");
    let mut repeated = blocks.clone();
    for (number, block) in (1001..).zip(&validation) {
        repeated.push(GameBlock {
            number,
            ..block.clone()
        });
    }
    let all_seen = trained(&copy("repeated.data", &repeated), "repeated.nnue");
    let positions: usize = validation.iter().map(|b| b.samples.len()).sum();
    assert!(
        all_seen.stderr.contains(&format!(
            "{positions} of the validation positions (100.0 %) are training positions too"
        )),
        "{}",
        all_seen.stderr
    );
    assert!(
        all_seen
            .stderr
            .contains("warning: 100.0 % of the validation positions")
            && all_seen.stderr.contains("none is new"),
        "{}",
        all_seen.stderr
    );
    assert!(
        !all_seen.stdout.contains("no training position"),
        "{}",
        all_seen.stdout
    );
    // Only the first validation game again: the loss over the others is given too.
    let mut once = blocks.clone();
    once.push(GameBlock {
        number: 1001,
        ..validation[0].clone()
    });
    assert!(validation.len() > 1, "one validation game with positions");
    let some_seen = trained(&copy("once.data", &once), "once.nnue");
    assert!(
        some_seen
            .stdout
            .contains("validation positions that are no training position"),
        "{}",
        some_seen.stdout
    );
    assert!(
        some_seen.stderr.contains("(unseen positions 0."),
        "{}",
        some_seen.stderr
    );
    // The data as made: a count of distinct positions, and no duplicate added.
    let plain = trained(&data, "plain.nnue");
    assert!(
        plain.stderr.contains("distinct positions ("),
        "{}",
        plain.stderr
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A training data file's header and games, in the file's order.
fn game_blocks(data: &std::path::Path) -> (Header, Vec<GameBlock>) {
    let mut reader = Reader::open(data).expect("the data");
    let mut blocks = Vec::new();
    while let Some(block) = reader.next_game().expect("a game") {
        blocks.push(block);
    }
    (reader.header, blocks)
}

/// `blocks` written as a new data file at `path` with `header`.
fn write_blocks(path: &std::path::Path, header: &Header, blocks: &[GameBlock]) -> PathBuf {
    let mut writer = Writer::create(path, header).expect("a copy");
    for block in blocks {
        writer.append(block).expect("a game written");
    }
    path.to_path_buf()
}

/// [`random_network`], read.
fn network_of<G: Game>(game: &G, rng: &mut Rng) -> Network {
    let bytes = random_network(game, rng);
    Network::from_bytes(&bytes, &game.network_id(), game.network_inputs()).expect("fits")
}

/// `net` with its output at the bounds a network file may hold: every output weight and the
/// bias at their largest (the output bias is the same for every position, the most extreme
/// evaluation a loaded network can give).
fn at_the_bounds(mut net: Network) -> Network {
    net.w1.fill(MAX_OUTPUT_Q as i16);
    net.b1.fill(MAX_OUTPUT_BIAS_Q);
    net
}

/// The engine with `setup` sent, and what its search at `depth` says: the lines, and the
/// last line of that depth without its timings.
fn search_after(setup: &str, depth: u32) -> (Vec<String>, String) {
    let mut engine = Engine::start(&[]);
    let mut lines = engine.ask(&format!("{setup}\nisready"), "readyok");
    lines.extend(engine.ask(&format!("go depth {depth}"), "bestmove"));
    let prefix = format!("info depth {depth} ");
    let line = lines
        .iter()
        .rev()
        .find(|l| l.starts_with(&prefix))
        .cloned()
        .unwrap_or_default();
    let mut kept = Vec::new();
    let mut words = line.split_whitespace();
    while let Some(word) = words.next() {
        if matches!(word, "nps" | "time" | "hashfull") {
            words.next();
        } else {
            kept.push(word.to_string());
        }
    }
    (lines, kept.join(" "))
}

#[test]
fn a_network_beyond_the_bounds_is_refused_and_one_at_them_searches_sanely() {
    let dir = fresh_dir("nnue-bounds");
    let load = |path: &std::path::Path| format!("setoption name EvalFile value {}", path.display());
    let write = |name: &str, net: &Network| {
        let path = dir.join(name);
        std::fs::write(&path, net.to_bytes()).expect("write");
        path
    };
    let mut rng = Rng::new(52);
    let good_net = network_of(&games::kalah(&[]), &mut rng);
    let good = write("good.nnue", &good_net);
    // `train --rate 1e30` wrote this one: an output bias of i32::MAX.
    let mut beyond = good_net.clone();
    beyond.b1[0] = i32::MAX;
    let hostile = write("hostile.nnue", &beyond);
    let (_, with_good) = search_after(&load(&good), 6);
    let (said, kept) = search_after(&format!("{}\n{}", load(&good), load(&hostile)), 6);
    let refusal = said
        .iter()
        .find(|l| l.starts_with("info string error: option 'EvalFile'"))
        .unwrap_or_else(|| panic!("{said:?}"));
    assert!(
        refusal.contains("output bias 2147483647 is beyond ±8355840"),
        "{refusal}"
    );
    assert_eq!(
        kept, with_good,
        "the refused file leaves the network as it was"
    );
    // At the bounds: loaded, and every evaluation the largest a network gives. A search of
    // it on Fanorona's board answers at once (in 30 s the wrapping sum's did not), its
    // scores heuristic, below every proven one.
    let extreme = at_the_bounds(network_of(&games::tsivy(), &mut rng));
    let extreme = write("extreme.nnue", &extreme);
    let mut engine = Engine::start(&[]);
    let setup = engine.ask(
        &format!("newgame fanorona\n{}\nisready", load(&extreme)),
        "readyok",
    );
    assert!(!setup.iter().any(|l| l.contains("error")), "{setup:?}");
    let (lines, took) = engine.timed_ask("go depth 6", "bestmove");
    assert!(took < scaled(Duration::from_secs(10)), "{took:?} {lines:?}");
    let last = last_score(&lines);
    let score = cp(last).unwrap_or_else(|| panic!("a heuristic score: {last}"));
    assert!(score.abs() <= i64::from(MAX_OUTPUT_CP), "{last}");
    assert!(!last.contains(" wdl "), "{last}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn training_at_an_absurd_rate_writes_a_network_within_the_bounds() {
    let dir = fresh_dir("nnue-rate");
    let data = dir.join("dimy.data");
    let limit = Duration::from_secs(120);
    dimy_data(&data, 4, 200);
    let output = dir.join("wild.nnue");
    let trained = run::sowfan(
        "train",
        &run::args(&format!(
            "fanorona-dimy --data {} --output {} --epochs 2 --batch 16 --threads 2 --rate 1e30",
            data.display(),
            output.display()
        )),
        limit,
    );
    assert!(trained.success, "{}", trained.stderr);
    assert!(
        trained.stderr.contains("the output bias reached its bound"),
        "{}",
        trained.stderr
    );
    let bytes = std::fs::read(&output).expect("the network");
    let game = games::fanorona(Size::Dimy, &[]);
    let net = Network::from_bytes(&bytes, &game.network_id(), game.network_inputs())
        .expect("a network the engine loads");
    assert!(
        net.b1.iter().all(|b| b.abs() <= MAX_OUTPUT_BIAS_Q),
        "{:?}",
        net.b1
    );
    let (said, kept) = search_after(
        &format!(
            "newgame fanorona-dimy\nsetoption name EvalFile value {}",
            output.display()
        ),
        4,
    );
    assert!(!said.iter().any(|l| l.contains("error")), "{said:?}");
    assert!(!kept.is_empty(), "{said:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// What an engine says between `commands` and the `readyok` after them (without it).
fn said(engine: &mut Engine, commands: &str) -> Vec<String> {
    let mut lines = engine.ask(&format!("{commands}\nisready"), "readyok");
    lines.pop();
    lines
}

#[test]
fn a_network_id_holding_a_newline_stays_inside_its_info_line() {
    let dir = fresh_dir("nnue-id");
    let game = games::tsivy();
    let mut rng = Rng::new(53);
    let bytes = random_network(&game, &mut rng);
    let mut net =
        Network::from_bytes(&bytes, &game.network_id(), game.network_inputs()).expect("fits");
    net.id = "fanorona 9x5\nbestmove x\r\u{1b}[2J".into();
    let path = dir.join("id.nnue");
    std::fs::write(&path, net.to_bytes()).expect("write");
    let mut engine = Engine::start(&[]);
    // Read and kept (a network for some game), not for Kalah: one warning naming the id.
    let lines = said(
        &mut engine,
        &format!("setoption name EvalFile value {}", path.display()),
    );
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(
        lines[0].starts_with("info string warning: EvalFile")
            && lines[0].contains("'fanorona 9x5\\nbestmove x\\r\\u{1b}[2J'"),
        "{lines:?}"
    );
    // Nothing more comes: no `bestmove` that no `go` asked for.
    assert_eq!(engine.silent_for(Duration::from_millis(300)), None);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The `Evaluation: …` line of `d`, which comes before its last line.
fn shown(engine: &mut Engine) -> String {
    let lines = engine.ask("d", "To move: p");
    let at = lines.len().saturating_sub(2);
    lines[at].clone()
}

#[test]
fn the_evaluation_follows_the_options_values_not_their_order_and_is_said_once() {
    let dir = fresh_dir("nnue-eval");
    let kalah = games::kalah(&[]);
    let mut rng = Rng::new(54);
    let file = dir.join("kalah.nnue");
    std::fs::write(&file, random_network(&kalah, &mut rng)).expect("write");
    let evalfile = format!("setoption name EvalFile value {}", file.display());
    let classic = "setoption name Eval value classic";
    let network = "setoption name Eval value network";
    let in_file = format!("network file '{}' (kalah 6x4)", file.display());
    let built_in = "built-in network (kalah 6x4)";

    // Both orders give the same evaluation, shown by `d`, and searched with.
    let (_, by_hand) = search_after(classic, 6);
    let (_, learned) = search_after(&evalfile, 6);
    let (_, own) = search_after("", 6);
    assert_ne!(by_hand, learned);
    assert_ne!(own, learned);
    for (setup, shows, searched) in [
        (format!("{classic}\n{evalfile}"), "classic", &by_hand),
        (format!("{evalfile}\n{classic}"), "classic", &by_hand),
        (
            format!("{classic}\n{evalfile}\n{network}"),
            &in_file,
            &learned,
        ),
        (
            format!("{evalfile}\n{classic}\n{network}"),
            &in_file,
            &learned,
        ),
        (format!("{network}\n{evalfile}"), &in_file, &learned),
    ] {
        let mut engine = Engine::start(&[]);
        said(&mut engine, &setup);
        assert_eq!(
            shown(&mut engine),
            format!("Evaluation: {shows}"),
            "{setup}"
        );
        let (_, kept) = search_after(&setup, 6);
        assert_eq!(&kept, searched, "{setup}");
    }

    // Said once when it changes (by an option or a new game), not when it stays.
    let mut engine = Engine::start(&[]);
    assert_eq!(shown(&mut engine), format!("Evaluation: {built_in}"));
    let evaluation = |shows: &str| vec![format!("info string evaluation: {shows}")];
    let none: Vec<String> = Vec::new();
    assert_eq!(said(&mut engine, "newgame kalah"), none);
    assert_eq!(said(&mut engine, classic), evaluation("classic"));
    assert_eq!(said(&mut engine, classic), none);
    assert_eq!(said(&mut engine, &evalfile), none);
    assert_eq!(shown(&mut engine), "Evaluation: classic");
    assert_eq!(said(&mut engine, network), evaluation(&in_file));
    assert_eq!(
        said(&mut engine, &format!("{network}\nnewgame kalah")),
        none
    );
    assert_eq!(shown(&mut engine), format!("Evaluation: {in_file}"));
    let other = said(&mut engine, "newgame kalah pits=4");
    assert_eq!(other.len(), 2, "{other:?}");
    assert!(other[0].contains("is not for kalah pits=4"), "{other:?}");
    assert_eq!(other[1], "info string evaluation: classic");
    assert_eq!(said(&mut engine, "newgame kalah"), evaluation(&in_file));
    assert_eq!(
        said(&mut engine, "setoption name EvalFile value <empty>"),
        evaluation(built_in)
    );
    assert_eq!(
        said(&mut engine, "newgame fanorona"),
        evaluation("built-in network (fanorona 9x5)")
    );
    assert_eq!(
        said(&mut engine, "newgame fanorona-dimy"),
        evaluation("classic")
    );
    assert_eq!(shown(&mut engine), "Evaluation: classic");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `train`'s outputs are checked before any work: one that is an input or the other output
/// (however spelt), no regular file, or in a folder that does not exist is refused before
/// the first epoch; a FIFO as data or checkpoint is refused at once (it blocked `open` for
/// ever); one run an output. Its reports say what is so: no NaN after a checkpoint already
/// at the last epoch, "no validation games" rather than -0.000000, a torn end of the data
/// named (issue 65).
#[test]
fn train_checks_its_outputs_before_any_work_and_reports_what_is_so() {
    let dir = fresh_dir("train-outputs");
    let data = dir.join("d.data");
    let limit = Duration::from_secs(120);
    dimy_data(&data, 8, 300);
    let original = std::fs::read(&data).expect("data");
    let link = dir.join("link.data");
    std::os::unix::fs::symlink(&data, &link).expect("a link");
    let fifo = dir.join("fifo");
    let name = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).expect("path");
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
    let train = |rest: &str| {
        let epochs = if rest.contains("--epochs") {
            ""
        } else {
            "--epochs 2"
        };
        run::sowfan(
            "train",
            &run::args(&format!(
                "fanorona-dimy --batch 64 --threads 2 {epochs} {rest}"
            )),
            limit,
        )
    };
    let (d, l, f) = (data.display(), link.display(), fifo.display());
    let net = dir.join("n.nnue");
    let n = net.display();
    let missing = dir.join("no-such-folder").join("x.nnue");
    let refused = [
        (format!("--data {d} --output {d}"), "same file as --data"),
        (format!("--data {d} --output {l}"), "same file as --data"),
        (
            format!("--data {l} --output {n} --checkpoint {d}"),
            "same file as --data",
        ),
        (
            format!("--data {d} --output {n} --checkpoint {n}"),
            "same file as --checkpoint",
        ),
        (
            format!("--data {d} --output {}", missing.display()),
            "No such file",
        ),
        (
            format!("--data {d} --output {}", dir.display()),
            "not a regular file",
        ),
        (format!("--data {d} --output {f}"), "not a regular file"),
        (format!("--data {f} --output {n}"), "not a regular file"),
        (
            format!("--data {d} --output {n} --checkpoint {f}"),
            "not a regular file",
        ),
        (
            format!("--data {d} --output {n} --epochs 2000000"),
            "at most 1000000",
        ),
        (
            format!("--data {d} --output {n} --width 96"),
            "the width must be 64 to 256 in steps of 64",
        ),
        (
            format!("--data {d} --output {n} --buckets 0"),
            "the buckets 1 to 16",
        ),
        (
            format!("--data {d} --output {n} --width 512 --buckets 17"),
            "--width 512 --buckets 17",
        ),
    ];
    for (words, says) in refused {
        let r = train(&words);
        assert_eq!(r.code, Some(1), "{words}: {}", r.stderr);
        assert!(r.stderr.contains(says), "{words}: {}", r.stderr);
        assert!(
            !r.stderr.contains("validation positions"),
            "{words}: before the data are read: {}",
            r.stderr
        );
        assert_eq!(std::fs::read(&data).expect("data"), original, "{words}");
        assert!(!net.exists(), "{words}");
    }

    // A checkpoint already at the last epoch: its network, with its validation loss.
    let ck = dir.join("ck").display().to_string();
    let first = train(&format!("--data {d} --output {n} --checkpoint {ck}"));
    assert!(first.success, "{}", first.stderr);
    assert!(!first.stdout.contains("(0 kept"), "{}", first.stdout);
    let again = train(&format!("--data {d} --output {n} --checkpoint {ck}"));
    assert!(again.success, "{}", again.stderr);
    assert!(!again.stdout.contains("NaN"), "{}", again.stdout);
    assert!(
        again.stdout.contains("validation loss 0."),
        "{}",
        again.stdout
    );
    let fewer = train(&format!(
        "--data {d} --output {n} --checkpoint {ck} --epochs 1"
    ));
    assert_eq!(fewer.code, Some(1), "{}", fewer.stderr);
    assert!(fewer.stderr.contains("past --epochs 1"), "{}", fewer.stderr);

    // No validation game (none numbered by 20) and a torn end: said so.
    let mut reader = Reader::open(&data).expect("open");
    let unvalidated = dir.join("u.data");
    let mut writer = Writer::create(&unvalidated, &reader.header).expect("create");
    while let Some(game) = reader.next_game().expect("a block") {
        if game.number != 0 {
            writer.append(&game).expect("append");
        }
    }
    drop(writer);
    let mut bytes = std::fs::read(&unvalidated).expect("read");
    bytes.extend_from_slice(b"GAME\x07\0\0");
    std::fs::write(&unvalidated, &bytes).expect("write");
    let r = train(&format!("--data {} --output {n}", unvalidated.display()));
    assert!(r.success, "{}", r.stderr);
    assert!(r.stdout.contains("no validation games"), "{}", r.stdout);
    assert!(!r.stdout.contains("-0.0"), "{}", r.stdout);
    assert!(
        r.stderr.contains("ends inside a game's block"),
        "{}",
        r.stderr
    );

    // One run an output: a second on the same output or checkpoint is refused at once.
    let mut long = run::start(
        "train",
        &run::args(&format!(
            "fanorona-dimy --batch 64 --threads 1 --epochs 1000000 --data {d} --output {n} \
             --checkpoint {}",
            dir.join("ck2").display()
        )),
    );
    assert!(long.await_signal_handlers(limit));
    long.await_line(limit, |line| line.starts_with("epoch"));
    for words in [
        format!("--data {d} --output {n}"),
        format!(
            "--data {d} --output {} --checkpoint {}",
            dir.join("m.nnue").display(),
            dir.join("ck2").display()
        ),
    ] {
        let r = train(&words);
        assert_eq!(r.code, Some(1), "{words}: {}", r.stderr);
        assert!(
            r.stderr.contains("is in use: another sowfan train"),
            "{words}: {}",
            r.stderr
        );
    }
    assert!(run::signal(long.id(), "-INT"));
    let stopped = long.finish(Duration::from_secs(30));
    assert_eq!(stopped.code, Some(130), "{}", stopped.stderr);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `games` games of Fanorona 5×5 at `nodes` nodes a move, written by `datagen` to `data`.
fn dimy_data(data: &std::path::Path, games: u32, nodes: u32) {
    let made = run::sowfan(
        "datagen",
        &run::args(&format!(
            "fanorona-dimy --games {games} --nodes {nodes} --threads 2 --output {}",
            data.display()
        )),
        Duration::from_secs(120),
    );
    assert!(made.success, "{}", made.stderr);
}

/// What an accumulator kept along the search would cost the sowing games, against summing
/// the first layer afresh (issue 68, point 2): the features a move turns off and on in a
/// view (each a column subtracted or added), against the features a position has on (each
/// a column added after the biases). Over random games, whose sowings are as long as a
/// search's. `cargo test --release --test it -- --ignored --nocapture sowing_feature_changes`.
#[test]
#[ignore = "a measurement: prints its figures (docs/nnue.md)"]
fn sowing_feature_changes_against_a_fresh_sum() {
    fn measure<G: Game>(game: &G, rng: &mut Rng) -> (f64, f64) {
        let (mut changed, mut active, mut moves_seen) = (0usize, 0usize, 0usize);
        let mut before = Vec::new();
        let mut after = Vec::new();
        for _ in 0..200 {
            let mut last: Option<G::Position> = None;
            play_out(game, game.start_position(), |ply, pos, moves| {
                let view = game.to_move(pos);
                after.clear();
                game.network_features(pos, view, &mut after);
                if let Some(previous) = &last {
                    // The same view (the side to move now) before and after the move.
                    before.clear();
                    game.network_features(previous, view, &mut before);
                    let off = before.iter().filter(|f| !after.contains(f)).count();
                    let on = after.iter().filter(|f| !before.contains(f)).count();
                    changed += off + on;
                    active += after.len();
                    moves_seen += 1;
                }
                last = Some(pos.clone());
                let mv = *moves.get(rng.below(moves.len().max(1)))?;
                (ply < 300).then_some(mv)
            });
        }
        (
            changed as f64 / moves_seen as f64,
            active as f64 / moves_seen as f64,
        )
    }
    let mut rng = Rng::new(68);
    for (label, (changed, active)) in [
        ("kalah", measure(&games::kalah(&[]), &mut rng)),
        ("afrika", measure(&games::afrika(&[]), &mut rng)),
        ("anywoli", measure(&games::anywoli(&[]), &mut rng)),
    ] {
        println!(
            "{label}: a move changes {changed:.1} features a view; a position has {active:.1} on \
             (update/refresh column operations: {:.2})",
            changed / (active + 1.0)
        );
        assert!(changed > 0.0 && active > 0.0);
    }
}
