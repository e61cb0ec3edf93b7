//! `sowfan solve --split I/K --part-file FILE` and `--combine FILE...`: a proof split by
//! first move, its parts run anywhere (a Slurm array, a Kubernetes indexed Job), their
//! values combined into the root's.
//! (Parts split at a frontier, `--frontier`, are [`super::frontier_parts`].)
//!
//! A part file is a short text, for people to read and for `--combine` to check:
//!
//! ```text
//! # sowfan solve part: proven values of root moves, in half-points for the mover
//! format: sowfan-part 2
//! game: kalah pits=4 seeds=3
//! position: <the root's position string>
//! legal: 4
//! move: A 6
//! move: C -2
//! nodes: 1234
//! tbhits: 0
//! time-ms: 12
//! end: 0123456789abcdef
//! ```
//!
//! `end:` is a checksum (XXH3-64, hexadecimal, as the table files use; `sowfan-part 1`
//! files, still read, have FNV-1a) of every byte before its line: a
//! cut or edited file is refused. Files are hostile input: their size and line lengths are
//! bounded before they are read, every line must be one of these, and nothing is taken on
//! trust — the game, the position and the number of legal moves must be the combining
//! run's, every move must be legal, and every legal move must be in exactly one part.

use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use thiserror::Error;

/// The largest part file read (a part of a position with 4096 moves fits easily).
const MAX_PART_BYTES: u64 = 1 << 20;
/// The most root moves a part may hold.
const MAX_MOVES: usize = 4096;
/// The largest value (half-points) a part may hold.
const MAX_VALUE: i64 = 1 << 30;
/// The format written: its `end:` line is XXH3-64, the checksum of the table files too.
const FORMAT: &str = "sowfan-part 2";
/// The format of earlier parts, still read: its `end:` line is FNV-1a.
const FORMAT_V1: &str = "sowfan-part 1";
/// The format of a part of a proof split at a frontier (`frontier_parts.rs`).
pub const FORMAT_V3: &str = "sowfan-part 3";

/// What is wrong with a part file's bytes, said after the file's name (`'FILE' is damaged: …`).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PartDamage {
    #[error("is not a part file of sowfan solve (it is not text)")]
    NotText,
    #[error("is not a part file of sowfan solve (no 'format:' line)")]
    NoFormat,
    #[error(
        "is a part file of another format ('{0}'); this sowfan reads '{FORMAT_V3}', '{FORMAT}' \
         and '{FORMAT_V1}'"
    )]
    OtherFormat(String),
    #[error("is damaged: it ends before its '{0}:' line (truncated?)")]
    EndsBefore(String),
    #[error("is damaged: its last line is cut (truncated?)")]
    LastLineCut,
    #[error("is damaged: '{0}' is not a 'key: value' line")]
    NotKeyValue(String),
    #[error("is damaged: '{found}:' where '{expected}:' belongs")]
    OutOfPlace { found: String, expected: String },
    #[error("is damaged: '{0}:' where a move or 'nodes:' belongs")]
    NoMoveLine(String),
    #[error("is damaged: '{0}:' where a leaf, an open position or 'nodes:' belongs")]
    NoLeafLine(String),
    #[error("is damaged: its {what} '{text}' is not a number")]
    NotANumber { what: &'static str, text: String },
    #[error("is damaged: it claims {0} legal moves")]
    TooManyLegal(u64),
    #[error("is damaged: it holds too many moves")]
    TooManyMoves,
    #[error("is damaged: 'move: {0}' has no value")]
    MoveWithoutValue(String),
    #[error("is damaged: the value of move '{0}' is not a number")]
    MoveValueNotANumber(String),
    #[error("is damaged: 'move: {0}' is no move and value")]
    NoMoveAndValue(String),
    #[error("is damaged: its frontier depth {0} is out of range")]
    DepthOutOfRange(u64),
    #[error("is damaged: it claims {0} frontier positions")]
    TooManyPositions(u64),
    #[error("is damaged: its split '{0}' is no I/K")]
    NoSplit(String),
    #[error("is damaged: 'leaf: {0}' is no index, value and position")]
    NoLeaf(String),
    #[error("is damaged: 'leaf: {0}' has no index")]
    LeafWithoutIndex(String),
    #[error("is damaged: 'leaf: {0}' has no value")]
    LeafWithoutValue(String),
    #[error("is damaged: 'open: {0}' is no index and position")]
    NoOpen(String),
    #[error("is damaged: its checksum does not match (changed or cut)")]
    Checksum,
    #[error("is damaged: it goes on after its 'end:' line")]
    GoesOn,
}

/// `--split TEXT` is no `I/K` with 1 ≤ I ≤ K ≤ `max`.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("--split {text}: give I/K, part I (1..=K) of K parts (K at most {max}), e.g. 2/3")]
pub struct SplitError {
    pub text: String,
    pub max: usize,
}

/// Something is at `path` already, and `option` does not replace it.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error(
    "{option} '{}': {what} is there already; give a new name, or remove it first",
    path.display()
)]
pub struct PathTaken {
    pub option: String,
    pub path: PathBuf,
    /// What is there: "a file", "a directory", "a symbolic link", …
    pub what: &'static str,
}

/// Why a part file could not be read or written.
#[derive(Debug, Error)]
pub enum PartFileError {
    #[error("cannot read the part file '{}': {error}", path.display())]
    Read {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error("the part file '{}' is not a regular file", path.display())]
    NotRegular { path: PathBuf },
    #[error("'{}' is not a part file of sowfan solve: it is larger than {kib} KiB", path.display())]
    TooLarge { path: PathBuf, kib: u64 },
    #[error("'{}' {damage}", path.display())]
    Damaged { path: PathBuf, damage: PartDamage },
    #[error("cannot write the part file '{}': {error}", path.display())]
    Write {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error(transparent)]
    Taken(#[from] PathTaken),
}

/// Why a frontier part is no part of this proof (said after the file's name).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum FrontierMismatch {
    #[error(
        "is a part of a proof for '{found}', not for '{game}' (give the game and options the \
         parts were run with)"
    )]
    OtherGame { found: String, game: String },
    #[error(
        "is a part of a proof of the position '{found}', not of '{position}' (give the --fen \
         or --moves the parts were run with)"
    )]
    OtherPosition { found: String, position: String },
    #[error(
        "is a part of a proof split at frontier depth {found}, not {depth} (give every part \
         of one split)"
    )]
    OtherDepth { found: u32, depth: u32 },
    #[error(
        "is damaged or of another build: it counts {found} frontier positions at depth \
         {depth}, this sowfan {count}"
    )]
    OtherCount {
        found: usize,
        depth: u32,
        count: usize,
    },
    #[error("is damaged: frontier position {index} is none of part {}/{}'s", split.0, split.1)]
    NotInPart { index: usize, split: (usize, usize) },
    #[error(
        "is damaged or of another build: its frontier position {index} is '{found}', this \
         sowfan's is '{ours}'"
    )]
    OtherPositionAt {
        index: usize,
        found: String,
        ours: String,
    },
}

/// Why parts do not combine into the root's values: a part of another proof, a move or
/// frontier position twice or never held, a value no game can end with.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CombineError {
    #[error(
        "part file '{}' is a part of a proof for '{found}', not for '{game}' (give the game \
         and options the parts were run with)",
        path.display()
    )]
    OtherGame {
        path: PathBuf,
        found: String,
        game: String,
    },
    #[error(
        "part file '{}' is a part of a proof of the position '{found}', not of '{position}' \
         (give the --fen or --moves the parts were run with)",
        path.display()
    )]
    OtherPosition {
        path: PathBuf,
        found: String,
        position: String,
    },
    #[error("part file '{}': '{mv}' is not a legal move of this position", path.display())]
    IllegalMove { path: PathBuf, mv: String },
    #[error(
        "part file '{}' is damaged: it gives move '{mv}' the value {value}, which no game \
         from this position can end with",
        path.display()
    )]
    ImpossibleMoveValue {
        path: PathBuf,
        mv: String,
        value: i32,
    },
    #[error(
        "the move '{mv}' is in two parts, '{}' and '{}': give each part once",
        first.display(),
        second.display()
    )]
    MoveTwice {
        mv: String,
        first: PathBuf,
        second: PathBuf,
    },
    #[error(
        "no part holds the move{} {}: run the missing part{} (--split I/K) and give every \
         part file",
        plural(moves.len()),
        moves.join(" "),
        plural(moves.len())
    )]
    MissingMoves { moves: Vec<String> },
    #[error("part file '{}' {mismatch}", path.display())]
    OtherProof {
        path: PathBuf,
        mismatch: FrontierMismatch,
    },
    #[error(
        "part file '{}' is damaged: it gives frontier position {index} the value {value}, \
         which no game from that position can end with",
        path.display()
    )]
    ImpossibleLeafValue {
        path: PathBuf,
        index: usize,
        value: i32,
    },
    #[error(
        "frontier position {index} has the value {first_value} in '{}' and {second_value} in \
         '{}': one of them is wrong; run its part again",
        first.display(),
        second.display()
    )]
    LeafValuesDiffer {
        index: usize,
        first_value: i32,
        first: PathBuf,
        second_value: i32,
        second: PathBuf,
    },
    /// `listed`: the first missing positions, `more`: how many beyond them; `runs`: the
    /// `--split` of each K given that holds them.
    #[error(
        "no part holds the frontier position{} {}{} (of {of}): run --frontier {depth} \
         --split {runs} and give every part file",
        plural(listed.len() + more),
        listed.iter().map(usize::to_string).collect::<Vec<_>>().join(" "),
        if *more > 0 { format!(" and {more} more") } else { String::new() }
    )]
    MissingPositions {
        listed: Vec<usize>,
        more: usize,
        of: usize,
        depth: u32,
        runs: String,
    },
}

/// "s" after a count other than one.
fn plural(count: usize) -> &'static str {
    if count == 1 { "" } else { "s" }
}

/// What a part proved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Part {
    /// The game spec and the root's position string.
    pub game: String,
    pub position: String,
    /// The root's number of legal moves.
    pub legal: usize,
    /// Its moves and their values (half-points from the root mover's view).
    pub moves: Vec<(String, i32)>,
    pub nodes: u64,
    pub tbhits: u64,
    pub millis: u64,
}

/// `I/K`: part I (1..=K) of K.
pub fn parse_split(text: &str) -> Result<(usize, usize), SplitError> {
    parse_split_up_to(text, MAX_MOVES)
}

/// `I/K`: part I (1..=K) of K, K at most `max`.
pub fn parse_split_up_to(text: &str, max: usize) -> Result<(usize, usize), SplitError> {
    let bad = || SplitError {
        text: text.to_string(),
        max,
    };
    let (i, k) = text.split_once('/').ok_or_else(bad)?;
    let (i, k): (usize, usize) = (
        i.trim().parse().map_err(|_| bad())?,
        k.trim().parse().map_err(|_| bad())?,
    );
    if k == 0 || k > max || i == 0 || i > k {
        return Err(bad());
    }
    Ok((i, k))
}

/// Part `i` of `k` of the moves `legal` (in move-generation order): every K-th move from
/// the I-th, so that neighbouring moves (often of like cost) go to different parts.
pub fn split_moves(legal: &[String], i: usize, k: usize) -> Vec<String> {
    legal.iter().skip(i - 1).step_by(k).cloned().collect()
}

/// The `end:` checksum of a part of `format`.
pub(super) fn checksum_of(format: &str, bytes: &[u8]) -> u64 {
    if format == FORMAT_V1 {
        fnv1a(bytes)
    } else {
        crate::file_header::checksum(bytes)
    }
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

impl Part {
    /// The file's text.
    pub fn text(&self) -> String {
        let mut text = format!(
            "# sowfan solve part: proven values of root moves, in half-points for the mover\n\
             format: {FORMAT}\ngame: {}\nposition: {}\nlegal: {}\n",
            self.game, self.position, self.legal
        );
        for (mv, value) in &self.moves {
            text.push_str(&format!("move: {mv} {value}\n"));
        }
        text.push_str(&format!(
            "nodes: {}\ntbhits: {}\ntime-ms: {}\n",
            self.nodes, self.tbhits, self.millis
        ));
        let sum = checksum_of(FORMAT, text.as_bytes());
        text.push_str(&format!("end: {sum:016x}\n"));
        text
    }

    /// Write the part to `path` atomically and never over anything: a temporary file beside
    /// it, then linked to its name, which fails if the name is taken (another part, or
    /// anything else: see [`refuse_existing`]) instead of replacing it.
    pub fn write(&self, path: &Path) -> Result<(), PartFileError> {
        write_new(path, &self.text())
    }

    /// Read and check a part file (its form only: [`combine`] checks it against the game).
    pub fn read(path: &Path) -> Result<Part, PartFileError> {
        let bytes = read_bounded(path, MAX_PART_BYTES)?;
        Part::parse(&bytes).map_err(|damage| PartFileError::Damaged {
            path: path.to_path_buf(),
            damage,
        })
    }

    /// Parse a part file's bytes; the error says what is wrong (after the file's name).
    pub fn parse(bytes: &[u8]) -> Result<Part, PartDamage> {
        let text = std::str::from_utf8(bytes).map_err(|_| PartDamage::NotText)?;
        let mut lines = text.split_inclusive('\n');
        let mut offset = 0;
        let mut field = |name: &str| -> Result<(String, usize), PartDamage> {
            loop {
                let Some(line) = lines.next() else {
                    return Err(PartDamage::EndsBefore(name.to_string()));
                };
                let at = offset;
                offset += line.len();
                if line.starts_with('#') {
                    continue;
                }
                let Some(body) = line.strip_suffix('\n') else {
                    return Err(PartDamage::LastLineCut);
                };
                return match body.split_once(": ") {
                    Some((key, value)) => Ok((format!("{key}\u{0}{value}"), at)),
                    None => Err(PartDamage::NotKeyValue(cut(body))),
                };
            }
        };
        let expect = |got: (String, usize), name: &str| -> Result<String, PartDamage> {
            let (key, value) = got.0.split_once('\u{0}').unwrap_or(("", ""));
            if key == name {
                Ok(value.to_string())
            } else {
                Err(PartDamage::OutOfPlace {
                    found: cut(key),
                    expected: name.to_string(),
                })
            }
        };
        let format = expect(field("format").map_err(|_| PartDamage::NoFormat)?, "format")
            .map_err(|_| PartDamage::NoFormat)?;
        if format != FORMAT && format != FORMAT_V1 {
            return Err(PartDamage::OtherFormat(cut(&format)));
        }
        let game = expect(field("game")?, "game")?;
        let position = expect(field("position")?, "position")?;
        let legal = number(&expect(field("legal")?, "legal")?, "number of legal moves")?;
        if legal as usize > MAX_MOVES {
            return Err(PartDamage::TooManyLegal(legal));
        }
        let mut moves = Vec::new();
        let nodes = loop {
            let got = field("nodes")?;
            let (key, value) = got.0.split_once('\u{0}').unwrap_or(("", ""));
            match key {
                "move" => {
                    if moves.len() >= MAX_MOVES {
                        return Err(PartDamage::TooManyMoves);
                    }
                    let (mv, v) = value
                        .rsplit_once(' ')
                        .ok_or_else(|| PartDamage::MoveWithoutValue(cut(value)))?;
                    let v: i64 = v
                        .parse()
                        .map_err(|_| PartDamage::MoveValueNotANumber(cut(mv)))?;
                    // A range, not `abs()`: i64::MIN has no absolute value.
                    if !(-MAX_VALUE..=MAX_VALUE).contains(&v) || mv.is_empty() {
                        return Err(PartDamage::NoMoveAndValue(cut(value)));
                    }
                    moves.push((mv.to_string(), v as i32));
                }
                "nodes" => break number(value, "node count")?,
                other => return Err(PartDamage::NoMoveLine(cut(other))),
            }
        };
        let tbhits = number(&expect(field("tbhits")?, "tbhits")?, "tbhits")?;
        let millis = number(&expect(field("time-ms")?, "time-ms")?, "time")?;
        let end = field("end")?;
        let end_at = end.1;
        let sum = expect(end, "end")?;
        if sum != format!("{:016x}", checksum_of(&format, &bytes[..end_at])) {
            return Err(PartDamage::Checksum);
        }
        if lines.next().is_some() {
            return Err(PartDamage::GoesOn);
        }
        Ok(Part {
            game,
            position,
            legal: legal as usize,
            moves,
            nodes,
            tbhits,
            millis,
        })
    }
}

/// Write `text` to `path` atomically and never over anything: a temporary file beside it,
/// then linked to its name, which fails if the name is taken (another part, or anything
/// else: see [`refuse_existing`]) instead of replacing it.
pub(super) fn write_new(path: &Path, text: &str) -> Result<(), PartFileError> {
    let fail = |error: std::io::Error| PartFileError::Write {
        path: path.to_path_buf(),
        error,
    };
    let name = path
        .file_name()
        .ok_or_else(|| fail(std::io::Error::other("the path names no file")))?;
    let mut temporary = name.to_os_string();
    temporary.push(format!(".tmp-{}", std::process::id()));
    let temporary = path.with_file_name(temporary);
    let written =
        write_synced(&temporary, text).and_then(|()| std::fs::hard_link(&temporary, path));
    let _ = std::fs::remove_file(&temporary);
    match written {
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            refuse_existing("--part-file", path).map_err(PartFileError::from)
        }
        other => other.map_err(fail),
    }
}

/// `text` written to a new file at `path` and synced to disk.
fn write_synced(path: &Path, text: &str) -> std::io::Result<()> {
    use std::io::Write;
    let mut file = std::fs::File::create(path)?;
    file.write_all(text.as_bytes())?;
    file.sync_all()
}

/// The bytes of the part file `path`, at most `max` of them (a larger file is refused as no
/// part file); a FIFO or device named like the file is refused, never waited on.
pub(super) fn read_bounded(path: &Path, max: u64) -> Result<Vec<u8>, PartFileError> {
    let read = |error| PartFileError::Read {
        path: path.to_path_buf(),
        error,
    };
    let file = crate::cli::open_regular(path).map_err(|e| match e {
        crate::cli::OpenRegularError::Io(error) => read(error),
        crate::cli::OpenRegularError::NotRegular => PartFileError::NotRegular {
            path: path.to_path_buf(),
        },
    })?;
    let mut bytes = Vec::new();
    file.take(max + 1).read_to_end(&mut bytes).map_err(read)?;
    if bytes.len() as u64 > max {
        return Err(PartFileError::TooLarge {
            path: path.to_path_buf(),
            kib: max >> 10,
        });
    }
    Ok(bytes)
}

/// An error when something is at `path` already (a file, a directory, a FIFO, a link, even
/// a dangling one): what is there is named, and `option` does not replace it.
pub fn refuse_existing(option: &str, path: &Path) -> Result<(), PathTaken> {
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return Ok(());
    };
    use std::os::unix::fs::FileTypeExt;
    let kind = meta.file_type();
    let what = if kind.is_symlink() {
        "a symbolic link"
    } else if kind.is_dir() {
        "a directory"
    } else if kind.is_fifo() {
        "a FIFO"
    } else if kind.is_socket() {
        "a socket"
    } else if kind.is_block_device() || kind.is_char_device() {
        "a device"
    } else {
        "a file"
    };
    Err(PathTaken {
        option: option.to_string(),
        path: path.to_path_buf(),
        what,
    })
}

/// `text` read as a number, or the damage naming `what` it is.
pub(super) fn number(text: &str, what: &'static str) -> Result<u64, PartDamage> {
    text.parse().map_err(|_| PartDamage::NotANumber {
        what,
        text: cut(text),
    })
}

/// A text shown in a message, cut short.
pub(super) fn cut(text: &str) -> String {
    text.chars().take(60).collect()
}

/// The root's moves with their values, combined from `parts` (read from `paths`) of the
/// proof of the position `position` of `game` with the moves `legal`: each part must be of
/// that game and position, every legal move must be in exactly one part, and every value
/// one the position after its move can have (`possible`: a win, draw or loss in a won-or-lost game; a
/// margin within what is at stake, on its grid, in a scored one).
pub fn combine(
    game: &str,
    position: &str,
    legal: &[String],
    parts: &[(PathBuf, Part)],
    possible: &dyn Fn(&str, i32) -> bool,
) -> Result<Vec<(String, i32)>, CombineError> {
    let mut found: HashMap<&str, (i32, &Path)> = HashMap::new();
    for (path, part) in parts {
        if part.game != game {
            return Err(CombineError::OtherGame {
                path: path.clone(),
                found: part.game.clone(),
                game: game.to_string(),
            });
        }
        if part.position != position || part.legal != legal.len() {
            return Err(CombineError::OtherPosition {
                path: path.clone(),
                found: part.position.clone(),
                position: position.to_string(),
            });
        }
        for (mv, value) in &part.moves {
            if !legal.contains(mv) {
                return Err(CombineError::IllegalMove {
                    path: path.clone(),
                    mv: mv.clone(),
                });
            }
            if !possible(mv, *value) {
                return Err(CombineError::ImpossibleMoveValue {
                    path: path.clone(),
                    mv: mv.clone(),
                    value: *value,
                });
            }
            if let Some((_, other)) = found.insert(mv, (*value, path)) {
                return Err(CombineError::MoveTwice {
                    mv: mv.clone(),
                    first: other.to_path_buf(),
                    second: path.clone(),
                });
            }
        }
    }
    let missing: Vec<String> = legal
        .iter()
        .filter(|mv| !found.contains_key(mv.as_str()))
        .cloned()
        .collect();
    if !missing.is_empty() {
        return Err(CombineError::MissingMoves { moves: missing });
    }
    Ok(legal
        .iter()
        .filter_map(|mv| found.get(mv.as_str()).map(|&(v, _)| (mv.clone(), v)))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn part() -> Part {
        Part {
            game: "kalah pits=4 seeds=3".to_string(),
            position: "3 3 3 3 0 3 3 3 3 0 1".to_string(),
            legal: 4,
            moves: vec![("A".to_string(), 6), ("C".to_string(), -2)],
            nodes: 12,
            tbhits: 0,
            millis: 5,
        }
    }

    #[test]
    fn parts_round_trip_and_every_cut_or_flip_is_refused() {
        let text = part().text();
        assert_eq!(Part::parse(text.as_bytes()), Ok(part()));
        for end in 0..text.len() {
            assert!(
                Part::parse(&text.as_bytes()[..end]).is_err(),
                "cut at {end}"
            );
        }
        for at in 0..text.len() {
            let mut bytes = text.clone().into_bytes();
            bytes[at] ^= 1;
            assert!(Part::parse(&bytes).is_err(), "flip at {at}");
        }
    }

    #[test]
    fn parts_of_format_1_are_still_read() {
        let text = part().text().replace(FORMAT, FORMAT_V1);
        let body = &text[..text.find("end: ").expect("end")];
        let old = format!("{body}end: {:016x}\n", fnv1a(body.as_bytes()));
        assert_eq!(Part::parse(old.as_bytes()), Ok(part()));
        // A format-1 text with a format-2 checksum is damaged.
        let wrong = format!("{body}end: {:016x}\n", checksum_of(FORMAT, body.as_bytes()));
        assert!(Part::parse(wrong.as_bytes()).is_err());
    }

    #[test]
    fn splits_cover_every_move_once() {
        let legal: Vec<String> = ["A", "B", "C", "D", "E"].map(String::from).to_vec();
        let mut all: Vec<String> = (1..=3).flat_map(|i| split_moves(&legal, i, 3)).collect();
        all.sort();
        assert_eq!(all, legal);
        assert_eq!(split_moves(&legal, 2, 3), ["B", "E"]);
        assert!(split_moves(&legal, 7, 8).is_empty());
        for bad in ["0/2", "3/2", "1/0", "x", "1/", "/2", "1/99999"] {
            assert!(parse_split(bad).is_err(), "{bad}");
        }
        assert_eq!(parse_split("2/3"), Ok((2, 3)));
    }
}
