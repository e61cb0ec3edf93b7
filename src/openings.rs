//! Where games start: openings of a match (`sowfan match --openings`) and the random lines
//! `sowfan check` sends. Random openings are sequences of random legal moves from the start
//! position that do not end the game; file openings are read one a line. Every opening is
//! checked by the rules (a [`Session`]) before it is used; nothing here knows a game.

use std::path::PathBuf;

use rand::SeedableRng;
use rand::rngs::Xoshiro256PlusPlus;
use rand::seq::SliceRandom;

use crate::session::Session;

/// Where the openings come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OpeningsSpec {
    /// Random legal moves from the start position, `plies` of them.
    Random { plies: usize },
    /// One opening a line; `random` order shuffles them with the match seed.
    File { path: PathBuf, random_order: bool },
}

/// A position to start a game from: a position string (or the start position) and moves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Opening {
    pub fen: Option<String>,
    pub moves: Vec<String>,
    /// Where it came from, for the records: `random`, `startpos`, `file line 3`.
    pub source: String,
}

impl Opening {
    pub fn start() -> Opening {
        Opening {
            fen: None,
            moves: Vec::new(),
            source: "startpos".to_string(),
        }
    }

    /// The `position …` command that sets this opening plus `more` moves.
    pub fn position_command(&self, more: &[String]) -> String {
        let mut line = match &self.fen {
            Some(fen) => format!("position fen {fen}"),
            None => "position startpos".to_string(),
        };
        if !self.moves.is_empty() || !more.is_empty() {
            line.push_str(" moves");
            for mv in self.moves.iter().chain(more) {
                line.push(' ');
                line.push_str(mv);
            }
        }
        line
    }
}

/// The random number generator of a match's openings and of the positions `sowfan check`
/// finds. Xoshiro256++ is one of rand's generators with
/// a documented, portable output stream, so a seed means the same openings everywhere.
pub fn rng(seed: u64) -> Xoshiro256PlusPlus {
    Xoshiro256PlusPlus::seed_from_u64(seed)
}

/// `count` openings (one per pair of games) as `spec` says; `None` = the start position.
pub fn build(
    spec: Option<&OpeningsSpec>,
    base: &dyn Session,
    count: usize,
    seed: u64,
) -> Result<Vec<Opening>, String> {
    let mut rng = rng(seed);
    match spec {
        None => Ok(vec![Opening::start(); count]),
        Some(OpeningsSpec::Random { plies }) => (0..count)
            .map(|_| random_opening(base, *plies, &mut rng))
            .collect(),
        Some(OpeningsSpec::File { path, random_order }) => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| format!("cannot read openings file '{}': {e}", path.display()))?;
            let mut all = parse_file(&text, base)
                .map_err(|e| format!("openings file '{}': {e}", path.display()))?;
            if all.is_empty() {
                return Err(format!(
                    "openings file '{}' has no openings",
                    path.display()
                ));
            }
            if *random_order {
                all.shuffle(&mut rng);
            }
            Ok((0..count).map(|i| all[i % all.len()].clone()).collect())
        }
    }
}

/// Random legal moves, `plies` of them, after which the game is not over. Backtracks when a
/// line ends the game early, so it fails only when no such line exists (within a budget).
pub fn random_opening(
    base: &dyn Session,
    plies: usize,
    rng: &mut Xoshiro256PlusPlus,
) -> Result<Opening, String> {
    let mut session = base.clone_box();
    session
        .set_position(None, &[])
        .map_err(|e| format!("the start position: {e}"))?;
    let mut moves = Vec::new();
    let mut budget = 100_000usize;
    if extend(session.as_mut(), &mut moves, plies, rng, &mut budget) {
        Ok(Opening {
            fen: None,
            moves,
            source: "random".to_string(),
        })
    } else {
        Err(format!(
            "no random opening of {plies} moves leaves a game to play in {}",
            base.spec()
        ))
    }
}

fn extend(
    session: &mut dyn Session,
    moves: &mut Vec<String>,
    plies: usize,
    rng: &mut Xoshiro256PlusPlus,
    budget: &mut usize,
) -> bool {
    if moves.len() == plies {
        return true;
    }
    let mut candidates = session.legal_moves();
    candidates.shuffle(rng);
    for mv in candidates {
        if *budget == 0 {
            return false;
        }
        *budget -= 1;
        moves.push(mv);
        let texts: Vec<&str> = moves.iter().map(String::as_str).collect();
        if session.set_position(None, &texts).is_ok()
            && session.outcome().is_none()
            && extend(session, moves, plies, rng, budget)
        {
            return true;
        }
        moves.pop();
    }
    // Leave the session where the caller expects it.
    let texts: Vec<&str> = moves.iter().map(String::as_str).collect();
    let _ = session.set_position(None, &texts);
    false
}

/// One opening a line: a move list from the start (`C f A`), a position string, or either in
/// the protocol's forms (`startpos moves C f`, `fen <position> moves C`, with or without a
/// leading `position`). Blank lines and `#` comments are skipped. Each opening must be legal
/// and leave the game unfinished.
pub fn parse_file(text: &str, base: &dyn Session) -> Result<Vec<Opening>, String> {
    let mut out = Vec::new();
    for (index, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let number = index + 1;
        let opening = parse_line(line, base).map_err(|e| format!("line {number}: {e}"))?;
        out.push(Opening {
            source: format!("file line {number}"),
            ..opening
        });
    }
    Ok(out)
}

fn parse_line(line: &str, base: &dyn Session) -> Result<Opening, String> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let words = match words.split_first() {
        Some((&"position", rest)) => rest,
        _ => &words[..],
    };
    let split_moves = |words: &[&str]| -> (Vec<String>, Vec<String>) {
        match words.iter().position(|w| *w == "moves") {
            Some(at) => (
                words[..at].iter().map(|s| s.to_string()).collect(),
                words[at + 1..].iter().map(|s| s.to_string()).collect(),
            ),
            None => (words.iter().map(|s| s.to_string()).collect(), Vec::new()),
        }
    };
    let candidates: Vec<(Option<String>, Vec<String>)> = match words.first() {
        Some(&"startpos") => {
            let (before, moves) = split_moves(&words[1..]);
            if !before.is_empty() {
                return Err(format!(
                    "expected 'moves' after 'startpos', got '{}'",
                    before[0]
                ));
            }
            vec![(None, moves)]
        }
        Some(&"fen") => {
            let (fen, moves) = split_moves(&words[1..]);
            if fen.is_empty() {
                return Err("the position string after 'fen' is missing".to_string());
            }
            vec![(Some(fen.join(" ")), moves)]
        }
        Some(&"moves") => vec![(None, words[1..].iter().map(|s| s.to_string()).collect())],
        _ => {
            // A bare line: a move list, or a position string (optionally `moves …`).
            let (fen, moves) = split_moves(words);
            vec![
                (None, words.iter().map(|s| s.to_string()).collect()),
                (Some(fen.join(" ")), moves),
            ]
        }
    };
    let mut errors = Vec::new();
    for (fen, moves) in candidates {
        match check(base, fen.as_deref(), &moves) {
            Ok(()) => {
                return Ok(Opening {
                    fen,
                    moves,
                    source: String::new(),
                });
            }
            Err(e) => errors.push(e),
        }
    }
    Err(errors.join("; nor as a position: "))
}

fn check(base: &dyn Session, fen: Option<&str>, moves: &[String]) -> Result<(), String> {
    let mut session = base.clone_box();
    let texts: Vec<&str> = moves.iter().map(String::as_str).collect();
    session
        .set_position(fen, &texts)
        .map_err(|e| e.to_string())?;
    if let Some(outcome) = session.outcome() {
        return Err(format!(
            "the game is already over there ({})",
            outcome.reason
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry;

    #[test]
    fn random_openings_are_reproducible_legal_and_unfinished() {
        let base = registry::create_from_spec("kalah pits=3 seeds=1").unwrap();
        let a = build(
            Some(&OpeningsSpec::Random { plies: 4 }),
            base.as_ref(),
            20,
            7,
        )
        .unwrap();
        let b = build(
            Some(&OpeningsSpec::Random { plies: 4 }),
            base.as_ref(),
            20,
            7,
        )
        .unwrap();
        let c = build(
            Some(&OpeningsSpec::Random { plies: 4 }),
            base.as_ref(),
            20,
            8,
        )
        .unwrap();
        assert_eq!(a, b);
        assert_ne!(a, c);
        for opening in &a {
            assert_eq!(opening.moves.len(), 4);
            check(base.as_ref(), None, &opening.moves).unwrap();
        }
    }

    #[test]
    fn random_openings_that_cannot_avoid_the_end_are_an_error() {
        // Kalah(1,1): South's single move ends the game at once.
        let base = registry::create_from_spec("kalah pits=1 seeds=1").unwrap();
        let e = random_opening(base.as_ref(), 3, &mut rng(1)).unwrap_err();
        assert!(e.contains("no random opening"), "{e}");
    }

    #[test]
    fn file_lines_in_every_form() {
        let base = registry::create_from_spec("kalah").unwrap();
        let fen = base.start_fen();
        let text = format!(
            "# comment\n\nA f\nstartpos moves A\nposition fen {fen} moves B\n{fen}\n{fen} moves D\nmoves E\n"
        );
        let openings = parse_file(&text, base.as_ref()).unwrap();
        let shapes: Vec<(Option<&str>, Vec<&str>, &str)> = openings
            .iter()
            .map(|o| {
                (
                    o.fen.as_deref(),
                    o.moves.iter().map(String::as_str).collect(),
                    o.source.as_str(),
                )
            })
            .collect();
        assert_eq!(
            shapes,
            vec![
                (None, vec!["A", "f"], "file line 3"),
                (None, vec!["A"], "file line 4"),
                (Some(fen.as_str()), vec!["B"], "file line 5"),
                (Some(fen.as_str()), vec![], "file line 6"),
                (Some(fen.as_str()), vec!["D"], "file line 7"),
                (None, vec!["E"], "file line 8"),
            ]
        );
        assert_eq!(
            openings[2].position_command(&["a".to_string()]),
            format!("position fen {fen} moves B a")
        );
        assert_eq!(Opening::start().position_command(&[]), "position startpos");
    }

    #[test]
    fn bad_file_lines_are_reported_with_their_number() {
        let base = registry::create_from_spec("kalah").unwrap();
        let e = parse_file("C\nC C\n", base.as_ref()).unwrap_err();
        assert!(e.starts_with("line 2:"), "{e}");
        let e = parse_file("startpos C\n", base.as_ref()).unwrap_err();
        assert!(e.contains("expected 'moves'"), "{e}");
    }
}
