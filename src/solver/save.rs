//! Proof files: a solver's table saved to disk, so that a long proof can be stopped and
//! resumed (`sowfan solve … --save FILE`, `--resume FILE`, `--proof-file FILE`), for both
//! solvers: the exact solver's [`SolverTt`] (margins, MTD(f)) and the proof-number
//! solver's [`PnTt`] (won, drawn or lost games). Both tables are 64-byte buckets of four
//! entries of two words, which is all this file needs of them ([`ProofTt`]).
//!
//! A file is tied to one kind of table, one game (its spec, options included), one root
//! position and one table size; it holds every bucket of the table in use, and what is
//! proven of the root (its bounds, and the values of its moves proven so far). Layout,
//! integers little-endian:
//!
//! ```text
//! "SOWFANMT" (the exact solver) or "SOWFANPN" (proof numbers), version (u32)
//! spec length (u32, ≤ 4096), spec (UTF-8)
//! root length (u32, ≤ 4096), root position string (UTF-8), root hash (u64)
//! bucket count (u64), nodes and milliseconds spent so far (u64, u64)
//! version 2: the root's proven lower and upper bounds (i64 each, |b| ≤ 2^30), the number
//!   of its moves (u64, ≤ 4096) and each move's value (i64, or u64::MAX: not proven yet)
//! records: bucket index (u64, increasing), then its 4 entries of 2 words (u64 each)
//! record count (u64), checksum (u64) of everything before it
//! ```
//!
//! The checksum runs over the file's words and texts (each text after its length as a word):
//! XXH3-64 from version 3, the checksum of the table and part files too; versions 1 and 2
//! have a hash of sowfan's own and are still read. Version 1 (proof-number files of earlier
//! versions) has no root section.
//! Files are hostile input: every length is bounded before anything is read or allocated,
//! the size must match the record count, every entry must decode, and the checksum must
//! hold; a file that fails half-way through loading leaves the table empty. Saving writes a
//! temporary file in the same directory and renames it over the old one, so that a crash
//! or a second Ctrl-C never leaves a half-written proof under the name.

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use thiserror::Error;

use crate::cli::OpenRegularError;
use crate::file_header::{self, Magic};

pub use super::pn::tt::PnTt;
pub use super::proof_tt::{BUCKET_WORDS, ProofTt};
pub use super::tt::SolverTt;

const VERSION: u32 = 3;
/// The longest spec or position string a file may hold.
const MAX_TEXT: u32 = 4096;
/// The most root moves a file may hold.
const MAX_MOVES: u64 = 4096;
/// The largest root bound or move value (half-points) a file may hold.
const MAX_VALUE: i64 = 1 << 30;
/// A move whose value is not proven yet.
const UNKNOWN: u64 = u64::MAX;
/// Bytes of a record: the index and the bucket's words.
const RECORD: u64 = 8 + 8 * BUCKET_WORDS as u64;
/// Bytes of the trailer: record count and checksum.
const TRAILER: u64 = 16;

#[derive(Debug, Error)]
pub enum ProofFileError {
    #[error("proof file '{path}': {error}")]
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error("proof file '{path}' is not a regular file")]
    NotAFile { path: PathBuf },
    #[error("'{path}' is not a proof file of sowfan (it does not start with SOWFANMT or SOWFANPN)")]
    NotAProof { path: PathBuf },
    #[error(
        "proof file '{path}' holds the table of the {found} solver; this game is proven by the \
         {expected} solver"
    )]
    OtherSolver {
        path: PathBuf,
        found: &'static str,
        expected: &'static str,
    },
    #[error(
        "proof file '{path}' has version {found}; this sowfan reads versions {oldest} to {VERSION}"
    )]
    Version {
        path: PathBuf,
        found: u32,
        oldest: u32,
    },
    #[error("proof file '{path}' is a proof for '{found}', not for '{expected}'")]
    OtherGame {
        path: PathBuf,
        found: String,
        expected: String,
    },
    #[error("proof file '{path}' is a proof of the position '{found}', not of '{expected}'")]
    OtherPosition {
        path: PathBuf,
        found: String,
        expected: String,
    },
    #[error(
        "proof file '{path}' holds a table of {found} MiB, this solver's is {expected} MiB: \
         give the same size (--hash {found})"
    )]
    OtherSize {
        path: PathBuf,
        found: u64,
        expected: u64,
    },
    #[error("proof file '{path}' is damaged: {why}")]
    Damaged { path: PathBuf, why: String },
}

/// What a proof file is a proof of.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProofIdentity {
    /// The game and its options ([`Rules::spec`](crate::game::Rules::spec)).
    pub spec: String,
    /// The root position string and hash.
    pub root: String,
    pub root_hash: u64,
}

/// The work a proof file holds (what earlier runs spent on it).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ProofWork {
    pub nodes: u64,
    pub millis: u64,
}

/// What is proven of the root: `lower ≤ value ≤ upper` (half-points from the mover's view;
/// `lower > upper`: nothing recorded), and the value of each legal move (in move-generation
/// order; empty: none recorded) proven so far.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RootProof {
    pub lower: i32,
    pub upper: i32,
    pub moves: Vec<Option<i32>>,
}

impl RootProof {
    /// Nothing proven of the root yet.
    pub fn nothing() -> RootProof {
        RootProof {
            lower: 1,
            upper: 0,
            moves: Vec::new(),
        }
    }

    /// The root's bounds, if any were recorded.
    pub fn bounds(&self) -> Option<(i32, i32)> {
        (self.lower <= self.upper).then_some((self.lower, self.upper))
    }
}

/// A proof file read back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Saved {
    pub work: ProofWork,
    pub root: RootProof,
}

fn solver_name(magic: &[u8; 8]) -> &'static str {
    if magic == SolverTt::MAGIC {
        "exact (MTD(f))"
    } else {
        "proof-number"
    }
}

/// The checksum over 64-bit words (not cryptographic: it finds damage, not forgery), as a
/// file of its version computes it: XXH3-64 of the words from version 3; the hash of sowfan's
/// own that versions 1 and 2 were written with.
enum Checksum {
    Own(u64),
    Xxh3(Box<file_header::StreamingChecksum>),
}

impl Checksum {
    fn new(version: u32) -> Checksum {
        if version >= 3 {
            Checksum::Xxh3(Box::default())
        } else {
            Checksum::Own(0x6A09_E667_F3BC_C908)
        }
    }

    #[inline]
    fn word(&mut self, w: u64) {
        match self {
            Checksum::Own(h) => {
                *h = (*h ^ w).wrapping_mul(0x9E37_79B9_7F4A_7C15);
                *h ^= *h >> 29;
            }
            Checksum::Xxh3(state) => state.update(&w.to_le_bytes()),
        }
    }

    fn value(&self) -> u64 {
        match self {
            Checksum::Own(h) => *h,
            Checksum::Xxh3(state) => state.digest(),
        }
    }

    fn bytes(&mut self, bytes: &[u8]) {
        self.word(bytes.len() as u64);
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.word(u64::from_le_bytes(word));
        }
    }
}

fn bucket_megabytes(buckets: u64) -> u64 {
    buckets.saturating_mul(8 * BUCKET_WORDS as u64) >> 20
}

/// Save `table` as the proof of `identity` (with what is proven of its root) to `path`,
/// atomically (a temporary file in the same directory, renamed over `path`). Returns the
/// number of buckets written.
pub fn save<T: ProofTt>(
    path: &Path,
    identity: &ProofIdentity,
    work: ProofWork,
    root: &RootProof,
    table: &T,
) -> Result<u64, ProofFileError> {
    let io = |error| ProofFileError::Io {
        path: path.to_path_buf(),
        error,
    };
    let name = path
        .file_name()
        .ok_or_else(|| io(std::io::Error::other("the path names no file")))?;
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let mut temporary = name.to_os_string();
    temporary.push(format!(".tmp-{}", std::process::id()));
    let temporary = dir.join(temporary);
    let written =
        write_file(&temporary, VERSION, identity, work, root, table).and_then(|records| {
            std::fs::rename(&temporary, path)?;
            // Make the rename itself durable (best effort: not every file system allows it).
            if let Ok(d) = File::open(&dir) {
                let _ = d.sync_all();
            }
            Ok(records)
        });
    if written.is_err() {
        let _ = std::fs::remove_file(&temporary);
    }
    written.map_err(io)
}

/// A value as a file word: an i64 clamped to what a file may hold.
fn value_word(value: i32) -> u64 {
    i64::from(value).clamp(-MAX_VALUE, MAX_VALUE) as u64
}

/// Write a file of `version` (always [`VERSION`], but for the tests of older files).
fn write_file<T: ProofTt>(
    path: &Path,
    version: u32,
    identity: &ProofIdentity,
    work: ProofWork,
    root: &RootProof,
    table: &T,
) -> std::io::Result<u64> {
    let file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .open(path)?;
    let mut out = BufWriter::with_capacity(1 << 20, file);
    let mut sum = Checksum::new(version);
    let put = |out: &mut BufWriter<File>, sum: &mut Checksum, w: u64| {
        sum.word(w);
        out.write_all(&w.to_le_bytes())
    };
    out.write_all(T::MAGIC)?;
    sum.bytes(T::MAGIC);
    out.write_all(&version.to_le_bytes())?;
    sum.word(u64::from(version));
    for text in [&identity.spec, &identity.root] {
        let bytes = text.as_bytes();
        out.write_all(&(bytes.len() as u32).to_le_bytes())?;
        out.write_all(bytes)?;
        sum.bytes(bytes);
    }
    put(&mut out, &mut sum, identity.root_hash)?;
    put(&mut out, &mut sum, table.bucket_count() as u64)?;
    put(&mut out, &mut sum, work.nodes)?;
    put(&mut out, &mut sum, work.millis)?;
    let (lower, upper) = root.bounds().unwrap_or((1, 0));
    put(&mut out, &mut sum, value_word(lower))?;
    put(&mut out, &mut sum, value_word(upper))?;
    let moves = &root.moves[..root.moves.len().min(MAX_MOVES as usize)];
    put(&mut out, &mut sum, moves.len() as u64)?;
    for value in moves {
        put(&mut out, &mut sum, value.map_or(UNKNOWN, value_word))?;
    }
    let mut records = 0u64;
    for index in 0..table.bucket_count() {
        let words = table.bucket_words(index);
        if words.iter().all(|&w| w == 0) {
            continue;
        }
        put(&mut out, &mut sum, index as u64)?;
        for &w in &words {
            put(&mut out, &mut sum, w)?;
        }
        records += 1;
    }
    put(&mut out, &mut sum, records)?;
    let checksum = sum.value();
    out.write_all(&checksum.to_le_bytes())?;
    let file = out.into_inner().map_err(|e| e.into_error())?;
    file.sync_all()?;
    Ok(records)
}

/// Reads with a running checksum, every read bounded by the caller.
struct Reader<R> {
    input: R,
    sum: Checksum,
}

impl<R: Read> Reader<R> {
    fn exact<const N: usize>(&mut self) -> std::io::Result<[u8; N]> {
        let mut buf = [0u8; N];
        self.input.read_exact(&mut buf)?;
        Ok(buf)
    }

    fn word(&mut self) -> std::io::Result<u64> {
        let w = u64::from_le_bytes(self.exact::<8>()?);
        self.sum.word(w);
        Ok(w)
    }

    /// A length-prefixed text of at most [`MAX_TEXT`] bytes; `None` if too long or not UTF-8.
    fn text(&mut self) -> std::io::Result<Option<String>> {
        let len = u32::from_le_bytes(self.exact::<4>()?);
        if len > MAX_TEXT {
            return Ok(None);
        }
        let mut bytes = vec![0u8; len as usize];
        self.input.read_exact(&mut bytes)?;
        self.sum.bytes(&bytes);
        Ok(String::from_utf8(bytes).ok())
    }
}

/// A file word as a value, if it is one a file may hold.
fn word_value(word: u64) -> Option<i32> {
    let value = word as i64;
    (-MAX_VALUE..=MAX_VALUE)
        .contains(&value)
        .then_some(value as i32)
}

/// Load the proof of `identity` from `path` into `table` (which must be empty of other
/// work: entries are written over). `Ok(None)` when there is no file at `path` (a new
/// proof). Anything wrong with the file is an error, and leaves the table empty.
pub fn load<T: ProofTt>(
    path: &Path,
    identity: &ProofIdentity,
    table: &T,
) -> Result<Option<Saved>, ProofFileError> {
    let io = |error| ProofFileError::Io {
        path: path.to_path_buf(),
        error,
    };
    let damaged = |why: &str| ProofFileError::Damaged {
        path: path.to_path_buf(),
        why: why.to_string(),
    };
    // Never blocks: a FIFO (or a device) named like the file is refused, not waited on.
    let file = match crate::cli::open_regular(path) {
        Ok(file) => file,
        Err(OpenRegularError::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(None);
        }
        Err(OpenRegularError::Io(e)) => return Err(io(e)),
        Err(OpenRegularError::NotRegular) => {
            return Err(ProofFileError::NotAFile {
                path: path.to_path_buf(),
            });
        }
    };
    let metadata = file.metadata().map_err(io)?;
    let size = metadata.len();
    let mut r = Reader {
        input: BufReader::with_capacity(1 << 20, file),
        // Replaced by the version's checksum once the version is read (below).
        sum: Checksum::new(VERSION),
    };
    let truncated = |e: std::io::Error| {
        if e.kind() == std::io::ErrorKind::UnexpectedEof {
            damaged("it ends too early (truncated)")
        } else {
            io(e)
        }
    };
    let not_a_proof = || ProofFileError::NotAProof {
        path: path.to_path_buf(),
    };
    let magic = r.exact::<8>().map_err(|e| {
        if e.kind() == std::io::ErrorKind::UnexpectedEof {
            not_a_proof()
        } else {
            io(e)
        }
    })?;
    let of = |expected: &Magic| file_header::check_magic(&magic, expected).is_ok();
    if !of(SolverTt::MAGIC) && !of(PnTt::MAGIC) {
        return Err(not_a_proof());
    }
    if !of(T::MAGIC) {
        return Err(ProofFileError::OtherSolver {
            path: path.to_path_buf(),
            found: solver_name(&magic),
            expected: solver_name(T::MAGIC),
        });
    }
    let version = u32::from_le_bytes(r.exact::<4>().map_err(truncated)?);
    file_header::check_version(version, T::OLDEST_VERSION, VERSION).map_err(|_| {
        ProofFileError::Version {
            path: path.to_path_buf(),
            found: version,
            oldest: T::OLDEST_VERSION,
        }
    })?;
    r.sum = Checksum::new(version);
    r.sum.bytes(T::MAGIC);
    r.sum.word(u64::from(version));
    let spec = r
        .text()
        .map_err(truncated)?
        .ok_or_else(|| damaged("its game spec is not a short UTF-8 text"))?;
    if spec != identity.spec {
        return Err(ProofFileError::OtherGame {
            path: path.to_path_buf(),
            found: spec,
            expected: identity.spec.clone(),
        });
    }
    let root_text = r
        .text()
        .map_err(truncated)?
        .ok_or_else(|| damaged("its position is not a short UTF-8 text"))?;
    let root_hash = r.word().map_err(truncated)?;
    if root_text != identity.root || root_hash != identity.root_hash {
        return Err(ProofFileError::OtherPosition {
            path: path.to_path_buf(),
            found: root_text,
            expected: identity.root.clone(),
        });
    }
    let buckets = r.word().map_err(truncated)?;
    if buckets != table.bucket_count() as u64 {
        return Err(ProofFileError::OtherSize {
            path: path.to_path_buf(),
            found: bucket_megabytes(buckets),
            expected: bucket_megabytes(table.bucket_count() as u64),
        });
    }
    let work = ProofWork {
        nodes: r.word().map_err(truncated)?,
        millis: r.word().map_err(truncated)?,
    };
    let mut root = RootProof::nothing();
    let mut root_words = 0;
    if version >= 2 {
        let bad_bound = || damaged("its root bounds are no values");
        let lower = word_value(r.word().map_err(truncated)?).ok_or_else(bad_bound)?;
        let upper = word_value(r.word().map_err(truncated)?).ok_or_else(bad_bound)?;
        (root.lower, root.upper) = (lower, upper);
        let moves = r.word().map_err(truncated)?;
        if moves > MAX_MOVES {
            return Err(damaged("it holds more root moves than any position has"));
        }
        for _ in 0..moves {
            let word = r.word().map_err(truncated)?;
            let value = match word {
                UNKNOWN => None,
                w => Some(word_value(w).ok_or_else(|| damaged("a root move's value is no value"))?),
            };
            root.moves.push(value);
        }
        root_words = 3 + moves;
    }
    // What is left must be whole records and the trailer.
    let header = 8 + 4 + 4 + spec.len() as u64 + 4 + root_text.len() as u64 + 8 * (4 + root_words);
    let body = size
        .checked_sub(header + TRAILER)
        .ok_or_else(|| damaged("it ends too early (truncated)"))?;
    if body % RECORD != 0 || body / RECORD > buckets {
        return Err(damaged(
            "its size is not that of whole records (truncated, or written to since)",
        ));
    }
    let records = body / RECORD;
    let loaded = load_records(&mut r, table, records, buckets).map_err(|e| match e {
        Bad::Io(e) => truncated(e),
        Bad::Damaged(why) => damaged(why),
    });
    let trailer = loaded.and_then(|()| {
        let count = r.word().map_err(truncated)?;
        let expected = r.sum.value();
        let checksum = u64::from_le_bytes(r.exact::<8>().map_err(truncated)?);
        if count != records {
            return Err(damaged("its record count does not match its size"));
        }
        file_header::check_checksum(checksum, expected)
            .map_err(|_| damaged("its checksum does not match (changed or corrupted)"))?;
        let mut more = [0u8; 1];
        match r.input.read(&mut more) {
            Ok(0) => Ok(()),
            Ok(_) => Err(damaged("it goes on after its end (it grew while read)")),
            Err(e) => Err(io(e)),
        }
    });
    match trailer {
        Ok(()) => Ok(Some(Saved { work, root })),
        Err(e) => {
            table.clear();
            Err(e)
        }
    }
}

enum Bad {
    Io(std::io::Error),
    Damaged(&'static str),
}

fn load_records<R: Read, T: ProofTt>(
    r: &mut Reader<R>,
    table: &T,
    records: u64,
    buckets: u64,
) -> Result<(), Bad> {
    let mut next = 0u64;
    let mut words = [0u64; BUCKET_WORDS];
    for _ in 0..records {
        let index = r.word().map_err(Bad::Io)?;
        if index < next || index >= buckets {
            return Err(Bad::Damaged("its bucket indices are out of order or range"));
        }
        next = index + 1;
        for word in &mut words {
            *word = r.word().map_err(Bad::Io)?;
        }
        if !words.chunks(2).all(|e| T::valid_entry(e[0], e[1])) {
            return Err(Bad::Damaged("it holds an entry that is no valid entry"));
        }
        table.set_bucket_words(index as usize, &words);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn identity() -> ProofIdentity {
        ProofIdentity {
            spec: "kalah pits=3".to_string(),
            root: "3,3,3,0/3,3,3,0 S".to_string(),
            root_hash: 42,
        }
    }

    /// Files of version 2 (the old checksum) and 3 (XXH3) are read; a flipped byte is damage
    /// in both; a version beyond this one is refused with a message.
    #[test]
    fn proof_files_of_the_old_checksum_and_of_xxh3_are_read_and_checked() {
        let dir = std::env::temp_dir().join(format!("sowfan-save-versions-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let table = SolverTt::new(1).expect("table");
        let root = RootProof {
            lower: 2,
            upper: 2,
            moves: vec![Some(2), None],
        };
        let work = ProofWork {
            nodes: 7,
            millis: 9,
        };
        for version in [2, VERSION] {
            let path = dir.join(format!("v{version}.proof"));
            write_file(&path, version, &identity(), work, &root, &table).expect("write");
            let loaded = load(&path, &identity(), &table)
                .expect("read")
                .expect("a proof");
            assert_eq!(loaded.work, work, "version {version}");
            let mut bytes = std::fs::read(&path).expect("bytes");
            // The node count: a word only the checksum guards.
            let id = identity();
            let at = 8 + 4 + 4 + id.spec.len() + 4 + id.root.len() + 8 + 8;
            bytes[at] ^= 1;
            std::fs::write(&path, &bytes).expect("flip");
            let error = load(&path, &identity(), &table).expect_err("damaged");
            assert!(
                error.to_string().contains("checksum"),
                "version {version}: {error}"
            );
        }
        let path = dir.join("v9.proof");
        write_file(&path, 9, &identity(), work, &root, &table).expect("write");
        let error = load(&path, &identity(), &table).expect_err("refused");
        assert!(error.to_string().contains("has version 9"), "{error}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
