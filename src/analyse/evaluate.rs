//! The per-move analysis: the engine's value of every position of a game (one search per
//! position), and from those values each move's loss and mark, each player's totals and
//! the decisive mistake. Generic over games: everything goes through [`Session`].
//!
//! Values are in the game's points (seeds, stones), from the view of the player to move:
//! a heuristic score `cp N` is N/100 points; an exact value (endgame tables, a proof, or a
//! search whose every line reached the end) is the final margin; a forced result whose
//! margin the search only bounded is that bound (a win by at least, a loss by at least); in
//! games won or lost, not scored, a forced result counts as ±[`DECIDED`] points.
//!
//! - The **best** move and its value: the search of the position before the move.
//! - The **score of the move played**: the search of the position after it, negated when
//!   the other player moves next and not when the same player moves again (extra moves).
//! - The **loss** ([`loss_between`]) compares only what is comparable: two proven values
//!   by what is certainly lost (exact against exact: their difference); a proven value
//!   against a heuristic one only when the heuristic says the result changed for the worse
//!   (a proven win against a heuristic score that still favours the mover is no loss, nor a
//!   heuristic lead against a proven win), then best − played held within ±[`DECIDED`];
//!   two heuristic values by best − played held within ±[`DECIDED`] (a lead of [`DECIDED`]
//!   points or more is a decided game, whatever its size). Never negative, and 0 when the
//!   move played is the engine's best move (its two values differ only by the search
//!   horizon).
//! - The **mark**: `??` for a loss of at least [`BLUNDER`] points, `?` at least
//!   [`MISTAKE`], `?!` at least [`INACCURACY`]; `!` when the move played is the engine's
//!   best, its value is proven, and a second search of all the other moves proves each of
//!   them worse (the one move that keeps the value).

use thiserror::Error;

use crate::game::{Outcome, Player};
use crate::search::limits::Limits;
use crate::search::tt::TranspositionTable;
pub use crate::search::value::{DECIDED, Value};
use crate::search::{SearchControl, SearchSettings};
use crate::session::Session;
use crate::solver::tt::SolverTt;

/// A loss of at least this many points is marked `?!`.
pub const INACCURACY: f64 = 1.0;
/// `?`.
pub const MISTAKE: f64 = 2.0;
/// `??`.
pub const BLUNDER: f64 = 4.0;
/// A move's mark.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mark {
    None,
    /// `!`: the one move that keeps the (proven) value.
    Only,
    /// `?!`
    Inaccuracy,
    /// `?`
    Mistake,
    /// `??`
    Blunder,
}

impl Mark {
    pub fn as_str(self) -> &'static str {
        match self {
            Mark::None => "",
            Mark::Only => "!",
            Mark::Inaccuracy => "?!",
            Mark::Mistake => "?",
            Mark::Blunder => "??",
        }
    }

    fn of_loss(loss: f64) -> Mark {
        if loss >= BLUNDER {
            Mark::Blunder
        } else if loss >= MISTAKE {
            Mark::Mistake
        } else if loss >= INACCURACY {
            Mark::Inaccuracy
        } else {
            Mark::None
        }
    }
}

/// How each position is searched.
#[derive(Debug, Clone)]
pub struct SearchSpec {
    /// Depth, nodes or movetime (one thread, no clock).
    pub limits: Limits,
    /// Transposition table size of each search, MiB.
    pub hash_mb: usize,
}

/// What the engine found in one position of a game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PositionResult {
    pub fen: String,
    /// Who is to move (in a finished game: who would be).
    pub mover: Player,
    /// From the mover's view.
    pub value: Value,
    /// The engine's move; `None` when the game is over.
    pub best: Option<String>,
    pub depth: u32,
    pub nodes: u64,
    /// The next move of the game is the only move that keeps the proven value.
    pub only_move: bool,
    /// The game is over here.
    pub outcome: Option<Outcome>,
}

/// Why a position could not be searched.
#[derive(Debug, Error)]
pub enum SearchError {
    /// Its tables could not be had (the memory's words).
    #[error("{0}")]
    Memory(String),
    /// The search failed (its words).
    #[error("{0}")]
    Search(String),
}

/// Search the session's current position with a fresh table (so that the result depends on
/// nothing but the position and the limits); `next` is the move the game went on with.
pub fn analyse_position(
    session: &dyn Session,
    next: Option<&str>,
    spec: &SearchSpec,
    control: &SearchControl,
) -> Result<PositionResult, SearchError> {
    let fen = session.fen();
    let mover = session.to_move();
    if let Some(outcome) = session.outcome() {
        return Ok(PositionResult {
            fen,
            mover,
            value: Value::of_outcome(&outcome, mover).as_result_if(session.win_draw_loss()),
            best: None,
            depth: 0,
            nodes: 0,
            only_move: false,
            outcome: Some(outcome),
        });
    }
    let settings = SearchSettings {
        threads: 1,
        multipv: 1,
        move_overhead: 0,
        contempt: 0,
    };
    let search = |limits: &Limits| {
        let tt = TranspositionTable::new(spec.hash_mb)
            .map_err(|e| SearchError::Memory(e.to_string()))?;
        let solve_tt = match session.tables() {
            Some(_) => {
                Some(SolverTt::new(spec.hash_mb).map_err(|e| SearchError::Memory(e.to_string()))?)
            }
            None => None,
        };
        let summary = session
            .search(
                limits,
                &settings,
                &tt,
                solve_tt.as_ref(),
                control,
                &mut |_| {},
            )
            .map_err(|e| e.to_string());
        if let Some(failure) = session.tables().and_then(|t| t.new_failure()) {
            eprintln!("sowfan analyse: {failure}");
        }
        summary.map_err(SearchError::Search)
    };
    let summary = search(&spec.limits)?;
    let decisive = session.win_draw_loss();
    let value = Value::from_search(summary.score, summary.proven).as_result_if(decisive);
    let mut nodes = summary.nodes;
    let mut only_move = false;
    if let Some(next) = next
        && next == summary.bestmove
        && value.is_proven()
    {
        let others: Vec<String> = session
            .legal_moves()
            .into_iter()
            .filter(|m| m != next)
            .collect();
        if !others.is_empty() {
            let limits = Limits {
                searchmoves: others,
                ..spec.limits.clone()
            };
            let alternative = search(&limits)?;
            nodes += alternative.nodes;
            let other =
                Value::from_search(alternative.score, alternative.proven).as_result_if(decisive);
            only_move = value.proven_better_than(other);
        }
    }
    Ok(PositionResult {
        fen,
        mover,
        value,
        best: Some(summary.bestmove),
        depth: summary.depth,
        nodes,
        only_move,
        outcome: None,
    })
}

/// One move of a game, judged.
#[derive(Debug, Clone, PartialEq)]
pub struct MoveAnalysis {
    /// From 1.
    pub ply: usize,
    pub by: Player,
    /// Part of an opening the players did not choose (not counted in their totals).
    pub opening: bool,
    /// The position before the move.
    pub fen: String,
    pub played: String,
    pub best: String,
    /// The best move's value, from the mover's view.
    pub best_value: Value,
    /// The value after the move played, from the mover's view.
    pub value: Value,
    /// The value after the move played, from p1's view (the chart's curve).
    pub p1_value: Value,
    pub loss: f64,
    pub mark: Mark,
    /// The search of the position before the move.
    pub depth: u32,
    pub nodes: u64,
}

/// Round to hundredths, so that printed numbers are short and stable.
pub fn round2(x: f64) -> f64 {
    let r = (x * 100.0).round() / 100.0;
    if r == 0.0 { 0.0 } else { r }
}

/// Judge move `ply` (from 1): `played` led from `before` to `after`.
pub fn judge_move(
    ply: usize,
    played: &str,
    opening: bool,
    before: &PositionResult,
    after: &PositionResult,
) -> MoveAnalysis {
    let by = before.mover;
    let value = after.value.for_player(after.mover, by);
    let best = before.best.clone().unwrap_or_default();
    let loss = if best == played {
        0.0
    } else {
        loss_between(before.value, value)
    };
    let mark = if before.only_move && best == played {
        Mark::Only
    } else {
        Mark::of_loss(loss)
    };
    MoveAnalysis {
        ply,
        by,
        opening,
        fen: before.fen.clone(),
        played: played.to_string(),
        best,
        best_value: before.value,
        value,
        p1_value: after.value.for_player(after.mover, Player::P1),
        loss,
        mark,
        depth: before.depth,
        nodes: before.nodes,
    }
}

/// What a move worth `played` lost against the best move, worth `best` (both from the
/// mover's view), in points, never negative: see the module's documentation.
pub fn loss_between(best: Value, played: Value) -> f64 {
    let lost = match (best.proven_range(), played.proven_range()) {
        // What is certainly lost: the best move's least against the played move's most
        // (a bound leaves its side open, which can only lower the loss).
        (Some((best_low, _)), Some((_, played_high))) => best_low - played_high,
        (None, None) => best.in_doubt() - played.in_doubt(),
        // A proven value against a heuristic judgement: only a change of result counts.
        _ if played.result() < best.result() => best.in_doubt() - played.in_doubt(),
        _ => 0.0,
    };
    round2(lost.max(0.0))
}

/// A player's totals over their own moves (opening moves excluded).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PlayerStats {
    pub moves: usize,
    pub total_loss: f64,
    pub only_moves: usize,
    pub inaccuracies: usize,
    pub mistakes: usize,
    pub blunders: usize,
}

impl PlayerStats {
    pub fn average_loss(&self) -> f64 {
        if self.moves == 0 {
            0.0
        } else {
            round2(self.total_loss / self.moves as f64)
        }
    }
}

/// What a game comes to.
#[derive(Debug, Clone, PartialEq)]
pub struct GameSummary {
    /// Indexed by `Player::index`.
    pub players: [PlayerStats; 2],
    /// `p1win`, `p2win`, `draw`, or `none` (not finished and no result recorded).
    pub result: &'static str,
    /// Why it ended, when known.
    pub reason: Option<String>,
    /// Index in the moves of the decisive mistake.
    pub decisive: Option<usize>,
}

/// `p1win`/`p2win`/`draw` from a recorded result in any of the spellings sowfan writes.
pub fn normalise_result(text: &str) -> Option<&'static str> {
    match text.trim() {
        "p1win" | "1-0" => Some("p1win"),
        "p2win" | "0-1" => Some("p2win"),
        "draw" | "1/2-1/2" => Some("draw"),
        _ => None,
    }
}

/// Totals, the result (as recorded, else the end of the game), and the decisive mistake
/// (see [`decisive_mistake`]; by the last position's judgement when the game is unfinished
/// and no result is recorded).
pub fn summarise(
    positions: &[PositionResult],
    moves: &[MoveAnalysis],
    recorded_result: Option<&str>,
    recorded_reason: Option<&str>,
) -> GameSummary {
    let mut players: [PlayerStats; 2] = Default::default();
    for m in moves.iter().filter(|m| !m.opening) {
        let p = &mut players[m.by.index()];
        p.moves += 1;
        p.total_loss += m.loss;
        match m.mark {
            Mark::None => {}
            Mark::Only => p.only_moves += 1,
            Mark::Inaccuracy => p.inaccuracies += 1,
            Mark::Mistake => p.mistakes += 1,
            Mark::Blunder => p.blunders += 1,
        }
    }
    let last = positions.last();
    let outcome = last.and_then(|p| p.outcome);
    let result = recorded_result
        .and_then(normalise_result)
        .or(outcome.map(|o| o.result.as_str()))
        .unwrap_or("none");
    let reason = recorded_reason
        .map(str::to_string)
        .or(outcome.map(|o| o.reason.to_string()));
    let winner = match result {
        "p1win" => Some(Player::P1),
        "p2win" => Some(Player::P2),
        "draw" => None,
        // Unfinished: the engine's judgement of the last position, if decided.
        _ => last.and_then(|p| {
            if p.value.decided() {
                Some(p.mover)
            } else if p.value.flip().decided() {
                Some(p.mover.other())
            } else {
                None
            }
        }),
    };
    let decisive = winner.and_then(|w| decisive_mistake(positions, moves, w));
    GameSummary {
        players,
        result,
        reason,
        decisive,
    }
}

/// The move after which the result was no longer in doubt for `winner`: the loser's move
/// into the first of the positions that are all decided for the winner to the end (see
/// [`Value::decided`]), when it is at least an inaccuracy. When that position was reached
/// by the winner's move, or by a move of the loser that lost less (the engine's judgement
/// only firmed up, or wavered around the decided line), it is the loser's costliest move
/// since the loser was last level or ahead. `None` when the game never stays decided
/// (e.g. lost on time), was decided from the start, or the loser lost nothing on the way;
/// opening moves are never the decisive mistake.
pub fn decisive_mistake(
    positions: &[PositionResult],
    moves: &[MoveAnalysis],
    winner: Player,
) -> Option<usize> {
    let view = |p: &PositionResult| p.value.for_player(p.mover, winner);
    let undecided = positions.iter().rposition(|p| !view(p).decided())?;
    // Position `undecided + 1` is the first of the decided ones; the move into it:
    let crossing = undecided;
    if crossing >= moves.len() {
        return None;
    }
    let counts = |m: &MoveAnalysis| m.by != winner && !m.opening && m.loss > 0.0;
    if counts(&moves[crossing]) && moves[crossing].loss >= INACCURACY {
        return Some(crossing);
    }
    let level = positions[..=crossing]
        .iter()
        .rposition(|p| view(p).points() <= 0.0)
        .unwrap_or(0);
    (level..=crossing)
        .filter(|&i| counts(&moves[i]))
        .max_by(|&a, &b| moves[a].loss.total_cmp(&moves[b].loss).then(a.cmp(&b)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{GameResult, Points};
    use crate::search::score;

    fn pos(mover: Player, value: Value) -> PositionResult {
        PositionResult {
            fen: String::new(),
            mover,
            value,
            best: Some("A".to_string()),
            depth: 1,
            nodes: 1,
            only_move: false,
            outcome: None,
        }
    }

    #[test]
    fn values_convert_and_print() {
        assert_eq!(Value::from_search(45, false), Value::Cp(45));
        assert_eq!(Value::from_search(0, true), Value::Exact(0));
        assert_eq!(Value::from_search(score::exact(16), true), Value::Exact(16));
        assert_eq!(Value::from_search(score::exact(-3), true), Value::Exact(-3));
        assert_eq!(Value::from_search(score::MATE - 7, true), Value::Win);
        assert_eq!(Value::from_search(-(score::MATE - 7), true), Value::Loss);
        assert_eq!(Value::Cp(45).text(), "+0.45");
        assert_eq!(Value::Cp(-120).text(), "-1.20");
        assert_eq!(Value::Exact(16).text(), "+8*");
        assert_eq!(Value::Exact(-5).text(), "-2.5*");
        assert_eq!(Value::Exact(0).text(), "0*");
        assert_eq!(Value::Win.points(), DECIDED);
        assert_eq!(Value::Cp(2500).in_doubt(), DECIDED);
        assert!(Value::Exact(1).decided() && Value::Cp(1000).decided());
        assert!(!Value::Cp(999).decided() && !Value::Exact(0).decided());
        assert!(Value::Win.proven_better_than(Value::Exact(40)));
        assert!(!Value::Win.proven_better_than(Value::Win));
        assert!(!Value::Exact(4).proven_better_than(Value::Cp(-500)));
        let outcome = Outcome {
            result: GameResult::P2Win,
            scores: [Points::whole(20), Points::whole(28)],
            reason: "x",
        };
        assert_eq!(Value::of_outcome(&outcome, Player::P1), Value::Exact(-16));
        assert_eq!(Value::of_outcome(&outcome, Player::P2), Value::Exact(16));
        // A result not decided by points.
        let outcome = Outcome {
            result: GameResult::P1Win,
            scores: [Points::whole(3), Points::whole(5)],
            reason: "no stones left",
        };
        assert_eq!(Value::of_outcome(&outcome, Player::P1), Value::Win);
        assert_eq!(Value::of_outcome(&outcome, Player::P2), Value::Loss);
    }

    #[test]
    fn losses_marks_and_extra_moves() {
        let before = pos(Player::P1, Value::Cp(300));
        // The other player moves next: their -1.5 is our +1.5; loss 1.5.
        let m = judge_move(1, "B", false, &before, &pos(Player::P2, Value::Cp(-150)));
        assert_eq!((m.loss, m.mark), (1.5, Mark::Inaccuracy));
        assert_eq!(m.value, Value::Cp(150));
        assert_eq!(m.p1_value, Value::Cp(150));
        // The same player moves again: no negation.
        let m = judge_move(1, "B", false, &before, &pos(Player::P1, Value::Cp(-150)));
        assert_eq!((m.loss, m.mark), (4.5, Mark::Blunder));
        // The engine's own move loses nothing, whatever the horizon says.
        let m = judge_move(1, "A", false, &before, &pos(Player::P2, Value::Cp(500)));
        assert_eq!((m.loss, m.mark), (0.0, Mark::None));
        // Within a decided lead nothing is lost.
        let ahead = pos(Player::P1, Value::Cp(1500));
        let m = judge_move(1, "B", false, &ahead, &pos(Player::P2, Value::Cp(-1200)));
        assert_eq!(m.loss, 0.0);
        let m = judge_move(1, "B", false, &ahead, &pos(Player::P2, Value::Cp(-700)));
        assert_eq!((m.loss, m.mark), (3.0, Mark::Mistake));
        // Never negative.
        let m = judge_move(1, "B", false, &before, &pos(Player::P2, Value::Cp(-900)));
        assert_eq!(m.loss, 0.0);
    }

    #[test]
    fn losses_compare_only_comparable_values() {
        use Value::{Bound, Cp, Exact, Loss, Win};
        // Exact against exact: the difference, not held within the decided lead.
        assert_eq!(loss_between(Exact(40), Exact(24)), 8.0);
        assert_eq!(loss_between(Exact(4), Exact(4)), 0.0);
        // A bound leaves its side open: only what is certain counts.
        assert_eq!(loss_between(Bound(12), Exact(4)), 4.0);
        assert_eq!(loss_between(Exact(12), Bound(4)), 0.0);
        assert_eq!(loss_between(Bound(12), Bound(4)), 0.0);
        assert_eq!(loss_between(Bound(2), Bound(-2)), 2.0);
        assert_eq!(loss_between(Bound(-2), Bound(-24)), 0.0);
        // The Afrika endgame: a proven win against a heuristic lead is no loss,
        // either way round; a proven result against a heuristic one that says the same.
        assert_eq!(loss_between(Bound(4), Cp(400)), 0.0);
        assert_eq!(loss_between(Win, Cp(400)), 0.0);
        assert_eq!(loss_between(Cp(900), Bound(2)), 0.0);
        assert_eq!(loss_between(Cp(-400), Bound(-20)), 0.0);
        assert_eq!(loss_between(Bound(-2), Cp(-900)), 0.0);
        assert_eq!(loss_between(Exact(0), Cp(30)), 0.0);
        // ... unless the heuristic says the result is gone: then by the heuristic's word.
        assert_eq!(loss_between(Bound(4), Cp(-300)), 5.0);
        assert_eq!(loss_between(Exact(0), Cp(-150)), 1.5);
        assert_eq!(loss_between(Cp(250), Exact(-3)), 4.0);
        assert_eq!(loss_between(Cp(250), Bound(-8)), 6.5);
        assert_eq!(loss_between(Cp(120), Exact(0)), 1.2);
        // Won or lost games: a thrown win is ±10 points.
        assert_eq!(loss_between(Win, Loss), 20.0);
        assert_eq!(loss_between(Win, Exact(0)), 10.0);
        // Two heuristic values: held within ±10.
        assert_eq!(loss_between(Cp(2500), Cp(-500)), 15.0);
    }

    #[test]
    fn decisive_mistake_is_the_losers_last_move_into_a_decided_game() {
        use Player::{P1, P2};
        // p1 moves at 0, 2, 4; p2 at 1, 3. p1's move 3 (index 2) throws the game.
        let values = [
            (P1, Value::Cp(50)),
            (P2, Value::Cp(-20)),
            (P1, Value::Cp(100)),
            (P2, Value::Cp(1500)),
            (P1, Value::Loss),
            (P2, Value::Exact(12)),
        ];
        let positions: Vec<PositionResult> = values.iter().map(|&(p, v)| pos(p, v)).collect();
        let moves: Vec<MoveAnalysis> = (0..5)
            .map(|i| judge_move(i + 1, "B", false, &positions[i], &positions[i + 1]))
            .collect();
        let summary = summarise(&positions, &moves, Some("0-1"), None);
        assert_eq!(summary.result, "p2win");
        assert_eq!(summary.decisive, Some(2));
        assert_eq!(summary.players[0].moves, 3);
        assert_eq!(summary.players[0].blunders, 1);
        // Unrecorded and unfinished: the last position's judgement names the winner.
        let summary = summarise(&positions, &moves, None, None);
        assert_eq!(summary.result, "none");
        assert_eq!(summary.decisive, Some(2));
        // A draw has none.
        assert_eq!(
            summarise(&positions, &moves, Some("draw"), None).decisive,
            None
        );
        // A result the positions do not bear out (a loss on time) has none.
        assert_eq!(
            summarise(&positions, &moves, Some("1-0"), None).decisive,
            None
        );
    }

    #[test]
    fn a_decided_game_reached_by_the_winners_move_blames_the_losers_costliest_move() {
        use Player::{P1, P2};
        let values = [
            (P1, Value::Cp(0)),
            (P2, Value::Cp(600)),
            (P1, Value::Cp(200)),
            (P2, Value::Cp(-900)),
            (P1, Value::Cp(1200)),
            (P2, Value::Exact(-10)),
        ];
        let positions: Vec<PositionResult> = values.iter().map(|&(p, v)| pos(p, v)).collect();
        // Moves 3 and 4 are the engine's own (loss 0): the judgement only firms up.
        let played = ["B", "B", "A", "A", "A"];
        let moves: Vec<MoveAnalysis> = (0..5)
            .map(|i| judge_move(i + 1, played[i], false, &positions[i], &positions[i + 1]))
            .collect();
        assert_eq!(moves[0].loss, 6.0);
        assert_eq!(moves[1].loss, 8.0);
        assert_eq!(moves[3].loss, 0.0);
        let summary = summarise(&positions, &moves, Some("p1win"), None);
        assert_eq!(summary.decisive, Some(1));
        // A small slip across the decided line is not the decisive mistake either.
        let mut wavering = positions.clone();
        wavering[3].value = Value::Cp(-955);
        let slip = judge_move(4, "B", false, &wavering[3], &wavering[4]);
        assert_eq!(slip.loss, 0.45);
        let mut slipped = moves.clone();
        slipped[3] = slip;
        assert_eq!(
            summarise(&wavering, &slipped, Some("p1win"), None).decisive,
            Some(1)
        );
        // An opening move is never the decisive mistake.
        let mut opening = moves.clone();
        opening[1].opening = true;
        assert_eq!(
            summarise(&positions, &opening, Some("p1win"), None).decisive,
            None
        );
        assert_eq!(Value::Cp(0).text(), "0.00");
    }
}
