//! The text of the `info` lines a search reports (protocol.md, "Search output").

use std::cmp::Ordering;
use std::fmt::Write;

use crate::session::{Info, InfoScore, ScoreBound};

/// `info depth … pv …`, or the `info … string game over: …` of a finished game.
pub fn info_text(info: &Info) -> String {
    let mut text = String::new();
    // Writing to a String cannot fail.
    let _ = write_info(&mut text, info);
    text
}

fn write_info(text: &mut String, info: &Info) -> std::fmt::Result {
    let line = match info {
        Info::Line(line) => line,
        Info::GameOver {
            score,
            result,
            reason,
        } => {
            write!(text, "info depth 0 score ")?;
            write_score(text, score)?;
            return write!(
                text,
                " nodes 0 time 0 string game over: {result} ({reason})"
            );
        }
    };
    let ms = line.time.as_millis() as u64;
    write!(
        text,
        "info depth {} seldepth {} multipv {} score ",
        line.depth,
        line.seldepth.max(1),
        line.multipv
    )?;
    write_score(text, &line.score)?;
    text.push_str(match line.bound {
        ScoreBound::Exact => "",
        ScoreBound::Lower => " lowerbound",
        ScoreBound::Upper => " upperbound",
    });
    write!(
        text,
        " nodes {} nps {}",
        line.nodes,
        line.nodes * 1000 / ms.max(1)
    )?;
    if let Some(hashfull) = line.hashfull {
        write!(text, " hashfull {hashfull}")?;
    }
    // Only when endgame tables answered something (protocol.md: `tbhits`).
    if line.tbhits > 0 {
        write!(text, " tbhits {}", line.tbhits)?;
    }
    write!(text, " time {ms} pv")?;
    // `pv ` and then the moves: an empty line (a bound before any best move) keeps its space.
    text.push(' ');
    for (i, mv) in line.pv.iter().enumerate() {
        if i > 0 {
            text.push(' ');
        }
        text.push_str(mv);
    }
    Ok(())
}

/// `cp <n>`, `mate <n>`, or for a proven final value `cp <n> wdl <w> <d> <l>`: the result's
/// certainty in per mille (protocol.md, "Search output"), which tells it from a heuristic
/// `cp`.
fn write_score(text: &mut String, score: &InfoScore) -> std::fmt::Result {
    match score {
        InfoScore::Cp(cp) => write!(text, "cp {cp}"),
        InfoScore::Exact { cp, result } => {
            let wdl = match result {
                Ordering::Greater => "1000 0 0",
                Ordering::Equal => "0 1000 0",
                Ordering::Less => "0 0 1000",
            };
            write!(text, "cp {cp} wdl {wdl}")
        }
        InfoScore::Mate(moves) => write!(text, "mate {moves}"),
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::session::InfoLine;

    fn line() -> InfoLine {
        InfoLine {
            depth: 12,
            seldepth: 14,
            multipv: 1,
            score: InfoScore::Cp(500),
            bound: ScoreBound::Exact,
            nodes: 33024,
            time: Duration::from_millis(8),
            hashfull: Some(4),
            tbhits: 0,
            pv: vec!["F".into(), "b".into(), "a".into()],
        }
    }

    #[test]
    fn a_search_line_as_protocol_md_shows_it() {
        assert_eq!(
            info_text(&Info::Line(line())),
            "info depth 12 seldepth 14 multipv 1 score cp 500 nodes 33024 nps 4128000 \
             hashfull 4 time 8 pv F b a"
        );
    }

    #[test]
    fn bounds_tbhits_mate_and_empty_lines() {
        let bound = InfoLine {
            depth: 0,
            seldepth: 0,
            score: InfoScore::Cp(-150),
            bound: ScoreBound::Upper,
            time: Duration::ZERO,
            hashfull: None,
            tbhits: 7,
            pv: Vec::new(),
            ..line()
        };
        assert_eq!(
            info_text(&Info::Line(bound)),
            "info depth 0 seldepth 1 multipv 1 score cp -150 upperbound nodes 33024 nps \
             33024000 tbhits 7 time 0 pv "
        );
        let mate = InfoLine {
            score: InfoScore::Mate(-3),
            bound: ScoreBound::Lower,
            ..line()
        };
        assert!(
            info_text(&Info::Line(mate)).contains(" score mate -3 lowerbound nodes "),
            "mate"
        );
    }

    #[test]
    fn a_proven_value_carries_wdl_a_bound_does_not() {
        let exact = InfoLine {
            score: InfoScore::of_halves(5),
            ..line()
        };
        assert!(
            info_text(&Info::Line(exact)).contains(" score cp 250 wdl 1000 0 0 nodes "),
            "exact"
        );
        let draw = InfoLine {
            score: InfoScore::of_halves(0),
            ..line()
        };
        assert!(info_text(&Info::Line(draw)).contains(" score cp 0 wdl 0 1000 0 nodes "));
        let bound = InfoLine {
            score: InfoScore::Cp(600),
            bound: ScoreBound::Lower,
            ..line()
        };
        assert!(info_text(&Info::Line(bound)).contains(" score cp 600 lowerbound nodes "));
    }

    #[test]
    fn a_finished_game() {
        let info = Info::GameOver {
            score: InfoScore::of_halves(-4),
            result: "p2win",
            reason: "no moves",
        };
        assert_eq!(
            info_text(&info),
            "info depth 0 score cp -200 wdl 0 0 1000 nodes 0 time 0 string game over: p2win (no moves)"
        );
    }
}
