//! The command loop: the state machine behind the text protocol that answers a GUI or match
//! runner line by line — which command runs now and which waits (behind a running job, or
//! for the hash table), and what each answers. The engine's resources are in
//! [`super::engine`], its options in [`super::engine_options`].

use std::collections::VecDeque;
use std::sync::atomic::Ordering;
use std::sync::mpsc::Sender;
use std::time::{Duration, Instant};

use super::engine::Engine;
use super::engine_options::{self, ENGINE_OPTIONS, EngineOptionError};
use super::job_thread::Job;
use super::output::Output;
use super::request::{self, Query, Request};
use super::{Event, StartError};
use crate::game::Player;
use crate::registry;
use crate::search::limits::{Limits, TimeBudget};

/// What `id name` says.
pub const ID_NAME: &str = concat!("sowfan ", env!("CARGO_PKG_VERSION"));
pub const AUTHOR: &str = "the sowfan developers";
/// How long `quit` waits for a stopped job to end before the process leaves without it.
pub const SHUTDOWN_GRACE: Duration = Duration::from_millis(50);
/// The longest a search sent right after a new game, without `isready`, waits for the
/// table's clearing (and at most half its own time).
pub const MAX_READY_WAIT: Duration = Duration::from_secs(2);
/// `isready`, while no search runs, waits for a new hash table's pages and a clearing to be
/// done, whatever their size, as Stockfish's does (its `setoption name Hash` zeroes the
/// table before the next command): the first search after `readyok` must keep its time.
/// Both threads always end (a page the kernel cannot supply ahead comes on first touch);
/// this is only a safety net, far above the minute a 64 GB table takes.
pub const ISREADY_WAIT_LIMIT: Duration = Duration::from_secs(600);

/// What the commands in `pending` wait for (see `Server::ready_wait`).
#[derive(Clone, Copy)]
struct ReadyWait {
    until: Instant,
    /// An `isready` waits (for the pages and the clearing) and is answered at the end;
    /// otherwise a search waits for the clearing alone.
    readyok: bool,
}

/// A request (or an error to report) waiting its turn, with the `stop`/`ponderhit` that
/// arrived after it: they concern it too, and take effect as soon as it starts.
struct Queued {
    entry: Result<Request, request::RequestError>,
    stop: bool,
    ponderhit: bool,
}

impl Queued {
    fn new(entry: Result<Request, request::RequestError>) -> Queued {
        Queued {
            entry,
            stop: false,
            ponderhit: false,
        }
    }
}

pub struct Server {
    out: Output,
    engine: Engine,
    job: Option<Job>,
    /// Commands (and errors to report) waiting for the running job, in arrival order.
    pending: VecDeque<Queued>,
    /// Commands wait in `pending` until this moment at the latest, for the hash table: an
    /// `isready` for a new table's pages and a clearing (see [`MAX_READY_WAIT`]), a search
    /// for a clearing only (see `waits_for_clearing`).
    ready_wait: Option<ReadyWait>,
    /// When the search that waits for a clearing began to wait: the wait counts against its
    /// time, as the client's clock ran.
    clearing_wait_since: Option<Instant>,
    eof: bool,
    quit: bool,
}

impl Server {
    /// `game` preselects the game (`"kalah pits=4"`); the default is Kalah.
    pub fn new(
        out: Output,
        events: Sender<Event>,
        game: Option<&str>,
    ) -> Result<Server, StartError> {
        Ok(Server {
            engine: Engine::new(out.clone(), events, game)?,
            out,
            job: None,
            pending: VecDeque::new(),
            ready_wait: None,
            clearing_wait_since: None,
            eof: false,
            quit: false,
        })
    }

    /// Have the pages of the hash table supplied on a background thread (called once the
    /// input is read, so that a process allowed few threads spends none on this first).
    pub fn populate_hash_in_background(&self) {
        self.engine.populate_hash_in_background();
    }

    /// `--tablebases DIR` on the command line: as `setoption name TablebasePath value DIR`.
    pub fn set_tablebase_path(&mut self, dir: std::path::PathBuf) {
        self.engine.set_tablebase_path(dir);
    }

    /// How long until a waiting `isready` must be answered, if one waits.
    pub fn ready_wait_left(&self) -> Option<Duration> {
        self.ready_wait
            .map(|wait| wait.until.saturating_duration_since(Instant::now()))
    }

    /// Nothing arrived in time: answer a waiting `isready` whose deadline has come, and go
    /// on with what waited behind it; past the end of input, see whether anyone still reads.
    pub fn tick(&mut self) {
        if self.eof {
            self.check_reader();
        }
        self.run_pending();
    }

    /// End the wait for the hash table once what it waits for is done or its deadline has
    /// come (answering a waiting `isready`); `true` while it still waits.
    fn still_waiting_for_hash(&mut self) -> bool {
        let Some(wait) = self.ready_wait else {
            return false;
        };
        let done = if wait.readyok {
            self.engine.tt.is_ready()
        } else {
            self.engine.tt.is_emptied()
        };
        if done || Instant::now() >= wait.until {
            self.ready_wait = None;
            if wait.readyok {
                self.out.line("readyok");
                // The client has waited: its next search starts at once.
                self.engine.clearing_waited = true;
            }
            return false;
        }
        true
    }

    /// A search (`search`: its limits) about to start while the table is still being
    /// emptied: it waits for the clearing (once, at most [`MAX_READY_WAIT`] and half its own
    /// time), so that a client that sends `go` right after `newgame`, without `isready`,
    /// still gets the search of a new process, not one that runs beside the clearing thread
    /// (the entries it finds would depend on which thread came first).
    fn waits_for_clearing(&mut self, search: Option<&Limits>) -> bool {
        let Some(limits) = search else {
            return false;
        };
        if self.engine.clearing_waited {
            return false;
        }
        self.engine.clearing_waited = true;
        if self.engine.tt.is_emptied() {
            return false;
        }
        let player = self.engine.session.to_move();
        let own_time = TimeBudget::new(limits, player, self.engine.settings.move_overhead).hard;
        let wait = own_time.map_or(MAX_READY_WAIT, |t| MAX_READY_WAIT.min(t / 2));
        self.ready_wait = Some(ReadyWait {
            until: Instant::now() + wait,
            readyok: false,
        });
        self.clearing_wait_since = Some(Instant::now());
        true
    }

    /// Has the session ended (`quit`, or end of input with nothing left to do)?
    pub fn finished(&self) -> bool {
        self.quit
            || self.out.is_closed()
            || (self.eof
                && self.job.is_none()
                && self.pending.is_empty()
                && self.ready_wait.is_none())
    }

    /// Has the input ended?
    pub fn input_ended(&self) -> bool {
        self.eof
    }

    /// Past the end of input: if nobody reads the output any more, `quit`.
    pub fn check_reader(&mut self) {
        if self.out.reader_gone() {
            log::debug!("end of input and nobody reads the output: quit");
            self.quit = true;
            self.shutdown();
        }
    }

    /// Stop the running job, if any, and give it a moment to end. `quit` must end the
    /// process within 100 ms whatever runs: a job that has not ended after
    /// [`SHUTDOWN_GRACE`] is left behind (the process exit ends it).
    pub fn shutdown(&mut self) {
        if let Some(job) = self.job.take() {
            // After `quit` nothing more is said (no `bestmove` for a stopped search).
            self.out.mute();
            job.control.request_stop();
            if job.join_within(SHUTDOWN_GRACE).is_some() {
                log::warn!("quit: the running job did not stop in time; leaving it");
            }
        }
    }

    pub fn handle(&mut self, event: Event) {
        match event {
            Event::Line(line) => {
                log::debug!("< {}", line.trim_end());
                match request::parse(&line) {
                    Ok(Some(command)) => self.dispatch(command),
                    Ok(None) => {}
                    // Reported in turn, after what was sent before it.
                    Err(e) if self.must_wait() => self.pending.push_back(Queued::new(Err(e))),
                    Err(e) => self.out.error(&e.to_string()),
                }
            }
            Event::Eof => {
                log::debug!("end of input");
                self.eof = true;
            }
            Event::Overlong => {
                let message = format!(
                    "a line longer than {} bytes was ignored",
                    super::MAX_LINE_BYTES
                );
                if self.must_wait() {
                    self.pending
                        .push_back(Queued::new(Err(request::RequestError::Invalid {
                            command: "input",
                            message,
                        })));
                } else {
                    self.out.error(&message);
                }
            }
            Event::JobDone(id) => {
                // Not a job already ended and joined by `isready` (see `dispatch`).
                if self
                    .job
                    .as_ref()
                    .is_some_and(|j| j.handle.thread().id() == id)
                    && let Some(job) = self.job.take()
                {
                    let _ = job.handle.join();
                }
            }
            Event::HashReady => {}
        }
        self.run_pending();
    }

    /// Run the commands that waited, in order, as far as nothing holds them back.
    fn run_pending(&mut self) {
        while self.job.is_none() && !self.quit && !self.still_waiting_for_hash() {
            let search = match self.pending.front().map(|q| &q.entry) {
                Some(Ok(Request::Go(limits))) => Some(limits.clone()),
                _ => None,
            };
            if self.waits_for_clearing(search.as_ref()) {
                continue;
            }
            let Some(queued) = self.pending.pop_front() else {
                break;
            };
            match queued.entry {
                Ok(command) => {
                    self.execute(command);
                    if let Some(job) = &self.job {
                        if queued.ponderhit {
                            job.control.ponderhit();
                        }
                        if queued.stop {
                            job.control.request_stop();
                        }
                    }
                }
                Err(e) => self.out.error(&e.to_string()),
            }
        }
        // An `isready` that waited behind a search (for a clearing) is answered as soon as
        // the search runs, as any `isready` sent during a search.
        while self.job.is_some()
            && self.ready_wait.is_none()
            && self
                .pending
                .front()
                .is_some_and(|q| matches!(q.entry, Ok(Request::IsReady)))
        {
            self.pending.pop_front();
            self.dispatch(Request::IsReady);
        }
        if self.eof {
            // Past the end of input nobody can send `stop`: end an open-ended search now.
            // A `go ponder` turned into a timed search by `ponderhit` finishes as one.
            if let Some(job) = self
                .job
                .as_ref()
                .filter(|j| j.open_ended && (!j.ponder || j.control.is_pondering()))
            {
                job.control.request_stop();
            }
        }
    }

    fn dispatch(&mut self, command: Request) {
        match command {
            // Idle, with a new table's pages still coming or a cleared table still being
            // emptied: answer when it is done (ISREADY_WAIT_LIMIT is a safety net), so that
            // the first search after `isready` neither pays for the pages nor meets old
            // entries.
            // Otherwise, and always while a search runs, at once.
            Request::IsReady
                if self.job.is_none()
                    && self.pending.is_empty()
                    && self.ready_wait.is_none()
                    && !self.engine.ready_waited
                    && !self.engine.tt.is_ready() =>
            {
                self.engine.ready_waited = true;
                self.ready_wait = Some(ReadyWait {
                    until: Instant::now() + ISREADY_WAIT_LIMIT,
                    readyok: true,
                });
            }
            // Behind a waiting one, in turn.
            Request::IsReady if self.ready_wait.is_some() => {
                self.pending.push_back(Queued::new(Ok(command)))
            }
            // A search that has printed its `bestmove` is over for the client, which may
            // have sent what follows it (`newgame`) before the search's thread ended: let
            // it end and what waits behind it run first, so that `readyok` comes after that
            // too (and after a new game's clearing: see above).
            Request::IsReady
                if self
                    .job
                    .as_ref()
                    .is_some_and(|j| j.answered.load(Ordering::Acquire)) =>
            {
                self.end_answered_job();
                if self.job.is_some() {
                    // Its thread did not end within the grace: answered as during a search
                    // (looking again would wait again, without end).
                    self.out.line("readyok");
                    return;
                }
                self.run_pending();
                if self.pending.is_empty() {
                    self.dispatch(command);
                } else {
                    self.pending.push_back(Queued::new(Ok(command)));
                }
            }
            Request::IsReady => self.out.line("readyok"),
            // `stop` and `ponderhit` concern every search sent before them: the running one
            // at once, and one still queued (behind a finite search, or behind a search that
            // has printed its `bestmove` but not yet ended) as soon as it starts.
            Request::Stop | Request::PonderHit => {
                let stop = matches!(command, Request::Stop);
                self.signal_job(stop);
                for queued in &mut self.pending {
                    if matches!(queued.entry, Ok(Request::Go(_))) {
                        queued.stop |= stop;
                        queued.ponderhit = true;
                    }
                }
            }
            Request::Quit => {
                self.quit = true;
                self.shutdown();
            }
            // While an open-ended search runs, read-only commands are answered at once; a
            // finite job finishes first, so piped scripts read their output in order.
            command if !self.must_wait() && (self.job.is_none() || command.is_read_only()) => {
                let search = match &command {
                    Request::Go(limits) => Some(limits),
                    _ => None,
                };
                if self.job.is_none() && self.waits_for_clearing(search) {
                    self.pending.push_back(Queued::new(Ok(command)));
                } else {
                    self.execute(command)
                }
            }
            command => self.pending.push_back(Queued::new(Ok(command))),
        }
    }

    /// Join the running job, which has printed its `bestmove` and only has to end (at most
    /// [`SHUTDOWN_GRACE`]; a thread slower than that is left to its `JobDone`).
    fn end_answered_job(&mut self) {
        if let Some(job) = self.job.take() {
            self.job = job.join_within(SHUTDOWN_GRACE);
        }
    }

    /// `stop` (or `ponderhit`) for the running job, if any.
    fn signal_job(&self, stop: bool) {
        if let Some(job) = &self.job {
            if stop {
                job.control.request_stop();
            } else {
                job.control.ponderhit();
            }
        }
    }

    /// Must a command that arrives now wait its turn? Yes behind queued commands, behind a
    /// finite job, and (unless it only reads) behind an open-ended search.
    fn must_wait(&self) -> bool {
        !self.pending.is_empty()
            || self.ready_wait.is_some()
            || self.job.as_ref().is_some_and(|j| !j.open_ended)
    }

    fn execute(&mut self, command: Request) {
        match command {
            Request::Uci => self.identify("uciok"),
            Request::Ugi => self.identify("ugiok"),
            Request::Debug(_) => {}
            Request::IsReady | Request::Stop | Request::PonderHit | Request::Quit => {
                self.dispatch(command)
            }
            Request::SetOption { name, value } => self.set_option(&name, value.as_deref()),
            Request::NewGameReset => self.engine.new_game(),
            Request::NewGame { game, options } => {
                if let Err(e) = self.engine.set_game(&game, &options) {
                    self.out.error(&e.to_string());
                }
            }
            Request::Position { fen, moves } => {
                self.engine.playing();
                let moves: Vec<&str> = moves.iter().map(String::as_str).collect();
                if let Err(e) = self.engine.session.set_position(fen.as_deref(), &moves) {
                    self.out.error(&format!("{e}; the position is unchanged"));
                }
            }
            Request::Go(limits) => {
                self.engine.playing();
                self.go(limits)
            }
            Request::Perft(depth) => self.job = self.engine.perft(depth),
            Request::Bench(depth) => self.job = self.engine.bench(depth),
            Request::Query(query) => {
                let answer = match query {
                    Query::P1Turn => (self.engine.session.to_move() == Player::P1).to_string(),
                    Query::GameOver => self.engine.session.outcome().is_some().to_string(),
                    Query::Result => self
                        .engine
                        .session
                        .outcome()
                        .map_or("none", |o| o.result.as_str())
                        .to_string(),
                };
                self.out.line(&format!("response {answer}"));
            }
            Request::Display => {
                // The evaluation in force before the last line (`To move` or `Result`).
                let display = self.engine.session.display();
                let evaluation = format!("Evaluation: {}", self.engine.evaluation);
                let text = match display.rsplit_once('\n') {
                    Some((head, last)) => format!("{head}\n{evaluation}\n{last}"),
                    None => format!("{evaluation}\n{display}"),
                };
                self.out.line(&text);
                // `d` checks a table value it shows against its moves: say a damage it found.
                if let Some(failure) = self.engine.session.tables().and_then(|t| t.new_failure()) {
                    self.out.error(&failure);
                }
            }
            Request::Legal => {
                let moves = self.engine.session.legal_moves();
                if moves.is_empty() {
                    self.out.line("legal");
                } else {
                    self.out.line(&format!("legal {}", moves.join(" ")));
                }
            }
            Request::Help => self.out.line(&help_text()),
        }
    }

    /// `go`: a search that waited for a clearing has that much less time.
    fn go(&mut self, limits: Limits) {
        let limits = match self.clearing_wait_since.take() {
            Some(since) if !limits.ponder => {
                limits.minus_elapsed(self.engine.session.to_move(), since.elapsed())
            }
            _ => limits,
        };
        self.job = self.engine.go(limits);
    }

    /// The answer to `uci` / `ugi`: who this is, its options, then `ok`.
    fn identify(&self, ok: &str) {
        let mut lines = vec![format!("id name {ID_NAME}"), format!("id author {AUTHOR}")];
        lines.extend(
            ENGINE_OPTIONS
                .iter()
                .map(|option| option.uci_line(self.engine.shown(option.shows).as_deref())),
        );
        lines.push(ok.to_string());
        self.out.line(&lines.join("\n"));
    }

    /// `setoption`: an unknown name is a warning, a bad value or a setting the engine
    /// cannot take an error; either way nothing changes.
    fn set_option(&mut self, name: &str, value: Option<&str>) {
        let result = match engine_options::parse(name, value) {
            Ok(setting) => self.engine.apply(setting).map_err(|e| e.to_string()),
            Err(e @ EngineOptionError::Unknown { .. }) => {
                self.out.info_string(&format!("warning: {e}"));
                Ok(())
            }
            Err(e) => Err(e.to_string()),
        };
        if let Err(e) = result {
            self.out.error(&e);
        }
    }
}

fn help_text() -> String {
    format!(
        "{ID_NAME}: a UCI/UGI-like engine for {games}.\n\
         Commands: {commands}.\n\
         Start with 'newgame <game> [key=value ...]', then 'position startpos moves ...' and \
         'go depth 10'; 'd' shows the board, 'legal' the legal moves. See protocol.md.",
        games = registry::names(),
        commands = request::COMMANDS
    )
}
