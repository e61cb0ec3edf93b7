//! Games to analyse, in every form sowfan writes or accepts, read line by line so that
//! analysis can start before the input ends (a pipe from `sowfan match`).
//!
//! One input may hold several games, in any mix of these forms:
//!
//! - a `sowfan match --records` line: a JSON object (`{"number":1,…,"moves":[…]}`);
//! - a `sowfan match --pgn` game: `[Tag "value"]` lines, then movetext (moves with `{…}`
//!   comments, `{opening: …}` first) up to a blank line or the next tag;
//! - a game record of the fixture format (`docs/afrika.md`, "Game records"): `game:` and
//!   other `key: value` headers, `moves:`, then free movetext up to the next `game:` line;
//! - a plain line: `<game> [options]: <moves>`, or `[position] startpos|fen <position
//!   string> [moves <moves>]`, or `moves <moves>`, or just the moves (the game is then
//!   `--game`, by default kalah).
//!
//! Blank lines and lines starting with `#` between games are skipped. Nothing here knows a
//! game's rules: a game is checked by replaying it in a [`Session`] from the registry.

use thiserror::Error;

use crate::records::lines::{LineError, MAX_LINE_BYTES};
use crate::records::{self, RecordError};
use crate::registry;
use crate::session::{PositionCommandError, Session};

/// Where a game came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Records,
    Pgn,
    Fixture,
    Text,
}

impl Format {
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Records => "records",
            Format::Pgn => "pgn",
            Format::Fixture => "fixture",
            Format::Text => "text",
        }
    }
}

/// One game read from the input, not yet checked by the rules.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputGame {
    /// Its number in the input, from 1 (malformed games count too).
    pub number: usize,
    /// The input line it starts on, from 1.
    pub line: usize,
    pub format: Format,
    /// The game and its options, as after `newgame`.
    pub spec: String,
    /// The position it started from (`None`: the game's start position).
    pub fen: Option<String>,
    /// Every move from `fen`, opening moves included.
    pub moves: Vec<String>,
    /// How many of the first moves are an opening the players did not choose (a match's
    /// random or file opening).
    pub opening: usize,
    pub p1: Option<String>,
    pub p2: Option<String>,
    /// The result as recorded (`p1win`, `p2win`, `draw`, or a PGN `1-0`, …).
    pub result: Option<String>,
    pub reason: Option<String>,
    /// How a match record says the game ended (`rules`, `time-forfeit`, …); `None` for
    /// the other formats.
    pub termination: Option<String>,
}

/// Why a game could not be read or replayed.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum InputError {
    /// A `sowfan match --records` line that is not a record.
    #[error(transparent)]
    Record(#[from] RecordError),
    #[error("line {line}: {why}")]
    Syntax { line: usize, why: String },
    #[error("line {line}: {error}")]
    Movetext { line: usize, error: MovetextError },
    #[error("no 'moves:' line")]
    NoMovesLine,
    #[error(transparent)]
    Game(#[from] registry::RegistryError),
    #[error("{0}")]
    Position(PositionCommandError),
}

/// A game that could not be analysed: which one, where, why.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("game {number} (line {line}): {error}")]
pub struct GameError {
    pub number: usize,
    pub line: usize,
    pub error: InputError,
}

impl InputGame {
    /// Build the game's session and replay every move: the session is left at the start
    /// position. An unknown game, a bad position string or a move the rules reject (which
    /// move, why) is an error.
    pub fn check(&self) -> Result<Box<dyn Session>, GameError> {
        let fail = |error: InputError| GameError {
            number: self.number,
            line: self.line,
            error,
        };
        let mut session = registry::create_from_spec(&self.spec).map_err(|e| fail(e.into()))?;
        let moves: Vec<&str> = self.moves.iter().map(String::as_str).collect();
        session
            .set_position(self.fen.as_deref(), &moves)
            .map_err(|e| fail(InputError::Position(e)))?;
        session
            .set_position(self.fen.as_deref(), &[])
            .map_err(|e| fail(InputError::Position(e)))?;
        Ok(session)
    }
}

/// The most text a game of several lines (PGN, fixture) may have: beyond it the game is an
/// error and the rest of its lines are only skipped, so a block that never ends holds no
/// more memory than one long line.
pub const MAX_GAME_BYTES: usize = MAX_LINE_BYTES;

/// A block of several lines being read.
#[derive(Debug)]
enum Block {
    None,
    Pgn {
        start: usize,
        number: usize,
        tags: Vec<(String, String)>,
        movetext: String,
        /// The block's first error (reported when it ends).
        error: Option<InputError>,
        /// Bytes of its lines so far (see [`MAX_GAME_BYTES`]).
        size: usize,
    },
    Fixture {
        start: usize,
        number: usize,
        headers: Vec<(String, String)>,
        /// `Some` after the `moves:` line.
        movetext: Option<String>,
        error: Option<InputError>,
        size: usize,
    },
}

/// Reads games line by line: feed [`Parser::line`] every line, then call
/// [`Parser::finish`]; each returns the games (or errors) completed by it, in input order.
#[derive(Debug)]
pub struct Parser {
    default_game: String,
    line: usize,
    games: usize,
    block: Block,
}

pub type Parsed = Result<InputGame, GameError>;

impl Parser {
    /// `default_game`: the game of plain lines that name none.
    pub fn new(default_game: &str) -> Parser {
        Parser {
            default_game: default_game.to_string(),
            line: 0,
            games: 0,
            block: Block::None,
        }
    }

    /// How many games (good or not) have been started so far.
    pub fn games_seen(&self) -> usize {
        self.games
    }

    fn next_number(&mut self) -> usize {
        self.games += 1;
        self.games
    }

    pub fn line(&mut self, raw: &str) -> Vec<Parsed> {
        self.line += 1;
        let line = self.line;
        let text = raw.trim();
        let mut out = Vec::new();
        if let Block::Pgn { size, error, .. } | Block::Fixture { size, error, .. } = &mut self.block
        {
            *size = size.saturating_add(raw.len() + 1);
            if *size > MAX_GAME_BYTES && error.is_none() {
                *error = Some(InputError::Syntax {
                    line,
                    why: format!(
                        "the game is longer than {} MiB: its lines are skipped",
                        MAX_GAME_BYTES >> 20
                    ),
                });
            }
        }
        let oversized = matches!(
            &self.block,
            Block::Pgn { size, .. } | Block::Fixture { size, .. } if *size > MAX_GAME_BYTES
        );
        match &mut self.block {
            Block::Pgn {
                tags,
                movetext,
                error,
                ..
            } => {
                let started = !movetext.trim().is_empty();
                if text.starts_with("{\"") || (text.starts_with('[') && started) {
                    out.extend(self.end_block());
                } else if text.starts_with('[') {
                    match parse_tag(text) {
                        Some(_) if oversized => {}
                        Some(tag) => tags.push(tag),
                        None => {
                            if error.is_none() {
                                *error = Some(InputError::Syntax {
                                    line,
                                    why: format!("not a PGN tag pair: '{}'", cut(text)),
                                });
                            }
                        }
                    }
                    return out;
                } else if text.is_empty() {
                    if started {
                        out.extend(self.end_block());
                    }
                    return out;
                } else {
                    if !oversized {
                        movetext.push_str(raw);
                        movetext.push('\n');
                    }
                    return out;
                }
            }
            Block::Fixture {
                headers,
                movetext,
                error,
                ..
            } => {
                if header_key(text) == Some("game") || text.starts_with("{\"") {
                    out.extend(self.end_block());
                } else if text.is_empty() || text.starts_with('#') {
                    return out;
                } else if let Some(moves) = movetext {
                    if !oversized {
                        moves.push_str(raw);
                        moves.push('\n');
                    }
                    return out;
                } else if text == "moves:" || header_key(text) == Some("moves") {
                    let rest = text.split_once(':').map(|(_, r)| r).unwrap_or("");
                    *movetext = Some(format!("{rest}\n"));
                    return out;
                } else {
                    match text.split_once(':') {
                        Some(_) if oversized => {}
                        Some((key, value)) => {
                            headers.push((key.trim().to_string(), value.trim().to_string()))
                        }
                        None => {
                            if error.is_none() {
                                *error = Some(InputError::Syntax {
                                    line,
                                    why: format!(
                                        "expected a 'key: value' header or 'moves:', got '{}'",
                                        cut(text)
                                    ),
                                });
                            }
                        }
                    }
                    return out;
                }
            }
            Block::None => {}
        }
        // Between games.
        if text.is_empty() || text.starts_with('#') {
            return out;
        }
        if text.starts_with('{') {
            let number = self.next_number();
            out.push(parse_record(text, number, line));
        } else if text.starts_with('[') {
            let number = self.next_number();
            let mut tags = Vec::new();
            let mut error = None;
            match parse_tag(text) {
                Some(tag) => tags.push(tag),
                None => {
                    error = Some(InputError::Syntax {
                        line,
                        why: format!("not a PGN tag pair: '{}'", cut(text)),
                    })
                }
            }
            self.block = Block::Pgn {
                start: line,
                number,
                tags,
                movetext: String::new(),
                error,
                size: raw.len() + 1,
            };
        } else if header_key(text) == Some("game") {
            let number = self.next_number();
            let value = text.split_once(':').map(|(_, v)| v.trim()).unwrap_or("");
            self.block = Block::Fixture {
                start: line,
                number,
                headers: vec![("game".to_string(), value.to_string())],
                movetext: None,
                error: None,
                size: raw.len() + 1,
            };
        } else {
            let number = self.next_number();
            out.push(self.parse_text(text, number, line));
        }
        out
    }

    /// A line that could not be read as text (too long, not UTF-8): an error of the game
    /// being read, if any (its other lines are still read, up to its end), else a game of
    /// its own that is reported.
    pub fn bad_line(&mut self, why: &LineError) -> Vec<Parsed> {
        self.line += 1;
        let line = self.line;
        let error = InputError::Syntax {
            line,
            why: format!("{why}: skipped"),
        };
        match &mut self.block {
            Block::Pgn { error: first, .. } | Block::Fixture { error: first, .. } => {
                if first.is_none() {
                    *first = Some(error);
                }
                Vec::new()
            }
            Block::None => {
                let number = self.next_number();
                vec![Err(GameError {
                    number,
                    line,
                    error,
                })]
            }
        }
    }

    /// The end of the input: the game being read, if any.
    pub fn finish(&mut self) -> Vec<Parsed> {
        self.end_block()
    }

    fn end_block(&mut self) -> Vec<Parsed> {
        match std::mem::replace(&mut self.block, Block::None) {
            Block::None => Vec::new(),
            Block::Pgn {
                start,
                number,
                tags,
                movetext,
                error,
                ..
            } => vec![match error {
                Some(error) => Err(GameError {
                    number,
                    line: start,
                    error,
                }),
                None => self.pgn_game(tags, &movetext, number, start),
            }],
            Block::Fixture {
                start,
                number,
                headers,
                movetext,
                error,
                ..
            } => vec![match (error, movetext) {
                (Some(error), _) => Err(GameError {
                    number,
                    line: start,
                    error,
                }),
                (None, None) => Err(GameError {
                    number,
                    line: start,
                    error: InputError::NoMovesLine,
                }),
                (None, Some(movetext)) => fixture_game(headers, &movetext, number, start),
            }],
        }
    }

    fn pgn_game(
        &self,
        tags: Vec<(String, String)>,
        movetext: &str,
        number: usize,
        line: usize,
    ) -> Parsed {
        let tag = |name: &str| {
            tags.iter()
                .find(|(k, _)| k.eq_ignore_ascii_case(name))
                .map(|(_, v)| v.clone())
                .filter(|v| !v.is_empty() && v != "?")
        };
        let tokens = movetext_tokens(movetext).map_err(|error| GameError {
            number,
            line,
            error: InputError::Movetext { line, error },
        })?;
        let mut moves = tokens.opening;
        let opening = moves.len();
        moves.extend(tokens.moves);
        let fen = tag("FEN").filter(|f| f != "startpos");
        Ok(InputGame {
            number,
            line,
            format: Format::Pgn,
            spec: tag("Game")
                .or_else(|| tag("Variant"))
                .unwrap_or_else(|| self.default_game.clone()),
            fen,
            moves,
            opening,
            p1: tag("P1").or_else(|| tag("White")),
            p2: tag("P2").or_else(|| tag("Black")),
            result: tag("Result").filter(|r| r != "*").or(tokens.result),
            reason: tag("Reason").or_else(|| tag("Termination")),
            termination: None,
        })
    }

    fn parse_text(&self, text: &str, number: usize, line: usize) -> Parsed {
        let fail = |why: String| GameError {
            number,
            line,
            error: InputError::Syntax { line, why },
        };
        // `<game> [options]: <rest>` when the words before the first ':' start with a game.
        let (spec, rest) = match text.split_once(':') {
            Some((head, rest))
                if head
                    .split_whitespace()
                    .next()
                    .is_some_and(|name| registry::find(name).is_ok()) =>
            {
                (head.trim().to_string(), rest.trim())
            }
            _ => (self.default_game.clone(), text),
        };
        let mut words: Vec<&str> = rest.split_whitespace().collect();
        if words.first() == Some(&"position") {
            words.remove(0);
        }
        let mut fen = None;
        let moves: Vec<&str> = match words.first().copied() {
            Some("startpos") => match words.get(1) {
                None => Vec::new(),
                Some(&"moves") => words[2..].to_vec(),
                Some(other) => {
                    return Err(fail(format!(
                        "expected 'moves' after 'startpos', got '{other}'"
                    )));
                }
            },
            Some("fen") => {
                let end = words
                    .iter()
                    .position(|w| *w == "moves")
                    .unwrap_or(words.len());
                if end == 1 {
                    return Err(fail("'fen' without a position string".to_string()));
                }
                fen = Some(words[1..end].join(" "));
                words
                    .get(end + 1..)
                    .map(<[&str]>::to_vec)
                    .unwrap_or_default()
            }
            Some("moves") => words[1..].to_vec(),
            _ => words,
        };
        Ok(InputGame {
            number,
            line,
            format: Format::Text,
            spec,
            fen,
            moves: moves.into_iter().map(str::to_string).collect(),
            opening: 0,
            p1: None,
            p2: None,
            result: None,
            reason: None,
            termination: None,
        })
    }
}

/// `key` of a `key: value` line whose key is one word of letters, digits, `_` or `-`.
fn header_key(text: &str) -> Option<&str> {
    let (key, _) = text.split_once(':')?;
    let key = key.trim();
    (!key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'))
    .then_some(key)
}

/// At most 40 characters of a line, for error messages, control characters written out
/// ([`crate::text::one_line`]): a bad line's bytes never reach the output raw.
fn cut(text: &str) -> String {
    let mut out: String = text.chars().take(40).collect();
    if text.chars().count() > 40 {
        out.push('…');
    }
    crate::text::one_line(&out).into_owned()
}

/// `[Name "value"]` with `\"` and `\\` escapes.
fn parse_tag(text: &str) -> Option<(String, String)> {
    let inner = text.strip_prefix('[')?.strip_suffix(']')?.trim();
    let (name, rest) = inner.split_once(char::is_whitespace)?;
    let rest = rest.trim().strip_prefix('"')?.strip_suffix('"')?;
    let mut value = String::new();
    let mut chars = rest.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            value.push(chars.next()?);
        } else {
            value.push(c);
        }
    }
    Some((name.to_string(), value))
}

/// Why PGN-like movetext cannot be split into moves.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum MovetextError {
    #[error("'{0}' after the result")]
    AfterResult(String),
    #[error("a '{{' comment is not closed")]
    UnclosedComment,
    #[error("a '(' is not closed")]
    UnclosedVariation,
    #[error("an unmatched '{0}'")]
    Unmatched(char),
}

/// The parts of PGN-like movetext.
#[derive(Debug, Default)]
struct Movetext {
    /// From a `{opening: …}` comment before the first move.
    opening: Vec<String>,
    moves: Vec<String>,
    /// A result token at the end (`1-0`, `0-1`, `1/2-1/2`).
    result: Option<String>,
}

/// Split movetext into moves: `{…}` comments, `;` comments to the end of the line, `(…)`
/// variations or annotations (nested), `$n` glyphs, move numbers (`12.`, `12...`) and
/// result tokens are skipped; `!`/`?` suffixes are cut from moves.
fn movetext_tokens(text: &str) -> Result<Movetext, MovetextError> {
    let mut out = Movetext::default();
    let mut chars = text.char_indices().peekable();
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut Movetext| -> Result<(), MovetextError> {
        let token = std::mem::take(word);
        if token.is_empty() {
            return Ok(());
        }
        if matches!(token.as_str(), "1-0" | "0-1" | "1/2-1/2" | "*") {
            out.result = (token != "*").then_some(token);
            return Ok(());
        }
        if out.result.is_some() {
            return Err(MovetextError::AfterResult(token));
        }
        // A move number, alone or glued to its move: `12.`, `12...`, `12.e`.
        let digits = token.chars().take_while(char::is_ascii_digit).count();
        let after_number = &token[digits..];
        let token = if digits > 0 && after_number.starts_with('.') {
            after_number.trim_start_matches('.')
        } else {
            token.as_str()
        };
        if token.starts_with('$') && token[1..].chars().all(|c| c.is_ascii_digit()) {
            return Ok(());
        }
        let token = token.trim_end_matches(['!', '?']);
        if !token.is_empty() {
            out.moves.push(token.to_string());
        }
        Ok(())
    };
    while let Some((_, c)) = chars.next() {
        match c {
            '{' => {
                flush(&mut word, &mut out)?;
                let mut comment = String::new();
                let mut closed = false;
                for (_, c) in chars.by_ref() {
                    if c == '}' {
                        closed = true;
                        break;
                    }
                    comment.push(c);
                }
                if !closed {
                    return Err(MovetextError::UnclosedComment);
                }
                if let Some(opening) = comment.trim().strip_prefix("opening:")
                    && out.moves.is_empty()
                    && out.opening.is_empty()
                {
                    out.opening = opening.split_whitespace().map(str::to_string).collect();
                }
            }
            ';' => {
                flush(&mut word, &mut out)?;
                for (_, c) in chars.by_ref() {
                    if c == '\n' {
                        break;
                    }
                }
            }
            '(' => {
                flush(&mut word, &mut out)?;
                let mut depth = 1;
                for (_, c) in chars.by_ref() {
                    match c {
                        '(' => depth += 1,
                        ')' => depth -= 1,
                        _ => {}
                    }
                    if depth == 0 {
                        break;
                    }
                }
                if depth != 0 {
                    return Err(MovetextError::UnclosedVariation);
                }
            }
            ')' | '}' => return Err(MovetextError::Unmatched(c)),
            c if c.is_whitespace() => flush(&mut word, &mut out)?,
            c => word.push(c),
        }
    }
    flush(&mut word, &mut out)?;
    Ok(out)
}

/// A fixture-format game (`docs/afrika.md`, "Game records").
fn fixture_game(
    headers: Vec<(String, String)>,
    movetext: &str,
    number: usize,
    line: usize,
) -> Parsed {
    let fail = |why: String| GameError {
        number,
        line,
        error: InputError::Syntax { line, why },
    };
    let header = |name: &str| {
        headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.clone())
            .filter(|v| !v.is_empty())
    };
    let spec = header("game").ok_or_else(|| fail("'game:' names no game".to_string()))?;
    let fen = header("start").filter(|s| s != "startpos");
    // Players: `p1:`/`p2:`, else the first two side names in the order written (the
    // fixtures name the player who moves first first).
    const SIDES: [&str; 6] = ["north", "south", "white", "black", "east", "west"];
    let sides: Vec<String> = headers
        .iter()
        .filter(|(k, v)| SIDES.contains(&k.to_ascii_lowercase().as_str()) && !v.is_empty())
        .map(|(_, v)| v.clone())
        .collect();
    let p1 = header("p1").or_else(|| sides.first().cloned());
    let p2 = header("p2").or_else(|| sides.get(1).cloned());
    let tokens = movetext_tokens(movetext).map_err(|error| GameError {
        number,
        line,
        error: InputError::Movetext { line, error },
    })?;
    let mut moves = tokens.opening;
    let opening = moves.len();
    moves.extend(tokens.moves);
    Ok(InputGame {
        number,
        line,
        format: Format::Fixture,
        spec,
        fen,
        moves,
        opening,
        p1,
        p2,
        result: header("result").or(tokens.result),
        reason: None,
        termination: None,
    })
}

/// A `sowfan match --records` line, read by [`records::jsonl`].
fn parse_record(text: &str, number: usize, line: usize) -> Parsed {
    let record = records::jsonl::read_record(text).map_err(|e| GameError {
        number,
        line,
        error: e.into(),
    })?;
    let moves: Vec<String> = record.all_moves().map(str::to_string).collect();
    Ok(InputGame {
        number,
        line,
        format: Format::Records,
        spec: record.game,
        fen: record.opening.fen,
        moves,
        opening: record.opening.moves.len(),
        p1: record.p1,
        p2: record.p2,
        result: record.result,
        reason: record.reason,
        termination: record.termination,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_all(text: &str) -> Vec<Parsed> {
        let mut parser = Parser::new("kalah");
        let mut out = Vec::new();
        for line in text.lines() {
            out.extend(parser.line(line));
        }
        out.extend(parser.finish());
        out
    }

    #[test]
    fn plain_lines_in_every_form() {
        let games = parse_all(
            "# a comment\n\
             kalah pits=4 seeds=3: C b\n\
             \n\
             fen 4,4,4,4,4,4,0/4,4,4,4,4,4,0 S moves C F\n\
             position startpos moves D\n\
             moves E\n\
             A B\n\
             afrika: fen 8,8,8,8,8,8,8,8,0/8,8,8,8,8,8,8,8,0 N moves e\n",
        );
        let games: Vec<InputGame> = games.into_iter().map(Result::unwrap).collect();
        assert_eq!(games.len(), 6);
        assert_eq!(games[0].spec, "kalah pits=4 seeds=3");
        assert_eq!(games[0].moves, ["C", "b"]);
        assert_eq!(games[0].line, 2);
        assert_eq!(
            games[1].fen.as_deref(),
            Some("4,4,4,4,4,4,0/4,4,4,4,4,4,0 S")
        );
        assert_eq!(games[1].moves, ["C", "F"]);
        assert_eq!(games[2].moves, ["D"]);
        assert_eq!(games[3].moves, ["E"]);
        assert_eq!(games[4].moves, ["A", "B"]);
        assert_eq!(games[5].spec, "afrika");
        assert_eq!(games[5].moves, ["e"]);
        assert!(games.iter().enumerate().all(|(i, g)| g.number == i + 1));
    }

    #[test]
    fn records_pgn_and_fixture_mixed() {
        let text = r#"{"number":1,"game":"kalah","p1":"a","p2":"b","opening":{"source":"random","fen":"4,4,4,4,4,4,0/4,4,4,4,4,4,0 S","moves":["E","c"]},"moves":[{"move":"B","by":"p1","ms":0},{"move":"F","by":"p1","ms":0}],"result":"p2win","reason":"x"}
[Event "sowfan match"]
[Game "kalah pits=4"]
[P1 "d1"]
[P2 "d6 \"big\""]
[Result "0-1"]
[FEN "4,4,4,4,4,4,0/4,4,4,4,4,4,0 S"]

{opening: E c} B {0 ms, depth 1, cp 105} 12. F {1 ms}
(a variation) $1 d?! 0-1

game: afrika
north: N. Orth
south: S. Outh
moves:
1. e G 2. h H (+3; a comment)
# a comment line
3. g E
"#;
        let games: Vec<InputGame> = parse_all(text).into_iter().map(Result::unwrap).collect();
        assert_eq!(games.len(), 3);
        assert_eq!(games[0].format, Format::Records);
        assert_eq!(games[0].moves, ["E", "c", "B", "F"]);
        assert_eq!(games[0].opening, 2);
        assert_eq!(games[0].p2.as_deref(), Some("b"));
        assert_eq!(games[1].format, Format::Pgn);
        assert_eq!(games[1].line, 2);
        assert_eq!(games[1].spec, "kalah pits=4");
        assert_eq!(games[1].p2.as_deref(), Some("d6 \"big\""));
        assert_eq!(games[1].moves, ["E", "c", "B", "F", "d"]);
        assert_eq!(games[1].opening, 2);
        assert_eq!(games[1].result.as_deref(), Some("0-1"));
        assert_eq!(games[2].format, Format::Fixture);
        assert_eq!(games[2].moves, ["e", "G", "h", "H", "g", "E"]);
        assert_eq!(games[2].p1.as_deref(), Some("N. Orth"));
        assert_eq!(games[2].p2.as_deref(), Some("S. Outh"));
        assert_eq!(games[2].line, 12);
    }

    #[test]
    fn malformed_games_are_reported_and_the_rest_read() {
        let text = "{\"game\":\"kalah\"}\n{not json\nkalah: C C\nchess: e4\nkalah: A\n";
        let parsed = parse_all(text);
        assert_eq!(parsed.len(), 5);
        let e = parsed[0].as_ref().unwrap_err();
        assert_eq!((e.number, e.line), (1, 1));
        assert!(e.to_string().contains("no 'moves'"), "{e}");
        assert!(matches!(
            parsed[1],
            Err(GameError {
                error: InputError::Record(RecordError::Json(_)),
                ..
            })
        ));
        // Read fine; the rules reject the second C when the game is checked.
        let game = parsed[2].as_ref().unwrap();
        let e = game.check().err().unwrap().to_string();
        assert!(e.starts_with("game 3 (line 3): move 2 'C' rejected"), "{e}");
        // Not a game name before the colon: the whole line is moves of the default game.
        let e = parsed[3]
            .as_ref()
            .unwrap()
            .check()
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("move 1 'chess:' rejected"), "{e}");
        assert!(parsed[4].as_ref().unwrap().check().is_ok());
    }

    #[test]
    fn a_bad_line_spoils_the_game_it_is_in_or_stands_alone() {
        let mut parser = Parser::new("kalah");
        let bad = LineError::NotUtf8 { at: 3 };
        let alone = parser.bad_line(&bad);
        assert_eq!(alone.len(), 1);
        let e = alone[0].as_ref().unwrap_err();
        assert_eq!((e.number, e.line), (1, 1));
        assert!(e.to_string().contains("not UTF-8"), "{e}");
        assert!(parser.line("[Game \"kalah\"]").is_empty());
        assert!(parser.bad_line(&bad).is_empty());
        assert!(parser.line("C A").is_empty());
        let ended = parser.line("");
        let e = ended[0].as_ref().unwrap_err();
        assert_eq!((e.number, e.line), (2, 2));
        assert!(
            e.to_string().contains("line 3: the line is not UTF-8"),
            "{e}"
        );
        let next = parser.line("kalah: C");
        assert_eq!(next[0].as_ref().unwrap().number, 3);
    }

    #[test]
    fn a_game_of_several_lines_is_bounded() {
        let mut parser = Parser::new("kalah");
        assert!(parser.line("game: kalah").is_empty());
        assert!(parser.line("moves:").is_empty());
        let line = "C ".repeat(1 << 16);
        for _ in 0..(MAX_GAME_BYTES / line.len() + 2) {
            assert!(parser.line(&line).is_empty());
        }
        if let Block::Fixture { movetext, .. } = &parser.block {
            assert!(movetext.as_ref().unwrap().len() <= MAX_GAME_BYTES);
        } else {
            panic!("still in the game");
        }
        let ended = parser.finish();
        let e = ended[0].as_ref().unwrap_err();
        assert!(
            e.to_string().contains("the game is longer than 8 MiB"),
            "{e}"
        );
    }

    #[test]
    fn unclosed_comments_and_missing_moves_line() {
        let parsed = parse_all("[Game \"kalah\"]\n\nC {oops\n");
        assert!(
            parsed[0]
                .as_ref()
                .unwrap_err()
                .to_string()
                .contains("not closed")
        );
        let parsed = parse_all("game: kalah\nnorth: x\n");
        assert!(matches!(
            parsed[0],
            Err(GameError {
                error: InputError::NoMovesLine,
                ..
            })
        ));
    }
}
