//! Training data: positions of self-play games with the search's score and the game's
//! result, in a compact binary file that `sowfan datagen` writes and a trainer reads. The
//! format is versioned and checksummed, and a file is hostile input to whoever reads it.
//!
//! A file is a header and then one block per game, appended as each game ends:
//!
//! ```text
//! header  "SOWFANTD"  version: u16 = 1  text length: u32  text  xxh3-64 of the text: u64
//! block   "GAME"  game number: u64  result for P1: i8 (1, 0, -1)  positions: u16
//!         payload length: u32  payload  xxh3-64 of everything from "GAME" on: u64
//! payload per position:
//!         packed length: u16  packed position  score: i16  ply: u16  side to move: u8
//! ```
//!
//! Numbers are little-endian. The header's text is `key=value` lines saying how the data
//! was made (the game, nodes, seed, openings: see [`Header`]). A packed position is the
//! game's compact form ([`crate::game::Game::pack_position`]). The score is the search's,
//! in hundredths of a point for the side to move; the side to move is 0 for P1, 1 for P2.
//!
//! A file only grows by whole blocks, so an interrupted run leaves at most a partial last
//! block: [`scan`] finds where the whole blocks end, and the writer cuts the rest off before
//! it appends again. Blocks are in the order games ended, so a run on several threads is
//! resumed by game number ([`Scan::done`]), not by position in the file.

use std::collections::BTreeSet;
use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom, Write};
use std::path::Path;

use thiserror::Error;
use xxhash_rust::xxh3::xxh3_64;

const MAGIC: &[u8; 8] = b"SOWFANTD";
const BLOCK_MAGIC: &[u8; 4] = b"GAME";
pub const VERSION: u16 = 1;
/// The largest header text read: a header is a few short lines.
const MAX_HEADER_TEXT: u32 = 64 << 10;
/// The largest block payload read: a game of 65,535 positions of 256 bytes fits.
const MAX_PAYLOAD: u32 = 1 << 24;
/// Bytes of a block before its payload: magic, game number, result, count, payload length.
const BLOCK_HEAD: usize = 4 + 8 + 1 + 2 + 4;

#[derive(Debug, Error)]
pub enum DataError {
    #[error("'{path}': {error}")]
    Io { path: String, error: std::io::Error },
    #[error("'{path}' is not a sowfan training data file (its first bytes are not SOWFANTD)")]
    NotData { path: String },
    #[error("'{path}' is training data of version {found}; this sowfan reads version {VERSION}")]
    Version { path: String, found: u16 },
    #[error("'{path}': {what}")]
    Corrupt { path: String, what: String },
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

    fn to_bytes(&self) -> Vec<u8> {
        let text = self.text();
        let mut out = Vec::with_capacity(text.len() + 22);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.extend_from_slice(&(text.len() as u32).to_le_bytes());
        out.extend_from_slice(text.as_bytes());
        out.extend_from_slice(&xxh3_64(text.as_bytes()).to_le_bytes());
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

    /// The block as written (see the module's documentation). `None` when it cannot be
    /// written: more than 65,535 positions, or a packed position over 65,535 bytes.
    pub fn to_bytes(&self) -> Option<Vec<u8>> {
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
        let mut out = Vec::with_capacity(BLOCK_HEAD + payload.len() + 8);
        out.extend_from_slice(BLOCK_MAGIC);
        out.extend_from_slice(&self.number.to_le_bytes());
        out.push(self.result as u8);
        out.extend_from_slice(&count.to_le_bytes());
        out.extend_from_slice(&length.to_le_bytes());
        out.extend_from_slice(&payload);
        let sum = xxh3_64(&out);
        out.extend_from_slice(&sum.to_le_bytes());
        Some(out)
    }

    fn parse_payload(
        number: u64,
        result: i8,
        count: u16,
        payload: &[u8],
    ) -> Result<GameBlock, String> {
        let mut samples = Vec::with_capacity(usize::from(count));
        let mut at = 0usize;
        let take = |at: &mut usize, n: usize| -> Result<&[u8], String> {
            let bytes = payload
                .get(*at..*at + n)
                .ok_or_else(|| format!("game {number}: a position runs past its block"))?;
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
                return Err(format!("game {number}: side to move {mover} (0 or 1)"));
            }
            samples.push(Sample {
                packed,
                score,
                ply,
                mover,
            });
        }
        if at != payload.len() {
            return Err(format!(
                "game {number}: {} bytes after its {count} positions",
                payload.len() - at
            ));
        }
        if !(-1..=1).contains(&result) {
            return Err(format!("game {number}: result {result} (1, 0 or -1)"));
        }
        Ok(GameBlock {
            number,
            result,
            samples,
        })
    }
}

/// Reads a training data file block by block.
pub struct Reader {
    path: String,
    input: BufReader<File>,
    pub header: Header,
    /// Where the whole blocks read so far end.
    offset: u64,
}

impl Reader {
    pub fn open(path: &Path) -> Result<Reader, DataError> {
        let name = path.display().to_string();
        let io = |error| DataError::Io {
            path: name.clone(),
            error,
        };
        let mut input = BufReader::new(File::open(path).map_err(io)?);
        let (header, offset) = read_header(&mut input, &name)?;
        Ok(Reader {
            path: name,
            input,
            header,
            offset,
        })
    }

    /// The next whole game; `Ok(None)` at the end of the file or at a partial last block
    /// (an interrupted run); an error for a block that is whole but wrong.
    pub fn next_game(&mut self) -> Result<Option<GameBlock>, DataError> {
        let corrupt = |what: String| DataError::Corrupt {
            path: self.path.clone(),
            what,
        };
        let mut head = [0u8; BLOCK_HEAD];
        if !read_whole(&mut self.input, &mut head).map_err(|error| DataError::Io {
            path: self.path.clone(),
            error,
        })? {
            return Ok(None);
        }
        if &head[..4] != BLOCK_MAGIC {
            return Err(corrupt(format!("no game block at byte {}", self.offset)));
        }
        let number = u64::from_le_bytes(head[4..12].try_into().unwrap_or([0; 8]));
        let result = head[12] as i8;
        let count = u16::from_le_bytes([head[13], head[14]]);
        let length = u32::from_le_bytes(head[15..19].try_into().unwrap_or([0; 4]));
        if length > MAX_PAYLOAD {
            return Err(corrupt(format!(
                "game block at byte {} claims {length} bytes (at most {MAX_PAYLOAD})",
                self.offset
            )));
        }
        let mut rest = vec![0u8; length as usize + 8];
        if !read_whole(&mut self.input, &mut rest).map_err(|error| DataError::Io {
            path: self.path.clone(),
            error,
        })? {
            return Ok(None);
        }
        let (payload, sum) = rest.split_at(length as usize);
        let mut hasher = xxhash_rust::xxh3::Xxh3::new();
        hasher.update(&head);
        hasher.update(payload);
        if hasher.digest().to_le_bytes() != sum {
            return Err(corrupt(format!(
                "game block at byte {} fails its checksum",
                self.offset
            )));
        }
        let block = GameBlock::parse_payload(number, result, count, payload).map_err(corrupt)?;
        self.offset += (BLOCK_HEAD + rest.len()) as u64;
        Ok(Some(block))
    }
}

/// Fill `buf` entirely: `false` if the input ends first (also in the middle).
fn read_whole(input: &mut impl Read, buf: &mut [u8]) -> std::io::Result<bool> {
    let mut filled = 0;
    while filled < buf.len() {
        match input.read(&mut buf[filled..]) {
            Ok(0) => return Ok(false),
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(true)
}

fn read_header(input: &mut impl Read, path: &str) -> Result<(Header, u64), DataError> {
    let io = |error| DataError::Io {
        path: path.to_string(),
        error,
    };
    let corrupt = |what: &str| DataError::Corrupt {
        path: path.to_string(),
        what: what.to_string(),
    };
    let mut fixed = [0u8; 14];
    if !read_whole(input, &mut fixed).map_err(io)? || &fixed[..8] != MAGIC {
        return Err(DataError::NotData {
            path: path.to_string(),
        });
    }
    let version = u16::from_le_bytes([fixed[8], fixed[9]]);
    if version != VERSION {
        return Err(DataError::Version {
            path: path.to_string(),
            found: version,
        });
    }
    let length = u32::from_le_bytes(fixed[10..14].try_into().unwrap_or([0; 4]));
    if length > MAX_HEADER_TEXT {
        return Err(corrupt("the header claims a text longer than 64 KiB"));
    }
    let mut text = vec![0u8; length as usize + 8];
    if !read_whole(input, &mut text).map_err(io)? {
        return Err(corrupt("the header is cut short"));
    }
    let (text, sum) = text.split_at(length as usize);
    if xxh3_64(text).to_le_bytes() != sum {
        return Err(corrupt("the header fails its checksum"));
    }
    let header = std::str::from_utf8(text)
        .ok()
        .and_then(Header::parse)
        .ok_or_else(|| corrupt("the header is not key=value lines"))?;
    Ok((header, 14 + u64::from(length) + 8))
}

/// What a file holds, for resuming it.
#[derive(Debug)]
pub struct Scan {
    pub header: Header,
    /// The numbers of the games it holds.
    pub done: BTreeSet<u64>,
    pub positions: u64,
    /// Where its whole blocks end: what follows is a partial block.
    pub good_length: u64,
    pub file_length: u64,
}

/// Read every whole block of a file (checking each), for resuming it.
pub fn scan(path: &Path) -> Result<Scan, DataError> {
    let mut reader = Reader::open(path)?;
    let mut done = BTreeSet::new();
    let mut positions = 0;
    while let Some(block) = reader.next_game()? {
        positions += block.samples.len() as u64;
        done.insert(block.number);
    }
    let file_length = std::fs::metadata(path)
        .map_err(|error| DataError::Io {
            path: path.display().to_string(),
            error,
        })?
        .len();
    Ok(Scan {
        header: reader.header,
        done,
        positions,
        good_length: reader.offset,
        file_length,
    })
}

/// Appends game blocks to a file, each written whole and flushed.
pub struct Writer {
    path: String,
    file: File,
}

impl Writer {
    /// A new file with `header` (an existing one is replaced).
    pub fn create(path: &Path, header: &Header) -> Result<Writer, DataError> {
        let name = path.display().to_string();
        let io = |error| DataError::Io {
            path: name.clone(),
            error,
        };
        // The header goes to a temporary file renamed into place: a file at `path` is
        // always a whole header and whole blocks, never a partial header.
        let temporary = path.with_extension("partial");
        let mut file = File::create(&temporary).map_err(io)?;
        file.write_all(&header.to_bytes()).map_err(io)?;
        file.sync_all().map_err(io)?;
        std::fs::rename(&temporary, path).map_err(io)?;
        Ok(Writer { path: name, file })
    }

    /// Go on with a file [`scan`] read: the partial block after `good_length` is cut off.
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
        Ok(Writer { path: name, file })
    }

    pub fn append(&mut self, block: &GameBlock) -> Result<(), DataError> {
        let bytes = block.to_bytes().ok_or_else(|| DataError::Corrupt {
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
        // Not data at all; another version.
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
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
