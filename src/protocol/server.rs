//! The protocol server: the state machine behind the text protocol — the current game, the
//! options, the running job — that answers a GUI or match runner line by line.

use std::collections::VecDeque;
use std::panic::{self, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Sender;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::Event;
use super::output::Output;
use super::request::{self, Query, Request};
use crate::bench;
use crate::game::Player;
use crate::memory::{MAX_HASH_MB, MAX_THREADS, MemoryLimits, max_hash_mb, release_in_background};
use crate::registry;
use crate::search::limits::{Limits, TimeBudget};
use crate::search::tt::TranspositionTable;
use crate::search::{MAX_CONTEMPT, SearchControl, SearchSettings};
use crate::session::Session;
use crate::solver::tt::SolverTt;
use crate::tables::TableError;
use crate::text::one_line;

/// What `id name` says.
pub const ID_NAME: &str = concat!("sowfan ", env!("CARGO_PKG_VERSION"));
pub const AUTHOR: &str = "the sowfan developers";
pub const DEFAULT_HASH_MB: usize = 16;
pub const MAX_MULTIPV: usize = 64;
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

/// A search, perft or bench running on its own thread.
struct Job {
    handle: JoinHandle<()>,
    control: Arc<SearchControl>,
    /// `go infinite` / `go ponder`: only `stop` (or `ponderhit`) ends it.
    open_ended: bool,
    /// `go ponder` (after `ponderhit` it is an ordinary timed search).
    ponder: bool,
    /// The search is about to print its `bestmove` or has: for the client it is over,
    /// though its thread may still be ending.
    answered: Arc<AtomicBool>,
}

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
    events: Sender<Event>,
    session: Box<dyn Session>,
    /// The `key=value` options the current game was built with.
    game_options: Vec<String>,
    tt: Arc<TranspositionTable>,
    /// The exact solver's table (`go solve`, positions near the endgame tables): made when
    /// first needed, of the `Hash` size; dropped when the game changes (its keys are the
    /// game's).
    solve_tt: Option<Arc<SolverTt>>,
    /// `TablebasePath` (or `--tablebases`): where endgame tables are looked for.
    tablebase_path: Option<PathBuf>,
    /// A game was chosen (`--game`, `newgame`, `UCI_Variant`, `GameOptions`) or the default
    /// one is being played (a `position` or `go`): only then is a directory without its
    /// tables worth a word. Until then the default game's tables load silently if present.
    game_chosen: bool,
    /// The last "no tables" said (rules and directory), so that it is said once.
    absence_said: Option<String>,
    settings: SearchSettings,
    /// `EvalFile`: the network file's path and bytes (checked when loaded).
    network: Option<(PathBuf, Arc<Vec<u8>>)>,
    /// `Eval network`: evaluate with `network` where it fits the game, else with the
    /// game's own network (if it has one); `Eval classic`: by hand whatever `network` is.
    use_network: bool,
    /// The evaluation in force, as `d` shows it and `info string evaluation: …` says it
    /// (once each time it changes; the one at the start goes without saying).
    evaluation: String,
    ponder: bool,
    job: Option<Job>,
    /// Commands (and errors to report) waiting for the running job, in arrival order.
    pending: VecDeque<Queued>,
    /// Commands wait in `pending` until this moment at the latest, for the hash table: an
    /// `isready` for a new table's pages and a clearing (see [`MAX_READY_WAIT`]), a search
    /// for a clearing only (see `waits_for_clearing`).
    ready_wait: Option<ReadyWait>,
    /// The wait for the current table (or for its last clearing) is spent: a later
    /// `isready` is answered at once.
    ready_waited: bool,
    /// A search has waited for the last clearing (or it had ended): later ones start at once.
    clearing_waited: bool,
    /// When the search that waits for a clearing began to wait: the wait counts against its
    /// time, as the client's clock ran.
    clearing_wait_since: Option<Instant>,
    eof: bool,
    quit: bool,
}

impl Server {
    /// `game` preselects the game (`"kalah pits=4"`); the default is Kalah.
    pub fn new(out: Output, events: Sender<Event>, game: Option<&str>) -> Result<Server, String> {
        let spec = game.unwrap_or(registry::GAMES[0].name);
        let session = registry::create_from_spec(spec).map_err(|e| e.to_string())?;
        let game_options = spec.split_whitespace().skip(1).map(String::from).collect();
        let tt = Arc::new(TranspositionTable::new(DEFAULT_HASH_MB)?);
        let evaluation = if session.default_network().is_some() {
            built_in(session.as_ref())
        } else {
            CLASSIC.to_string()
        };
        Ok(Server {
            out,
            events,
            session,
            game_options,
            tt,
            solve_tt: None,
            tablebase_path: None,
            game_chosen: game.is_some(),
            absence_said: None,
            settings: SearchSettings::default(),
            network: None,
            use_network: true,
            evaluation,
            ponder: false,
            job: None,
            pending: VecDeque::new(),
            ready_wait: None,
            ready_waited: false,
            clearing_waited: true,
            clearing_wait_since: None,
            eof: false,
            quit: false,
        })
    }

    /// Have the pages of the hash table supplied on a background thread (called once the
    /// input is read, so that a process allowed few threads spends none on this first).
    pub fn populate_hash_in_background(&self) {
        TranspositionTable::populate_in_background(&self.tt, self.hash_ready_notice());
    }

    /// What the populating thread calls when the table's pages are in place.
    fn hash_ready_notice(&self) -> impl FnOnce() + Send + 'static {
        let events = self.events.clone();
        move || {
            let _ = events.send(Event::HashReady);
        }
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
            self.tt.is_ready()
        } else {
            self.tt.is_emptied()
        };
        if done || Instant::now() >= wait.until {
            self.ready_wait = None;
            if wait.readyok {
                self.out.line("readyok");
                // The client has waited: its next search starts at once.
                self.clearing_waited = true;
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
        if self.clearing_waited {
            return false;
        }
        self.clearing_waited = true;
        if self.tt.is_emptied() {
            return false;
        }
        let player = self.session.to_move();
        let own_time = TimeBudget::new(limits, player, self.settings.move_overhead).hard;
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
            if join_within(job, SHUTDOWN_GRACE).is_some() {
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
                    && !self.ready_waited
                    && !self.tt.is_ready() =>
            {
                self.ready_waited = true;
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
            self.job = join_within(job, SHUTDOWN_GRACE);
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
            Request::NewGameReset => {
                // Cannot fail: the start position of the current game.
                let _ = self.session.set_position(None, &[]);
                self.clear_hash();
            }
            Request::NewGame { game, options } => {
                let options: Vec<&str> = options.iter().map(String::as_str).collect();
                match registry::create(&game, &options) {
                    Ok(session) => {
                        self.replace_session(session);
                        self.game_options = options.iter().map(|s| s.to_string()).collect();
                        self.clear_hash();
                    }
                    Err(e) => self.out.error(&e.to_string()),
                }
            }
            Request::Position { fen, moves } => {
                self.playing();
                let moves: Vec<&str> = moves.iter().map(String::as_str).collect();
                if let Err(e) = self.session.set_position(fen.as_deref(), &moves) {
                    self.out.error(&format!("{e}; the position is unchanged"));
                }
            }
            Request::Go(limits) => {
                self.playing();
                self.go(limits)
            }
            Request::Perft(depth) => self.perft(depth),
            Request::Bench(depth) => self.bench(depth),
            Request::Query(query) => {
                let answer = match query {
                    Query::P1Turn => (self.session.to_move() == Player::P1).to_string(),
                    Query::GameOver => self.session.outcome().is_some().to_string(),
                    Query::Result => self
                        .session
                        .outcome()
                        .map_or("none", |o| o.result.as_str())
                        .to_string(),
                };
                self.out.line(&format!("response {answer}"));
            }
            Request::Display => {
                // The evaluation in force before the last line (`To move` or `Result`).
                let display = self.session.display();
                let evaluation = format!("Evaluation: {}", self.evaluation);
                let text = match display.rsplit_once('\n') {
                    Some((head, last)) => format!("{head}\n{evaluation}\n{last}"),
                    None => format!("{evaluation}\n{display}"),
                };
                self.out.line(&text);
                // `d` checks a table value it shows against its moves: say a damage it found.
                if let Some(failure) = self.session.tables().and_then(|t| t.new_failure()) {
                    self.out.error(&failure);
                }
            }
            Request::Legal => {
                let moves = self.session.legal_moves();
                if moves.is_empty() {
                    self.out.line("legal");
                } else {
                    self.out.line(&format!("legal {}", moves.join(" ")));
                }
            }
            Request::Help => self.out.line(&help_text()),
        }
    }

    fn identify(&self, ok: &str) {
        let variants: String = registry::GAMES
            .iter()
            .map(|g| format!(" var {}", g.name))
            .collect();
        let current = self.session.spec();
        let variant = current.split_whitespace().next().unwrap_or("kalah");
        let game_options = if self.game_options.is_empty() {
            "<empty>".to_string()
        } else {
            self.game_options.join(" ")
        };
        let lines = [
            format!("id name {ID_NAME}"),
            format!("id author {AUTHOR}"),
            format!(
                "option name Hash type spin default {DEFAULT_HASH_MB} min 1 max {}",
                max_hash_mb()
            ),
            format!("option name Threads type spin default 1 min 1 max {MAX_THREADS}"),
            format!("option name MultiPV type spin default 1 min 1 max {MAX_MULTIPV}"),
            "option name Ponder type check default false".to_string(),
            "option name Move Overhead type spin default 30 min 0 max 5000".to_string(),
            format!(
                "option name Contempt type spin default 0 min -{MAX_CONTEMPT} max {MAX_CONTEMPT}"
            ),
            "option name Clear Hash type button".to_string(),
            format!("option name UCI_Variant type combo default {variant}{variants}"),
            format!("option name GameOptions type string default {game_options}"),
            "option name Eval type combo default network var network var classic".to_string(),
            "option name EvalFile type string default <empty>".to_string(),
            format!(
                "option name TablebasePath type string default {}",
                self.tablebase_path
                    .as_ref()
                    .map_or("<empty>".to_string(), |p| one_line(
                        &p.display().to_string()
                    )
                    .into_owned())
            ),
            ok.to_string(),
        ];
        self.out.line(&lines.join("\n"));
    }

    fn set_option(&mut self, name: &str, value: Option<&str>) {
        let spin = |min: usize, max: usize| -> Result<usize, String> {
            let text =
                value.ok_or_else(|| format!("option '{name}' needs a value {min}..{max}"))?;
            match text.parse::<usize>() {
                Ok(n) if (min..=max).contains(&n) => Ok(n),
                _ => Err(format!(
                    "option '{name}': '{text}' is not a number in {min}..{max}"
                )),
            }
        };
        let result = match name.to_ascii_lowercase().as_str() {
            "hash" => spin(1, MAX_HASH_MB).and_then(|mb| self.resize_hash(mb)),
            "threads" => spin(1, MAX_THREADS).map(|n| self.set_threads(n)),
            "multipv" => spin(1, MAX_MULTIPV).map(|n| self.settings.multipv = n),
            "move overhead" => spin(0, 5000).map(|n| self.settings.move_overhead = n as u64),
            "contempt" => {
                let text = value.unwrap_or("");
                match text.trim().parse::<i32>() {
                    Ok(n) if (-MAX_CONTEMPT..=MAX_CONTEMPT).contains(&n) => {
                        self.settings.contempt = n;
                        Ok(())
                    }
                    _ => Err(format!(
                        "option 'Contempt': '{text}' is not a number in \
                         -{MAX_CONTEMPT}..{MAX_CONTEMPT}"
                    )),
                }
            }
            "ponder" => match value.map(str::to_ascii_lowercase).as_deref() {
                Some("true") => {
                    self.ponder = true;
                    Ok(())
                }
                Some("false") => {
                    self.ponder = false;
                    Ok(())
                }
                _ => Err("option 'Ponder' takes true or false".to_string()),
            },
            "clear hash" => {
                self.clear_hash();
                Ok(())
            }
            "uci_variant" => self.set_variant(value.unwrap_or("")),
            "tablebasepath" => {
                let text = value.unwrap_or("").trim();
                self.tablebase_path =
                    (!text.is_empty() && text != "<empty>").then(|| PathBuf::from(text));
                self.load_tables();
                Ok(())
            }
            "evalfile" => self.set_eval_file(value.unwrap_or("").trim()),
            "eval" => match value.map(str::to_ascii_lowercase).as_deref() {
                Some("classic") => {
                    self.use_network = false;
                    self.apply_network();
                    Ok(())
                }
                Some("network") => {
                    self.use_network = true;
                    self.apply_network();
                    Ok(())
                }
                _ => Err("option 'Eval' takes network or classic".to_string()),
            },
            "gameoptions" => {
                let text = value.unwrap_or("").trim();
                let text = if text == "<empty>" { "" } else { text };
                let options: Vec<&str> = text.split_whitespace().collect();
                let name = self.variant();
                registry::create(&name, &options)
                    .map(|session| {
                        self.replace_session(session);
                        self.game_options = options.iter().map(|s| s.to_string()).collect();
                        self.clear_hash();
                    })
                    .map_err(|e| e.to_string())
            }
            _ => {
                self.out.info_string(&format!(
                    "warning: unknown option '{name}' (options: Hash, Threads, MultiPV, Ponder, \
                     Move Overhead, Contempt, Clear Hash, UCI_Variant, GameOptions, Eval, \
                     EvalFile, TablebasePath)"
                ));
                Ok(())
            }
        };
        if let Err(e) = result {
            self.out.error(&e);
        }
    }

    /// A new table of `mb` MiB, if this process can hold it; otherwise an error naming the
    /// most it can have, and the old table stays.
    fn resize_hash(&mut self, mb: usize) -> Result<(), String> {
        let limits = MemoryLimits::current();
        if let (Some(most), Some((bytes, what))) = (limits.table_limit_mb(), limits.binding())
            && mb > most
        {
            return Err(format!(
                "option 'Hash': {mb} MB is more memory than this engine can have here: at most \
                 {most} MB ({what} is {} MB, less a reserve for the rest of the engine); the \
                 hash table stays at {} MB",
                bytes >> 20,
                self.tt.megabytes()
            ));
        }
        self.install_table(TranspositionTable::new(mb)?);
        Ok(())
    }

    /// Use `table` from now on; the old one is released on a background thread. The new
    /// table's pages are supplied by the operating system on another background thread.
    fn install_table(&mut self, table: TranspositionTable) {
        let table = Arc::new(table);
        TranspositionTable::populate_in_background(&table, self.hash_ready_notice());
        release_in_background(std::mem::replace(&mut self.tt, table));
        self.ready_waited = false;
    }

    /// `--tablebases DIR` on the command line: as `setoption name TablebasePath value DIR`.
    pub fn set_tablebase_path(&mut self, dir: PathBuf) {
        self.tablebase_path = Some(dir);
        self.load_tables();
    }

    /// A new game (or new rules): its own endgame tables, a fresh solver table.
    fn replace_session(&mut self, session: Box<dyn Session>) {
        self.session = session;
        self.solve_tt = None;
        self.game_chosen = true;
        self.load_tables();
        self.apply_network();
    }

    /// `EvalFile`: load a network and evaluate with it in the game it is made for;
    /// `<empty>` (or nothing) goes back to the game's own network. A file that cannot be
    /// read, or is no network, changes nothing.
    fn set_eval_file(&mut self, text: &str) -> Result<(), String> {
        if text.is_empty() || text == "<empty>" {
            self.network = None;
            self.apply_network();
            return Ok(());
        }
        let path = PathBuf::from(text);
        let bytes = crate::nnue::read_file(&path)
            .map_err(|e| format!("option 'EvalFile': {e}; the evaluation stays as it was"))?;
        // Kept for the game it is made for, also when another game is played now (a GUI
        // may send the options before the game), and with `Eval classic` for when `Eval
        // network` comes: the evaluation follows the options' values, not their order.
        self.network = Some((path, Arc::new(bytes)));
        self.apply_network();
        Ok(())
    }

    /// Give the session the evaluation chosen: with `Eval network`, the `EvalFile`
    /// network where it fits this game, else the game's own network (if it has one); with
    /// `Eval classic`, the hand-written evaluation. The evaluation in force is said when it
    /// has changed.
    fn apply_network(&mut self) {
        let evaluation = self.choose_network();
        if evaluation != self.evaluation {
            self.out.info_string(&format!("evaluation: {evaluation}"));
            self.evaluation = evaluation;
        }
    }

    /// [`Server::apply_network`]'s choice, and how `d` names it.
    fn choose_network(&mut self) -> String {
        if !self.use_network {
            let _ = self.session.set_network(None);
            return CLASSIC.to_string();
        }
        if let Some((path, bytes)) = &self.network {
            match self.session.set_network(Some(bytes)) {
                Ok(()) => {
                    // Shown by `d` too: the path on one line.
                    return format!(
                        "network file '{}' ({})",
                        one_line(&path.display().to_string()),
                        self.session.network_id()
                    );
                }
                Err(e) => self.out.info_string(&format!(
                    "warning: EvalFile '{}' is not for {} ({e}): {}",
                    path.display(),
                    self.session.spec(),
                    if self.session.default_network().is_some() {
                        "its own network evaluates"
                    } else {
                        "it evaluates by hand"
                    }
                )),
            }
        }
        let own = self.session.default_network();
        match self.session.set_network(own) {
            Ok(()) if own.is_some() => built_in(self.session.as_ref()),
            Ok(()) => CLASSIC.to_string(),
            Err(e) => {
                let _ = self.session.set_network(None);
                self.out
                    .info_string(&format!("warning: the game's own network: {e}"));
                CLASSIC.to_string()
            }
        }
    }

    /// The default game is played without having been chosen: now its missing tables are
    /// worth the word that was held back at start-up.
    fn playing(&mut self) {
        if !self.game_chosen {
            self.game_chosen = true;
            if self.session.tables().is_none() {
                self.load_tables();
            }
        }
    }

    /// The solver's table, made when first needed (`None` if the memory is not there).
    fn solve_table(&mut self) -> Option<Arc<SolverTt>> {
        if self.solve_tt.is_none() {
            match SolverTt::new(self.tt.megabytes().max(1)) {
                Ok(table) => self.solve_tt = Some(Arc::new(table)),
                Err(e) => self.out.error(&e),
            }
        }
        self.solve_tt.clone()
    }

    /// Load the endgame tables of the current game from `TablebasePath`, if set. A missing
    /// directory, or one without this game's tables, is an error that says what was looked
    /// for; play goes on without tables.
    fn load_tables(&mut self) {
        self.session.set_tables(None);
        let Some(dir) = self.tablebase_path.clone() else {
            return;
        };
        match self.session.open_tables(&dir) {
            Ok(Some(tables)) => {
                self.out.info_string(&format!(
                    "tablebases: '{}', layers 0..={} from {}",
                    tables.rules(),
                    tables.max_layer(),
                    tables.folder().display()
                ));
                self.session.set_tables(Some(tables));
            }
            // This game has no tables: nothing to load, nothing to say.
            Ok(None) => {}
            // A directory may hold other games' tables: information, said once, and only
            // for the game being played.
            Err(e @ TableError::Absent { .. }) => {
                let text = format!("tablebases: {e}; playing without");
                if self.game_chosen && self.absence_said.as_deref() != Some(text.as_str()) {
                    self.out.info_string(&text);
                    self.absence_said = Some(text);
                }
            }
            Err(e) => self.out.error(&format!("tablebases: {e}; playing without")),
        }
    }

    /// Empty the hash table: old entries are unreadable at once, and the table is back to
    /// a new one's state by the next `isready`'s answer (see
    /// [`TranspositionTable::reset_in_background`]), which waits for it as for a new table.
    fn clear_hash(&mut self) {
        TranspositionTable::reset_in_background(&self.tt, self.hash_ready_notice());
        self.ready_waited = false;
        self.clearing_waited = false;
    }

    /// More search threads than the machine runs at once add nothing to a Lazy SMP search
    /// and starve the protocol threads (`readyok` and `stop` would wait hundreds of ms for
    /// the scheduler): the search uses at most as many threads as there are processors.
    fn set_threads(&mut self, requested: usize) {
        let processors = std::thread::available_parallelism().map_or(1, |n| n.get());
        self.settings.threads = requested.min(processors).max(1);
        if requested > processors {
            self.out.info_string(&format!(
                "warning: Threads {requested}: this machine runs {processors} threads at once; \
                 the search uses {processors}"
            ));
        }
    }

    fn variant(&self) -> String {
        let spec = self.session.spec();
        spec.split_whitespace()
            .next()
            .unwrap_or("kalah")
            .to_string()
    }

    /// Switch game, keeping the GameOptions when they apply to the new game.
    fn set_variant(&mut self, name: &str) -> Result<(), String> {
        let name = name.trim();
        registry::find(name).map_err(|e| e.to_string())?;
        let options: Vec<&str> = self.game_options.iter().map(String::as_str).collect();
        let session = match registry::create(name, &options) {
            Ok(session) => session,
            Err(e) => {
                self.out.info_string(&format!(
                    "warning: GameOptions '{}' do not apply to {name} ({e}); using its defaults",
                    self.game_options.join(" ")
                ));
                self.game_options.clear();
                registry::create(name, &[]).map_err(|e| e.to_string())?
            }
        };
        self.replace_session(session);
        self.clear_hash();
        Ok(())
    }

    fn go(&mut self, limits: Limits) {
        let limits = match self.clearing_wait_since.take() {
            Some(since) if !limits.ponder => {
                limits.minus_elapsed(self.session.to_move(), since.elapsed())
            }
            _ => limits,
        };
        if !limits.searchmoves.is_empty() {
            let legal = self.session.legal_moves();
            if let Some(bad) = limits.searchmoves.iter().find(|m| !legal.contains(m)) {
                self.out.error(&format!(
                    "go: searchmoves: '{bad}' is not a legal move here (legal: {}); no search \
                     started",
                    legal.join(" ")
                ));
                return;
            }
        }
        // Tables that became unusable (a file changed or shrank) are said once, here or
        // after the search that found it.
        if let Some(failure) = self.session.tables().and_then(|t| t.new_failure()) {
            self.out.error(&failure);
        }
        let control = Arc::new(SearchControl::new(limits.ponder));
        let player = self.session.to_move();
        let open_ended = limits.is_open_ended()
            || limits.is_unlimited_for(player)
            || limits.is_endless_solve(player);
        let session = self.session.clone_box();
        let tt = Arc::clone(&self.tt);
        // The exact solver's table, for `go solve` and for positions near the tables.
        let solve_tt = if limits.solve || session.tables().is_some() {
            self.solve_table()
        } else {
            None
        };
        let settings = self.settings;
        let show_ponder = self.ponder;
        let out = self.out.clone();
        let job_control = Arc::clone(&control);
        let first_legal = self.session.legal_moves().into_iter().next();
        let answered = Arc::new(AtomicBool::new(false));
        let job_answered = Arc::clone(&answered);
        let started = self.spawn_job("search", control, open_ended, answered, move || {
            let result = panic::catch_unwind(AssertUnwindSafe(|| {
                session.search(
                    &limits,
                    &settings,
                    &tt,
                    solve_tt.as_deref(),
                    &job_control,
                    &mut |info| out.info(info),
                )
            }));
            let line = match result {
                Ok(Ok(summary)) => match (show_ponder, summary.ponder) {
                    (true, Some(reply)) => format!("bestmove {} ponder {reply}", summary.bestmove),
                    _ => format!("bestmove {}", summary.bestmove),
                },
                Ok(Err(message)) => {
                    // Still a move to play when there is one (e.g. `go solve` refused).
                    out.error(&message);
                    let first = session.legal_moves().into_iter().next();
                    format!("bestmove {}", first.as_deref().unwrap_or("0000"))
                }
                Err(_) => {
                    // A bug, not bad input: still answer with a legal move.
                    out.error("internal error: the search failed; playing the first legal move");
                    out.line("info depth 0 score cp 0");
                    let first = session.legal_moves().into_iter().next();
                    format!("bestmove {}", first.as_deref().unwrap_or("0000"))
                }
            };
            if let Some(failure) = session.tables().and_then(|t| t.new_failure()) {
                out.error(&failure);
            }
            // Before the line: a client answers it at once, maybe before this thread runs
            // again.
            job_answered.store(true, Ordering::Release);
            out.line(&line);
        });
        if !started {
            // Every `go` has its `bestmove`, even without a thread to search on.
            self.out.line("info depth 0 score cp 0");
            self.out.line(&format!(
                "bestmove {}",
                first_legal.as_deref().unwrap_or("0000")
            ));
        }
    }

    /// Perft on the job thread: a line per root move as it is counted, then the total. A
    /// `stop` ends it within milliseconds with `info string perft stopped …` and no total.
    fn perft(&mut self, depth: u32) {
        let session = self.session.clone_box();
        let out = self.out.clone();
        let control = Arc::new(SearchControl::default());
        let job_control = Arc::clone(&control);
        let _ = self.spawn_job("perft", control, false, Arc::default(), move || {
            let result = panic::catch_unwind(AssertUnwindSafe(|| {
                let mut total = 0;
                let mut counted = 0;
                let complete = session.divide(depth, job_control.stop_flag(), &mut |mv, count| {
                    out.line(&format!("{mv}: {count}"));
                    total += count;
                    counted += 1;
                });
                if !complete {
                    let moves = session.legal_moves().len();
                    out.info_string(&format!(
                        "perft stopped after {counted} of {moves} moves ({total} nodes): the \
                         count is incomplete"
                    ));
                    return;
                }
                if depth == 0 {
                    total = 1;
                }
                out.line(&format!("Nodes searched: {total}"));
            }));
            if result.is_err() {
                out.error("internal error: perft failed");
            }
        });
    }

    fn bench(&mut self, depth: Option<u32>) {
        let out = self.out.clone();
        let control = Arc::new(SearchControl::default());
        let job_control = Arc::clone(&control);
        let _ = self.spawn_job("bench", control, false, Arc::default(), move || {
            let result = panic::catch_unwind(AssertUnwindSafe(|| {
                bench::run(depth, &job_control, &mut |line| out.line(line))
            }));
            if result.is_err() {
                out.error("internal error: bench failed");
            }
        });
    }

    /// Run `work` on its own thread as the job; false (after saying so) when the system
    /// refuses the thread. A search's `work` sets `answered` just before it prints
    /// its `bestmove`.
    fn spawn_job(
        &mut self,
        name: &str,
        control: Arc<SearchControl>,
        open_ended: bool,
        answered: Arc<AtomicBool>,
        work: impl FnOnce() + Send + 'static,
    ) -> bool {
        let events = self.events.clone();
        let spawned = std::thread::Builder::new()
            .name(name.to_string())
            .spawn(move || {
                work();
                let _ = events.send(Event::JobDone(std::thread::current().id()));
            });
        match spawned {
            Ok(handle) => {
                self.job = Some(Job {
                    handle,
                    ponder: control.is_pondering(),
                    control,
                    open_ended,
                    answered,
                });
                true
            }
            Err(e) => {
                self.out
                    .error(&format!("cannot start a {name} thread: {e}"));
                false
            }
        }
    }
}

/// Join `job` if its thread ends within `grace`; else give it back, still running.
fn join_within(job: Job, grace: Duration) -> Option<Job> {
    let until = Instant::now() + grace;
    while !job.handle.is_finished() && Instant::now() < until {
        std::thread::sleep(Duration::from_micros(200));
    }
    if job.handle.is_finished() {
        let _ = job.handle.join();
        None
    } else {
        Some(job)
    }
}

/// How `d` and `info string evaluation: …` name the hand-written evaluation.
const CLASSIC: &str = "classic";

/// How they name a game's own network.
fn built_in(session: &dyn Session) -> String {
    format!("built-in network ({})", session.network_id())
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
