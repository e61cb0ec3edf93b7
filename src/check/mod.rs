//! `sowfan check`: does an engine follow the protocol? Like fastchess' `--compliance` for
//! chess engines, it runs a fixed list of checks ([`checks::CHECKS`]) against any engine
//! and prints one line per check (`ok`, `FAIL` or `skip`, what was sent, what came back,
//! how long it took), then a summary with the latencies.
//!
//! All input and output goes through the engine client's hardened [`EngineProcess`]
//! (shared with `sowfan match`): bounded lines and queues, deadlines checked at every line,
//! non-blocking writes. Every wait here has a deadline (the `--timeout` per answer, plus the
//! time a timed search may take), so a hostile engine (flooding, silent, crashing, reading
//! nothing) costs at most a few timeouts per check and never hangs the checker.
//!
//! **Restarts.** When the engine crashes, or leaves a check in a state the checker cannot
//! trust (no `readyok`, no `bestmove`, a search that does not stop), it is killed with its
//! process group, and the next check starts a fresh process (handshake, the `option.`
//! settings, the new game, `isready`) so that each check is judged on its own. If the
//! handshake of check 1 fails, or a restart fails, the remaining checks are not run and
//! are reported `FAIL` (the engine cannot be talked to).
//!
//! The rules come from a [`Session`] of the game (the registry): which moves are legal,
//! whose turn it is, whether and how the game ended, position strings. Nothing here knows
//! any game; the positions sent are found by seeded random play ([`test_positions`]).

pub mod checks;
pub mod test_positions;

use std::time::{Duration, Instant};

use thiserror::Error;

use crate::cli::CancelToken;
use crate::client::process::{EngineProcess, Failure, deadline_after};
use crate::client::spec::{EngineSpec, Proto};
use crate::client::{is_bestmove, parse_bestmove};
use crate::registry::{self, RegistryError};
use crate::session::{PositionCommandError, Session};

use test_positions::{Line, Positions};

/// How long after a `bestmove` the checker keeps listening for a second one.
pub const QUIET: Duration = Duration::from_millis(150);
/// How long the engine has to exit after `quit`.
pub const QUIT_GRACE: Duration = Duration::from_millis(1000);
/// Lines kept from one wait (the rest are only counted): a flood costs no memory.
const KEPT_LINES: usize = 200;
/// Characters of an engine line or a command shown in a result line.
const SHOWN: usize = 60;

/// What `sowfan check` was asked to do.
#[derive(Debug, Clone)]
pub struct CheckConfig {
    /// The engine, from `--engine` words (`parse_engine_keys`); search limits are ignored.
    pub engine: EngineSpec,
    /// The game and its options, as after `newgame`.
    pub game: String,
    /// Time for each answer (handshake, `readyok`, `bestmove` beyond the search's own time).
    pub timeout: Duration,
    /// Seed of the random play that finds the positions.
    pub seed: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Ok,
    Fail,
    /// The game has no such position (e.g. no extra moves in Fanorona): not a failure.
    Skip,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Fail => "FAIL",
            Status::Skip => "skip",
        }
    }
}

/// The verdict of one check, as printed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckResult {
    pub id: u32,
    pub name: &'static str,
    pub status: Status,
    /// The command(s) that matter, shortened.
    pub sent: String,
    /// The engine's answer that matters, shortened; `None` when nothing was awaited.
    pub got: Option<String>,
    /// How long the answer took.
    pub ms: Option<u128>,
    /// Why it failed or was skipped, or more about the answer.
    pub note: String,
}

impl CheckResult {
    /// `ok     5 go depth 1 ...  sent 'go depth 1' got 'bestmove C' in 1 ms (note)`.
    pub fn line(&self) -> String {
        let mut text = format!(
            "{:<5}{:>2} {:<NAME_WIDTH$}",
            self.status.as_str(),
            self.id,
            self.name
        );
        if !self.sent.is_empty() {
            text.push_str(&format!(" sent '{}'", self.sent));
        }
        if let Some(got) = &self.got {
            if got.is_empty() {
                text.push_str(" got nothing");
            } else {
                text.push_str(&format!(" got '{got}'"));
            }
        }
        if let Some(ms) = self.ms {
            text.push_str(&format!(" in {ms} ms"));
        }
        if !self.note.is_empty() {
            text.push_str(&format!(" ({})", self.note));
        }
        text
    }
}

/// Width of the name column.
const NAME_WIDTH: usize = 24;

/// A whole run.
#[derive(Debug, Clone)]
pub struct CheckReport {
    pub results: Vec<CheckResult>,
    /// `(what, milliseconds)`: handshake, isready idle and while searching, stop, quit, …
    pub latencies: Vec<(String, u128)>,
    /// Fresh engine processes started after the first.
    pub restarts: u32,
    /// Ctrl-C stopped the run; the checks not run are not in `results`.
    pub interrupted: bool,
    pub elapsed: Duration,
}

impl CheckReport {
    fn count(&self, status: Status) -> usize {
        self.results.iter().filter(|r| r.status == status).count()
    }

    pub fn passed(&self) -> usize {
        self.count(Status::Ok)
    }

    pub fn failed(&self) -> usize {
        self.count(Status::Fail)
    }

    pub fn skipped(&self) -> usize {
        self.count(Status::Skip)
    }

    /// No check failed (skips are fine) and the run was not interrupted.
    pub fn all_passed(&self) -> bool {
        self.failed() == 0 && !self.interrupted
    }

    /// The summary lines printed after the checks.
    pub fn summary(&self) -> Vec<String> {
        let mut lines = vec![format!(
            "Checks: {}, passed {}, failed {}, skipped {} in {:.1} s",
            self.results.len(),
            self.passed(),
            self.failed(),
            self.skipped(),
            self.elapsed.as_secs_f64()
        )];
        if !self.latencies.is_empty() {
            let parts: Vec<String> = self
                .latencies
                .iter()
                .map(|(what, ms)| format!("{what} {ms} ms"))
                .collect();
            lines.push(format!("Latency: {}", parts.join(", ")));
        }
        if self.restarts > 0 {
            lines.push(format!(
                "Engine restarts: {} (after a crash or a hang)",
                self.restarts
            ));
        }
        if self.interrupted {
            lines.push("Check interrupted: the remaining checks were not run".to_string());
        }
        lines
    }
}

/// Why there is no engine to check (a configuration error, said after `sowfan check: `).
#[derive(Debug, Error)]
pub enum CheckError {
    #[error("--game: {0}")]
    Game(RegistryError),
    /// The program could not be started at all (the process's words).
    #[error("{0}")]
    NotStarted(String),
}

/// Why a check cannot run: the engine is gone and cannot be had again (the check fails
/// with this as its note).
#[derive(Debug, Error)]
enum NotReady {
    #[error("not run: {0}")]
    GivenUp(String),
    #[error("the engine could not be restarted: {waiting}: {}", .failure.message())]
    RestartFailed { waiting: String, failure: Failure },
}

/// Run every check, printing each result line as it is decided, then the summary, to
/// stdout. `Err` is a configuration error (unknown game, a program that cannot be started).
/// Cancelling `cancel` (Ctrl-C) ends the run after the summary of the checks decided.
pub fn run(config: &CheckConfig, cancel: &CancelToken) -> Result<CheckReport, CheckError> {
    use std::io::Write;
    run_with(config, cancel, &mut |line| {
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{line}");
        let _ = out.flush();
    })
}

/// [`run`], with the output lines given to `out`.
pub fn run_with(
    config: &CheckConfig,
    cancel: &CancelToken,
    out: &mut dyn FnMut(&str),
) -> Result<CheckReport, CheckError> {
    let started = Instant::now();
    let base = registry::create_from_spec(&config.game).map_err(CheckError::Game)?;
    let spec = &config.engine;
    out(&format!(
        "Check: {} (proto {}, setup {}), game {}, timeout {} ms, seed {}",
        spec.command_line(),
        spec.proto.hello(),
        spec.setup.name(),
        base.spec(),
        config.timeout.as_millis(),
        config.seed
    ));
    let positions = Positions::find(base.as_ref(), config.seed);
    let mut ctx = Ctx {
        config,
        game_spec: base.spec(),
        base,
        positions,
        engine: None,
        cancel: cancel.clone(),
        current: 0,
        last_sent: String::new(),
        last_got: None,
        options: Vec::new(),
        answers: Vec::new(),
        latencies: Vec::new(),
        restarts: 0,
        gave_up: None,
        needs_restart: false,
    };
    let mut results = Vec::new();
    let mut interrupted = false;
    for check in checks::CHECKS {
        ctx.current = check.id;
        ctx.last_sent.clear();
        ctx.last_got = None;
        ctx.needs_restart = false;
        let outcome = if check.id == 1 {
            (check.run)(&mut ctx)
        } else {
            match ctx.ensure_engine() {
                Ok(()) => (check.run)(&mut ctx),
                Err(why) => Ok(Verdict::fail("", None, why.to_string())),
            }
        };
        let verdict = match outcome {
            Ok(verdict) => verdict,
            Err(broken) => match broken.failure {
                Failure::Cancelled => {
                    interrupted = true;
                    break;
                }
                Failure::NotStarted(message) if check.id == 1 => {
                    return Err(CheckError::NotStarted(message));
                }
                failure => {
                    ctx.needs_restart = true;
                    let sent = ctx.last_sent.clone();
                    let got = ctx.last_got.clone();
                    Verdict::fail(
                        &sent,
                        got.as_deref(),
                        format!("{}: {}", broken.waiting, failure.message()),
                    )
                }
            },
        };
        if ctx.needs_restart {
            // Killed with its process group; the next check starts a fresh one.
            ctx.engine = None;
        }
        let result = CheckResult {
            id: check.id,
            name: check.name,
            status: verdict.status,
            sent: verdict.sent,
            got: verdict.got,
            ms: verdict.ms,
            // Notes may quote the engine (a move it sent, a failure): cleaned and bounded.
            note: shorten(&verdict.note, 4 * SHOWN),
        };
        out(&result.line());
        results.push(result);
    }
    ctx.engine = None;
    let report = CheckReport {
        results,
        latencies: ctx.latencies,
        restarts: ctx.restarts,
        interrupted,
        elapsed: started.elapsed(),
    };
    for line in report.summary() {
        out(&line);
    }
    Ok(report)
}

/// What a check decided.
#[derive(Debug, Clone)]
pub(crate) struct Verdict {
    status: Status,
    sent: String,
    got: Option<String>,
    ms: Option<u128>,
    note: String,
}

impl Verdict {
    fn ok(sent: &str, got: Option<&str>, ms: Option<u128>) -> Verdict {
        Verdict {
            status: Status::Ok,
            sent: shorten(sent, SHOWN),
            got: got.map(|g| shorten(g, SHOWN)),
            ms,
            note: String::new(),
        }
    }

    fn fail(sent: &str, got: Option<&str>, note: impl Into<String>) -> Verdict {
        Verdict {
            status: Status::Fail,
            sent: shorten(sent, SHOWN),
            got: got.map(|g| shorten(g, SHOWN)),
            ms: None,
            note: note.into(),
        }
    }

    fn skip(note: impl Into<String>) -> Verdict {
        Verdict {
            status: Status::Skip,
            sent: String::new(),
            got: None,
            ms: None,
            note: note.into(),
        }
    }

    fn with_ms(mut self, ms: u128) -> Verdict {
        self.ms = Some(ms);
        self
    }

    fn with_note(mut self, note: impl Into<String>) -> Verdict {
        self.note = note.into();
        self
    }

    fn passed(&self) -> bool {
        self.status == Status::Ok
    }
}

/// The engine failed while the checker waited for something: it crashed, fell silent, or
/// the run was interrupted. The check fails and the engine is restarted for the next one.
#[derive(Debug, Clone)]
pub(crate) struct Broken {
    failure: Failure,
    /// What the checker was waiting for: `readyok`, `bestmove`, …
    waiting: String,
}

fn broken(waiting: &str) -> impl FnOnce(Failure) -> Broken + '_ {
    move |failure| Broken {
        failure,
        waiting: format!("waiting for {waiting}"),
    }
}

/// The answer to `isready`: how long it took and the lines before `readyok`.
struct Synced {
    ms: u128,
    /// At most [`KEPT_LINES`] of them.
    lines: Vec<String>,
    /// A `bestmove` nobody asked for (a second answer to an earlier `go`).
    stray: Option<String>,
}

impl Synced {
    /// Lines starting with `prefix`.
    fn starting(&self, prefix: &str) -> Vec<&str> {
        self.lines
            .iter()
            .map(String::as_str)
            .filter(|l| l.trim_start().starts_with(prefix))
            .collect()
    }
}

/// What the handshake showed.
struct Handshake {
    ms: u128,
    ok: bool,
    id_name: Option<String>,
    options: Vec<checks::EngineOption>,
    /// Lines that were none of `id`, `option`, `…ok`.
    other: usize,
}

/// The state of a run: the engine, the game, what was seen.
pub(crate) struct Ctx<'a> {
    config: &'a CheckConfig,
    game_spec: String,
    base: Box<dyn Session>,
    positions: Positions,
    engine: Option<EngineProcess>,
    /// Given to every engine process: cancelled, it ends their waits (Ctrl-C).
    cancel: CancelToken,
    /// The id of the check running.
    current: u32,
    last_sent: String,
    last_got: Option<String>,
    /// The options the engine listed in its handshake.
    options: Vec<checks::EngineOption>,
    /// One entry per `go` sent: (check id, `bestmove` lines that answered it).
    answers: Vec<(u32, u32)>,
    latencies: Vec<(String, u128)>,
    restarts: u32,
    /// Why the engine is no longer restarted (the remaining checks fail).
    gave_up: Option<String>,
    /// Kill the engine after this check (its state cannot be trusted).
    needs_restart: bool,
}

impl Ctx<'_> {
    fn timeout(&self) -> Duration {
        self.config.timeout
    }

    fn proto(&self) -> Proto {
        self.config.engine.proto
    }

    fn latency(&mut self, what: &str, ms: u128) {
        self.latencies.push((what.to_string(), ms));
    }

    /// Give up on the engine: killed now, and the remaining checks fail without running.
    fn give_up(&mut self, why: impl Into<String>) {
        self.gave_up = Some(why.into());
        self.engine = None;
    }

    /// A fresh process, for the first check or after a failure: `Err` when it cannot start.
    fn spawn(&mut self) -> Result<(), Broken> {
        let engine = EngineProcess::spawn(&self.config.engine, self.timeout(), self.cancel.clone())
            .map_err(broken("the engine to start"))?;
        self.engine = Some(engine);
        Ok(())
    }

    /// Make sure there is an engine ready for the next check: restart one if the last check
    /// left none. `Err` (the check fails without running) once a restart failed.
    fn ensure_engine(&mut self) -> Result<(), NotReady> {
        if self.engine.is_some() {
            return Ok(());
        }
        if let Some(why) = &self.gave_up {
            return Err(NotReady::GivenUp(why.clone()));
        }
        match self.restart() {
            Ok(()) => {
                self.restarts += 1;
                Ok(())
            }
            Err(broken) => {
                self.give_up("a restart failed");
                Err(NotReady::RestartFailed {
                    waiting: broken.waiting,
                    failure: broken.failure,
                })
            }
        }
    }

    /// Start a fresh engine and bring it to where the checks expect it: handshake, the
    /// `option.` settings, the new game, `readyok`.
    fn restart(&mut self) -> Result<(), Broken> {
        self.spawn()?;
        let handshake = self.handshake()?;
        if !handshake.ok {
            return Err(Broken {
                failure: Failure::Silent(format!("none within {} ms", self.timeout().as_millis())),
                waiting: format!("waiting for {}ok", self.proto().hello()),
            });
        }
        self.send_options()?;
        for line in self.setup_lines() {
            self.send(&line)?;
        }
        self.sync()?;
        Ok(())
    }

    fn engine(&mut self) -> Result<&mut EngineProcess, Broken> {
        running(&mut self.engine)
    }

    /// Send one line; remembered for the result line if the engine fails (with the last
    /// line received after it).
    fn send(&mut self, line: &str) -> Result<Instant, Broken> {
        self.last_sent = line.to_string();
        self.last_got = None;
        self.engine()?
            .send(line)
            .map_err(broken("the engine to read its input"))?;
        Ok(Instant::now())
    }

    /// Send one line of raw bytes (not UTF-8 on purpose).
    fn send_bytes(&mut self, bytes: &[u8]) -> Result<(), Broken> {
        self.last_sent = String::from_utf8_lossy(bytes).into_owned();
        self.last_got = None;
        self.engine()?
            .send_bytes(bytes)
            .map_err(broken("the engine to read its input"))
    }

    /// The next line before `deadline` (`None` then), with the moment it arrived.
    fn recv(
        &mut self,
        deadline: Instant,
        waiting: &str,
    ) -> Result<Option<(String, Instant)>, Broken> {
        let line = self
            .engine()?
            .next_line(deadline)
            .map_err(broken(waiting))?;
        if let Some((text, _)) = &line {
            self.last_got = Some(text.clone());
        }
        Ok(line)
    }

    /// Count a `bestmove` towards the last `go` sent.
    fn count_bestmove(&mut self) {
        count_bestmove(&mut self.answers);
    }

    /// `isready`, and the lines up to `readyok`. No `readyok` within the timeout breaks the
    /// engine (it is restarted for the next check).
    fn sync(&mut self) -> Result<Synced, Broken> {
        let sent = self.send("isready")?;
        let deadline = deadline_after(self.timeout());
        let mut lines = Vec::new();
        let mut stray = None;
        let mut seen = 0usize;
        let (last_got, answers) = (&mut self.last_got, &mut self.answers);
        let answer = running(&mut self.engine)?
            .wait_for("readyok", deadline, &mut |line| {
                *last_got = Some(line.to_string());
                if is_bestmove(line) {
                    count_bestmove(answers);
                    stray.get_or_insert_with(|| line.to_string());
                }
                seen += 1;
                if lines.len() < KEPT_LINES {
                    lines.push(line.to_string());
                }
            })
            .map_err(broken("readyok"))?;
        let Some((line, at)) = answer else {
            let ms = self.timeout().as_millis();
            return Err(Broken {
                failure: Failure::Silent(match seen {
                    0 => format!("nothing within {ms} ms"),
                    n => format!("{n} other lines but none within {ms} ms"),
                }),
                waiting: "waiting for readyok".to_string(),
            });
        };
        self.last_got = Some(line);
        Ok(Synced {
            ms: at.saturating_duration_since(sent).as_millis(),
            lines,
            stray,
        })
    }

    /// `ugi`/`uci` and the lines up to `ugiok`/`uciok` (at most the timeout).
    fn handshake(&mut self) -> Result<Handshake, Broken> {
        let hello = self.proto().hello();
        let ok = self.proto().hello_ok();
        let sent = self.send(hello)?;
        let deadline = deadline_after(self.timeout());
        let mut id_name = None;
        let mut options = Vec::new();
        let mut other = 0usize;
        let last_got = &mut self.last_got;
        let answer = running(&mut self.engine)?
            .wait_for(ok, deadline, &mut |line| {
                *last_got = Some(line.to_string());
                let text = line.trim();
                if let Some(name) = text.strip_prefix("id name ") {
                    id_name = Some(name.trim().to_string());
                } else if let Some(option) = checks::EngineOption::parse(text) {
                    if options.len() < KEPT_LINES {
                        options.push(option);
                    }
                } else if !text.starts_with("id ") {
                    other += 1;
                }
            })
            .map_err(broken(ok))?;
        let Some((line, at)) = answer else {
            return Ok(Handshake {
                ms: self.timeout().as_millis(),
                ok: false,
                id_name,
                options,
                other,
            });
        };
        self.last_got = Some(line);
        let ms = at.saturating_duration_since(sent).as_millis();
        self.options.clone_from(&options);
        if let (Some(name), Some(engine)) = (&id_name, self.engine.as_mut()) {
            engine.id_name = Some(String::clone(name));
        }
        Ok(Handshake {
            ms,
            ok: true,
            id_name,
            options,
            other,
        })
    }

    /// The `option.<Name>=<value>` settings of `--engine`.
    fn send_options(&mut self) -> Result<(), Broken> {
        let lines: Vec<String> = self
            .config
            .engine
            .options
            .iter()
            .map(|(name, value)| format!("setoption name {name} value {value}"))
            .collect();
        for line in lines {
            self.send(&line)?;
        }
        Ok(())
    }

    /// The lines that start a new game of `--game` (as `sowfan match` sends them), then
    /// `uginewgame`/`ucinewgame`.
    fn setup_lines(&self) -> Vec<String> {
        let mut lines = self.config.engine.setup.game_lines(&self.game_spec);
        lines.push(self.proto().new_game().to_string());
        lines
    }

    /// Listen for [`QUIET`] after a `bestmove`: any further `bestmove` is a second answer.
    fn quiet(&mut self) -> Result<Option<String>, Broken> {
        let deadline = deadline_after(QUIET);
        let mut second = None;
        while let Some((line, _)) = self.recv(deadline, "nothing (quiet period)")? {
            if is_bestmove(&line) {
                self.count_bestmove();
                second.get_or_insert(line);
            }
        }
        Ok(second)
    }

    /// The common `go` check: set `line`, `isready`, send `go`, wait for one `bestmove`
    /// (within `allowed` plus the timeout), listen for a second one, and referee the move.
    /// A `bestmove` later than `allowed` fails.
    fn go(&mut self, line: &Line, go: &str, allowed: Option<Duration>) -> Result<Verdict, Broken> {
        let position = line.command();
        let shown = format!("{} / {go}", shorten(&position, 36));
        if let Err(e) = line.session(self.base.as_ref(), &[]) {
            return Ok(Verdict::skip(format!("the rules reject the position: {e}")));
        }
        self.send(&position)?;
        let synced = self.sync()?;
        if let Some(stray) = synced.stray {
            return Ok(Verdict::fail(
                &shown,
                Some(&stray),
                "a bestmove before 'go': a second answer to an earlier go",
            ));
        }
        let sent = self.send(go)?;
        self.answers.push((self.current, 0));
        let wait = allowed.unwrap_or_default().saturating_add(self.timeout());
        let deadline = sent
            .checked_add(wait)
            .unwrap_or_else(|| deadline_after(wait));
        let (answer, at) = loop {
            match self.recv(deadline, "bestmove")? {
                Some((text, at)) if is_bestmove(&text) => break (text, at),
                Some(_) => {}
                None => {
                    self.needs_restart = true;
                    return Ok(Verdict::fail(
                        &shown,
                        self.last_got.clone().as_deref(),
                        format!("no bestmove within {} ms", wait.as_millis()),
                    ));
                }
            }
        };
        self.count_bestmove();
        let elapsed = at.saturating_duration_since(sent);
        let ms = elapsed.as_millis();
        let second = self.quiet()?;
        let verdict = self.referee(line, &shown, &answer, second.as_deref())?;
        if !verdict.passed() {
            return Ok(verdict.with_ms(ms));
        }
        if let Some(allowed) = allowed
            && elapsed > allowed
        {
            return Ok(Verdict::fail(
                &shown,
                Some(&answer),
                format!("took {ms} ms, {} ms allowed", allowed.as_millis()),
            )
            .with_ms(ms));
        }
        Ok(verdict.with_ms(ms))
    }

    /// Judge a `bestmove` line for `line`: well formed, legal, and the only one.
    fn referee(
        &mut self,
        line: &Line,
        shown: &str,
        answer: &str,
        second: Option<&str>,
    ) -> Result<Verdict, Broken> {
        if let Some(second) = second {
            return Ok(Verdict::fail(
                shown,
                Some(answer),
                format!(
                    "a second bestmove within {} ms: '{}'",
                    QUIET.as_millis(),
                    shorten(second, SHOWN)
                ),
            ));
        }
        let Some((mv, _ponder)) = parse_bestmove(answer) else {
            return Ok(Verdict::fail(
                shown,
                Some(answer),
                "not 'bestmove <move>' or 'bestmove <move> ponder <move>'",
            ));
        };
        if let Err(e) = line.session(self.base.as_ref(), &[mv]) {
            let why = match e {
                PositionCommandError::BadMove { error, .. } => error.to_string(),
                PositionCommandError::AfterEnd { reason, .. } => {
                    format!("the game is over ({reason})")
                }
                other => other.to_string(),
            };
            return Ok(Verdict::fail(
                shown,
                Some(answer),
                format!("not a legal move here: {why}"),
            ));
        }
        Ok(Verdict::ok(shown, Some(answer), None))
    }
}

/// The engine process of a check, or the failure of having none.
fn running(engine: &mut Option<EngineProcess>) -> Result<&mut EngineProcess, Broken> {
    engine.as_mut().ok_or_else(|| Broken {
        failure: Failure::Crashed("no engine process".to_string()),
        waiting: "an engine".to_string(),
    })
}

/// Count a `bestmove` towards the last `go` sent (`answers`: see [`Ctx`]).
fn count_bestmove(answers: &mut [(u32, u32)]) {
    if let Some(last) = answers.last_mut() {
        last.1 += 1;
    }
}

/// Text for a result line: control characters shown as `?`, at most `max` characters.
pub fn shorten(text: &str, max: usize) -> String {
    let clean: String = text
        .chars()
        .map(|c| if c.is_control() { '?' } else { c })
        .collect();
    if clean.chars().count() <= max {
        clean
    } else {
        let head: String = clean.chars().take(max.saturating_sub(3)).collect();
        format!("{head}...")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn result_lines_are_aligned_and_shortened() {
        let ok = CheckResult {
            id: 10,
            name: "go movetime",
            status: Status::Ok,
            sent: "go movetime 200".to_string(),
            got: Some("bestmove C".to_string()),
            ms: Some(203),
            note: String::new(),
        };
        assert_eq!(
            ok.line(),
            "ok   10 go movetime              sent 'go movetime 200' got 'bestmove C' in 203 ms"
        );
        let skip = CheckResult {
            id: 8,
            name: "extra move",
            status: Status::Skip,
            sent: String::new(),
            got: None,
            ms: None,
            note: "none".to_string(),
        };
        assert_eq!(skip.line(), "skip  8 extra move               (none)");
        let fail = CheckResult {
            status: Status::Fail,
            got: Some(String::new()),
            ms: None,
            note: "why".to_string(),
            ..ok
        };
        assert!(fail.line().starts_with("FAIL 10 go movetime "));
        assert!(fail.line().ends_with("got nothing (why)"));
        assert_eq!(shorten("abc", 3), "abc");
        assert_eq!(shorten("abcdef", 5), "ab...");
        assert_eq!(shorten("a\u{1b}[31mb\tc", 20), "a?[31mb?c");
        assert_eq!(shorten("ééééé", 4), "é...");
    }

    #[test]
    fn the_summary_counts_and_lists_latencies() {
        let result = |status| CheckResult {
            id: 1,
            name: "x",
            status,
            sent: String::new(),
            got: None,
            ms: None,
            note: String::new(),
        };
        let report = CheckReport {
            results: vec![
                result(Status::Ok),
                result(Status::Fail),
                result(Status::Skip),
            ],
            latencies: vec![("stop".to_string(), 2), ("quit".to_string(), 5)],
            restarts: 1,
            interrupted: false,
            elapsed: Duration::from_millis(2345),
        };
        assert!(!report.all_passed());
        assert_eq!(
            report.summary(),
            vec![
                "Checks: 3, passed 1, failed 1, skipped 1 in 2.3 s".to_string(),
                "Latency: stop 2 ms, quit 5 ms".to_string(),
                "Engine restarts: 1 (after a crash or a hang)".to_string(),
            ]
        );
    }
}
