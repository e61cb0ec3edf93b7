//! `sowfan play`: a game against the engine in a terminal, one line of input at a time (so
//! it works through a pipe too). Generic over games: the board, the moves and the result
//! all come from the [`Session`].

use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;

use thiserror::Error;

use crate::cli::game_words;
use crate::game::Player;
use crate::memory;
use crate::records::lines::{BoundedLines, LineError};
use crate::registry::{self, RegistryError};
use crate::search::limits::Limits;
use crate::search::tt::TranspositionTable;
use crate::search::value::Value;
use crate::search::{SearchControl, SearchSettings};
use crate::session::{PositionCommandError, SearchSummary, Session};
use crate::solver::tt::SolverTt;
use crate::tables::TableError;

/// Who the engine plays.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum EngineSide {
    P1,
    P2,
    Both,
    None,
}

impl EngineSide {
    fn plays(self, player: Player) -> bool {
        match self {
            EngineSide::P1 => player == Player::P1,
            EngineSide::P2 => player == Player::P2,
            EngineSide::Both => true,
            EngineSide::None => false,
        }
    }
}

/// Play a game against the engine in the terminal (also through a pipe).
///
/// After each move: the board, the scores, whose turn it is and the legal moves. Type a
/// move, or undo, hint, fen, moves, board, new, help, quit. See README.md, "Playing".
///
/// Example: sowfan play kalah pits=4 --engine p2 --movetime 500
#[derive(Debug, Clone, clap::Args)]
#[command(verbatim_doc_comment)]
pub struct PlayArgs {
    /// Game name (default kalah) followed by key=value options.
    #[arg(value_name = "GAME [KEY=VALUE ...]")]
    pub game: Vec<String>,
    /// The side(s) the engine plays.
    #[arg(long, value_enum, default_value_t = EngineSide::P2)]
    pub engine: EngineSide,
    /// The engine's time per move in milliseconds (default 1000).
    #[arg(long, value_name = "MS", conflicts_with = "depth")]
    pub movetime: Option<u64>,
    /// The engine searches to this depth instead.
    #[arg(long, value_name = "N")]
    pub depth: Option<u32>,
    /// Endgame table directory.
    #[arg(long, value_name = "DIR")]
    pub tablebases: Option<PathBuf>,
    /// Transposition table size in MiB.
    #[arg(long = "hash", default_value_t = 64, value_name = "MB")]
    pub hash_mb: usize,
    /// Start from this position string.
    #[arg(long)]
    pub fen: Option<String>,
}

/// Why the game cannot start or go on (said after `sowfan play: `). A move the person
/// types wrong is no error: it is said and the game goes on.
#[derive(Debug, Error)]
pub enum PlayError {
    #[error(transparent)]
    Game(#[from] RegistryError),
    #[error("--fen: {0}")]
    Fen(PositionCommandError),
    #[error(transparent)]
    Tables(#[from] TableError),
    /// The game (its spec) has no endgame tables to open.
    #[error("{0} has no endgame tables")]
    NoTables(String),
    /// `--hash` refused or its tables not had (the memory check's words).
    #[error("{0}")]
    Memory(String),
    /// The engine's search failed (its words).
    #[error("{0}")]
    Search(String),
    #[error("internal error: the engine's move was rejected: {0}")]
    EngineMoveRejected(PositionCommandError),
    #[error("cannot write: {0}")]
    Write(std::io::Error),
    #[error("cannot read the input: {0}")]
    Read(std::io::Error),
}

/// The engine's thinking time when no limit is given.
pub const DEFAULT_MOVETIME: u64 = 1000;

/// The longest input line read (a move or a command is a few bytes); a longer one is
/// reported and skipped without being held.
pub const MAX_INPUT_LINE: usize = 64 << 10;

/// ANSI colours, only when wanted.
#[derive(Debug, Clone, Copy)]
pub struct Style {
    pub colour: bool,
}

impl Style {
    /// Colours when standard output is a terminal and `NO_COLOR` is not set (to anything
    /// but the empty string).
    pub fn from_environment() -> Style {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        Style {
            colour: std::io::stdout().is_terminal() && !no_color,
        }
    }

    fn paint(self, code: &str, text: &str) -> String {
        if self.colour {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }

    fn prompt(self, text: &str) -> String {
        self.paint("1", text)
    }
    fn engine(self, text: &str) -> String {
        self.paint("36", text)
    }
    fn error(self, text: &str) -> String {
        self.paint("31", text)
    }
    fn result(self, text: &str) -> String {
        self.paint("1;33", text)
    }
}

const HELP: &str = "\
Type a move (as listed after 'Legal moves'), or:
  undo    take back to your previous turn
  hint    the engine's move and score here
  fen     the position string
  moves   the game so far, as a protocol 'position' command
  board   show the board again
  new     start a new game
  help    this text
  quit    leave";

/// The game in progress: where it started and the moves since, who made them.
struct PlayedGame {
    session: Box<dyn Session>,
    fen: Option<String>,
    moves: Vec<String>,
    /// Whether each move was a person's.
    by_person: Vec<bool>,
}

impl PlayedGame {
    fn replay(&mut self) {
        let moves: Vec<&str> = self.moves.iter().map(String::as_str).collect();
        // Every move was accepted before: replaying cannot fail.
        let _ = self.session.set_position(self.fen.as_deref(), &moves);
    }

    fn play(&mut self, mv: &str, person: bool) -> Result<(), PositionCommandError> {
        // One move on from the current position: a long game stays linear.
        self.session.play_moves(&[mv])?;
        self.moves.push(mv.to_string());
        self.by_person.push(person);
        Ok(())
    }

    /// Back to the person's previous turn: take back moves up to and including the last
    /// move a person made. False when there is none.
    fn undo(&mut self) -> bool {
        let Some(last) = self.by_person.iter().rposition(|&p| p) else {
            return false;
        };
        self.moves.truncate(last);
        self.by_person.truncate(last);
        self.replay();
        true
    }

    fn restart(&mut self) {
        self.moves.clear();
        self.by_person.clear();
        self.replay();
    }

    /// `position startpos moves …` (or `position fen …`).
    fn position_command(&self) -> String {
        let mut text = match &self.fen {
            Some(fen) => format!("position fen {fen}"),
            None => "position startpos".to_string(),
        };
        if !self.moves.is_empty() {
            text.push_str(" moves ");
            text.push_str(&self.moves.join(" "));
        }
        text
    }

    /// The game as a line for `sowfan analyse`.
    fn analyse_line(&self) -> String {
        let mut text = format!("{}:", self.session.spec());
        if let Some(fen) = &self.fen {
            text.push_str(&format!(" fen {fen} moves"));
        }
        for mv in &self.moves {
            text.push(' ');
            text.push_str(mv);
        }
        text
    }
}

/// The engine: its tables live as long as the program.
struct Searcher {
    limits: Limits,
    tt: TranspositionTable,
    hash_mb: usize,
    /// The solver's table, made when a position first is within the solver's reach.
    solve_tt: Option<SolverTt>,
    control: SearchControl,
}

impl Searcher {
    fn think(&mut self, session: &dyn Session) -> Result<SearchSummary, PlayError> {
        if self.solve_tt.is_none() && session.tries_proof() {
            // Without the memory the engine searches without a proof first, as the protocol's.
            match SolverTt::new(self.hash_mb) {
                Ok(table) => self.solve_tt = Some(table),
                Err(e) => log::debug!("no proof before the search: {e}"),
            }
        }
        let settings = SearchSettings {
            threads: 1,
            multipv: 1,
            move_overhead: 0,
            contempt: 0,
        };
        let summary = session
            .search(
                &self.limits,
                &settings,
                &self.tt,
                self.solve_tt.as_ref(),
                &self.control,
                &mut |_| {},
            )
            .map_err(|e| e.to_string());
        if let Some(failure) = session.tables().and_then(|t| t.new_failure()) {
            eprintln!("sowfan play: {failure}");
        }
        summary.map_err(PlayError::Search)
    }
}

fn score_text(summary: &SearchSummary) -> String {
    Value::from_search(summary.score, summary.proven).text()
}

/// Play until `quit` or the end of the input. `echo`: repeat each input line after the
/// prompt (when the input is not a terminal, so that a transcript reads well).
pub fn play(
    args: &PlayArgs,
    input: &mut dyn BufRead,
    out: &mut dyn Write,
    style: Style,
    echo: bool,
) -> Result<(), PlayError> {
    let (name, options) = game_words(&args.game);
    let mut session = registry::create(name, &options)?;
    session
        .set_position(args.fen.as_deref(), &[])
        .map_err(PlayError::Fen)?;
    if let Some(dir) = &args.tablebases {
        match session.open_tables(dir)? {
            Some(tables) => session.set_tables(Some(tables)),
            None => return Err(PlayError::NoTables(session.spec())),
        }
    }
    let limits = Limits {
        depth: args.depth,
        movetime: args
            .movetime
            .or(args.depth.is_none().then_some(DEFAULT_MOVETIME)),
        ..Limits::default()
    };
    memory::check_hash_mb("--hash", args.hash_mb).map_err(|e| PlayError::Memory(e.to_string()))?;
    if session.tables().is_some() {
        // A search table and a solver table of that size.
        memory::check_hash_mb(
            &format!("--hash {} MB twice (with --tablebases)", args.hash_mb),
            args.hash_mb.saturating_mul(2),
        )
        .map_err(|e| PlayError::Memory(e.to_string()))?;
    }
    let mut engine = Searcher {
        limits,
        tt: TranspositionTable::new(args.hash_mb).map_err(|e| PlayError::Memory(e.to_string()))?,
        hash_mb: args.hash_mb,
        solve_tt: None,
        control: SearchControl::default(),
    };
    let mut game = PlayedGame {
        session,
        fen: args.fen.clone(),
        moves: Vec::new(),
        by_person: Vec::new(),
    };
    let say = |out: &mut dyn Write, text: &str| -> Result<(), PlayError> {
        writeln!(out, "{text}")
            .and_then(|_| out.flush())
            .map_err(PlayError::Write)
    };
    let sides = match args.engine {
        EngineSide::P1 => "sowfan plays p1, you play p2".to_string(),
        EngineSide::P2 => "you play p1, sowfan plays p2".to_string(),
        EngineSide::Both => "sowfan plays both sides".to_string(),
        EngineSide::None => "you play both sides".to_string(),
    };
    say(
        out,
        &format!(
            "sowfan play: {} ({sides}). Type a move, or help.",
            game.session.spec()
        ),
    )?;
    show(out, &game)?;
    let mut end_shown = false;
    let mut lines = BoundedLines::with_limit(input, MAX_INPUT_LINE);
    loop {
        let over = game.session.outcome();
        if let Some(outcome) = over {
            if !end_shown {
                end_shown = true;
                say(
                    out,
                    &style.result(&format!(
                        "Game over: {} ({})",
                        outcome.result.as_str(),
                        outcome.reason
                    )),
                )?;
                say(
                    out,
                    &format!(
                        "To analyse this game:\n  echo '{}' | sowfan analyse -",
                        game.analyse_line()
                    ),
                )?;
                say(out, "Type new, undo, moves or quit.")?;
            }
        } else {
            end_shown = false;
            let mover = game.session.to_move();
            if args.engine.plays(mover) {
                let summary = engine.think(game.session.as_ref())?;
                game.play(&summary.bestmove, false)
                    .map_err(PlayError::EngineMoveRejected)?;
                say(
                    out,
                    &style.engine(&format!(
                        "sowfan ({}) plays {}, score {}",
                        mover.name(),
                        summary.bestmove,
                        score_text(&summary)
                    )),
                )?;
                show(out, &game)?;
                continue;
            }
        }
        let prompt = match over {
            Some(_) => "game over> ".to_string(),
            None => format!("{}> ", game.session.to_move().name()),
        };
        write!(out, "{}", style.prompt(&prompt))
            .and_then(|_| out.flush())
            .map_err(PlayError::Write)?;
        let line = match lines.next_line() {
            None => {
                say(out, "")?;
                return Ok(());
            }
            Some(Err(e)) => return Err(PlayError::Read(e)),
            Some(Ok((_, Ok(line)))) => line,
            Some(Ok((_, Err(bad)))) => {
                let why = match bad {
                    LineError::NotUtf8 { .. } => "not UTF-8 text, ignored".to_string(),
                    LineError::TooLong { bytes } => {
                        format!("a line of {bytes} bytes is not a move or a command, ignored")
                    }
                };
                if echo {
                    say(out, "")?;
                }
                say(out, &style.error(&why))?;
                continue;
            }
        };
        let text = line.trim();
        if echo {
            say(out, text)?;
        }
        match text {
            "" => {}
            "quit" | "exit" => return Ok(()),
            "help" | "?" => say(out, HELP)?,
            "fen" => say(out, &game.session.fen())?,
            "moves" => say(out, &game.position_command())?,
            "board" | "d" => show(out, &game)?,
            "new" => {
                game.restart();
                say(out, "New game.")?;
                show(out, &game)?;
            }
            "undo" => {
                if game.undo() {
                    say(out, "Taken back.")?;
                    show(out, &game)?;
                } else {
                    say(out, &style.error("Nothing to take back."))?;
                }
            }
            "hint" => {
                if over.is_some() {
                    say(out, &style.error("The game is over."))?;
                } else {
                    let summary = engine.think(game.session.as_ref())?;
                    say(
                        out,
                        &format!(
                            "Hint: {} (score {})",
                            summary.bestmove,
                            score_text(&summary)
                        ),
                    )?;
                }
            }
            mv => {
                if over.is_some() {
                    say(
                        out,
                        &style.error("The game is over: type new, undo or quit."),
                    )?;
                } else if mv.split_whitespace().count() > 1 {
                    say(
                        out,
                        &style.error(&format!("'{mv}' is not one move: type one move, or help.")),
                    )?;
                } else {
                    match game.play(mv, true) {
                        Ok(()) => show(out, &game)?,
                        Err(PositionCommandError::BadMove { error, .. }) => {
                            say(out, &style.error(&error.to_string()))?;
                            say(out, &legal_line(&game))?;
                        }
                        Err(e) => say(out, &style.error(&e.to_string()))?,
                    }
                }
            }
        }
    }
}

fn legal_line(game: &PlayedGame) -> String {
    format!("Legal moves: {}", game.session.legal_moves().join(" "))
}

/// The board (as `d`), the scores, whose turn it is and the legal moves.
fn show(out: &mut dyn Write, game: &PlayedGame) -> Result<(), PlayError> {
    let mut text = String::new();
    text.push('\n');
    text.push_str(&game.session.display());
    text.push('\n');
    if game.session.outcome().is_none() {
        text.push_str(&legal_line(game));
        text.push('\n');
    }
    out.write_all(text.as_bytes())
        .and_then(|_| out.flush())
        .map_err(PlayError::Write)
}
