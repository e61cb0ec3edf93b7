//! `sowfan analyse` through the real binary: a planted blunder, the JSON Lines fields, the
//! SVG chart, every input form (match records, PGN, the Afrika fixture, plain lines),
//! malformed games, and byte-identical repeated runs.

use std::path::PathBuf;
use std::process::Output;
use std::time::Duration;

use serde_json::Value;
use sowfan::search::value::DECIDED;

use crate::support::games;
use crate::support::run::{self, args, output_with_input, sowfan};
use crate::support::selfplay::play_out;
use crate::support::{BIN, Engine, cp, fixture, scaled, scratch};

/// The fields of every `"type":"move"` line, as README.md documents them.
const MOVE_FIELDS: &[&str] = &[
    "type",
    "game",
    "ply",
    "by",
    "opening",
    "fen",
    "move",
    "best",
    "best_score",
    "best_kind",
    "score",
    "score_kind",
    "p1_score",
    "loss",
    "mark",
    "depth",
    "nodes",
];

/// The fields of every `"type":"game"` line.
const GAME_FIELDS: &[&str] = &[
    "type",
    "game",
    "line",
    "format",
    "spec",
    "p1",
    "p2",
    "fen",
    "moves",
    "opening",
    "limits",
    "result",
    "reason",
    "p1_moves",
    "p1_avg_loss",
    "p1_only",
    "p1_inaccuracies",
    "p1_mistakes",
    "p1_blunders",
    "p2_moves",
    "p2_avg_loss",
    "p2_only",
    "p2_inaccuracies",
    "p2_mistakes",
    "p2_blunders",
    "decisive_ply",
    "decisive_by",
    "decisive_move",
    "decisive_loss",
    "chart",
];

const ERROR_FIELDS: &[&str] = &["type", "game", "line", "error"];

/// Run `sowfan analyse ARGS` with `input` on stdin.
fn analyse(arguments: &[&str], input: &str) -> Output {
    let mut all = vec!["analyse"];
    all.extend_from_slice(arguments);
    output_with_input(&all, input)
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).expect("UTF-8 output")
}

/// Every line of JSON Lines output, parsed (panics on a line that is not one object).
fn json_lines(output: &Output) -> Vec<Value> {
    stdout(output)
        .lines()
        .map(|line| {
            let value: Value =
                serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON: {line}: {e}"));
            assert!(value.is_object(), "{line}");
            value
        })
        .collect()
}

fn of_type<'a>(lines: &'a [Value], kind: &str) -> Vec<&'a Value> {
    lines.iter().filter(|l| l["type"] == kind).collect()
}

/// The keys of a JSON object, sorted.
fn keys(value: &Value) -> Vec<&str> {
    let mut keys: Vec<&str> = value
        .as_object()
        .expect("an object")
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort_unstable();
    keys
}

fn sorted(fields: &[&'static str]) -> Vec<&'static str> {
    let mut fields = fields.to_vec();
    fields.sort_unstable();
    fields
}

/// The engine's `go depth N` score of a position, from a fresh process (a fresh table, as
/// the analysis uses), with whether p1 is to move there.
fn engine_score(position: &str, depth: u32) -> (i64, bool) {
    let mut engine = Engine::start(&[]);
    engine.send("newgame kalah");
    engine.send(&format!("position {position}"));
    engine.send("query p1turn");
    let p1 = engine.until(Duration::from_secs(10), |l| l.starts_with("response"));
    let p1_turn = p1.last().is_some_and(|l| l.ends_with("true"));
    engine.send(&format!("go depth {depth}"));
    let lines = engine.until(Duration::from_secs(60), |l| l.starts_with("bestmove"));
    let info = lines
        .iter()
        .rfind(|l| l.contains(" score cp "))
        .expect("a cp score");
    engine.send("quit");
    (cp(info).expect("a cp score"), p1_turn)
}

#[test]
fn analyse_marks_a_planted_kalah_blunder_with_the_right_loss() {
    // North to move; `d` loses 20 points against the best move's +4 (`sowfan solve kalah
    // --fen … --all-moves`: a −6, b 0, c +4, d −16, e −12), by either evaluation at depth
    // 10. 45 seeds in the pits: beyond the proofs a Kalah search tries first (40), which the
    // engine's scores below would then be and the analysis's not.
    let fen = "5,5,0,5,1,6,2/6,5,4,4,4,0,1 N";
    let output = analyse(
        &["--depth", "10", "--format", "jsonl"],
        &format!("kalah: fen {fen} moves d\n"),
    );
    assert!(output.status.success(), "{output:?}");
    let lines = json_lines(&output);
    let moves = of_type(&lines, "move");
    assert_eq!(moves.len(), 1);
    let m = moves[0];
    assert_eq!(m["by"], "p2");
    assert_eq!(m["move"], "d");
    assert_eq!(m["fen"], fen);
    assert_eq!(m["mark"], "??", "{m}");
    assert_ne!(m["best"], "d");
    // The loss, recomputed from the protocol: best (North's view before) minus the score
    // after `d` seen by North (negated when South moves next, not after an extra move),
    // each held within ±DECIDED points (a larger lead is a decided game).
    let (before, _) = engine_score(&format!("fen {fen}"), 10);
    let (after, p1_to_move) = engine_score(&format!("fen {fen} moves d"), 10);
    let after_for_north = if p1_to_move { -after } else { after };
    let held = |cp: i64| (cp as f64 / 100.0).clamp(-DECIDED, DECIDED);
    let expected = ((held(before) - held(after_for_north)) * 100.0).round() / 100.0;
    assert!(expected >= 4.0, "the planted move loses {expected}");
    assert_eq!(m["loss"].as_f64(), Some(expected), "{m}");
    assert_eq!(m["best_score"].as_f64(), Some(before as f64 / 100.0));
    assert_eq!(m["score"].as_f64(), Some(after_for_north as f64 / 100.0));
    let game = &of_type(&lines, "game")[0];
    assert_eq!(game["p2_blunders"], 1);
    assert_eq!(game["p2_avg_loss"].as_f64(), Some(expected));
    // The text form shows the same.
    let text = stdout(&analyse(
        &["--depth", "10"],
        &format!("kalah: fen {fen} moves d\n"),
    ));
    let row = text
        .lines()
        .find(|l| l.trim_start().starts_with("1  p2  d"))
        .unwrap_or_else(|| panic!("no row for the move:\n{text}"));
    assert!(row.contains(&format!("{expected:.2}  ??")), "{row}");
}

/// Two games of a small match, as records and as PGN.
fn match_files(name: &str) -> (PathBuf, PathBuf) {
    let records = scratch(&format!("{name}.jsonl"));
    let pgn = scratch(&format!("{name}.pgn"));
    let run = sowfan(
        "match",
        &args(&format!(
            "--engine cmd={BIN} name=d1 depth=1 --engine cmd={BIN} name=d4 depth=4 \
             --game kalah --games 2 --openings plies=2 --seed 7 --quiet --records {} --pgn {}",
            records.display(),
            pgn.display()
        )),
        Duration::from_secs(60),
    );
    assert!(run.success, "{}", run.stderr);
    (records, pgn)
}

#[test]
fn analyse_json_lines_parse_with_the_documented_fields_and_records_equal_pgn() {
    let (records, pgn) = match_files("analyse-json");
    let mut input = std::fs::read_to_string(&records).expect("records");
    // A malformed record and an illegal plain line: reported, the rest analysed.
    input.push_str("{\"game\":\"kalah\",\"moves\":[{\"move\":\"Q\"}]}\nkalah: C C\n");
    let output = analyse(&["--depth", "6", "--format", "jsonl"], &input);
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("game 3 (line 3): move 1 'Q' rejected"),
        "{stderr}"
    );
    assert!(
        stderr.contains("game 4 (line 4): move 2 'C' rejected"),
        "{stderr}"
    );
    let lines = json_lines(&output);
    for line in &lines {
        let expected = match line["type"].as_str() {
            Some("move") => MOVE_FIELDS,
            Some("game") => GAME_FIELDS,
            Some("error") => ERROR_FIELDS,
            other => panic!("unknown type {other:?}"),
        };
        assert_eq!(keys(line), sorted(expected), "{line}");
    }
    let games = of_type(&lines, "game");
    let errors = of_type(&lines, "error");
    assert_eq!(games.len(), 2);
    assert_eq!(errors.len(), 2);
    assert_eq!(errors[0]["game"], 3);
    assert!(
        errors[1]["error"]
            .as_str()
            .unwrap()
            .contains("'C' is illegal")
    );
    let stored: Vec<Value> = crate::support::records(&records);
    for game in &games {
        let number = game["game"].as_u64().unwrap() as usize;
        let record = stored
            .iter()
            .find(|r| r["p1"] == game["p1"] && r["p2"] == game["p2"])
            .expect("the record");
        let opening = record["opening"]["moves"].as_array().unwrap().len();
        let played = record["moves"].as_array().unwrap().len();
        assert_eq!(game["moves"], opening + played);
        assert_eq!(game["opening"], opening);
        assert_eq!(game["result"], record["result"]);
        assert_eq!(game["format"], "records");
        let moves: Vec<&Value> = of_type(&lines, "move")
            .into_iter()
            .filter(|m| m["game"] == number)
            .collect();
        assert_eq!(moves.len(), opening + played);
        for (i, m) in moves.iter().enumerate() {
            assert_eq!(m["ply"], i + 1);
            assert_eq!(m["opening"], i < opening);
            assert!(m["loss"].as_f64().unwrap() >= 0.0);
            assert!(["", "!", "?!", "?", "??"].contains(&m["mark"].as_str().unwrap()));
            assert!(
                ["cp", "exact", "bound", "win", "loss"]
                    .contains(&m["score_kind"].as_str().unwrap())
            );
        }
        // Counted marks agree with the move lines.
        for player in ["p1", "p2"] {
            let blunders = moves
                .iter()
                .filter(|m| m["by"] == player && m["mark"] == "??" && m["opening"] == false)
                .count();
            assert_eq!(game[format!("{player}_blunders")], blunders);
        }
    }
    // The PGN export of the same games gives the same move lines.
    let from_pgn = analyse(
        &[pgn.to_str().unwrap(), "--depth", "6", "--format", "jsonl"],
        "",
    );
    assert!(from_pgn.status.success(), "{from_pgn:?}");
    let pgn_lines = json_lines(&from_pgn);
    let move_lines = |lines: &[Value]| -> Vec<String> {
        of_type(lines, "move")
            .iter()
            .map(|m| m.to_string())
            .collect()
    };
    assert_eq!(move_lines(&pgn_lines), move_lines(&lines));
    assert_eq!(of_type(&pgn_lines, "game")[0]["format"], "pgn");
}

#[test]
fn analyse_draws_one_svg_chart_per_game_with_one_point_per_move() {
    let (records, _) = match_files("analyse-chart");
    let chart = scratch("analyse-chart.svg");
    let output = analyse(
        &[
            records.to_str().unwrap(),
            "--depth",
            "4",
            "--format",
            "jsonl",
            "--chart",
            chart.to_str().unwrap(),
        ],
        "",
    );
    assert!(output.status.success(), "{output:?}");
    let lines = json_lines(&output);
    let games = of_type(&lines, "game");
    assert_eq!(games.len(), 2);
    for game in games {
        // Several games: one file each, numbered by the game.
        let path = scratch(&format!("analyse-chart-{}.svg", game["game"]));
        assert_eq!(game["chart"], path.to_str().unwrap());
        let svg = std::fs::read_to_string(&path).expect("the chart file");
        let doc = roxmltree::Document::parse(&svg).expect("the chart is XML");
        assert_eq!(doc.root_element().tag_name().name(), "svg");
        let circles = doc
            .descendants()
            .filter(|n| n.has_tag_name("circle"))
            .count();
        assert_eq!(circles as u64, game["moves"].as_u64().unwrap());
        let texts: Vec<String> = doc
            .descendants()
            .filter(|n| n.has_tag_name("text"))
            .filter_map(|n| n.text())
            .map(|t| t.trim().to_string())
            .collect();
        let title = format!(
            "Game {}: kalah, {} (p1) vs {} (p2), {}",
            game["game"],
            game["p1"].as_str().unwrap(),
            game["p2"].as_str().unwrap(),
            game["result"].as_str().unwrap()
        );
        assert!(texts.contains(&title), "{title} not in {texts:?}");
        assert!(texts.iter().any(|t| t == "move (ply)"), "{texts:?}");
        assert!(
            texts.iter().any(|t| t.starts_with("points for p1")),
            "{texts:?}"
        );
    }
    // One game: the file name as given.
    let single = scratch("analyse-single.svg");
    let output = analyse(
        &["--depth", "4", "--chart", single.to_str().unwrap()],
        "kalah: C F e\n",
    );
    assert!(output.status.success(), "{output:?}");
    let svg = std::fs::read_to_string(&single).expect("the single chart");
    let doc = roxmltree::Document::parse(&svg).expect("XML");
    assert_eq!(
        doc.descendants()
            .filter(|n| n.has_tag_name("circle"))
            .count(),
        3
    );
}

#[test]
fn analyse_the_published_afrika_game_end_to_end() {
    let path = fixture("games/afrika/game1-de-leo-gering-2007.txt");
    let output = analyse(
        &[path.to_str().unwrap(), "--depth", "6", "--format", "jsonl"],
        "",
    );
    assert!(output.status.success(), "{output:?}");
    let lines = json_lines(&output);
    let moves = of_type(&lines, "move");
    assert_eq!(moves.len(), 66);
    assert_eq!(moves[0]["move"], "e");
    assert_eq!(moves[0]["by"], "p1");
    assert_eq!(moves[65]["move"], "xb");
    // The last move empties the board: an exact draw.
    assert_eq!(moves[65]["score_kind"], "exact");
    assert_eq!(moves[65]["score"].as_f64(), Some(0.0));
    let game = of_type(&lines, "game")[0];
    assert_eq!(game["format"], "fixture");
    assert_eq!(game["spec"], "afrika");
    assert_eq!(game["p1"], "Maurizio De Leo");
    assert_eq!(game["p2"], "Ralf Gering");
    assert_eq!(game["result"], "draw");
    assert_eq!(game["decisive_ply"], Value::Null);
    assert_eq!(game["p1_moves"], 33);
    assert_eq!(game["p2_moves"], 33);
    // The text form, for people.
    let text = stdout(&analyse(&[path.to_str().unwrap(), "--depth", "4"], ""));
    assert!(
        text.starts_with("Game 1: afrika, Maurizio De Leo (p1) vs Ralf Gering (p2)"),
        "{text}"
    );
    assert!(text.contains("Result: draw (the board is empty)"), "{text}");
}

#[test]
fn analyse_twice_gives_byte_identical_output_whatever_the_threads() {
    let (records, pgn) = match_files("analyse-repeat");
    let mut input = std::fs::read_to_string(&records).expect("records");
    input.push_str(&std::fs::read_to_string(&pgn).expect("pgn"));
    input.push_str("\nkalah pits=4 seeds=3: C b a d B\n");
    let run = |threads: &str, format: &str| {
        let output = analyse(
            &["--nodes", "3000", "--threads", threads, "--format", format],
            &input,
        );
        assert!(output.status.success(), "{output:?}");
        output.stdout
    };
    let first = run("1", "text");
    assert_eq!(first, run("1", "text"));
    assert_eq!(first, run("2", "text"));
    let json = run("1", "jsonl");
    assert_eq!(json, run("2", "jsonl"));
    let text = String::from_utf8(first).unwrap();
    assert_eq!(text.matches("\nResult: ").count(), 5, "{text}");
}

#[test]
fn analyse_with_tables_gives_exact_values_losses_and_only_moves() {
    use sowfan::game::prelude::*;
    use sowfan::games::kalah::Kalah;
    use sowfan::tables::Tables;

    let dir = scratch("analyse-tables");
    let _ = std::fs::remove_dir_all(&dir);
    let d = dir.display().to_string();
    let built = run::output(&["tablebase", "build", "kalah", "--seeds", "10", "--dir", &d]);
    assert!(built.status.success());
    let game = games::kalah(&[]);
    let tables = Tables::open(&game, &dir).expect("tables").expect("present");
    // The mover's exact final margin (half-points).
    let exact = |pos: &<Kalah as sowfan::game::Rules>::Position| -> i32 {
        match game.outcome(pos) {
            Some(outcome) => {
                let me = game.to_move(pos).index();
                (outcome.scores[me] - outcome.scores[1 - me]).halves()
            }
            None => game.banked_value(pos) + tables.probe(&game, pos).expect("covered"),
        }
    };
    // Every move's value for the mover.
    let values = |pos: &<Kalah as sowfan::game::Rules>::Position| -> Vec<(String, i32)> {
        let mut moves = Vec::new();
        game.legal_moves(pos, &mut moves);
        moves
            .iter()
            .map(|&mv| {
                let mut child = *pos;
                game.play(&mut child, mv);
                let v = exact(&child);
                let v = if game.to_move(&child) == game.to_move(pos) {
                    v
                } else {
                    -v
                };
                (game.format_move(pos, mv), v)
            })
            .collect()
    };
    // A game from a covered position to the end: each side plays its last legal move.
    let fen = "1,0,2,0,0,3,20/0,1,0,0,2,1,18 S";
    let start = game.parse_position(fen).expect("position");
    let mut line = Vec::new();
    let mut expected = Vec::new();
    play_out(&game, start, |_, pos, _| {
        if game.outcome(pos).is_some() {
            return None;
        }
        let all = values(pos);
        let (played, value) = all.last().unwrap().clone();
        let best = all.iter().map(|(_, v)| *v).max().unwrap();
        let unique = all.iter().filter(|(_, v)| *v == best).count() == 1;
        let in_doubt = |halves: i32| (f64::from(halves) / 2.0).clamp(-10.0, 10.0);
        let loss = if value == best {
            0.0
        } else {
            in_doubt(best) - in_doubt(value)
        };
        expected.push((
            played.clone(),
            best,
            value,
            loss,
            value == best && unique && all.len() > 1,
        ));
        let mv = game.parse_move(pos, &played).expect("legal");
        line.push(played);
        Some(mv)
    });
    assert!(expected.len() >= 3, "{line:?}");
    let output = analyse(
        &["--depth", "8", "--tablebases", &d, "--format", "jsonl"],
        &format!("kalah: fen {fen} moves {}\n", line.join(" ")),
    );
    assert!(output.status.success(), "{output:?}");
    let lines = json_lines(&output);
    let moves = of_type(&lines, "move");
    assert_eq!(moves.len(), expected.len());
    for (m, (played, best, value, loss, only)) in moves.iter().zip(&expected) {
        assert_eq!(m["move"], played.as_str());
        assert_eq!(m["best_kind"], "exact", "{m}");
        assert_eq!(m["score_kind"], "exact", "{m}");
        assert_eq!(
            m["best_score"].as_f64(),
            Some(f64::from(*best) / 2.0),
            "{m}"
        );
        assert_eq!(m["score"].as_f64(), Some(f64::from(*value) / 2.0), "{m}");
        assert_eq!(m["loss"].as_f64(), Some(*loss), "{m}");
        if *only {
            assert_eq!(m["mark"], "!", "{m}");
        } else {
            assert_ne!(m["mark"], "!", "{m}");
        }
    }
    let text = stdout(&analyse(
        &["--depth", "8", "--tablebases", &d],
        &format!("kalah: fen {fen} moves {}\n", line.join(" ")),
    ));
    assert!(text.contains('*'), "exact values are starred:\n{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A running `sowfan analyse ARGS` fed by `feed` on a thread (its stdin is closed when
/// `feed` returns); stdout and stderr are read as they come.
struct Fed {
    child: std::process::Child,
    out: std::thread::JoinHandle<Vec<u8>>,
    err: std::thread::JoinHandle<Vec<u8>>,
    /// True once `feed` has written everything.
    fed: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

impl Fed {
    fn start(
        arguments: &[&str],
        feed: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()> + Send + 'static,
    ) -> Fed {
        use std::io::Read;
        let mut child = run::piped(&["analyse"])
            .args(arguments)
            .spawn()
            .expect("start sowfan analyse");
        let mut stdin = child.stdin.take().expect("stdin");
        let fed = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let done = std::sync::Arc::clone(&fed);
        std::thread::spawn(move || {
            if feed(&mut stdin).is_ok() {
                done.store(true, std::sync::atomic::Ordering::SeqCst);
            }
        });
        let read = |mut stream: Box<dyn Read + Send>| {
            std::thread::spawn(move || {
                let mut bytes = Vec::new();
                let _ = stream.read_to_end(&mut bytes);
                bytes
            })
        };
        let out = read(Box::new(child.stdout.take().expect("stdout")));
        let err = read(Box::new(child.stderr.take().expect("stderr")));
        Fed {
            child,
            out,
            err,
            fed,
        }
    }

    /// The peak resident memory (KiB) seen while it runs, up to `limit`; then it is killed
    /// if still running. Returns (peak, exit code, stdout, stderr, still running at the
    /// end).
    fn watch(mut self, limit: Duration) -> (u64, Option<i32>, String, String, bool) {
        let started = std::time::Instant::now();
        let pid = self.child.id();
        let mut peak = 0;
        let mut running = true;
        while started.elapsed() < limit {
            if let Some(kb) = run::status_kb(pid, "VmHWM:") {
                peak = peak.max(kb);
            }
            if self.child.try_wait().expect("wait").is_some() {
                running = false;
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        if running {
            let _ = self.child.kill();
        }
        let status = self.child.wait().expect("wait");
        let out = String::from_utf8_lossy(&self.out.join().unwrap_or_default()).into_owned();
        let err = String::from_utf8_lossy(&self.err.join().unwrap_or_default()).into_owned();
        (peak, status.code(), out, err, running)
    }
}

/// Run `sowfan analyse ARGS` on these bytes (not necessarily UTF-8).
fn analyse_bytes(arguments: &[&str], input: Vec<u8>) -> (Option<i32>, String, String) {
    let (_, code, out, err, running) = Fed::start(arguments, move |stdin| stdin.write_all(&input))
        .watch(scaled(Duration::from_secs(60)));
    assert!(!running, "analyse did not finish in 60 s:\n{out}\n{err}");
    (code, out, err)
}

/// Item 4: 300 000 short games into stdin while the analysis is slow: the old reader queued
/// them all (gigabytes); now the reader waits (the input is not all taken) and the memory
/// stays small.
#[test]
fn analyse_streams_a_huge_input_with_bounded_memory_and_backpressure() {
    let fed = Fed::start(
        &["--depth", "3", "--hash", "1", "--format", "jsonl"],
        |stdin| {
            let mut chunk = String::new();
            for _ in 0..300_000 {
                chunk.push_str("kalah pits=4 seeds=3: C b a d B\n");
                if chunk.len() > 1 << 16 {
                    stdin.write_all(chunk.as_bytes())?;
                    chunk.clear();
                }
            }
            stdin.write_all(chunk.as_bytes())
        },
    );
    let fed_flag = std::sync::Arc::clone(&fed.fed);
    let (peak, _, out, err, running) = fed.watch(Duration::from_secs(4));
    assert!(running, "300 000 games cannot be analysed in 4 s:\n{err}");
    assert!(peak < 200 * 1024, "peak memory {peak} KiB");
    assert!(
        !fed_flag.load(std::sync::atomic::Ordering::SeqCst),
        "the reader should wait for the analysis, not take the whole input"
    );
    assert!(
        out.contains("\"type\":\"game\""),
        "games were analysed: {err}"
    );
}

/// Item 4: a 200 MB line is an error of its own (skipped in chunks, never held), and the
/// games after it are analysed; exit status 1 as for any malformed game.
#[test]
fn analyse_rejects_a_200_mb_line_in_bounded_memory() {
    let fed = Fed::start(&["--depth", "2", "--format", "jsonl"], |stdin| {
        stdin.write_all(b"kalah: C\n")?;
        let block = vec![b'A'; 1 << 20];
        stdin.write_all(b"kalah: ")?;
        for _ in 0..200 {
            stdin.write_all(&block)?;
        }
        stdin.write_all(b"\nkalah: C A\n")
    });
    let (peak, code, out, err, running) = fed.watch(scaled(Duration::from_secs(60)));
    assert!(!running, "{err}");
    assert_eq!(code, Some(1), "{err}");
    assert!(peak < 100 * 1024, "peak memory {peak} KiB");
    let lines: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON"))
        .collect();
    let games = of_type(&lines, "game");
    assert_eq!(games.len(), 2, "{out}");
    assert_eq!(
        (games[0]["line"].as_u64(), games[1]["line"].as_u64()),
        (Some(1), Some(3))
    );
    let errors = of_type(&lines, "error");
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0]["line"], 2);
    assert!(
        errors[0]["error"]
            .as_str()
            .unwrap()
            .contains("longer than 8 MiB"),
        "{}",
        errors[0]
    );
}

/// Item 4: a byte that is not UTF-8 spoils its line's game only (a plain line, a PGN game);
/// every other game is analysed and the status is 1.
#[test]
fn analyse_a_non_utf8_byte_is_an_error_of_its_game_only() {
    let mut input = b"kalah: C\nkalah: \xff C\n".to_vec();
    input.extend_from_slice(b"[Game \"kalah\"]\n\nC A\nE {a \xc3 comment}\n\nkalah: E\n");
    input.extend_from_slice(b"{\"game\":\"kalah\",\"moves\":[\"\xfe\"]}\nkalah: D\n");
    let (code, out, err) = analyse_bytes(&["--depth", "2", "--format", "jsonl"], input);
    assert_eq!(code, Some(1), "{err}");
    let lines: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON"))
        .collect();
    let lines_of = |kind: &str| -> Vec<u64> {
        of_type(&lines, kind)
            .iter()
            .map(|g| g["line"].as_u64().unwrap())
            .collect()
    };
    assert_eq!(lines_of("game"), vec![1, 8, 10], "{out}");
    assert_eq!(lines_of("error"), vec![2, 3, 9], "{out}");
    assert!(out.contains("not UTF-8"), "{out}");
}

/// Items 3 and 11: `--hash` is capped like the protocol's Hash, for all the workers'
/// tables together, and `--threads` is capped: refused at once, status 1.
#[test]
fn analyse_caps_hash_times_threads_and_threads_up_front() {
    let refused = |arguments: &[&str], said: &str| {
        let started = std::time::Instant::now();
        let (code, out, err) = analyse_bytes(arguments, b"kalah: C\n".to_vec());
        assert_eq!(code, Some(1), "{arguments:?}: {err}");
        assert!(out.is_empty(), "{out}");
        assert!(err.contains(said), "{arguments:?}: {err}");
        assert!(started.elapsed() < scaled(Duration::from_secs(5)));
    };
    refused(
        &["--hash", "1000000"],
        "--hash: 1000000 MB is more than the most",
    );
    refused(&["--hash", "0"], "--hash: 0 MB");
    refused(
        &["--hash", "2000", "--threads", "200"],
        "for each of 200 tables",
    );
    refused(
        &["--threads", "257"],
        "--threads 257: give a number of threads in 1..=256",
    );
    refused(
        &["--threads", "0"],
        "--threads 0: give a number of threads in 1..=256",
    );
}

/// Item 11: a worker thread that cannot be started (`ulimit -u`: the user's processes and
/// threads are capped) never panics: the analysis goes on with the workers it has, with a
/// warning. The cap needs user namespaces or root
/// ([`crate::support::limits::with_few_threads`]); where neither is, the test fails unless
/// `SOWFAN_TEST_SKIP=nproc`.
#[test]
fn analyse_without_room_for_its_threads_does_not_panic() {
    let Some(mut command) = crate::support::limits::with_few_threads(3, BIN) else {
        crate::support::limits::cannot_run_here("nproc", crate::support::limits::NO_THREAD_CAP);
        return;
    };
    let mut child = command
        .args(["analyse", "--threads", "20", "--hash", "1", "--depth", "2"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("start sowfan with few threads");
    let mut stdin = child.stdin.take().expect("stdin");
    {
        use std::io::Write;
        stdin.write_all(b"kalah: C A\n").expect("input");
    }
    // The input stays open until the workers are started (the warning, or a while): with
    // it closed, a worker with nothing left to do may end before the next is started, and
    // then every start succeeds.
    let (lines, stderr) = {
        use std::io::BufRead;
        let (tx, lines) = std::sync::mpsc::channel();
        let stderr = std::io::BufReader::new(child.stderr.take().expect("stderr"));
        let reader = std::thread::spawn(move || {
            let mut text = String::new();
            for line in stderr.lines() {
                let Ok(line) = line else { break };
                text.push_str(&line);
                text.push('\n');
                let _ = tx.send(line);
            }
            text
        });
        (lines, reader)
    };
    let deadline = std::time::Instant::now() + scaled(Duration::from_secs(10));
    while let Ok(line) =
        lines.recv_timeout(deadline.saturating_duration_since(std::time::Instant::now()))
    {
        if line.contains("cannot start more than") {
            break;
        }
    }
    drop(stdin);
    let output = child.wait_with_output().expect("analyse ends");
    let err = stderr.join().unwrap_or_default();
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(output.status.code(), Some(0), "{err}");
    assert!(err.contains("warning: cannot start more than"), "{err}");
    assert!(String::from_utf8_lossy(&output.stdout).contains("Result: "));
}

/// Item 12: `--chart DIR/` (or an existing directory) puts `game-N.svg` inside it; a path
/// that cannot take a chart (a device, a directory that does not exist) is refused before
/// the analysis starts.
#[test]
fn analyse_charts_into_a_directory_and_checks_the_chart_path_first() {
    let dir = scratch("analyse-chart-dir");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("dir");
    let d = dir.to_str().unwrap();
    for target in [d.to_string(), format!("{d}/")] {
        let output = analyse(
            &["--depth", "2", "--chart", &target],
            "kalah: C A\nkalah: E\n",
        );
        assert!(output.status.success(), "{output:?}");
        for n in [1, 2] {
            let svg = std::fs::read_to_string(dir.join(format!("game-{n}.svg"))).expect("chart");
            assert!(svg.contains("<svg"), "{svg}");
        }
        // Nothing beside the directory, no temporary left inside.
        assert!(!scratch("analyse-chart-dir-1.svg").exists());
        let names: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert!(
            names
                .iter()
                .all(|n| n.ends_with(".svg") && !n.starts_with('.')),
            "{names:?}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
        std::fs::create_dir_all(&dir).unwrap();
    }
    let missing = format!("{d}/nothing/");
    for (target, said) in [
        ("/dev/full", "not a regular file"),
        (missing.as_str(), "is not a directory"),
        ("/nonexistent-dir/chart.svg", "does not exist"),
    ] {
        let started = std::time::Instant::now();
        let output = analyse(&["--depth", "12", "--chart", target], "kalah: C f a E d\n");
        let err = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{target}: {err}");
        assert!(err.contains(said), "{target}: {err}");
        assert!(output.stdout.is_empty(), "refused before any analysis");
        assert!(started.elapsed() < scaled(Duration::from_secs(5)));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Item 14: SIGINT or SIGTERM while `analyse` waits for its input, and while the input
/// ends at the same moment (a terminal's Ctrl-C also ends the writer of the pipe): status
/// 130 within a second, never 0.
#[test]
fn analyse_interrupted_while_waiting_for_input_exits_130() {
    for signal in ["-INT", "-TERM"] {
        for close_input in [false, true] {
            let mut child = run::piped(&["analyse", "--depth", "2"])
                .spawn()
                .expect("start");
            let stdin = child.stdin.take();
            // Waiting for its input from the start: ready once it handles the signals.
            run::await_signal_handlers(&mut child, Duration::from_secs(10));
            assert!(run::signal(child.id(), signal));
            if close_input {
                drop(stdin);
            }
            let started = std::time::Instant::now();
            let status = run::wait_exit(&mut child, Duration::from_secs(5));
            let _ = child.kill();
            let status = status.expect("analyse ended");
            assert!(
                started.elapsed() < scaled(Duration::from_secs(1)),
                "{signal}"
            );
            assert_eq!(status.code(), Some(130), "{signal} close={close_input}");
        }
    }
}

/// Item 13: a game is walked once, not replayed from its start for every position: a
/// 64 000-move Fanorona game (no repetition or quiet-move rule to end it) is analysed in
/// seconds (the old replay took minutes).
#[test]
fn analyse_a_very_long_game_in_linear_time() {
    let shuffle = ["i1-i2", "a5-a4", "i2-i1", "a4-a5"];
    let moves: Vec<&str> = (0..64_000).map(|i| shuffle[i % 4]).collect();
    let line = format!(
        "fanorona repetition=off quiet-limit=off: fen B8/9/9/9/8W w 0 moves {}\n",
        moves.join(" ")
    );
    let started = std::time::Instant::now();
    let (code, out, err) = analyse_bytes(
        &["--depth", "1", "--hash", "1", "--format", "jsonl"],
        line.into_bytes(),
    );
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(out.lines().count(), 64_001);
    let elapsed = started.elapsed();
    assert!(elapsed < scaled(Duration::from_secs(60)), "{elapsed:?}");
}

/// `Session::play_moves` goes on from the current position exactly as `set_position` with
/// all the moves does, history included (Fanorona's third repetition), and changes nothing
/// on error.
#[test]
fn playing_moves_on_keeps_the_history_and_changes_nothing_on_error() {
    let shuffle = ["i1-i2", "a5-a4", "i2-i1", "a4-a5"];
    let mut walked = sowfan::registry::create_from_spec("fanorona").expect("fanorona");
    let mut replayed = walked.clone_box();
    walked.set_position(Some("B8/9/9/9/8W w 0"), &[]).unwrap();
    let mut all = Vec::new();
    for i in 0..8 {
        let mv = shuffle[i % 4];
        all.push(mv);
        walked.play_moves(&[mv]).unwrap();
        replayed
            .set_position(Some("B8/9/9/9/8W w 0"), &all)
            .unwrap();
        assert_eq!(walked.fen(), replayed.fen());
        assert_eq!(
            walked.outcome().map(|o| o.reason),
            replayed.outcome().map(|o| o.reason),
            "after {all:?}"
        );
    }
    assert_eq!(walked.outcome().map(|o| o.reason), Some("repetition"));
    let before = walked.fen();
    let e = walked.play_moves(&["i1-i2"]).unwrap_err().to_string();
    assert!(
        e.starts_with("move 1 'i1-i2' rejected: the game is already over"),
        "{e}"
    );
    assert_eq!(walked.fen(), before);
    let mut kalah = sowfan::registry::create_from_spec("kalah").expect("kalah");
    kalah.play_moves(&["C"]).unwrap();
    let e = kalah.play_moves(&["A", "Z"]).unwrap_err().to_string();
    assert!(e.starts_with("move 2 'Z' rejected"), "{e}");
    let mut expected = sowfan::registry::create_from_spec("kalah").expect("kalah");
    expected.set_position(None, &["C"]).unwrap();
    assert_eq!(kalah.fen(), expected.fen());
    kalah.play_moves(&["A"]).unwrap();
    expected.set_position(None, &["C", "A"]).unwrap();
    assert_eq!(kalah.fen(), expected.fen());
}

/// The mover's exact value (half-points) of `pos` when the game is over there or `tables`
/// cover it.
fn known_value<G: sowfan::game::Game>(
    game: &G,
    tables: &sowfan::tables::Tables,
    pos: &G::Position,
) -> Option<i32> {
    match game.outcome(pos) {
        Some(outcome) => Some(game.final_value(&outcome, game.to_move(pos))),
        None => Some(game.banked_value(pos) + tables.probe(game, pos)?),
    }
}

/// Engine games of `spec` (a match of a weak engine against a stronger one, so that there
/// are mistakes to find), and the games of `more` (a file), analysed with tables of `seeds`
/// in play built for the test: every position the tables cover is judged by its exact
/// value, every `??` there loses at least 4 points by the tables, and every move that keeps
/// the exact value carries no `?!`, `?` or `??`. Returns (moves checked against the tables,
/// moves that kept the value, `??`).
fn marks_agree_with_the_tables<G: sowfan::game::Game>(
    game: &G,
    spec: &str,
    seeds: u32,
    more: Option<PathBuf>,
) -> (usize, usize, usize) {
    use sowfan::tables::Tables;

    let name = spec.split_whitespace().next().unwrap();
    let dir = crate::support::fresh_dir(&format!("analyse-marks-{name}"));
    let d = dir.display().to_string();
    let seeds = seeds.to_string();
    let mut build = vec!["tablebase", "build"];
    build.extend(spec.split_whitespace());
    build.extend(["--seeds", &seeds, "--dir", &d]);
    let built = run::output(&build);
    assert!(built.status.success(), "{built:?}");
    let tables = Tables::open(game, &dir).expect("tables").expect("present");
    let records = scratch(&format!("analyse-marks-{name}.jsonl"));
    let played = sowfan(
        "match",
        &args(&format!(
            "--engine cmd={BIN} name=d1 depth=1 --engine cmd={BIN} name=d5 depth=5 \
             --game {} --games 8 --openings plies=2 --seed 3 --quiet --records {}",
            spec.replace(' ', "~"),
            records.display()
        )),
        Duration::from_secs(120),
    );
    assert!(played.success, "{}", played.stderr);
    let mut lines = Vec::new();
    for input in std::iter::once(records).chain(more) {
        let output = analyse(
            &[
                input.to_str().unwrap(),
                "--depth",
                "6",
                "--tablebases",
                &d,
                "--format",
                "jsonl",
            ],
            "",
        );
        assert!(output.status.success(), "{output:?}");
        lines.extend(json_lines(&output));
    }
    let (mut covered, mut kept, mut blunders) = (0, 0, 0);
    for m in of_type(&lines, "move") {
        let pos = game
            .parse_position(m["fen"].as_str().unwrap())
            .expect("the position before the move");
        let Some(_) = known_value(game, &tables, &pos) else {
            continue;
        };
        // Every move's exact value for the mover, from the tables.
        let mover = game.to_move(&pos);
        let value_of = |mv| {
            let mut child = pos.clone();
            game.play(&mut child, mv);
            let v = known_value(game, &tables, &child).expect("a move stays covered");
            if game.to_move(&child) == mover { v } else { -v }
        };
        let mut moves = Vec::new();
        game.legal_moves(&pos, &mut moves);
        let best = moves.iter().map(|&mv| value_of(mv)).max().unwrap();
        let mv = game
            .parse_move(&pos, m["move"].as_str().unwrap())
            .expect("the move played");
        let value = value_of(mv);
        let table_loss = f64::from(best - value) / 2.0;
        covered += 1;
        assert_eq!(m["best_kind"], "exact", "judged exactly: {m}");
        assert_eq!(m["best_score"].as_f64(), Some(f64::from(best) / 2.0), "{m}");
        assert_eq!(m["score_kind"], "exact", "{m}");
        assert_eq!(m["score"].as_f64(), Some(f64::from(value) / 2.0), "{m}");
        assert_eq!(m["loss"].as_f64(), Some(table_loss), "{m}");
        let mark = m["mark"].as_str().unwrap();
        if value == best {
            kept += 1;
            assert!(
                mark.is_empty() || mark == "!",
                "a move that keeps the value: {m}"
            );
        }
        if mark == "??" {
            blunders += 1;
            assert!(table_loss >= 4.0, "a blunder by the tables: {m}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    (covered, kept, blunders)
}

#[test]
fn analyse_with_tables_marks_kalah_and_afrika_engine_games_as_the_tables_do() {
    // Four pits of three seeds: endings of 12 seeds are a good part of every game.
    let kalah = crate::support::kalah(&["pits=4", "seeds=3"]);
    let (covered, kept, blunders) =
        marks_agree_with_the_tables(&kalah, "kalah pits=4 seeds=3", 12, None);
    eprintln!("kalah: {covered} moves covered, {kept} kept the value, {blunders} ??");
    assert!(covered >= 20 && kept >= 10, "the games reach the tables");
    let afrika = games::afrika(&[]);
    // With the published game, whose last 15 moves the tables cover.
    let published = fixture("games/afrika/game1-de-leo-gering-2007.txt");
    let (covered, kept, blunders) =
        marks_agree_with_the_tables(&afrika, "afrika", 11, Some(published));
    eprintln!("afrika: {covered} moves covered, {kept} kept the value, {blunders} ??");
    assert!(covered >= 20 && kept >= 10, "the games reach the tables");
}

/// Issue 65, point 10: a bad line's control characters (a NUL, an escape sequence) are
/// quoted escaped, never raw, in every output format.
#[test]
fn analyse_quotes_a_bad_line_without_its_control_characters() {
    let mut input = b"kalah: C\n[Game \"kalah\"\0\x1b[2J]\n\nC\n\n".to_vec();
    input.extend_from_slice(b"kalah: C\0 b\nka\x1blah: C\n\0\0\0\nkalah: E\x07\n");
    input.extend_from_slice(b"{\"game\":\"kalah\",\"moves\":[\"C\\u0000\"]}\n");
    for format in ["text", "jsonl"] {
        let (code, out, err) = analyse_bytes(&["--depth", "2", "--format", format], input.clone());
        assert_eq!(code, Some(1), "{err}");
        for (name, text) in [("stdout", &out), ("stderr", &err)] {
            assert!(
                !text
                    .chars()
                    .any(|c| c.is_control() && c != '\n' && c != '\t'),
                "{format}: a raw control character on {name}: {text:?}"
            );
        }
        assert!(
            out.contains("\\u{0}") || out.contains("\\\\u{0}"),
            "{format}: {out}"
        );
    }
}
