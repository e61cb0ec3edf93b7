//! The positions `sowfan check` sends, found by seeded random play with the game's own
//! rules (a [`Session`]): nothing here knows any game.
//!
//! Every search is deterministic for a seed (Xoshiro256++, as `sowfan match` openings) and
//! bounded; a position a game does not have (no extra moves in Fanorona, say) is `None`,
//! and the checks that need it are skipped.

use rand::rngs::Xoshiro256PlusPlus;
use rand::seq::IndexedRandom;

use crate::game::{MoveError, Player};
use crate::openings;
use crate::session::{PositionCommandError, Session};

/// Random games tried when looking for a kind of position.
const GAMES_TRIED: usize = 20;
/// Moves of one random game at most, when looking for a position.
const PLIES_PER_GAME: usize = 300;
/// Moves of a random game played to its end at most (the end must be reached within it).
const PLIES_TO_END: usize = 2000;

/// A position as the protocol sends it: a start (the start position or a position string)
/// and moves from there.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Line {
    pub fen: Option<String>,
    pub moves: Vec<String>,
}

impl Line {
    /// The start position.
    pub fn start() -> Line {
        Line::default()
    }

    pub fn from_moves(moves: &[String]) -> Line {
        Line {
            fen: None,
            moves: moves.to_vec(),
        }
    }

    /// `position startpos [moves …]` or `position fen <fen> [moves …]`.
    pub fn command(&self) -> String {
        let mut text = match &self.fen {
            Some(fen) => format!("position fen {fen}"),
            None => "position startpos".to_string(),
        };
        if !self.moves.is_empty() {
            text.push_str(" moves");
            for mv in &self.moves {
                text.push(' ');
                text.push_str(mv);
            }
        }
        text
    }

    /// A copy of `base` set to this position (with `extra` moves after it).
    pub fn session(
        &self,
        base: &dyn Session,
        extra: &[&str],
    ) -> Result<Box<dyn Session>, PositionCommandError> {
        let mut session = base.clone_box();
        let mut moves: Vec<&str> = self.moves.iter().map(String::as_str).collect();
        moves.extend_from_slice(extra);
        session.set_position(self.fen.as_deref(), &moves)?;
        Ok(session)
    }
}

/// An illegal move and the position in which it is sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IllegalMove {
    pub before: Line,
    pub mv: String,
    /// The rules' reason, e.g. `'c' is illegal here: …`.
    pub why: String,
}

/// Every position the checks use, for one game and seed.
#[derive(Debug, Clone)]
pub struct Positions {
    /// A few random moves from the start (the game not over).
    pub mid: Line,
    /// A longer random line (for `position startpos moves …`).
    pub long: Line,
    /// A position string reached by random play, and a few moves after it.
    pub fen: Option<Line>,
    /// A position in which the player who just moved moves again.
    pub extra: Option<Line>,
    /// A position with p2 to move (for the clock check).
    pub p2_to_move: Option<Line>,
    /// A whole random game, to its end.
    pub finished: Option<Line>,
    pub illegal: IllegalMove,
}

impl Positions {
    pub fn find(base: &dyn Session, seed: u64) -> Positions {
        let mut rng = openings::rng(seed);
        let mid = random_line(base, 4, &mut rng);
        let long = random_line(base, 12, &mut rng);
        let fen = fen_line(base, &mut rng);
        let extra = extra_move(base, &mut rng);
        let p2_to_move = p2_to_move(base, &mut rng);
        let finished = finished_game(base, &mut rng);
        let illegal = illegal_move(base, &mid, finished.as_ref(), &mut rng);
        Positions {
            mid,
            long,
            fen,
            extra,
            p2_to_move,
            finished,
            illegal,
        }
    }
}

/// A random line of `plies` moves (fewer when the game cannot go on that long) after which
/// the game is not over.
fn random_line(base: &dyn Session, plies: usize, rng: &mut Xoshiro256PlusPlus) -> Line {
    for n in (1..=plies).rev() {
        if let Ok(opening) = openings::random_opening(base, n, rng) {
            return Line::from_moves(&opening.moves);
        }
    }
    Line::start()
}

/// The position string after 6 random moves, then 3 more moves from there (fewer of both
/// in a game too short for 9 moves; at the least the start's position string).
fn fen_line(base: &dyn Session, rng: &mut Xoshiro256PlusPlus) -> Option<Line> {
    (1..=9)
        .rev()
        .find_map(|plies| {
            let opening = openings::random_opening(base, plies, rng).ok()?;
            let (before, after) = opening.moves.split_at(plies - (plies - plies / 2).min(3));
            let at = Line::from_moves(before).session(base, &[]).ok()?;
            let line = Line {
                fen: Some(at.fen()),
                moves: after.to_vec(),
            };
            // The position string must read back into a game that goes on.
            let check = line.session(base, &[]).ok()?;
            check.outcome().is_none().then_some(line)
        })
        .or_else(|| {
            // Every move ends the game (Kalah with one pit and one seed): the start's string.
            let line = Line {
                fen: Some(base.start_fen()),
                moves: Vec::new(),
            };
            line.session(base, &[]).is_ok().then_some(line)
        })
}

/// One random game from the start, move by move: `stop` sees the session after each move
/// (with the mover) and ends the game early by returning true. Returns the moves and
/// whether `stop` asked to end.
fn random_game(
    base: &dyn Session,
    max_plies: usize,
    rng: &mut Xoshiro256PlusPlus,
    stop: &mut dyn FnMut(&dyn Session, Player) -> bool,
) -> (Vec<String>, bool) {
    let mut session = base.clone_box();
    let mut moves: Vec<String> = Vec::new();
    if session.set_position(None, &[]).is_err() {
        return (moves, false);
    }
    while moves.len() < max_plies && session.outcome().is_none() {
        let mover = session.to_move();
        let Some(mv) = session.legal_moves().choose(rng).cloned() else {
            break;
        };
        moves.push(mv);
        let texts: Vec<&str> = moves.iter().map(String::as_str).collect();
        if session.set_position(None, &texts).is_err() {
            // The rules rejected their own move: a bug elsewhere; give up on this game.
            moves.pop();
            break;
        }
        if stop(session.as_ref(), mover) {
            return (moves, true);
        }
    }
    (moves, false)
}

/// A random line after which the player who just moved moves again, the game going on.
fn extra_move(base: &dyn Session, rng: &mut Xoshiro256PlusPlus) -> Option<Line> {
    (0..GAMES_TRIED).find_map(|_| {
        let (moves, found) = random_game(base, PLIES_PER_GAME, rng, &mut |s, mover| {
            s.outcome().is_none() && s.to_move() == mover
        });
        found.then(|| Line::from_moves(&moves))
    })
}

/// A random line after which p2 is to move, the game going on.
fn p2_to_move(base: &dyn Session, rng: &mut Xoshiro256PlusPlus) -> Option<Line> {
    (0..GAMES_TRIED).find_map(|_| {
        let (moves, found) = random_game(base, PLIES_PER_GAME, rng, &mut |s, _| {
            s.outcome().is_none() && s.to_move() == Player::P2
        });
        found.then(|| Line::from_moves(&moves))
    })
}

/// A random game played to its end (by the rules, draw rules included).
fn finished_game(base: &dyn Session, rng: &mut Xoshiro256PlusPlus) -> Option<Line> {
    (0..GAMES_TRIED / 4).find_map(|_| {
        let (moves, found) =
            random_game(base, PLIES_TO_END, rng, &mut |s, _| s.outcome().is_some());
        found.then(|| Line::from_moves(&moves))
    })
}

/// A move the rules reject after the first move of `mid` (or at the start): preferably a
/// well-formed move that is legal elsewhere (seen in random play), else a token that is no
/// move at all.
fn illegal_move(
    base: &dyn Session,
    mid: &Line,
    finished: Option<&Line>,
    rng: &mut Xoshiro256PlusPlus,
) -> IllegalMove {
    let before = Line::from_moves(&mid.moves[..mid.moves.len().min(1)]);
    // Move texts legal somewhere: along a few random games and the lines above.
    let mut seen: Vec<String> = Vec::new();
    let mut collect = |s: &dyn Session| {
        for mv in s.legal_moves() {
            if !seen.contains(&mv) {
                seen.push(mv);
            }
        }
    };
    for line in [Some(mid), finished].into_iter().flatten() {
        for n in 0..=line.moves.len() {
            if let Ok(s) = Line::from_moves(&line.moves[..n]).session(base, &[]) {
                collect(s.as_ref());
            }
        }
    }
    for _ in 0..4 {
        random_game(base, PLIES_PER_GAME, rng, &mut |s, _| {
            collect(s);
            false
        });
    }
    let mut malformed = None;
    for mv in seen.iter().map(String::as_str).chain(["xyzzy"]) {
        match before.session(base, &[mv]) {
            Err(PositionCommandError::BadMove {
                error: error @ MoveError::Illegal { .. },
                ..
            }) => {
                return IllegalMove {
                    before,
                    mv: mv.to_string(),
                    why: error.to_string(),
                };
            }
            Err(PositionCommandError::BadMove { error, .. }) if malformed.is_none() => {
                malformed = Some((mv.to_string(), error.to_string()));
            }
            _ => {}
        }
    }
    let (mv, why) = malformed.unwrap_or_else(|| ("xyzzy".to_string(), "no move".to_string()));
    IllegalMove { before, mv, why }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry;

    #[test]
    fn lines_write_position_commands() {
        assert_eq!(Line::start().command(), "position startpos");
        let line = Line {
            fen: Some("4,4,0,5,5,5,1/4,4,4,4,4,4,0 S".to_string()),
            moves: vec!["A".to_string(), "b".to_string()],
        };
        assert_eq!(
            line.command(),
            "position fen 4,4,0,5,5,5,1/4,4,4,4,4,4,0 S moves A b"
        );
    }

    #[test]
    fn every_game_has_its_positions_and_they_are_what_they_claim() {
        for entry in registry::GAMES {
            let base = registry::create(entry.name, &[]).unwrap();
            let p = Positions::find(base.as_ref(), 1);
            let name = entry.name;
            assert!(!p.mid.moves.is_empty(), "{name}");
            assert!(
                p.mid
                    .session(base.as_ref(), &[])
                    .unwrap()
                    .outcome()
                    .is_none()
            );
            assert!(p.long.moves.len() > p.mid.moves.len(), "{name}");
            let fen = p.fen.as_ref().expect(name);
            assert!(fen.session(base.as_ref(), &[]).unwrap().outcome().is_none());
            let p2 = p.p2_to_move.as_ref().expect(name);
            assert_eq!(
                p2.session(base.as_ref(), &[]).unwrap().to_move(),
                Player::P2
            );
            let end = p.finished.as_ref().expect(name);
            assert!(
                end.session(base.as_ref(), &[]).unwrap().outcome().is_some(),
                "{name}"
            );
            assert!(
                p.illegal
                    .before
                    .session(base.as_ref(), &[&p.illegal.mv])
                    .is_err(),
                "{name}"
            );
            assert!(
                p.illegal.why.contains("illegal"),
                "{name}: {}",
                p.illegal.why
            );
            match &p.extra {
                Some(line) => {
                    let (last, before) = line.moves.split_last().unwrap();
                    let s = Line::from_moves(before)
                        .session(base.as_ref(), &[])
                        .unwrap();
                    let mover = s.to_move();
                    let after = Line::from_moves(before)
                        .session(base.as_ref(), &[last])
                        .unwrap();
                    assert_eq!(after.to_move(), mover, "{name}");
                    assert!(after.outcome().is_none());
                }
                // A Fanorona capture chain and an Afrika capture are one move each: no
                // side ever moves twice in a row.
                None => assert!(name.starts_with("fanorona") || name == "afrika", "{name}"),
            }
        }
    }

    #[test]
    fn tiny_games_still_get_a_position_string_to_send() {
        for spec in ["kalah pits=1 seeds=1", "anywoli houses=1 seeds=1"] {
            let base = registry::create_from_spec(spec).unwrap();
            let p = Positions::find(base.as_ref(), 1);
            let fen = p.fen.expect(spec);
            assert!(fen.fen.is_some(), "{spec}");
            assert!(fen.session(base.as_ref(), &[]).is_ok(), "{spec}");
        }
    }

    #[test]
    fn the_same_seed_gives_the_same_positions() {
        let base = registry::create_from_spec("kalah pits=4").unwrap();
        let a = Positions::find(base.as_ref(), 7);
        let b = Positions::find(base.as_ref(), 7);
        assert_eq!(a.long, b.long);
        assert_eq!(a.finished, b.finished);
        assert_eq!(a.illegal, b.illegal);
    }
}
