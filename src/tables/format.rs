//! The table file format: one file per layer (or per slice of a layer, for shards).
//!
//! ```text
//! offset  size  field
//!      0     8  magic "SOWFANTB"
//!      8     4  format version (2; version 1 files are still read)
//!     12     4  header length in bytes (a multiple of 64; the data starts here)
//!     16     4  layer (seeds or stones in play)
//!     20     4  value kind: 1 = one signed byte per position, the mover's final margin
//!               minus the banked margin, in whole points; 2 = one signed byte per
//!               position, win/draw/loss with the turns it needs (`TableValues::Distance`
//!               in src/game/table_indexing.rs: `+d` a win in d turns, `-(d+1)` a loss in d, 0 a draw)
//!     24     8  entries in the whole layer
//!     32     8  first index held by this file (0 for a whole layer)
//!     40     8  count of entries held by this file
//!     48     8  checksum of the data: XXH3-64 (`checksum`; version 1: `checksum_v1`)
//!     56     4  length of the rules string
//!     60     4  reserved (0)
//!     64     …  the rules string (UTF-8, e.g. `kalah pits=6 empty-capture=true end=any-row
//!               leftovers=owner`), then zeros up to the header length
//! header  count  the values, entry `first + i` at byte `header + i`
//! ```
//!
//! All numbers are little-endian. Files are written under a temporary name
//! (`layer-….tmp-PID`) and renamed when complete, so a file sowfan gave a table's name is
//! whole; what others do to it afterwards is checked by the readers (`check_header`,
//! `check_file` and the guarded mapping of the `mapped` module).

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use thiserror::Error;

use crate::file_header::{self, HeaderError, Magic};
use crate::game::TableValues;

pub const MAGIC: &Magic = b"SOWFANTB";
/// The version written: 2, whose checksum is XXH3-64. Version 1 (a hash of sowfan's own) is
/// still read, and checked with [`file_header::checksum_v1`].
pub const VERSION: u32 = 2;
/// The oldest version read.
pub const OLDEST_VERSION: u32 = 1;
pub const VALUE_KIND_I8_POINTS: u32 = 1;
pub const VALUE_KIND_I8_DISTANCE: u32 = 2;

/// The value kind of the header for tables of these values.
pub fn value_kind(values: TableValues) -> u32 {
    match values {
        TableValues::Margin => VALUE_KIND_I8_POINTS,
        TableValues::Distance { .. } => VALUE_KIND_I8_DISTANCE,
    }
}
const FIXED: usize = 64;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    /// The format version the file was written in ([`OLDEST_VERSION`]..=[`VERSION`]);
    /// [`Header::encode`] always writes [`VERSION`].
    pub version: u32,
    pub rules: String,
    pub layer: u32,
    /// [`VALUE_KIND_I8_POINTS`] or [`VALUE_KIND_I8_DISTANCE`].
    pub kind: u32,
    pub entries: u64,
    pub first: u64,
    pub count: u64,
    pub checksum: u64,
}

impl Header {
    /// The header's size on disk: the fixed part and the rules, rounded up to 64 bytes.
    pub fn len(&self) -> usize {
        (FIXED + self.rules.len()).div_ceil(64) * 64
    }

    pub fn is_empty(&self) -> bool {
        false
    }

    pub fn is_whole_layer(&self) -> bool {
        self.first == 0 && self.count == self.entries
    }

    /// The checksum of `data` as this header's version computes it, to compare with
    /// [`Header::checksum`].
    pub fn checksum_of(&self, data: &[u8]) -> u64 {
        checksum_for(self.version, data)
    }

    pub fn encode(&self) -> Vec<u8> {
        let mut out = vec![0u8; self.len()];
        out[0..8].copy_from_slice(MAGIC);
        out[8..12].copy_from_slice(&VERSION.to_le_bytes());
        out[12..16].copy_from_slice(&(self.len() as u32).to_le_bytes());
        out[16..20].copy_from_slice(&self.layer.to_le_bytes());
        out[20..24].copy_from_slice(&self.kind.to_le_bytes());
        out[24..32].copy_from_slice(&self.entries.to_le_bytes());
        out[32..40].copy_from_slice(&self.first.to_le_bytes());
        out[40..48].copy_from_slice(&self.count.to_le_bytes());
        out[48..56].copy_from_slice(&self.checksum.to_le_bytes());
        out[56..60].copy_from_slice(&(self.rules.len() as u32).to_le_bytes());
        out[FIXED..FIXED + self.rules.len()].copy_from_slice(self.rules.as_bytes());
        out
    }

    /// Read a header from the start of a file's bytes.
    pub fn decode(bytes: &[u8]) -> Result<Header, FormatError> {
        if bytes.len() < FIXED {
            return Err(FormatError::NotATable);
        }
        file_header::check_magic(bytes, MAGIC)?;
        let u32_at = |at: usize| file_header::read_u32(bytes, at);
        let u64_at = |at: usize| file_header::read_u64(bytes, at);
        let version = file_header::check_version(u32_at(8)?, OLDEST_VERSION, VERSION)?;
        let kind = u32_at(20)?;
        if kind != VALUE_KIND_I8_POINTS && kind != VALUE_KIND_I8_DISTANCE {
            return Err(FormatError::Corrupt(format!(
                "unknown value kind {}",
                u32_at(20)?
            )));
        }
        let header_len = u32_at(12)? as usize;
        let rules_len = u32_at(56)? as usize;
        if !header_len.is_multiple_of(64)
            || FIXED + rules_len > header_len
            || header_len > bytes.len()
        {
            return Err(FormatError::Corrupt("bad header length".to_string()));
        }
        let rules = std::str::from_utf8(&bytes[FIXED..FIXED + rules_len])
            .map_err(|_| FormatError::Corrupt("the rules string is not UTF-8".to_string()))?
            .to_string();
        let header = Header {
            version,
            rules,
            layer: u32_at(16)?,
            kind,
            entries: u64_at(24)?,
            first: u64_at(32)?,
            count: u64_at(40)?,
            checksum: u64_at(48)?,
        };
        if header.len() != header_len
            || header
                .first
                .checked_add(header.count)
                .is_none_or(|end| end > header.entries)
        {
            return Err(FormatError::Corrupt("inconsistent header".to_string()));
        }
        Ok(header)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum FormatError {
    #[error("not a sowfan table (no SOWFANTB header)")]
    NotATable,
    #[error(
        "table format version {0}; this sowfan reads versions {OLDEST_VERSION} to {VERSION} \
         (rebuild the tables with this sowfan, or use the sowfan that wrote them)"
    )]
    Version(u32),
    #[error("corrupt table: {0}")]
    Corrupt(String),
}

/// A table's frame (its magic, its version) as a table's error says it.
impl From<HeaderError> for FormatError {
    fn from(error: HeaderError) -> FormatError {
        match error {
            HeaderError::WrongMagic | HeaderError::Truncated => FormatError::NotATable,
            HeaderError::UnsupportedVersion(found) => FormatError::Version(found),
            HeaderError::ChecksumMismatch => {
                FormatError::Corrupt("the data fails its checksum".to_string())
            }
        }
    }
}

/// The data checksum of a file of format `version`: [`file_header::checksum_v1`] for version
/// 1, [`file_header::checksum`] (XXH3-64) after it.
pub fn checksum_for(version: u32, data: &[u8]) -> u64 {
    if version == 1 {
        file_header::checksum_v1(data)
    } else {
        file_header::checksum(data)
    }
}

/// The folder of one rule set under a table directory: the rules with `_` for blanks.
pub fn rules_folder(dir: &Path, rules: &str) -> PathBuf {
    dir.join(rules.split_whitespace().collect::<Vec<_>>().join("_"))
}

/// The file of a whole layer.
pub fn layer_file(folder: &Path, layer: u32) -> PathBuf {
    folder.join(format!("layer-{layer:03}.sftb"))
}

/// The file of slice `shard` (from 1) of `shards` of a layer.
pub fn shard_file(folder: &Path, layer: u32, shard: u32, shards: u32) -> PathBuf {
    folder.join(format!("layer-{layer:03}.shard-{shard}-of-{shards}.sftb"))
}

/// What a table file's name says it holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileName {
    /// `layer-NNN.sftb`: the whole layer.
    Layer(u32),
    /// `layer-NNN.shard-I-of-K.sftb`: slice I (from 1) of K.
    Shard { layer: u32, shard: u32, shards: u32 },
}

impl FileName {
    /// Read a file name written by [`layer_file`] or [`shard_file`]; `None` for any other.
    pub fn parse(name: &str) -> Option<FileName> {
        let rest = name.strip_prefix("layer-")?.strip_suffix(".sftb")?;
        let (layer, shard) = match rest.split_once('.') {
            Some((layer, shard)) => (layer, Some(shard)),
            None => (rest, None),
        };
        let number = |text: &str| -> Option<u32> {
            (!text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()))
                .then(|| text.parse().ok())
                .flatten()
        };
        let layer = number(layer)?;
        let parsed = match shard {
            None => FileName::Layer(layer),
            Some(shard) => {
                let (i, k) = shard.strip_prefix("shard-")?.split_once("-of-")?;
                FileName::Shard {
                    layer,
                    shard: number(i)?,
                    shards: number(k)?,
                }
            }
        };
        // Only the canonical spelling: `layer-7.sftb` is not layer 7's file.
        let canonical = match parsed {
            FileName::Layer(l) => layer_file(Path::new(""), l),
            FileName::Shard {
                layer,
                shard,
                shards,
            } => shard_file(Path::new(""), layer, shard, shards),
        };
        (canonical.as_os_str() == name).then_some(parsed)
    }
}

/// Is `name` a temporary file of [`write_atomically`] (`layer-….tmp-PID`), left behind by a
/// writer that was killed?
pub fn is_temporary(name: &str) -> bool {
    name.starts_with("layer-")
        && name
            .rsplit_once(".tmp-")
            .is_some_and(|(_, pid)| !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit()))
}

/// Write `header` and `data` to `path` atomically: a temporary name in the same folder,
/// flushed to disk, then renamed.
pub fn write_atomically(path: &Path, header: &Header, data: &[u8]) -> std::io::Result<()> {
    let temporary = path.with_extension(format!("tmp-{}", std::process::id()));
    let result = (|| {
        // Whatever has the temporary name (a file left by a killed writer with this pid,
        // or a FIFO put there) goes first: the new file is created, never opened.
        let _ = std::fs::remove_file(&temporary);
        let file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&temporary)?;
        let mut out = BufWriter::with_capacity(1 << 20, file);
        out.write_all(&header.encode())?;
        out.write_all(data)?;
        let file = out.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()?;
        std::fs::rename(&temporary, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&temporary);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::file_header::{checksum, checksum_v1};

    #[test]
    fn headers_round_trip_and_reject_damage() {
        let header = Header {
            version: VERSION,
            rules: "kalah pits=6 empty-capture=true end=any-row leftovers=owner".to_string(),
            layer: 7,
            kind: VALUE_KIND_I8_POINTS,
            entries: 31_824,
            first: 0,
            count: 31_824,
            checksum: 0x1234,
        };
        let bytes = header.encode();
        assert_eq!(bytes.len() % 64, 0);
        assert_eq!(Header::decode(&bytes), Ok(header.clone()));
        let mut bad = bytes.clone();
        bad[0] = b'X';
        assert_eq!(Header::decode(&bad), Err(FormatError::NotATable));
        let mut bad = bytes.clone();
        bad[8] = 9;
        assert!(matches!(Header::decode(&bad), Err(FormatError::Version(9))));
        let mut bad = bytes.clone();
        bad[40] = 0xFF; // count beyond the layer
        assert!(matches!(Header::decode(&bad), Err(FormatError::Corrupt(_))));
        assert!(Header::decode(&bytes[..30]).is_err());
    }

    #[test]
    fn file_names_read_back() {
        assert_eq!(FileName::parse("layer-007.sftb"), Some(FileName::Layer(7)));
        assert_eq!(
            FileName::parse("layer-012.shard-2-of-3.sftb"),
            Some(FileName::Shard {
                layer: 12,
                shard: 2,
                shards: 3
            })
        );
        for bad in [
            "layer-7.sftb",
            "layer-007.sftbx",
            "layer-+07.sftb",
            "x.sftb",
            "layer-007.shard-a-of-3.sftb",
        ] {
            assert_eq!(FileName::parse(bad), None, "{bad}");
        }
        let temporary = layer_file(Path::new(""), 3).with_extension("tmp-42");
        assert!(is_temporary(&temporary.to_string_lossy()));
        assert!(!is_temporary("layer-003.sftb"));
    }

    #[test]
    fn the_checksums_see_every_byte() {
        let data: Vec<u8> = (0..1000u32).map(|i| (i * 7 % 251) as u8).collect();
        for sum in [checksum, checksum_v1] {
            let base = sum(&data);
            for at in [0, 7, 8, 500, 999] {
                let mut changed = data.clone();
                changed[at] ^= 1;
                assert_ne!(sum(&changed), base, "byte {at}");
            }
            assert_ne!(sum(&data[..999]), base);
        }
        // XXH3-64 as published: the empty input's value.
        assert_eq!(checksum(b""), 0x2D06_8005_38D3_94C2);
    }

    #[test]
    fn version_1_files_are_read_and_checked_with_their_own_checksum() {
        let data = [1u8, 2, 3, 250];
        let mut header = Header {
            version: VERSION,
            rules: "kalah pits=3".to_string(),
            layer: 2,
            kind: VALUE_KIND_I8_POINTS,
            entries: 4,
            first: 0,
            count: 4,
            checksum: checksum_v1(&data),
        };
        let mut bytes = header.encode();
        bytes[8..12].copy_from_slice(&1u32.to_le_bytes());
        let old = Header::decode(&bytes).expect("version 1 is read");
        assert_eq!(old.version, 1);
        assert_eq!(old.checksum_of(&data), old.checksum);
        header.checksum = checksum(&data);
        let new = Header::decode(&header.encode()).expect("version 2");
        assert_eq!(new.version, VERSION);
        assert_eq!(new.checksum_of(&data), new.checksum);
        bytes[8..12].copy_from_slice(&3u32.to_le_bytes());
        let refused = Header::decode(&bytes).expect_err("version 3 is refused");
        assert!(
            refused.to_string().contains("reads versions 1 to 2"),
            "{refused}"
        );
    }
}
