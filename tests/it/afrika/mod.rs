//! Afrika: annotated game records replayed through the real binary's protocol, perft
//! fixtures checked against an independent implementation of the rules, and self-play.
//!
//! Game records live in `fixtures/games/afrika/*.txt` (format in `docs/afrika.md`); every
//! file there is replayed, so more published games can be dropped in without code.

mod reference;

use std::path::PathBuf;
use std::time::Duration;

use sowfan::game::prelude::*;
use sowfan::games::afrika::{self, Afrika, AfrikaPosition};

use crate::support::games;
use crate::support::perft_fixture::{self, Budget, PerftLine};
use crate::support::rng::Rng;
use crate::support::selfplay::{play_out, protocol_game};
use crate::support::walk::{self, Walk, walk};
use crate::support::{Engine, fixture};
use reference::{Board, Rules};

/// Half points from a score as `d` shows it: `64`, `66.5`, `-0.5`.
fn halves(text: &str) -> i64 {
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let value = match digits.split_once('.') {
        Some((whole, "5")) => 2 * whole.parse::<i64>().unwrap() + 1,
        Some(_) => panic!("not a half-point score: {text}"),
        None => 2 * digits.parse::<i64>().unwrap(),
    };
    if negative { -value } else { value }
}

// ---------------------------------------------------------------------------------------
// What `d` shows, read through the protocol.

#[derive(Debug)]
struct Shown {
    fen: String,
    /// p1 (North), p2 (South), in half points, komi included.
    scores: [i64; 2],
    /// `p1` / `p2` while the game goes on.
    to_move: Option<String>,
    /// `p1win` / `p2win` / `draw` once it is over.
    result: Option<String>,
    errors: Vec<String>,
}

impl Shown {
    /// Stones still on the board, from the position string.
    fn stones_on_board(&self) -> u32 {
        let board = self.fen.split_whitespace().next().unwrap();
        board
            .split('/')
            .flat_map(|row| {
                let counts: Vec<u32> = row.split(',').map(|n| n.parse().unwrap()).collect();
                counts[..counts.len() - 1].to_vec()
            })
            .sum()
    }
}

/// Send `command` (a `position …` line) and `d`; parse the picture.
fn show(engine: &mut Engine, command: &str) -> Shown {
    engine.send(command);
    engine.send("d");
    let lines = engine.until(Duration::from_secs(30), |l| {
        l.starts_with("Result:") || l.starts_with("To move:")
    });
    let mut shown = Shown {
        fen: String::new(),
        scores: [0, 0],
        to_move: None,
        result: None,
        errors: Vec::new(),
    };
    for line in &lines {
        if line.starts_with("info string error") {
            shown.errors.push(line.clone());
        } else if let Some(fen) = line.strip_prefix("Fen: ") {
            shown.fen = fen.to_string();
        } else if let Some(score) = line.strip_prefix("Score: ") {
            let words: Vec<&str> = score.split_whitespace().collect();
            assert_eq!((words[0], words[2]), ("p1", "p2"), "{line}");
            shown.scores = [halves(words[1]), halves(words[3])];
        } else if let Some(player) = line.strip_prefix("To move: ") {
            shown.to_move = Some(player.to_string());
        } else if let Some(result) = line.strip_prefix("Result: ") {
            shown.result = result.split_whitespace().next().map(String::from);
        }
    }
    shown
}

// ---------------------------------------------------------------------------------------
// Annotated game records.

#[derive(Debug)]
struct RecordMove {
    text: String,
    /// `(+N …)` after the move: the stones it takes.
    taken: Option<i64>,
    /// As printed in the record, e.g. `10...xh`, for messages.
    label: String,
}

/// An expectation under the record's game plus some extra options.
#[derive(Debug)]
struct Expected {
    extra_options: String,
    value: String,
}

#[derive(Debug)]
struct Record {
    file: String,
    game: String,
    start: Option<String>,
    moves: Vec<RecordMove>,
    final_position: Option<String>,
    scores: Vec<Expected>,
    results: Vec<Expected>,
}

fn parse_record(file: &str, text: &str) -> Record {
    let mut record = Record {
        file: file.to_string(),
        game: String::new(),
        start: None,
        moves: Vec::new(),
        final_position: None,
        scores: Vec::new(),
        results: Vec::new(),
    };
    let mut movetext = String::new();
    let mut in_moves = false;
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if in_moves {
            movetext.push_str(line);
            movetext.push(' ');
            continue;
        }
        let (key, value) = line
            .split_once(':')
            .unwrap_or_else(|| panic!("{file}: header line without ':': {line}"));
        let mut words = key.split_whitespace();
        let name = words.next().unwrap_or_default();
        let extra_options = words.collect::<Vec<_>>().join(" ");
        let value = value.trim().to_string();
        match name {
            "game" => record.game = value,
            "start" if value != "startpos" => record.start = Some(value),
            "start" => {}
            "final" => record.final_position = Some(value),
            "score" => record.scores.push(Expected {
                extra_options,
                value,
            }),
            "result" => record.results.push(Expected {
                extra_options,
                value,
            }),
            "moves" => {
                in_moves = true;
                movetext.push_str(&value);
                movetext.push(' ');
            }
            // Descriptive headers (players, event, source): for people.
            _ => {}
        }
    }
    assert!(
        record.game.starts_with("afrika"),
        "{file}: needs 'game: afrika …'"
    );
    record.moves = parse_movetext(file, &movetext);
    record
}

/// `1. e G 2. h xd (+11) …`: move numbers, moves, and `(+N comment)` annotations.
fn parse_movetext(file: &str, text: &str) -> Vec<RecordMove> {
    let mut moves: Vec<RecordMove> = Vec::new();
    let mut number = String::from("1");
    let mut rest = text.trim_start();
    while !rest.is_empty() {
        if let Some(inner) = rest.strip_prefix('(') {
            let (annotation, after) = inner
                .split_once(')')
                .unwrap_or_else(|| panic!("{file}: unclosed '(' in {rest:?}"));
            let last = moves
                .last_mut()
                .unwrap_or_else(|| panic!("{file}: annotation before any move"));
            assert!(
                last.taken.is_none(),
                "{file}: two annotations on {}",
                last.label
            );
            let count = annotation
                .trim()
                .strip_prefix('+')
                .map(|a| a.split(|c: char| !c.is_ascii_digit()).next().unwrap_or(""))
                .and_then(|n| n.parse().ok())
                .unwrap_or_else(|| panic!("{file}: annotation must start '+N': ({annotation})"));
            last.taken = Some(count);
            rest = after.trim_start();
            continue;
        }
        let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        let token = &rest[..end];
        rest = rest[end..].trim_start();
        if let Some(n) = token.strip_suffix('.') {
            number = n.trim_end_matches('.').to_string();
            continue;
        }
        let label = format!("{number}. {token}");
        moves.push(RecordMove {
            text: token.to_string(),
            taken: None,
            label,
        });
    }
    moves
}

fn records() -> Vec<Record> {
    let dir = fixture("games/afrika");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    files.sort();
    files
        .iter()
        .map(|path| {
            let text = std::fs::read_to_string(path).unwrap();
            parse_record(&path.display().to_string(), &text)
        })
        .collect()
}

fn replay(record: &Record) {
    let file = &record.file;
    let mut engine = Engine::start(&[]);
    engine.send(&format!("newgame {}", record.game));
    let base = match &record.start {
        Some(fen) => format!("position fen {fen}"),
        None => "position startpos".to_string(),
    };
    let mut before = show(&mut engine, &base);
    assert!(before.errors.is_empty(), "{file}: {:?}", before.errors);
    let mut played: Vec<&str> = Vec::new();
    for mv in &record.moves {
        played.push(&mv.text);
        let after = show(&mut engine, &format!("{base} moves {}", played.join(" ")));
        let label = &mv.label;
        assert!(
            after.errors.is_empty(),
            "{file}: {label} rejected: {:?}",
            after.errors
        );
        let mover = match before.to_move.as_deref() {
            Some("p1") => 0,
            Some("p2") => 1,
            other => panic!("{file}: {label} played when the game was over ({other:?})"),
        };
        let gained = after.scores[mover] - before.scores[mover];
        let other_gained = after.scores[1 - mover] - before.scores[1 - mover];
        assert_eq!(
            other_gained, 0,
            "{file}: {label} changed the other player's score"
        );
        let expected = if mv.text.starts_with('x') {
            match mv.taken {
                Some(n) => 2 * n,
                None => {
                    assert!(gained > 0, "{file}: {label} took nothing");
                    gained
                }
            }
        } else {
            // Sowing never captures.
            2 * mv.taken.unwrap_or(0)
        };
        assert_eq!(
            gained,
            expected,
            "{file}: {label} took {} stones, the record says {:?}; now {}",
            gained / 2,
            mv.taken,
            after.fen
        );
        before = after;
    }
    if let Some(expected) = &record.final_position {
        assert_eq!(&before.fen, expected, "{file}: final position");
    }
    let all_moves = format!("{base} moves {}", played.join(" "));
    for expected in &record.scores {
        engine.send(&format!(
            "newgame {} {}",
            record.game, expected.extra_options
        ));
        let end = show(&mut engine, &all_moves);
        let words: Vec<&str> = expected.value.split_whitespace().collect();
        assert_eq!(
            end.scores,
            [halves(words[0]), halves(words[1])],
            "{file}: score with '{}'",
            expected.extra_options
        );
    }
    for expected in &record.results {
        engine.send(&format!(
            "newgame {} {}",
            record.game, expected.extra_options
        ));
        let end = show(&mut engine, &all_moves);
        assert_eq!(
            end.result.as_deref(),
            Some(expected.value.as_str()),
            "{file}"
        );
        assert_eq!(engine.query("gameover"), "true", "{file}");
        assert_eq!(
            engine.query("result"),
            expected.value,
            "{file}: result with '{}'",
            expected.extra_options
        );
    }
}

#[test]
fn annotated_game_records_replay_through_the_protocol() {
    let records = records();
    assert!(!records.is_empty(), "no records in fixtures/games/afrika");
    for record in &records {
        assert!(!record.moves.is_empty(), "{}: no moves", record.file);
        replay(record);
    }
}

#[test]
fn record_format_reads_corrected_annotations_and_options() {
    let record = parse_record(
        "inline",
        "# comment\ngame: afrika\nresult komi=2.5: p2win\nmoves: 1. e G 2. h xd (+11; source \
         says +9)\n3. xA (+13)\n",
    );
    assert_eq!(record.results[0].extra_options, "komi=2.5");
    let texts: Vec<&str> = record.moves.iter().map(|m| m.text.as_str()).collect();
    assert_eq!(texts, ["e", "G", "h", "xd", "xA"]);
    assert_eq!(record.moves[3].taken, Some(11));
    assert_eq!(record.moves[3].label, "2. xd");
    assert_eq!(record.moves[4].taken, Some(13));
}

#[test]
fn a_wrong_capture_count_in_a_record_is_caught() {
    // The source's uncorrected swap: South's 10th move annotated +1 where it takes 3.
    let record = parse_record(
        "uncorrected",
        "game: afrika\nmoves: 1. e G 2. h H 3. g E 4. h xd (+11) 5. xA (+13) F 6. g xd (+1) \
         7. xB (+13) xc (+12) 8. e xg (+1) 9. xD (+11) A 10. xD (+1) xh (+1)",
    );
    let failure = std::panic::catch_unwind(|| replay(&record));
    let message = failure.expect_err("the wrong annotation must fail");
    let text = message
        .downcast_ref::<String>()
        .cloned()
        .unwrap_or_default();
    assert!(text.contains("10. xh took 3 stones"), "{text}");
}

// ---------------------------------------------------------------------------------------
// Perft against the independent implementation.

/// The engine's game and position of a fixture line, and the reference's rules and board.
fn positions(line: &PerftLine) -> (Afrika, AfrikaPosition, Rules, Board) {
    assert!(line.spec.starts_with("afrika"), "{}", line.spec);
    let game = games::afrika(&line.options());
    let rules = Rules::from_options(&line.options());
    match line.fen() {
        Some(fen) => (
            game.clone(),
            games::at(&game, fen),
            rules,
            Board::parse(fen),
        ),
        None => (game.clone(), game.start_position(), rules, Board::start()),
    }
}

fn name(line: &PerftLine) -> String {
    format!("{} | {}", line.spec, line.position)
}

fn perft_lines() -> Vec<PerftLine> {
    let text = std::fs::read_to_string(fixture("perft/afrika.txt")).expect("the fixture");
    perft_fixture::parse(&text)
}

/// Leaves the slow reference may count per depth (it allocates at every node).
fn reference_budget() -> u64 {
    if cfg!(debug_assertions) {
        300_000
    } else {
        3_000_000
    }
}

#[test]
fn perft_fixture_agrees_with_the_engine_and_the_reference() {
    let lines = perft_lines();
    assert!(lines.len() >= 5, "expected several perft lines");
    for line in &lines {
        let (game, pos, rules, board) = positions(line);
        let budget = Budget {
            reference: reference_budget(),
            engine: u64::MAX,
        };
        let reached = perft_fixture::check_line(line, &budget, &game, &pos, |depth| {
            walk::perft_by_ply(&rules, &board, depth)
        });
        assert!(
            reached.reference >= 4,
            "{}: reference reached too few depths",
            name(line)
        );
    }
}

/// The engine's tree beside the reference's: Afrika's reference lists its moves in no
/// particular order.
const WALK: Walk = Walk {
    ordered: false,
    read_back: true,
    replay_leaves: true,
    leaf_moves: false,
};

#[test]
fn engine_and_reference_agree_node_by_node_and_moves_round_trip() {
    // Much slower per leaf than perft (position strings, sorting, parsing at every node).
    let budget = if cfg!(debug_assertions) {
        20_000
    } else {
        150_000
    };
    for line in perft_lines() {
        let (game, pos, rules, board) = positions(&line);
        let depth = line.counts.iter().take_while(|&&n| n <= budget).count();
        assert!(depth >= 3, "{}: too shallow", name(&line));
        let counts = walk(&game, &rules, &pos, &board, depth, &WALK);
        assert_eq!(counts[depth], line.counts[depth - 1], "{}", name(&line));
    }
}

#[test]
fn engine_and_reference_agree_along_random_games() {
    // Long random games reach what shallow trees do not: big pits, multi-lap sowing, empty
    // rows, the end of the board, targets.
    let mut rng = Rng::new(0x5EED_AF71_CA00_0001);
    for options in [&[][..], &["komi=2.5", "target=60"], &["target=40"]] {
        let game = games::afrika(options);
        let rules = Rules::from_options(options);
        for _ in 0..300 {
            let mut board = Board::start();
            play_out(&game, game.start_position(), |_, pos, moves| {
                // Every node of the last two plies below each position is compared too.
                walk(&game, &rules, pos, &board, 1, &WALK);
                if moves.is_empty() {
                    return None;
                }
                let mv = *rng.pick(moves);
                board = board.play(&game.format_move(pos, mv));
                Some(mv)
            });
            assert!(board.is_over(&rules));
        }
    }
}

// ---------------------------------------------------------------------------------------
// Self-play through the protocol.

#[test]
fn self_play_at_depth_3_always_ends_with_every_stone_accounted_for() {
    let mut rng = Rng::new(0xA5F1_C4A0);
    for options in [
        "",
        "komi=2.5",
        "target=65",
        "komi=2.5 target=65",
        "komi=-1 target=50",
    ] {
        let rules = Rules::from_options(&options.split_whitespace().collect::<Vec<_>>());
        let mut engine = Engine::start(&[]);
        engine.send(&format!("newgame afrika {options}"));
        for game in 0..5 {
            // Varied openings: up to four random plies before the engines take over.
            let opening = game % 5;
            let moves = protocol_game(&mut engine, 300, |engine, moves| {
                if moves.len() < opening {
                    rng.pick(&engine.legal()).clone()
                } else {
                    let lines = engine.ask("go depth 3", "bestmove ");
                    lines.last().unwrap()["bestmove ".len()..].to_string()
                }
            })
            .unwrap_or_else(|moves| {
                panic!("[{options}] game {game} did not end: {}", moves.join(" "))
            });
            let end = show(
                &mut engine,
                &format!("position startpos moves {}", moves.join(" ")),
            );
            assert!(end.errors.is_empty(), "{:?}", end.errors);
            let on_board = 2 * end.stones_on_board() as i64;
            assert_eq!(
                end.scores[0] + end.scores[1] + on_board,
                2 * afrika::STONES as i64 + rules.komi_halves,
                "[{options}] {}",
                end.fen
            );
            match rules.target {
                None => assert_eq!(on_board, 0, "[{options}] ended with stones on the board"),
                Some(t) => assert!(
                    on_board == 0 || end.scores.iter().any(|&s| s >= 2 * t),
                    "[{options}] ended early without reaching the target: {}",
                    end.fen
                ),
            }
            let expected = match end.scores[0].cmp(&end.scores[1]) {
                std::cmp::Ordering::Greater => "p1win",
                std::cmp::Ordering::Less => "p2win",
                std::cmp::Ordering::Equal => "draw",
            };
            assert_eq!(engine.query("result"), expected, "[{options}] {}", end.fen);
        }
    }
}

// ---------------------------------------------------------------------------------------
// The other protocol commands.

#[test]
fn perft_go_query_and_errors_through_the_protocol() {
    let script = "newgame afrika komi=2.5 target=65\n\
                  position startpos moves e G h H\n\
                  query p1turn\n\
                  legal\n\
                  perft 3\n\
                  position startpos moves e G h H g E h xd a\n\
                  position fen 8,8,8,8,8,8,8,8,0/8,8,8,8,8,8,8,8 N\n\
                  query p1turn\n\
                  position startpos moves e G h H g E h xd xA F\n\
                  query p1turn\n\
                  query gameover\n\
                  query result\n\
                  go depth 6\n";
    let out = crate::support::run_script(&[], script, Duration::from_secs(60));
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines.contains(&"legal a b c d e f g h"), "{out}");
    assert!(lines.contains(&"Nodes searched: 132"), "{out}");
    // Sowing while a capture is due is refused, naming the capture to play; a bad position
    // string says what is missing; both leave the position as it was (North to move).
    assert!(
        out.contains("move 9 'a' rejected") && out.contains("North must play xA"),
        "{out}"
    );
    assert!(out.contains("expected 9"), "{out}");
    let responses: Vec<&str> = lines
        .iter()
        .filter_map(|l| l.strip_prefix("response "))
        .collect();
    assert_eq!(
        responses,
        ["true", "true", "true", "false", "none"],
        "{out}"
    );
    let info = lines
        .iter()
        .rev()
        .find(|l| l.starts_with("info depth 6 "))
        .unwrap_or_else(|| panic!("no depth-6 info line: {out}"));
    assert!(crate::support::field(info, "score").is_some(), "{info}");
    let best = lines.last().unwrap().strip_prefix("bestmove ").unwrap();
    assert!(
        ["a", "b", "c", "d", "e", "f", "g", "h"].contains(&best),
        "{best}"
    );
}

/// fixtures/solved/afrika.txt: the cheap rows (under a million nodes) proven again by
/// `sowfan solve --all-moves` without tables: the value, and the row's best move keeps it.
#[test]
fn solved_positions_are_proven_again() {
    let text = std::fs::read_to_string(fixture("solved/afrika.txt")).expect("fixture");
    let mut checked = 0;
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let fields: Vec<&str> = line.split('|').map(str::trim).collect();
        let (fen, value, best, nodes) = (fields[0], fields[2], fields[3], fields[4]);
        let nodes: u64 = nodes.parse().expect("nodes");
        if nodes >= 1_000_000 {
            continue;
        }
        let out = crate::support::run::output(&[
            "solve",
            "afrika",
            "--fen",
            fen,
            "--hash",
            "64",
            "--all-moves",
        ]);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{fen}: {text}");
        assert!(text.contains(&format!("Value: {value}\n")), "{fen}: {text}");
        assert!(
            text.contains(&format!("{best}: {value}\n")),
            "{fen}: {text}"
        );
        checked += 1;
    }
    assert!(checked > 0, "no cheap row in the fixture");
}
