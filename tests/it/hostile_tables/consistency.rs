//! Issue 45, point 1: a table file damaged in a way its values' range cannot show (every
//! "win in d" of a Fanorona layer turned into "loss in d", the checksum left as it was) is
//! never served. A value that decides a root is checked against its moves' values
//! (`Tables::check_consistent`: `go`, `solve`, `analyse`, `d`), tables read whole are checked
//! against their checksum; either marks the tables damaged with one message, and the answer
//! is then the right one, found without them. On sound tables the check never fires.

use std::path::{Path, PathBuf};

use sowfan::game::prelude::*;
use sowfan::games::fanorona::Size;
use sowfan::tables::Tables;
use sowfan::tables::format;

use super::text;
use crate::support::games::{afrika, fanorona};
use crate::support::rng::Rng;
use crate::support::run::{self, Run};
use crate::support::{Engine, fresh_dir, kalah, tables};

const LIMIT: std::time::Duration = std::time::Duration::from_secs(60);
/// White takes the last black stone with b3-c3A: a win in one turn.
const WON: &str = "5/5/1W1B1/5/5 w 0";

/// Dimy's 2-stone tables, then every win of layer 0 turned into a loss in the same turns
/// (values stay in range; the checksum no longer matches). The folder of the tables.
fn damaged_dimy(name: &str) -> (PathBuf, PathBuf) {
    let dir = fresh_dir(&format!("hostile-{name}"));
    let game = fanorona(Size::Dimy, &[]);
    // Layer 0 is one stone a side: 2 in play.
    let folder = tables::build(&game, &dir, 2, 1, None);
    let path = format::layer_file(&folder, 0);
    let mut bytes = std::fs::read(&path).expect("read");
    let header = format::Header::decode(&bytes).expect("header");
    let mut flipped = 0;
    for byte in &mut bytes[header.len()..] {
        let value = *byte as i8;
        if value > 0 {
            *byte = (-(value + 1)) as u8;
            flipped += 1;
        }
    }
    assert!(flipped > 10, "layer 0 holds wins to flip ({flipped})");
    std::fs::write(&path, bytes).expect("write");
    (dir, path)
}

fn solve(dir: &Path, tables_in: &str) -> Run {
    run::sowfan(
        "solve",
        &[
            "fanorona-dimy",
            "--fen",
            WON,
            "--tablebases",
            &text(dir),
            "--tables-in",
            tables_in,
        ],
        LIMIT,
    )
}

#[test]
fn a_layer_with_wins_turned_into_losses_is_caught_by_its_moves_values() {
    let (dir, path) = damaged_dimy("flipped-mapped");
    let run = solve(&dir, "mapped");
    assert!(run.success, "{}\n{}", run.stdout, run.stderr);
    assert_eq!(run.line("Value: "), Some("win"), "{}", run.stdout);
    assert_eq!(run.line("Best: "), Some("b3-c3A"));
    let name = path.display().to_string();
    assert!(
        run.stderr.contains("unusable")
            && run.stderr.contains(&name)
            && run.stderr.contains("damaged"),
        "one message names the damaged file: {}",
        run.stderr
    );
    assert_eq!(
        run.stderr.matches("unusable").count(),
        1,
        "said once: {}",
        run.stderr
    );

    // The library's check itself, and what the tables say afterwards.
    let game = fanorona(Size::Dimy, &[]);
    let tables = Tables::open(&game, &dir).expect("open").expect("present");
    let pos = game.parse_position(WON).expect("position");
    assert!(!tables.check_consistent(&game, &pos));
    assert_eq!(
        tables.probe(&game, &pos),
        None,
        "damaged tables answer nothing"
    );
    assert!(tables.failure().is_some_and(|f| f.contains("b3-c3A")));
}

#[test]
fn a_layer_read_whole_is_checked_against_its_checksum() {
    let (dir, path) = damaged_dimy("flipped-memory");
    let run = solve(&dir, "memory");
    assert!(run.success, "{}\n{}", run.stdout, run.stderr);
    assert_eq!(run.line("Value: "), Some("win"), "{}", run.stdout);
    assert!(
        run.stderr.contains("checksum") && run.stderr.contains(&path.display().to_string()),
        "{}",
        run.stderr
    );

    let game = fanorona(Size::Dimy, &[]);
    let tables = Tables::open(&game, &dir).expect("open").expect("present");
    let copy = tables.to_memory().expect("read into memory");
    let pos = game.parse_position(WON).expect("position");
    assert_eq!(
        copy.probe(&game, &pos),
        None,
        "read whole, the damaged layer answers nothing"
    );
    assert!(copy.failure().is_some_and(|f| f.contains("checksum")));
}

#[test]
fn go_and_d_do_not_serve_a_damaged_value() {
    let (dir, _) = damaged_dimy("flipped-protocol");
    let mut engine = Engine::start(&[]);
    engine.send(&format!(
        "setoption name TablebasePath value {}",
        text(&dir)
    ));
    engine.send("newgame fanorona-dimy");
    engine.send(&format!("position fen {WON}"));
    let shown = engine.ask("d\nquery gameover", "response");
    assert!(
        !shown.iter().any(|l| l.contains("loss")),
        "d shows no table loss: {shown:?}"
    );
    assert!(
        shown
            .iter()
            .any(|l| l.starts_with("info string error: endgame tables") && l.contains("damaged")),
        "d says the tables are damaged: {shown:?}"
    );
    let answer = engine.ask("go depth 3", "bestmove");
    assert_eq!(
        answer.last().map(String::as_str),
        Some("bestmove b3-c3A"),
        "{answer:?}"
    );
    engine.send("quit");
}

/// Walk from `walks` random entries of every layer, checking each position on the way:
/// sound tables agree with their moves everywhere (positions with every quiet count the
/// walks reach). The positions checked.
fn agree_everywhere<G: Game>(game: &G, tables: &Tables, seed: u64, walks: usize) -> usize {
    let mut rng = Rng::new(seed);
    let mut checked = 0;
    for layer in 0..=tables.max_layer() {
        let size = game.table_layer_size(layer);
        for _ in 0..walks {
            let Some(mut pos) = game.table_position(layer, rng.next() % size) else {
                continue;
            };
            for _ in 0..60 {
                if game.outcome(&pos).is_some() {
                    break;
                }
                assert!(
                    tables.check_consistent(game, &pos),
                    "sound tables flagged at {}: {:?}",
                    game.format_position(&pos),
                    tables.failure()
                );
                checked += 1;
                let mut moves = Vec::new();
                game.legal_moves(&pos, &mut moves);
                let Some(&mv) = moves.get(rng.below(moves.len().max(1))) else {
                    break;
                };
                game.play(&mut pos, mv);
            }
        }
    }
    assert!(tables.failure().is_none());
    checked
}

fn sound<G: Game>(game: &G, name: &str, max_layer: u32, walks: usize) -> usize {
    let dir = fresh_dir(&format!("hostile-{name}"));
    tables::build(game, &dir, max_layer, 1, None);
    let tables = Tables::open(game, &dir).expect("open").expect("present");
    agree_everywhere(game, &tables, 45, walks)
}

#[test]
fn sound_tables_agree_with_their_moves_everywhere() {
    let checked = [
        sound(&kalah(&["pits=4", "seeds=3"]), "agree-kalah", 10, 60),
        sound(
            &kalah(&["pits=4", "empty-capture=true", "end=on-move"]),
            "agree-kalah-on-move",
            8,
            60,
        ),
        sound(&afrika(&[]), "agree-afrika", 8, 40),
        sound(&fanorona(Size::Dimy, &[]), "agree-dimy", 4, 60),
        sound(&fanorona(Size::Tsivy, &[]), "agree-tsivy", 3, 40),
    ];
    assert!(
        checked.iter().all(|&n| n > 200),
        "positions checked per game: {checked:?}"
    );
}
