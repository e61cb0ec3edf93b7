//! The engine's resources: the game in play, the hash table and the solver's table, the
//! search threads and settings, the endgame tables, the evaluation, and the jobs that
//! search with them. The command loop ([`super::server`]) says when; this says how.

use std::panic::{self, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Sender;

use thiserror::Error;

use super::engine_options::{self, DEFAULT_HASH_MB, EMPTY, Setting, Shows};
use super::job_thread::Job;
use super::output::Output;
use super::{Event, StartError};
use crate::bench;
use crate::memory::{MemoryLimits, release_in_background};
use crate::nnue::network::NetworkFileError;
use crate::registry::{self, RegistryError};
use crate::search::limits::Limits;
use crate::search::tt::{HashTableError, TranspositionTable};
use crate::search::{SearchControl, SearchSettings};
use crate::session::Session;
use crate::solver::tt::SolverTt;
use crate::tables::TableError;
use crate::text::one_line;

/// A setting the engine could not take; what it had stays.
#[derive(Debug, Error)]
pub enum SettingError {
    #[error(
        "option 'Hash': {mb} MB is more memory than this engine can have here: at most {most} \
         MB ({what} is {limit_mb} MB, less a reserve for the rest of the engine); the hash \
         table stays at {current} MB"
    )]
    HashTooBig {
        mb: usize,
        most: usize,
        what: &'static str,
        limit_mb: u64,
        current: usize,
    },
    /// The memory for a table was refused.
    #[error(transparent)]
    Memory(#[from] HashTableError),
    #[error(transparent)]
    Game(#[from] RegistryError),
    #[error("option 'EvalFile': {0}; the evaluation stays as it was")]
    EvalFile(#[from] NetworkFileError),
}

pub struct Engine {
    out: Output,
    events: Sender<Event>,
    pub session: Box<dyn Session>,
    /// The `key=value` options the current game was built with.
    game_options: Vec<String>,
    pub tt: Arc<TranspositionTable>,
    /// The exact solver's table (`go solve`, positions within the solver's reach): made when
    /// first needed, of the `Hash` size; dropped when the rules or `Hash` change (its keys
    /// are the game's).
    solve_tt: Option<Arc<SolverTt>>,
    /// `TablebasePath` (or `--tablebases`): where endgame tables are looked for.
    tablebase_path: Option<PathBuf>,
    /// A game was chosen (`--game`, `newgame`, `UCI_Variant`, `GameOptions`) or the default
    /// one is being played (a `position` or `go`): only then is a directory without its
    /// tables worth a word. Until then the default game's tables load silently if present.
    game_chosen: bool,
    /// The last "no tables" said (rules and directory), so that it is said once.
    absence_said: Option<String>,
    pub settings: SearchSettings,
    /// `EvalFile`: the network file's path and bytes (checked when loaded).
    network: Option<(PathBuf, Arc<Vec<u8>>)>,
    /// `Eval network`: evaluate with `network` where it fits the game, else with the
    /// game's own network (if it has one); `Eval classic`: by hand whatever `network` is.
    use_network: bool,
    /// The evaluation in force, as `d` shows it and `info string evaluation: …` says it
    /// (once each time it changes; the one at the start goes without saying).
    pub evaluation: String,
    ponder: bool,
    /// The client has waited for the current table (or for its last clearing): a later
    /// `isready` is answered at once. A new table or a clearing sets it back.
    pub ready_waited: bool,
    /// A search has waited for the last clearing (or it had ended): later ones start at
    /// once. A clearing sets it back.
    pub clearing_waited: bool,
}

impl Engine {
    /// `game` preselects the game (`"kalah pits=4"`); the default is Kalah.
    pub fn new(
        out: Output,
        events: Sender<Event>,
        game: Option<&str>,
    ) -> Result<Engine, StartError> {
        let spec = game.unwrap_or(registry::GAMES[0].name);
        let session = registry::create_from_spec(spec)?;
        let game_options = spec.split_whitespace().skip(1).map(String::from).collect();
        let tt = Arc::new(TranspositionTable::new(DEFAULT_HASH_MB)?);
        let evaluation = if session.default_network().is_some() {
            built_in(session.as_ref())
        } else {
            CLASSIC.to_string()
        };
        Ok(Engine {
            out,
            events,
            session,
            game_options,
            tt,
            solve_tt: None,
            tablebase_path: None,
            game_chosen: game.is_some(),
            absence_said: None,
            settings: engine_options::default_settings(),
            network: None,
            use_network: true,
            evaluation,
            ponder: false,
            ready_waited: false,
            clearing_waited: true,
        })
    }

    /// Have the pages of the hash table supplied on a background thread.
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

    /// What `uci` shows as the default of an option that shows the engine's current value.
    pub fn shown(&self, shows: Shows) -> Option<String> {
        match shows {
            Shows::Default => None,
            Shows::Game => Some(self.variant()),
            Shows::GameOptions => Some(if self.game_options.is_empty() {
                EMPTY.to_string()
            } else {
                self.game_options.join(" ")
            }),
            Shows::TablebasePath => {
                Some(self.tablebase_path.as_ref().map_or(EMPTY.to_string(), |p| {
                    one_line(&p.display().to_string()).into_owned()
                }))
            }
        }
    }

    /// Do what a `setoption` asks.
    pub fn apply(&mut self, setting: Setting) -> Result<(), SettingError> {
        match setting {
            Setting::Hash(mb) => self.resize_hash(mb)?,
            Setting::Threads(n) => self.set_threads(n),
            Setting::MultiPv(n) => self.settings.multipv = n,
            Setting::Ponder(on) => self.ponder = on,
            Setting::MoveOverhead(ms) => self.settings.move_overhead = ms,
            Setting::Contempt(n) => self.settings.contempt = n,
            Setting::ClearHash => self.clear_hash(),
            Setting::Variant(name) => self.set_variant(name)?,
            Setting::GameOptions(text) => {
                let options: Vec<&str> = text.unwrap_or("").split_whitespace().collect();
                let session = registry::create(&self.variant(), &options)?;
                self.replace_session(session);
                self.game_options = options.iter().map(|s| s.to_string()).collect();
                self.clear_hash();
            }
            Setting::EvalNetwork(on) => {
                self.use_network = on;
                self.apply_network();
            }
            Setting::EvalFile(file) => self.set_eval_file(file)?,
            Setting::TablebasePath(dir) => {
                self.tablebase_path = dir.map(PathBuf::from);
                self.load_tables();
            }
        }
        Ok(())
    }

    /// `ucinewgame`: the start position of the current game, and an emptied table.
    pub fn new_game(&mut self) {
        // Cannot fail: the start position of the current game.
        let _ = self.session.set_position(None, &[]);
        self.clear_hash();
    }

    /// `newgame <game> [key=value ...]`.
    pub fn set_game(&mut self, game: &str, options: &[String]) -> Result<(), RegistryError> {
        let options: Vec<&str> = options.iter().map(String::as_str).collect();
        let session = registry::create(game, &options)?;
        self.replace_session(session);
        self.game_options = options.iter().map(|s| s.to_string()).collect();
        self.clear_hash();
        Ok(())
    }

    /// A new table of `mb` MiB, if this process can hold it; otherwise an error naming the
    /// most it can have, and the old table stays.
    fn resize_hash(&mut self, mb: usize) -> Result<(), SettingError> {
        let limits = MemoryLimits::current();
        if let (Some(most), Some((bytes, what))) = (limits.table_limit_mb(), limits.binding())
            && mb > most
        {
            return Err(SettingError::HashTooBig {
                mb,
                most,
                what,
                limit_mb: bytes >> 20,
                current: self.tt.megabytes(),
            });
        }
        self.install_table(TranspositionTable::new(mb)?);
        // The solver's table takes the new size when next needed.
        self.solve_tt = None;
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

    /// A new game (or new rules): its own endgame tables, and a fresh solver table unless
    /// the rules are the same (a proven value holds in any game of the same rules, and a
    /// table kept has its pages in place: a fresh one takes its page faults in the next
    /// proofs, several milliseconds a MiB on some machines).
    fn replace_session(&mut self, session: Box<dyn Session>) {
        if session.spec() != self.session.spec() {
            self.solve_tt = None;
        }
        self.session = session;
        self.game_chosen = true;
        self.load_tables();
        self.apply_network();
    }

    /// `EvalFile`: load a network and evaluate with it in the game it is made for;
    /// no file goes back to the game's own network. A file that cannot be read, or is no
    /// network, changes nothing.
    fn set_eval_file(&mut self, file: Option<&str>) -> Result<(), SettingError> {
        let Some(text) = file else {
            self.network = None;
            self.apply_network();
            return Ok(());
        };
        let path = PathBuf::from(text);
        let bytes = crate::nnue::network::read_file(&path)?;
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

    /// [`Engine::apply_network`]'s choice, and how `d` names it.
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
    pub fn playing(&mut self) {
        if !self.game_chosen {
            self.game_chosen = true;
            if self.session.tables().is_none() {
                self.load_tables();
            }
        }
    }

    /// The solver's table, made when first needed (`None` if the memory is not there): the
    /// `Hash` size, or what this process may still have beside the hash table when that is
    /// less. `asked`: a `go solve`, which says why it has none; a proof merely tried before a
    /// search goes without one silently.
    fn solve_table(&mut self, asked: bool) -> Option<Arc<SolverTt>> {
        if self.solve_tt.is_none() {
            let hash = self.tt.megabytes().max(1);
            let room = MemoryLimits::current()
                .table_limit_mb()
                .map_or(hash, |most| most.saturating_sub(hash));
            let made = match hash.min(room) {
                0 => Err(format!(
                    "no memory for the solver's table beside the {hash} MB hash table \
                     (a smaller Hash leaves room)"
                )),
                mb => SolverTt::new(mb).map_err(|e| e.to_string()),
            };
            match made {
                Ok(table) => self.solve_tt = Some(Arc::new(table)),
                Err(e) if asked => self.out.error(&e),
                Err(e) => log::debug!("no proof before the search: {e}"),
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

    /// The game played now, by name.
    fn variant(&self) -> String {
        let spec = self.session.spec();
        spec.split_whitespace()
            .next()
            .unwrap_or("kalah")
            .to_string()
    }

    /// Switch game, keeping the GameOptions when they apply to the new game.
    fn set_variant(&mut self, name: &str) -> Result<(), SettingError> {
        let name = name.trim();
        registry::find(name)?;
        let options: Vec<&str> = self.game_options.iter().map(String::as_str).collect();
        let session = match registry::create(name, &options) {
            Ok(session) => session,
            Err(e) => {
                self.out.info_string(&format!(
                    "warning: GameOptions '{}' do not apply to {name} ({e}); using its defaults",
                    self.game_options.join(" ")
                ));
                self.game_options.clear();
                registry::create(name, &[])?
            }
        };
        self.replace_session(session);
        self.clear_hash();
        Ok(())
    }

    /// Start a search on its own thread. `None` when there is none to start (a bad
    /// `searchmoves`, said) or the system refused the thread (then the `bestmove` of the
    /// first legal move is given at once: every `go` has its `bestmove`).
    pub fn go(&mut self, limits: Limits) -> Option<Job> {
        if !limits.searchmoves.is_empty() {
            let legal = self.session.legal_moves();
            if let Some(bad) = limits.searchmoves.iter().find(|m| !legal.contains(m)) {
                self.out.error(&format!(
                    "go: searchmoves: '{bad}' is not a legal move here (legal: {}); no search \
                     started",
                    legal.join(" ")
                ));
                return None;
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
        // The exact solver's table, for `go solve` and for positions it may prove first.
        let solve_tt = if limits.solve || session.tries_proof() {
            self.solve_table(limits.solve)
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
        let job = self.spawn("search", control, open_ended, answered, move || {
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
                Ok(Err(e)) => {
                    // Still a move to play when there is one (e.g. `go solve` refused).
                    out.error(&e.to_string());
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
        if job.is_none() {
            // Every `go` has its `bestmove`, even without a thread to search on.
            self.out.line("info depth 0 score cp 0");
            self.out.line(&format!(
                "bestmove {}",
                first_legal.as_deref().unwrap_or("0000")
            ));
        }
        job
    }

    /// Perft on the job thread: a line per root move as it is counted, then the total. A
    /// `stop` ends it within milliseconds with `info string perft stopped …` and no total.
    pub fn perft(&self, depth: u32) -> Option<Job> {
        let session = self.session.clone_box();
        let out = self.out.clone();
        let control = Arc::new(SearchControl::default());
        let job_control = Arc::clone(&control);
        self.spawn("perft", control, false, Arc::default(), move || {
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
        })
    }

    /// The bench suite on the job thread.
    pub fn bench(&self, depth: Option<u32>) -> Option<Job> {
        let out = self.out.clone();
        let control = Arc::new(SearchControl::default());
        let job_control = Arc::clone(&control);
        self.spawn("bench", control, false, Arc::default(), move || {
            let result = panic::catch_unwind(AssertUnwindSafe(|| {
                bench::run(depth, &job_control, &mut |line| out.line(line))
            }));
            if result.is_err() {
                out.error("internal error: bench failed");
            }
        })
    }

    /// Run `work` as a job; `None` (after saying so) when the system refuses the thread.
    fn spawn(
        &self,
        name: &str,
        control: Arc<SearchControl>,
        open_ended: bool,
        answered: Arc<AtomicBool>,
        work: impl FnOnce() + Send + 'static,
    ) -> Option<Job> {
        match Job::spawn(
            name,
            self.events.clone(),
            control,
            open_ended,
            answered,
            work,
        ) {
            Ok(job) => Some(job),
            Err(e) => {
                self.out
                    .error(&format!("cannot start a {name} thread: {e}"));
                None
            }
        }
    }
}

/// How `d` and `info string evaluation: …` name the hand-written evaluation.
const CLASSIC: &str = "classic";

/// How they name a game's own network.
fn built_in(session: &dyn Session) -> String {
    format!("built-in network ({})", session.network_id())
}
