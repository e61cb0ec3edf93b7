//! One refereed game between two engine processes.
//!
//! The referee is a [`Session`] of the game: it says whose turn it is (a side may move several
//! times in a row), checks every `bestmove`, and ends the game by the rules, draw rules
//! included. Engines are never asked whether the game is over. Anything an engine does wrong
//! (an illegal or malformed move, a crash, silence, running out of time) loses it the game.

use std::time::{Duration, Instant};

use crate::cli::CancelToken;
use crate::client::process::{EngineProcess, Failure, deadline_after};
use crate::client::spec::{EngineSpec, TimeControl};
use crate::client::{is_bestmove, parse_bestmove};
use crate::game::{GameResult, Player, Points};
use crate::openings::Opening;
use crate::records::MoveRecord;
use crate::session::{PositionCommandError, Session};

/// How a game ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Termination {
    /// By the rules of the game (including its draw rules).
    Rules,
    /// A legal-looking move that the rules reject here.
    IllegalMove,
    /// Not a move of this game, or a `bestmove` line without one.
    MalformedMove,
    /// More thinking time than its clock (or movetime) plus the margin allowed.
    TimeForfeit,
    /// The process exited or closed its pipes.
    Crash,
    /// No `readyok`, or no `bestmove` from a search without a clock, in time.
    Unresponsive,
    /// The runner's `--max-plies`, or nobody could play.
    Adjudication,
}

impl Termination {
    pub fn as_str(self) -> &'static str {
        match self {
            Termination::Rules => "rules",
            Termination::IllegalMove => "illegal-move",
            Termination::MalformedMove => "malformed-move",
            Termination::TimeForfeit => "time-forfeit",
            Termination::Crash => "crash",
            Termination::Unresponsive => "unresponsive",
            Termination::Adjudication => "adjudication",
        }
    }

    /// The termination [`Termination::as_str`] spells as `text`.
    pub fn parse(text: &str) -> Option<Termination> {
        [
            Termination::Rules,
            Termination::IllegalMove,
            Termination::MalformedMove,
            Termination::TimeForfeit,
            Termination::Crash,
            Termination::Unresponsive,
            Termination::Adjudication,
        ]
        .into_iter()
        .find(|termination| termination.as_str() == text)
    }
}

/// A finished game, before the runner turns it into a record.
#[derive(Debug, Clone)]
pub struct Played {
    pub result: GameResult,
    pub termination: Termination,
    pub reason: String,
    pub moves: Vec<MoveRecord>,
    pub final_fen: String,
    pub points: Option<[Points; 2]>,
    pub duration: Duration,
}

/// What stays the same for every game of a match.
pub struct Referee<'a> {
    pub base: &'a dyn Session,
    pub game_spec: &'a str,
    pub ready_timeout: Duration,
    pub move_timeout: Duration,
    pub max_plies: Option<usize>,
    /// Cancelled when the match stops; engines watch it in every wait.
    pub stop: &'a CancelToken,
}

/// An engine at the board: its settings and its process (started here when missing). After
/// the game, `needs_restart` tells the runner to throw the process away.
pub struct Seat<'a> {
    pub spec: &'a EngineSpec,
    pub process: &'a mut Option<EngineProcess>,
    pub needs_restart: bool,
}

/// A fault that loses the game for the engine that made it.
struct Fault {
    termination: Termination,
    reason: String,
    /// The process cannot be trusted for another game (crashed, hung, killed).
    restart: bool,
    /// Not a fault at all: the match stopped while waiting, and the game is abandoned.
    cancelled: bool,
}

impl Fault {
    fn new(termination: Termination, reason: String, restart: bool) -> Fault {
        Fault {
            termination,
            reason,
            restart,
            cancelled: false,
        }
    }

    fn from_failure(failure: Failure, doing: &str) -> Fault {
        match failure {
            Failure::NotStarted(message) | Failure::Crashed(message) => Fault::new(
                Termination::Crash,
                format!("crashed {doing}: {message}"),
                true,
            ),
            Failure::Silent(message) => Fault::new(
                Termination::Unresponsive,
                format!("did not answer {doing}: {message}"),
                true,
            ),
            Failure::Cancelled => Fault {
                cancelled: true,
                ..Fault::new(Termination::Adjudication, String::new(), true)
            },
        }
    }
}

/// A chess clock for one seat, in microseconds (may run below zero by the margin).
#[derive(Debug, Clone, Copy)]
struct Clock {
    tc: TimeControl,
    left_us: i64,
    /// Moves left in the current period (`tc=40/60`), `None` for sudden death.
    moves_left: Option<u32>,
}

impl Clock {
    fn new(tc: TimeControl) -> Clock {
        Clock {
            tc,
            left_us: tc.base.as_micros() as i64,
            moves_left: tc.moves,
        }
    }

    fn left_ms(&self) -> i64 {
        self.left_us.div_euclid(1000)
    }

    fn inc_ms(&self) -> i64 {
        self.tc.inc.as_millis() as i64
    }

    fn charge(&mut self, elapsed: Duration) {
        self.left_us -= elapsed.as_micros() as i64;
        self.left_us += self.tc.inc.as_micros() as i64;
        if let Some(left) = self.moves_left.as_mut() {
            *left -= 1;
            if *left == 0 {
                self.left_us += self.tc.base.as_micros() as i64;
                self.moves_left = self.tc.moves;
            }
        }
    }
}

/// A `bestmove` line that names no move (the line, trimmed).
#[derive(Debug, thiserror::Error)]
#[error("sent a malformed bestmove line: '{0}'")]
struct MalformedBestmove(String);

/// What an engine answered to `go`.
struct Reply {
    /// The move text, or the `bestmove` line that is not one.
    mv: Result<String, MalformedBestmove>,
    elapsed: Duration,
    depth: Option<u32>,
    score: Option<String>,
}

/// Play one game from `opening`, with `seats[0]` as P1. `None` when `stop` was raised.
pub fn play(referee: &Referee, opening: &Opening, seats: &mut [Seat; 2]) -> Option<Played> {
    let started = Instant::now();
    let mut session = referee.base.clone_box();
    let opening_moves: Vec<&str> = opening.moves.iter().map(String::as_str).collect();
    if let Err(e) = session.set_position(opening.fen.as_deref(), &opening_moves) {
        // Openings are checked before the match; this is a bug, not an engine's fault.
        return Some(finish(
            session.as_ref(),
            GameResult::Draw,
            Termination::Adjudication,
            format!("the rules rejected the opening: {e}"),
            Vec::new(),
            started,
        ));
    }

    // Both engines get ready for the game; a failure here loses it.
    let mut faults: [Option<Fault>; 2] = [None, None];
    for (seat, fault) in seats.iter_mut().zip(faults.iter_mut()) {
        if let Err(f) = prepare(referee, seat) {
            seat.needs_restart |= f.restart;
            *fault = Some(f);
        }
    }
    if faults.iter().flatten().any(|f| f.cancelled) {
        return None;
    }
    let [p1_fault, p2_fault] = faults;
    match (p1_fault, p2_fault) {
        (Some(f1), Some(f2)) => {
            return Some(finish(
                session.as_ref(),
                GameResult::Draw,
                Termination::Adjudication,
                format!(
                    "neither engine could start the game: p1 {}; p2 {}",
                    f1.reason, f2.reason
                ),
                Vec::new(),
                started,
            ));
        }
        (Some(fault), None) => {
            return Some(forfeit(
                session.as_ref(),
                Player::P1,
                fault,
                Vec::new(),
                started,
            ));
        }
        (None, Some(fault)) => {
            return Some(forfeit(
                session.as_ref(),
                Player::P2,
                fault,
                Vec::new(),
                started,
            ));
        }
        (None, None) => {}
    }

    let mut clocks: [Option<Clock>; 2] = [
        seats[0].spec.limits.tc.map(Clock::new),
        seats[1].spec.limits.tc.map(Clock::new),
    ];
    let mut played: Vec<String> = Vec::new();
    let mut records: Vec<MoveRecord> = Vec::new();
    loop {
        if referee.stop.is_cancelled() {
            return None;
        }
        if let Some(outcome) = session.outcome() {
            let mut done = finish(
                session.as_ref(),
                outcome.result,
                Termination::Rules,
                outcome.reason.to_string(),
                records,
                started,
            );
            done.points = Some(outcome.scores);
            return Some(done);
        }
        if let Some(max) = referee.max_plies
            && opening.moves.len() + played.len() >= max
        {
            return Some(finish(
                session.as_ref(),
                GameResult::Draw,
                Termination::Adjudication,
                format!("drawn by the match's limit of {max} moves"),
                records,
                started,
            ));
        }
        let player = session.to_move();
        let me = player.index();
        let position = opening.position_command(&played);
        let go = go_command(seats[me].spec, &clocks, me);
        let seat = &mut seats[me];
        let reply = match ask_move(referee, seat, &position, &go, clocks[me].as_ref()) {
            Ok(reply) => reply,
            Err(fault) => {
                seat.needs_restart |= fault.restart;
                if fault.cancelled {
                    return None;
                }
                return Some(forfeit(session.as_ref(), player, fault, records, started));
            }
        };
        let mv = match reply.mv {
            Ok(mv) => mv,
            Err(why) => {
                let fault = Fault::new(Termination::MalformedMove, why.to_string(), false);
                return Some(forfeit(session.as_ref(), player, fault, records, started));
            }
        };
        // The referee: the whole game so far plus this move must be accepted by the rules.
        let mut all: Vec<&str> = opening_moves.clone();
        all.extend(played.iter().map(String::as_str));
        all.push(&mv);
        if let Err(e) = session.set_position(opening.fen.as_deref(), &all) {
            let (termination, why) = match e {
                PositionCommandError::BadMove { error, .. } => {
                    let termination = match error {
                        crate::game::MoveError::Malformed { .. } => Termination::MalformedMove,
                        crate::game::MoveError::Illegal { .. } => Termination::IllegalMove,
                    };
                    (termination, error.to_string())
                }
                other => (Termination::IllegalMove, other.to_string()),
            };
            let label = match termination {
                Termination::MalformedMove => "a malformed move",
                _ => "an illegal move",
            };
            let fault = Fault::new(termination, format!("played {label}: {why}"), false);
            return Some(forfeit(session.as_ref(), player, fault, records, started));
        }
        let clock_ms = clocks[me].as_mut().map(|clock| {
            clock.charge(reply.elapsed);
            clock.left_ms()
        });
        records.push(MoveRecord {
            mv: mv.clone(),
            by: player.name().to_string(),
            ms: reply.elapsed.as_millis() as u64,
            clock_ms,
            depth: reply.depth,
            score: reply.score,
        });
        played.push(mv);
    }
}

/// Start the engine if needed, then set up the new game.
fn prepare(referee: &Referee, seat: &mut Seat) -> Result<(), Fault> {
    if seat.process.is_none() {
        match EngineProcess::start(seat.spec, referee.ready_timeout, referee.stop.clone()) {
            Ok(process) => *seat.process = Some(process),
            Err(failure) => {
                let mut fault = Fault::from_failure(failure, "at start-up");
                fault.restart = true;
                return Err(fault);
            }
        }
    }
    let Some(process) = seat.process.as_mut() else {
        return Err(Fault::new(
            Termination::Crash,
            "has no process".to_string(),
            true,
        ));
    };
    process
        .new_game(seat.spec.setup, referee.game_spec, referee.ready_timeout)
        .map_err(|f| Fault::from_failure(f, "to the new game"))
}

/// `go` with the limits of the engine to move (seat `mover`) and both clocks (`p1…`/`p2…`
/// or `w…`/`b…`).
fn go_command(spec: &EngineSpec, clocks: &[Option<Clock>; 2], mover: usize) -> String {
    let mut go = String::from("go");
    let (time_keys, inc_keys) = spec.proto.clock_words();
    for (i, clock) in clocks.iter().enumerate() {
        if let Some(clock) = clock {
            go.push_str(&format!(" {} {}", time_keys[i], clock.left_ms()));
        }
    }
    for (i, clock) in clocks.iter().enumerate() {
        if let Some(clock) = clock {
            go.push_str(&format!(" {} {}", inc_keys[i], clock.inc_ms()));
        }
    }
    if let Some(moves_left) = clocks[mover].and_then(|c| c.moves_left) {
        go.push_str(&format!(" movestogo {moves_left}"));
    }
    go.push_str(&spec.limits.go_words());
    go
}

/// Send the position, make sure the engine is awake, start the search and wait for its
/// `bestmove` within the time it has.
fn ask_move(
    referee: &Referee,
    seat: &mut Seat,
    position: &str,
    go: &str,
    clock: Option<&Clock>,
) -> Result<Reply, Fault> {
    let Some(engine) = seat.process.as_mut() else {
        return Err(Fault::new(
            Termination::Crash,
            "has no process".to_string(),
            true,
        ));
    };
    engine
        .send(position)
        .map_err(|f| Fault::from_failure(f, "before its move"))?;
    engine
        .ping(referee.ready_timeout)
        .map_err(|f| Fault::from_failure(f, "before its move"))?;

    let margin = seat.spec.timemargin;
    // The time the engine may use: its clock or movetime, plus the margin; without either,
    // the runner's move timeout.
    let allowed: Option<Duration> = match (clock, seat.spec.limits.movetime) {
        (Some(clock), _) => {
            Some(Duration::from_micros(clock.left_us.max(0) as u64).saturating_add(margin))
        }
        (None, Some(movetime)) => Some(movetime.saturating_add(margin)),
        (None, None) => None,
    };
    let sent = Instant::now();
    engine
        .send(go)
        .map_err(|f| Fault::from_failure(f, "at 'go'"))?;
    let budget = allowed.unwrap_or(referee.move_timeout);
    let deadline = sent
        .checked_add(budget)
        .unwrap_or_else(|| deadline_after(budget));
    let mut depth = None;
    let mut score = None;
    loop {
        match engine.next_line(deadline) {
            Ok(Some((line, at))) => {
                if is_bestmove(&line) {
                    let elapsed = at.saturating_duration_since(sent);
                    if let Some(allowed) = allowed
                        && elapsed > allowed
                    {
                        return Err(Fault::new(
                            Termination::TimeForfeit,
                            format!(
                                "lost on time: took {} ms, had {}",
                                elapsed.as_millis(),
                                time_had(clock, seat.spec, margin)
                            ),
                            false,
                        ));
                    }
                    let mv = match parse_bestmove(&line) {
                        Some((mv, _ponder)) => Ok(mv.to_string()),
                        None => Err(MalformedBestmove(line.trim().to_string())),
                    };
                    return Ok(Reply {
                        mv,
                        elapsed,
                        depth,
                        score,
                    });
                }
                if line.split_whitespace().next() == Some("info") {
                    read_info(&line, &mut depth, &mut score);
                }
            }
            Ok(None) => {
                return Err(match allowed {
                    Some(_) => {
                        let restart = !stop_search(engine, referee.ready_timeout);
                        Fault::new(
                            Termination::TimeForfeit,
                            format!(
                                "lost on time: no move within {}",
                                time_had(clock, seat.spec, margin)
                            ),
                            restart,
                        )
                    }
                    None => Fault::new(
                        Termination::Unresponsive,
                        format!(
                            "hung: no bestmove within {} ms",
                            referee.move_timeout.as_millis()
                        ),
                        true,
                    ),
                });
            }
            Err(failure) => return Err(Fault::from_failure(failure, "while thinking")),
        }
    }
}

/// `1234 ms (+100 ms margin)`: the time an engine had for its move.
fn time_had(clock: Option<&Clock>, spec: &EngineSpec, margin: Duration) -> String {
    let base = match (clock, spec.limits.movetime) {
        (Some(clock), _) => clock.left_ms().max(0) as u128,
        (None, Some(movetime)) => movetime.as_millis(),
        (None, None) => 0,
    };
    format!("{base} ms (+{} ms margin)", margin.as_millis())
}

/// After a time forfeit: `stop`, and wait for the late `bestmove` so the engine is in step
/// for the next game. False when it does not come (the engine must be restarted).
fn stop_search(engine: &mut EngineProcess, timeout: Duration) -> bool {
    if engine.send("stop").is_err() {
        return false;
    }
    let deadline = deadline_after(timeout);
    loop {
        match engine.next_line(deadline) {
            Ok(Some((line, _))) if is_bestmove(&line) => return true,
            Ok(Some(_)) => {}
            Ok(None) | Err(_) => return false,
        }
    }
}

/// Keep the last `depth N` and `score cp N` / `score mate N` of an `info` line.
fn read_info(line: &str, depth: &mut Option<u32>, score: &mut Option<String>) {
    let words: Vec<&str> = line.split_whitespace().collect();
    for (i, word) in words.iter().enumerate() {
        match *word {
            "depth" => {
                if let Some(d) = words.get(i + 1).and_then(|w| w.parse().ok()) {
                    *depth = Some(d);
                }
            }
            "score" => {
                if let (Some(kind @ ("cp" | "mate")), Some(value)) =
                    (words.get(i + 1).copied(), words.get(i + 2))
                    && value.parse::<i64>().is_ok()
                {
                    *score = Some(format!("{kind} {value}"));
                }
            }
            // Free text follows; nothing after it is a field.
            "string" => break,
            _ => {}
        }
    }
}

fn finish(
    session: &dyn Session,
    result: GameResult,
    termination: Termination,
    reason: String,
    moves: Vec<MoveRecord>,
    started: Instant,
) -> Played {
    Played {
        result,
        termination,
        reason,
        moves,
        final_fen: session.fen(),
        points: None,
        duration: started.elapsed(),
    }
}

fn forfeit(
    session: &dyn Session,
    loser: Player,
    fault: Fault,
    moves: Vec<MoveRecord>,
    started: Instant,
) -> Played {
    finish(
        session,
        GameResult::won_by(Some(loser.other())),
        fault.termination,
        format!("{} {}", loser.name(), fault.reason),
        moves,
        started,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::spec::parse_engine;

    #[test]
    fn go_lines_carry_both_clocks_in_the_engines_protocol() {
        let words = |t: &str| t.split(' ').map(String::from).collect::<Vec<_>>();
        let ugi = parse_engine(&words("cmd=x tc=10+0.1 depth=9"), &[]).unwrap();
        let uci = parse_engine(&words("cmd=x tc=40/10 proto=uci"), &[]).unwrap();
        let mut clocks = [ugi.limits.tc.map(Clock::new), uci.limits.tc.map(Clock::new)];
        assert_eq!(
            go_command(&ugi, &clocks, 0),
            "go p1time 10000 p2time 10000 p1inc 100 p2inc 0 depth 9"
        );
        clocks[1]
            .as_mut()
            .unwrap()
            .charge(Duration::from_millis(2500));
        assert_eq!(
            go_command(&uci, &clocks, 1),
            "go wtime 10000 btime 7500 winc 100 binc 0 movestogo 39"
        );
        let fixed = parse_engine(&words("cmd=x movetime=250 nodes=1000"), &[]).unwrap();
        assert_eq!(
            go_command(&fixed, &[None, None], 0),
            "go movetime 250 nodes 1000"
        );
    }

    #[test]
    fn clocks_add_increments_and_new_periods() {
        let mut clock = Clock::new(TimeControl::parse("2/1+0.5").unwrap());
        clock.charge(Duration::from_millis(300));
        assert_eq!(clock.left_ms(), 1200);
        assert_eq!(clock.moves_left, Some(1));
        clock.charge(Duration::from_millis(1500));
        // 1200 - 1500 + 500 + a new period of 1000.
        assert_eq!(clock.left_ms(), 1200);
        assert_eq!(clock.moves_left, Some(2));
    }

    #[test]
    fn info_lines_give_depth_and_score() {
        let (mut depth, mut score) = (None, None);
        read_info(
            "info depth 7 seldepth 9 score cp -35 nodes 10 pv A b",
            &mut depth,
            &mut score,
        );
        assert_eq!((depth, score.as_deref()), (Some(7), Some("cp -35")));
        read_info("info string depth 99 score cp 1", &mut depth, &mut score);
        read_info("info depth x score mate", &mut depth, &mut score);
        assert_eq!((depth, score.as_deref()), (Some(7), Some("cp -35")));
        read_info(
            "info depth 8 score mate -3 lowerbound",
            &mut depth,
            &mut score,
        );
        assert_eq!((depth, score.as_deref()), (Some(8), Some("mate -3")));
    }
}
