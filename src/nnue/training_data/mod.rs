//! Training data: positions of self-play games with the search's score and the game's
//! result, in a compact binary file that `sowfan datagen` writes and a trainer reads. The
//! format is versioned and checksummed, and a file is hostile input to whoever reads it.
//!
//! A file is a header and then one block per game, appended as each game ends:
//!
//! ```text
//! header  "SOWFANTD"  version: u16 = 2  text length: u32  text  xxh3-64 of the text: u64
//! block   "GAME"  game number: u64  result for P1: i8 (1, 0, -1)  positions: u16
//!         payload length: u32  xxh3-64 of the block's first 19 bytes: u64
//!         payload  xxh3-64 of everything from "GAME" on: u64
//! payload per position:
//!         packed length: u16  packed position  score: i16  ply: u16  side to move: u8
//! ```
//!
//! Numbers are little-endian. The header's text is `key=value` lines saying how the data
//! was made (the game, nodes, seed, openings: see [`Header`]). A packed position is the
//! game's compact form ([`Notation::pack_position`](crate::game::Notation::pack_position)). The score is the search's,
//! in hundredths of a point for the side to move; the side to move is 0 for P1, 1 for P2.
//!
//! Every block is checked on its own: its head (with the payload's length) by its own
//! checksum, the whole block by another. So a damaged length is found as damage, never
//! taken for the end of the file: a damaged block is an error that names it by number and
//! byte offset ([`DataError::Damaged`]), and nothing is cut off. Only a block the file ends
//! inside whose head is whole (or a head cut short) is a torn write of an interrupted run:
//! [`Reader::torn`] says so, [`scan`] finds where the whole blocks end, and the writer cuts
//! the rest off before it appends again. Blocks are in the order games ended, so a run on
//! several threads is resumed by game number ([`Scan::done`]), not by position in the file.
//!
//! Version 1 (before 2026-12-06) had no head checksum; it is still read and continued
//! (in version 1). Its last block, when the file ends inside it, is taken for a torn write
//! only when no whole block hides in its bytes: a block whose bytes make a whole block under
//! another length, or that runs over a whole block after it, has a damaged length.

use std::collections::BTreeSet;
use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom, Write};
use std::path::Path;

use thiserror::Error;

use crate::file_header::{self, Magic};

const MAGIC: &Magic = b"SOWFANTD";
const BLOCK_MAGIC: &[u8; 4] = b"GAME";
/// The version written.
pub const VERSION: u16 = 2;
/// The oldest version read (and continued in its own version).
pub const OLDEST_VERSION: u16 = 1;
/// The largest header text read: a header is a few short lines.
const MAX_HEADER_TEXT: u32 = 64 << 10;
/// The largest block payload read: a game of 65,535 positions of 256 bytes fits.
const MAX_PAYLOAD: u32 = 1 << 24;
/// Bytes of a block before its head checksum: magic, game number, result, count, payload
/// length.
const BLOCK_FIELDS: usize = 4 + 8 + 1 + 2 + 4;
/// Bytes of a block before its payload in `version`.
fn block_head(version: u16) -> usize {
    if version >= 2 {
        BLOCK_FIELDS + 8
    } else {
        BLOCK_FIELDS
    }
}

#[derive(Debug, Error)]
pub enum DataError {
    #[error("'{path}': {error}")]
    Io { path: String, error: std::io::Error },
    #[error(
        "'{path}' is not a regular file (a FIFO, a device or a folder): training data is a file"
    )]
    NotRegular { path: String },
    #[error("'{path}' is not a sowfan training data file ({why})")]
    NotData { path: String, why: String },
    #[error(
        "'{path}' is training data of version {found}; this sowfan reads versions \
         {OLDEST_VERSION} to {VERSION} (a newer sowfan made it, or its header is damaged)"
    )]
    Version { path: String, found: u16 },
    #[error("'{path}': {what}")]
    Corrupt { path: String, what: String },
    #[error(
        "block {block} of '{path}' (byte offset {offset}) is damaged: {what}; the file is left \
         as it is (`truncate -s {offset}` on a copy keeps the {before} games before it)"
    )]
    Damaged {
        path: String,
        /// The block's place in the file, from 1.
        block: u64,
        offset: u64,
        /// Blocks before it.
        before: u64,
        what: BlockDamage,
    },
}

/// What is wrong with a damaged block of training data.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum BlockDamage {
    #[error("it does not begin with GAME")]
    NoMagic,
    #[error("its head fails its checksum (a damaged game number, count or length)")]
    HeadChecksum,
    #[error("it claims {length} bytes of positions (at most {MAX_PAYLOAD})")]
    TooLong { length: u32 },
    #[error("it fails its checksum")]
    Checksum,
    #[error(
        "its length says {length} bytes of positions, its bytes make a whole block of \
         {actual} (a damaged length)"
    )]
    ShortLength { length: u32, actual: usize },
    #[error(
        "its length ({length} bytes) runs past the end of the file over a whole block at \
         byte offset {at} (a damaged length)"
    )]
    LongLength { length: u32, at: u64 },
    #[error(transparent)]
    Payload(#[from] PayloadError),
}

/// What is wrong with the positions of a block whose checksum holds (a writer's bug, or
/// a file made to pass the checksum).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PayloadError {
    #[error("game {number}: a position runs past its block")]
    PastEnd { number: u64 },
    #[error("game {number}: side to move {mover} (0 or 1)")]
    Mover { number: u64, mover: u8 },
    #[error("game {number}: {extra} bytes after its {count} positions")]
    Trailing {
        number: u64,
        extra: usize,
        count: u16,
    },
    #[error("game {number}: result {result} (1, 0 or -1)")]
    Result { number: u64, result: i8 },
}

/// How the data was made: `key=value` lines, kept in order.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Header {
    pub fields: Vec<(String, String)>,
}

impl Header {
    pub fn get(&self, key: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    fn text(&self) -> String {
        self.fields
            .iter()
            .map(|(k, v)| format!("{k}={v}\n"))
            .collect()
    }

    fn parse(text: &str) -> Option<Header> {
        let fields = text
            .lines()
            .map(|line| {
                line.split_once('=')
                    .map(|(k, v)| (k.to_string(), v.to_string()))
            })
            .collect::<Option<Vec<_>>>()?;
        Some(Header { fields })
    }

    /// The header as written, in the current version.
    pub fn to_bytes(&self) -> Vec<u8> {
        let text = self.text();
        let mut out = Vec::with_capacity(text.len() + 22);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.extend_from_slice(&(text.len() as u32).to_le_bytes());
        out.extend_from_slice(text.as_bytes());
        out.extend_from_slice(&file_header::checksum(text.as_bytes()).to_le_bytes());
        out
    }
}

/// One position of a game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sample {
    pub packed: Vec<u8>,
    /// The search's score for the side to move, in hundredths of a point.
    pub score: i16,
    pub ply: u16,
    /// 0: P1 to move; 1: P2.
    pub mover: u8,
}

/// A finished game's positions and its result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameBlock {
    pub number: u64,
    /// For P1: 1 won, 0 drawn, -1 lost.
    pub result: i8,
    pub samples: Vec<Sample>,
}

impl GameBlock {
    /// The result for the side to move in `sample`: 1 won, 0 drawn, -1 lost.
    pub fn result_for(&self, sample: &Sample) -> i8 {
        if sample.mover == 0 {
            self.result
        } else {
            -self.result
        }
    }

    /// The block as written in the current version (see the module's documentation).
    /// `None` when it cannot be written: more than 65,535 positions, or a packed position
    /// over 65,535 bytes.
    pub fn to_bytes(&self) -> Option<Vec<u8>> {
        self.to_bytes_of(VERSION)
    }

    /// The block as written in `version` (1 or 2).
    pub fn to_bytes_of(&self, version: u16) -> Option<Vec<u8>> {
        let count = u16::try_from(self.samples.len()).ok()?;
        let mut payload = Vec::new();
        for s in &self.samples {
            payload.extend_from_slice(&u16::try_from(s.packed.len()).ok()?.to_le_bytes());
            payload.extend_from_slice(&s.packed);
            payload.extend_from_slice(&s.score.to_le_bytes());
            payload.extend_from_slice(&s.ply.to_le_bytes());
            payload.push(s.mover);
        }
        let length = u32::try_from(payload.len())
            .ok()
            .filter(|&l| l <= MAX_PAYLOAD)?;
        let mut out = Vec::with_capacity(block_head(version) + payload.len() + 8);
        out.extend_from_slice(BLOCK_MAGIC);
        out.extend_from_slice(&self.number.to_le_bytes());
        out.push(self.result as u8);
        out.extend_from_slice(&count.to_le_bytes());
        out.extend_from_slice(&length.to_le_bytes());
        if version >= 2 {
            let head = file_header::checksum(&out);
            out.extend_from_slice(&head.to_le_bytes());
        }
        out.extend_from_slice(&payload);
        let sum = file_header::checksum(&out);
        out.extend_from_slice(&sum.to_le_bytes());
        Some(out)
    }

    fn parse_payload(
        number: u64,
        result: i8,
        count: u16,
        payload: &[u8],
    ) -> Result<GameBlock, PayloadError> {
        let mut samples = Vec::with_capacity(usize::from(count));
        let mut at = 0usize;
        let take = |at: &mut usize, n: usize| -> Result<&[u8], PayloadError> {
            let bytes = payload
                .get(*at..*at + n)
                .ok_or(PayloadError::PastEnd { number })?;
            *at += n;
            Ok(bytes)
        };
        for _ in 0..count {
            let len = u16::from_le_bytes(take(&mut at, 2)?.try_into().unwrap_or([0; 2]));
            let packed = take(&mut at, usize::from(len))?.to_vec();
            let score = i16::from_le_bytes(take(&mut at, 2)?.try_into().unwrap_or([0; 2]));
            let ply = u16::from_le_bytes(take(&mut at, 2)?.try_into().unwrap_or([0; 2]));
            let mover = take(&mut at, 1)?[0];
            if mover > 1 {
                return Err(PayloadError::Mover { number, mover });
            }
            samples.push(Sample {
                packed,
                score,
                ply,
                mover,
            });
        }
        if at != payload.len() {
            return Err(PayloadError::Trailing {
                number,
                extra: payload.len() - at,
                count,
            });
        }
        if !(-1..=1).contains(&result) {
            return Err(PayloadError::Result { number, result });
        }
        Ok(GameBlock {
            number,
            result,
            samples,
        })
    }
}

/// The fields of a block's head.
struct Head {
    number: u64,
    result: i8,
    count: u16,
    length: u32,
}

/// The fields of a block's first [`BLOCK_FIELDS`] bytes (callers hold at least that many).
fn parse_head(bytes: &[u8]) -> Head {
    let field = |at: usize, n: usize| {
        let mut word = [0u8; 8];
        word[..n].copy_from_slice(&bytes[at..at + n]);
        u64::from_le_bytes(word)
    };
    Head {
        number: field(4, 8),
        result: bytes[12] as i8,
        count: field(13, 2) as u16,
        length: field(15, 4) as u32,
    }
}

/// Whether `bytes` begin with a whole version-1 block whose checksum holds.
fn whole_v1_block_at(bytes: &[u8]) -> bool {
    if bytes.len() < BLOCK_FIELDS + 8 || &bytes[..4] != BLOCK_MAGIC {
        return false;
    }
    let length = parse_head(bytes).length;
    if length > MAX_PAYLOAD {
        return false;
    }
    let end = BLOCK_FIELDS + length as usize;
    match (bytes.get(..end), bytes.get(end..end + 8)) {
        (Some(body), Some(sum)) => file_header::checksum(body).to_le_bytes() == sum,
        _ => false,
    }
}

/// `path` opened for reading, refused at once when it is no regular file.
fn open_regular(path: &Path, name: &str) -> Result<File, DataError> {
    crate::cli::open_regular(path).map_err(|e| match e {
        crate::cli::OpenRegularError::Io(error) => DataError::Io {
            path: name.to_string(),
            error,
        },
        crate::cli::OpenRegularError::NotRegular => DataError::NotRegular {
            path: name.to_string(),
        },
    })
}

/// Reads a training data file block by block.
pub struct Reader {
    path: String,
    input: BufReader<File>,
    pub header: Header,
    /// The file's version (1 or 2).
    pub version: u16,
    /// Where the whole blocks read so far end.
    offset: u64,
    /// Whole blocks read so far.
    blocks: u64,
    /// Bytes of a torn last block (an interrupted write), once the reader has met it.
    torn: Option<u64>,
}

impl Reader {
    pub fn open(path: &Path) -> Result<Reader, DataError> {
        let name = path.display().to_string();
        let mut input = BufReader::new(open_regular(path, &name)?);
        let (header, version, offset) = read_header(&mut input, &name)?;
        Ok(Reader {
            path: name,
            input,
            header,
            version,
            offset,
            blocks: 0,
            torn: None,
        })
    }

    /// The bytes of a torn last block, once [`Reader::next_game`] has returned `Ok(None)`
    /// at it: the file ends inside a block whose head is whole, or inside a head (a write of
    /// an interrupted run). `None` when the file ends after a whole block.
    pub fn torn(&self) -> Option<u64> {
        self.torn
    }

    /// Where the whole blocks read so far end.
    pub fn good_length(&self) -> u64 {
        self.offset
    }

    fn damaged(&self, what: BlockDamage) -> DataError {
        DataError::Damaged {
            path: self.path.clone(),
            block: self.blocks + 1,
            offset: self.offset,
            before: self.blocks,
            what,
        }
    }

    fn io(&self, error: std::io::Error) -> DataError {
        DataError::Io {
            path: self.path.clone(),
            error,
        }
    }

    /// The next whole game; `Ok(None)` at the end of the file or at a torn last block (see
    /// [`Reader::torn`]); an error naming the block for a block that is damaged.
    pub fn next_game(&mut self) -> Result<Option<GameBlock>, DataError> {
        let head_len = block_head(self.version);
        let mut head = [0u8; BLOCK_FIELDS + 8];
        let got = read_up_to(&mut self.input, &mut head[..head_len]).map_err(|e| self.io(e))?;
        if got == 0 {
            return Ok(None);
        }
        let magic = got.min(4);
        if head[..magic] != BLOCK_MAGIC[..magic] {
            return Err(self.damaged(BlockDamage::NoMagic));
        }
        if got < head_len {
            self.torn = Some(got as u64);
            return Ok(None);
        }
        if self.version >= 2
            && file_header::checksum(&head[..BLOCK_FIELDS]).to_le_bytes()
                != head[BLOCK_FIELDS..head_len]
        {
            return Err(self.damaged(BlockDamage::HeadChecksum));
        }
        let Head {
            number,
            result,
            count,
            length,
        } = parse_head(&head);
        if length > MAX_PAYLOAD {
            return Err(self.damaged(BlockDamage::TooLong { length }));
        }
        let mut rest = vec![0u8; length as usize + 8];
        let got = read_up_to(&mut self.input, &mut rest).map_err(|e| self.io(e))?;
        if got < rest.len() {
            if self.version < 2 {
                self.check_v1_tail(&head[..head_len], &rest[..got], length)?;
            }
            self.torn = Some((head_len + got) as u64);
            return Ok(None);
        }
        let (payload, sum) = rest.split_at(length as usize);
        let mut hasher = file_header::StreamingChecksum::new();
        hasher.update(&head[..head_len]);
        hasher.update(payload);
        if hasher.digest().to_le_bytes() != sum {
            return Err(self.damaged(BlockDamage::Checksum));
        }
        let block = GameBlock::parse_payload(number, result, count, payload)
            .map_err(|what| self.damaged(what.into()))?;
        self.offset += (head_len + rest.len()) as u64;
        self.blocks += 1;
        Ok(Some(block))
    }

    /// A version-1 block the file ends inside: a torn write, unless its length is damaged
    /// (its bytes make a whole block under the length they have, or hold a whole block).
    fn check_v1_tail(&self, head: &[u8], tail: &[u8], length: u32) -> Result<(), DataError> {
        if let Some(actual) = tail.len().checked_sub(8) {
            let mut fixed = head.to_vec();
            fixed[15..19].copy_from_slice(&(actual as u32).to_le_bytes());
            let mut hasher = file_header::StreamingChecksum::new();
            hasher.update(&fixed);
            hasher.update(&tail[..actual]);
            if hasher.digest().to_le_bytes() == tail[actual..] {
                return Err(self.damaged(BlockDamage::ShortLength { length, actual }));
            }
        }
        let hidden =
            (0..tail.len().saturating_sub(BLOCK_FIELDS)).find(|&at| whole_v1_block_at(&tail[at..]));
        if let Some(at) = hidden {
            return Err(self.damaged(BlockDamage::LongLength {
                length,
                at: self.offset + (head.len() + at) as u64,
            }));
        }
        Ok(())
    }
}

/// Read into `buf` until it is full or the input ends: the bytes read.
fn read_up_to(input: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match input.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

/// The header: `(header, version, its length)`.
fn read_header(input: &mut impl Read, path: &str) -> Result<(Header, u16, u64), DataError> {
    let io = |error| DataError::Io {
        path: path.to_string(),
        error,
    };
    let corrupt = |what: String| DataError::Corrupt {
        path: path.to_string(),
        what,
    };
    let mut fixed = [0u8; 14];
    let got = read_up_to(input, &mut fixed).map_err(io)?;
    if got == 0 || !file_header::begins_like(&fixed[..got], MAGIC) {
        return Err(DataError::NotData {
            path: path.to_string(),
            why: if got == 0 {
                "it is empty".into()
            } else {
                "its first bytes are not SOWFANTD".into()
            },
        });
    }
    if got < fixed.len() {
        return Err(corrupt(format!(
            "the header is cut short: the file has {got} bytes"
        )));
    }
    let version = u16::from_le_bytes([fixed[8], fixed[9]]);
    let range = (u32::from(OLDEST_VERSION), u32::from(VERSION));
    file_header::check_version(u32::from(version), range.0, range.1).map_err(|_| {
        DataError::Version {
            path: path.to_string(),
            found: version,
        }
    })?;
    let length = u32::from_le_bytes(fixed[10..14].try_into().unwrap_or([0; 4]));
    if length > MAX_HEADER_TEXT {
        return Err(corrupt(format!(
            "the header claims a text of {length} bytes (at most {MAX_HEADER_TEXT}): a \
             damaged header"
        )));
    }
    let mut text = vec![0u8; length as usize + 8];
    if read_up_to(input, &mut text).map_err(io)? < text.len() {
        return Err(corrupt("the header is cut short".into()));
    }
    let (text, sum) = text.split_at(length as usize);
    file_header::read_u64(sum, 0)
        .and_then(|stored| file_header::check_checksum(stored, file_header::checksum(text)))
        .map_err(|_| corrupt("the header fails its checksum".into()))?;
    let header = std::str::from_utf8(text)
        .ok()
        .and_then(Header::parse)
        .ok_or_else(|| corrupt("the header is not key=value lines".into()))?;
    Ok((header, version, 14 + u64::from(length) + 8))
}

/// What a file holds, for resuming it.
#[derive(Debug)]
pub struct Scan {
    pub header: Header,
    pub version: u16,
    /// The numbers of the games it holds.
    pub done: BTreeSet<u64>,
    pub positions: u64,
    /// Where its whole blocks end: what follows is a torn last block.
    pub good_length: u64,
    pub file_length: u64,
}

/// Read every block of a file (checking each), for resuming it: a damaged block is an
/// error, a torn last block is left out (`good_length < file_length`).
pub fn scan(path: &Path) -> Result<Scan, DataError> {
    let mut reader = Reader::open(path)?;
    let mut done = BTreeSet::new();
    let mut positions = 0;
    while let Some(block) = reader.next_game()? {
        positions += block.samples.len() as u64;
        done.insert(block.number);
    }
    let file_length = reader
        .input
        .get_ref()
        .metadata()
        .map_err(|e| reader.io(e))?
        .len();
    Ok(Scan {
        header: reader.header,
        version: reader.version,
        done,
        positions,
        good_length: reader.offset,
        file_length,
    })
}

/// Appends game blocks to a file, each written whole.
pub struct Writer {
    path: String,
    file: File,
    version: u16,
}

impl Writer {
    /// A new file with `header` (an existing one is replaced), in the current version. The
    /// header is written whole or not at all ([`crate::cli::write_atomically`]: a hidden
    /// temporary name of this process, renamed into place).
    pub fn create(path: &Path, header: &Header) -> Result<Writer, DataError> {
        let name = path.display().to_string();
        let io = |error| DataError::Io {
            path: name.clone(),
            error,
        };
        crate::cli::write_atomically(path, &header.to_bytes()).map_err(io)?;
        let file = std::fs::OpenOptions::new()
            .append(true)
            .open(path)
            .map_err(io)?;
        Ok(Writer {
            path: name,
            file,
            version: VERSION,
        })
    }

    /// Go on with a file [`scan`] read, in its version: a torn block after `good_length`
    /// is cut off.
    pub fn resume(path: &Path, scan: &Scan) -> Result<Writer, DataError> {
        let name = path.display().to_string();
        let io = |error| DataError::Io {
            path: name.clone(),
            error,
        };
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .open(path)
            .map_err(io)?;
        if scan.good_length < scan.file_length {
            file.set_len(scan.good_length).map_err(io)?;
        }
        file.seek(SeekFrom::Start(scan.good_length)).map_err(io)?;
        Ok(Writer {
            path: name,
            file,
            version: scan.version,
        })
    }

    pub fn append(&mut self, block: &GameBlock) -> Result<(), DataError> {
        let bytes = block
            .to_bytes_of(self.version)
            .ok_or_else(|| DataError::Corrupt {
                path: self.path.clone(),
                what: format!("game {} is too long for one block", block.number),
            })?;
        self.file
            .write_all(&bytes)
            .and_then(|_| self.file.flush())
            .map_err(|error| DataError::Io {
                path: self.path.clone(),
                error,
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header() -> Header {
        Header {
            fields: vec![
                ("game".into(), "fanorona".into()),
                ("nodes".into(), "5000".into()),
            ],
        }
    }

    fn game(number: u64, n: usize) -> GameBlock {
        GameBlock {
            number,
            result: if number.is_multiple_of(2) { 1 } else { -1 },
            samples: (0..n)
                .map(|i| Sample {
                    packed: vec![i as u8; 20],
                    score: i as i16 * 7 - 100,
                    ply: i as u16,
                    mover: (i % 2) as u8,
                })
                .collect(),
        }
    }

    #[test]
    fn blocks_read_back_as_written_and_a_partial_last_block_is_cut_off() {
        let dir = std::env::temp_dir().join(format!("sowfan-td-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("data.bin");
        let mut writer = Writer::create(&path, &header()).unwrap();
        for number in [3, 0, 7] {
            writer.append(&game(number, 5 + number as usize)).unwrap();
        }
        drop(writer);
        let mut reader = Reader::open(&path).unwrap();
        assert_eq!(reader.header, header());
        let mut read = Vec::new();
        while let Some(block) = reader.next_game().unwrap() {
            read.push(block);
        }
        assert_eq!(read, vec![game(3, 8), game(0, 5), game(7, 12)]);
        assert_eq!(read[0].result_for(&read[0].samples[1]), 1);
        // An interrupted run: half a block at the end.
        let whole = std::fs::metadata(&path).unwrap().len();
        let partial = game(9, 4).to_bytes().unwrap();
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        file.write_all(&partial[..partial.len() / 2]).unwrap();
        drop(file);
        let scan = scan(&path).unwrap();
        assert_eq!(scan.done.iter().copied().collect::<Vec<_>>(), [0, 3, 7]);
        assert_eq!((scan.good_length, scan.positions), (whole, 25));
        let mut writer = Writer::resume(&path, &scan).unwrap();
        writer.append(&game(9, 4)).unwrap();
        drop(writer);
        assert_eq!(super::scan(&path).unwrap().done.len(), 4);
        // A flipped byte inside a block is found by its checksum.
        let mut bytes = std::fs::read(&path).unwrap();
        let at = scan.good_length as usize - 12;
        bytes[at] ^= 1;
        std::fs::write(&path, &bytes).unwrap();
        let e = super::scan(&path).unwrap_err().to_string();
        assert!(e.contains("checksum"), "{e}");
        // Not data at all; another version; the magic and too few bytes.
        std::fs::write(&path, b"hello").unwrap();
        assert!(matches!(
            Reader::open(&path),
            Err(DataError::NotData { .. })
        ));
        let mut other = header().to_bytes();
        other[8] = 9;
        std::fs::write(&path, &other).unwrap();
        assert!(matches!(
            Reader::open(&path),
            Err(DataError::Version { found: 9, .. })
        ));
        for short in [&b"SOWFANTD"[..], &b"SOWFANTD\x02\0\0"[..]] {
            std::fs::write(&path, short).unwrap();
            let e = Reader::open(&path).err().unwrap().to_string();
            assert!(e.contains("the header is cut short"), "{e}");
        }
        std::fs::write(&path, b"").unwrap();
        let e = Reader::open(&path).err().unwrap().to_string();
        assert!(e.contains("it is empty"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A file of `games` blocks in `version`: its bytes and where each block begins.
    fn file_of(version: u16, games: u64) -> (Vec<u8>, Vec<usize>) {
        let mut bytes = header().to_bytes();
        bytes[8..10].copy_from_slice(&version.to_le_bytes());
        let mut starts = Vec::new();
        for number in 0..games {
            starts.push(bytes.len());
            bytes.extend(
                game(number, 3 + number as usize)
                    .to_bytes_of(version)
                    .unwrap(),
            );
        }
        (bytes, starts)
    }

    fn scratch(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("sowfan-td-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir.join("d.data")
    }

    /// One flipped bit of a block's length, in the middle of the file or in its last block:
    /// a damaged block named by number and offset, never the end of the file (issue 65).
    #[test]
    fn a_damaged_length_is_damage_named_by_block_not_a_torn_end() {
        for version in [1, 2] {
            let path = scratch(&format!("length-{version}"));
            let (bytes, starts) = file_of(version, 8);
            for (block, bit) in [(6, 9), (7, 3), (7, 20), (2, 30)] {
                let mut bad = bytes.clone();
                // The length field: bytes 15..19 of the block.
                bad[starts[block] + 15 + bit / 8] ^= 1 << (bit % 8);
                std::fs::write(&path, &bad).unwrap();
                let e = scan(&path).unwrap_err();
                assert!(
                    matches!(e, DataError::Damaged { block: b, .. } if b == block as u64 + 1),
                    "version {version}, block {block}, bit {bit}: {e}"
                );
                let text = e.to_string();
                assert!(
                    text.contains(&format!(
                        "block {} of '{}' (byte offset {})",
                        block + 1,
                        path.display(),
                        starts[block]
                    )),
                    "{text}"
                );
                assert!(text.contains("is damaged"), "{text}");
                let mut reader = Reader::open(&path).unwrap();
                let mut read = 0;
                let error = loop {
                    match reader.next_game() {
                        Ok(Some(_)) => read += 1,
                        Ok(None) => panic!("version {version}: read to an end: {read}"),
                        Err(e) => break e,
                    }
                };
                assert_eq!(read, block, "{error}");
            }
            // The game number or count damaged: the head checksum (version 2), the block's
            // checksum (version 1).
            let mut bad = bytes.clone();
            bad[starts[4] + 5] ^= 4;
            std::fs::write(&path, &bad).unwrap();
            assert!(matches!(
                scan(&path),
                Err(DataError::Damaged { block: 5, .. })
            ));
            // A torn last block (its head whole, or cut) is a torn write: left out.
            for cut in [3, 10, 30, 40] {
                std::fs::write(&path, &bytes[..starts[7] + cut]).unwrap();
                let found = scan(&path).unwrap();
                assert_eq!(found.done.len(), 7, "version {version}, cut {cut}");
                assert_eq!(found.good_length as usize, starts[7]);
                assert_eq!(found.version, version);
                let mut reader = Reader::open(&path).unwrap();
                while reader.next_game().unwrap().is_some() {}
                assert_eq!(reader.torn(), Some(cut as u64));
            }
            // A file continued in its own version.
            let found = scan(&path).unwrap();
            let mut writer = Writer::resume(&path, &found).unwrap();
            writer.append(&game(7, 10)).unwrap();
            drop(writer);
            assert_eq!(std::fs::read(&path).unwrap(), bytes);
            let _ = std::fs::remove_dir_all(path.parent().unwrap());
        }
    }

    #[test]
    fn no_regular_file_is_refused_at_once() {
        let path = scratch("fifo");
        let fifo = path.with_file_name("fifo");
        let name = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
        for bad in [
            fifo.as_path(),
            path.parent().unwrap(),
            Path::new("/dev/zero"),
        ] {
            let e = Reader::open(bad).err().unwrap();
            assert!(matches!(e, DataError::NotRegular { .. }), "{e}");
        }
        let _ = std::fs::remove_dir_all(path.parent().unwrap());
    }

    #[test]
    fn a_new_file_leaves_no_partial_file_and_spares_a_users_file() {
        let path = scratch("create");
        let mine = path.with_extension("partial");
        std::fs::write(&mine, b"mine").unwrap();
        Writer::create(&path, &header()).unwrap();
        assert_eq!(std::fs::read(&mine).unwrap(), b"mine");
        let names: Vec<_> = std::fs::read_dir(path.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 2, "{names:?}");
        let _ = std::fs::remove_dir_all(path.parent().unwrap());
    }
}
