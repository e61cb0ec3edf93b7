//! Fanorona through the real binary: self-play to the end on all three boards, chains as
//! one `bestmove` token, forced wins as `score mate`, and the protocol's error messages.
//! The perft table against a brute-force generator, and 3×3 play against a perfect
//! opponent, are in the files beside this one.

mod brute;
mod draws;
mod perft;
mod pn;
mod solve;
mod tables;
mod telo;

use std::time::Duration;

use crate::support::run::{args, sowfan};
use crate::support::selfplay::protocol_game;
use crate::support::{BIN, Engine, field, last_score, records, run_script, scratch};

/// Play the engine against itself with `go <limit>` from the start until the game is over;
/// returns the result and the number of turns.
fn self_play(game: &str, limit: &str) -> (String, usize) {
    let mut engine = Engine::start(&[]);
    engine.send(&format!("newgame {game}"));
    let moves = protocol_game(&mut engine, 2000, |engine, _| {
        let legal = engine.legal();
        let lines = engine.ask(&format!("go {limit}"), "bestmove");
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with("info") && l.contains(" score ")),
            "{lines:?}"
        );
        let best = lines.last().expect("bestmove line");
        let words: Vec<&str> = best.split_whitespace().collect();
        assert_eq!(words.len(), 2, "one token after bestmove: {best}");
        assert!(
            legal.iter().any(|m| m == words[1]),
            "{best} not in {legal:?}"
        );
        words[1].to_string()
    })
    .unwrap_or_else(|moves| panic!("{game}: no end after {} turns", moves.len()));
    let result = engine.query("result");
    assert!(
        ["p1win", "p2win", "draw"].contains(&result.as_str()),
        "{result}"
    );
    // A finished game answers at once with 0000.
    let lines = engine.ask("go depth 4", "bestmove");
    assert_eq!(lines.last().map(String::as_str), Some("bestmove 0000"));
    (result, moves.len())
}

#[test]
fn fanorona_self_play_ends_on_every_board() {
    for game in ["fanorona-telo", "fanorona-dimy", "fanorona"] {
        let (result, turns) = self_play(game, "depth 4");
        assert!(turns > 0, "{game}: {result} after {turns} turns");
    }
}

/// Self-play under `go depth 4` from varied openings: seeded random 4-turn starts, played
/// through `sowfan match`, whose referee ends a game only by the rules. Every game ends, by
/// a win or a draw rule, on all three boards.
#[test]
fn fanorona_depth_four_games_from_varied_openings_all_end() {
    for game in ["fanorona", "fanorona-dimy", "fanorona-telo"] {
        let path = scratch(&format!("{game}-depth4.jsonl"));
        let run = sowfan(
            "match",
            &args(&format!(
                "--engine cmd={BIN} name=a depth=4 --engine cmd={BIN} name=b depth=4 \
                 --game {game} --games 20 --concurrency 2 --openings plies=4 --seed 7 \
                 --quiet --records {}",
                path.display()
            )),
            Duration::from_secs(180),
        );
        assert!(run.success, "{}\n{}", run.stdout, run.stderr);
        assert!(run.stdout.contains("ended by: rules 20"), "{}", run.stdout);
        let games = records(&path);
        assert_eq!(games.len(), 20, "{game}");
        for record in &games {
            assert_eq!(record["termination"], "rules", "{record}");
            let result = record["result"].as_str().unwrap_or_default();
            assert!(["p1win", "p2win", "draw"].contains(&result), "{record}");
            let reason = record["reason"].as_str().unwrap_or_default();
            let by_draw_rule = reason.contains("repetition") || reason.contains("without capture");
            assert_eq!(result == "draw", by_draw_rule, "{record}");
        }
    }
}

#[test]
fn fanorona_bestmove_is_the_whole_chain_and_a_forced_win_is_a_mate() {
    // c3-d4W-c5W-b5W takes all three black stones.
    let out = run_script(
        &[],
        "newgame fanorona\nposition fen 3B5/9/2W1B4/1B7/9 w 0\ngo depth 3\n",
        Duration::from_secs(60),
    );
    assert!(out.contains("bestmove c3-d4W-c5W-b5W\n"), "{out}");
    let lines: Vec<&str> = out.lines().collect();
    let last_info = last_score(&lines);
    assert_eq!(field(last_info, "mate"), Some("1"), "{last_info}");
    // Fanoron-Telo is a White win: from the start the search proves it.
    let out = run_script(
        &[],
        "newgame fanorona-telo\ngo depth 16\n",
        Duration::from_secs(60),
    );
    let lines: Vec<&str> = out.lines().collect();
    let last_info = last_score(&lines);
    let mate: i32 = field(last_info, "mate")
        .expect("a mate score")
        .parse()
        .expect("number");
    assert!(mate > 0, "{out}");
}

#[test]
fn fanorona_protocol_positions_moves_and_errors() {
    let out = run_script(
        &[],
        "newgame fanorona\n\
         d\n\
         perft 2\n\
         position startpos moves e2-e3\n\
         position startpos moves d3-e3X\n\
         position startpos moves d3-e3W\n\
         d\n\
         query p1turn\n\
         position fen 9/9/9/9/9 x 0\n\
         newgame fanorona quiet-limit=0\n\
         newgame fanorona-telo first-capture-single=true\n\
         d\n",
        Duration::from_secs(60),
    );
    assert!(
        out.contains("Fen: BBBBBBBBB/BBBBBBBBB/BWBW1BWBW/WWWWWWWWW/WWWWWWWWW w 0"),
        "{out}"
    );
    assert!(out.contains(" 3 B-W-B-W-.-B-W-B-W"), "{out}");
    assert!(out.contains("Nodes searched: 39"), "{out}");
    let errors: Vec<&str> = out.lines().filter(|l| l.contains("error")).collect();
    assert_eq!(errors.len(), 4, "{out}");
    assert!(errors[0].contains("compulsory"), "{}", errors[0]);
    assert!(errors[1].contains("d3-e3X"), "{}", errors[1]);
    assert!(errors[2].contains("w or b"), "{}", errors[2]);
    assert!(errors[3].contains("quiet-limit"), "{}", errors[3]);
    assert!(
        out.contains("Fen: BBBBBBBBB/BBBBBBBBB/BW2WBWBW/WWWWWWWWW/WWWWWWWWW b 0"),
        "{out}"
    );
    assert!(out.contains("response false"), "{out}");
    assert!(out.contains("Fen: BBB/B1W/WWW w 0 wb"), "{out}");
}

/// `Contempt`: a draw (here by the quiet limit, the only end at hand) is worth minus the
/// contempt to the side the engine searches for, whichever side that is, and is then a
/// judgement (no `wdl`, which marks a proven value); 0 and proven by default; a value out of range is refused
/// and the last good one kept.
#[test]
fn contempt_scores_a_draw_below_zero_for_the_side_searched_for() {
    let mut engine = Engine::start(&[]);
    engine.send("newgame fanorona");
    engine.send("setoption name GameOptions value quiet-limit=10");
    let score_at = |engine: &mut Engine, side: &str| {
        engine.send(&format!("position fen B8/9/9/9/8W {side} 9"));
        let lines = engine.ask("go depth 3", "bestmove");
        last_score(&lines).to_string()
    };
    let neutral = score_at(&mut engine, "w");
    assert_eq!(field(&neutral, "cp"), Some("0"), "{neutral}");
    assert!(
        neutral.contains(" wdl 0 1000 0 "),
        "a proven draw: {neutral}"
    );
    engine.send("setoption name Contempt value 37");
    for side in ["w", "b"] {
        let info = score_at(&mut engine, side);
        assert_eq!(field(&info, "cp"), Some("-37"), "{side}: {info}");
        assert!(!info.contains(" wdl "), "a judgement, not a proof: {info}");
    }
    let refused = engine.ask("setoption name Contempt value 501", "info string");
    assert!(
        refused
            .iter()
            .any(|l| l.contains("error: option 'Contempt'") && l.contains("-500..500")),
        "{refused:?}"
    );
    let info = score_at(&mut engine, "w");
    assert_eq!(
        field(&info, "cp"),
        Some("-37"),
        "the last good value stays: {info}"
    );
}
