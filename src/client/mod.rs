//! The engine client: one external engine program, driven over its standard input and
//! output in the UGI/UCI-like protocol (protocol.md), for `sowfan match` and `sowfan check`.
//!
//! [`spec`] reads the `--engine key=value` words that describe an engine; [`process`] starts
//! it in its own process group and talks to it with bounded lines and deadlines, ending
//! every wait when the caller's cancellation token is cancelled; and the functions here read
//! the engine's `bestmove` lines. Nothing here referees a game or knows a tool.

pub mod process;
pub mod spec;

/// Whether `line` is a `bestmove` line (well formed or not).
pub fn is_bestmove(line: &str) -> bool {
    line.split_whitespace().next() == Some("bestmove")
}

/// `bestmove <move>` or `bestmove <move> ponder <move>`: the move and the ponder move;
/// `None` for any other line.
pub fn parse_bestmove(line: &str) -> Option<(&str, Option<&str>)> {
    let words: Vec<&str> = line.split_whitespace().collect();
    match words.as_slice() {
        ["bestmove", mv] => Some((mv, None)),
        ["bestmove", mv, "ponder", reply] => Some((mv, Some(reply))),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bestmove_lines_are_read() {
        assert_eq!(parse_bestmove("bestmove C"), Some(("C", None)));
        assert_eq!(
            parse_bestmove("bestmove  C ponder d "),
            Some(("C", Some("d")))
        );
        assert_eq!(parse_bestmove("bestmove"), None);
        assert_eq!(parse_bestmove("bestmove C D"), None);
        assert_eq!(parse_bestmove("bestmove C ponder"), None);
        assert_eq!(parse_bestmove("info bestmove C"), None);
        assert!(is_bestmove(" bestmove"));
        assert!(!is_bestmove("bestmoves C"));
    }
}
