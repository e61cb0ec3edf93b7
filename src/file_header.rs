//! The frame of every binary file sowfan writes (tables, proofs, networks, training data,
//! training checkpoints; and the checksum of the proof's part files): an eight-byte magic
//! that says what the file is, a version, and a checksum that finds damage (not forgery).
//! Each format lays these out its own way and says what went wrong in its own words, so each
//! wraps [`HeaderError`]; what is read, checked and hashed is done here alone.
//!
//! The checksum of every file written today is XXH3-64 (seed 0), a documented, standard
//! hash that reads many gigabytes a second. The hashes of older versions are kept to read
//! their files: [`checksum_v1`] (table files of version 1).
//!
//! It sits at the bottom: every layer that reads or writes a file (utilities included) may
//! use it, and it uses nothing of the crate.

use thiserror::Error;

/// The first eight bytes of a file, naming its format.
pub type Magic = [u8; 8];

/// What is wrong with a file's frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum HeaderError {
    /// It begins with other bytes than the format's magic.
    #[error("wrong magic")]
    WrongMagic,
    /// A version this sowfan does not read.
    #[error("unsupported version {0}")]
    UnsupportedVersion(u32),
    /// The checksum stored is not the checksum of the bytes.
    #[error("checksum mismatch")]
    ChecksumMismatch,
    /// It ends before its frame does.
    #[error("truncated")]
    Truncated,
}

/// `bytes` begin with `magic`: [`HeaderError::Truncated`] when they are shorter than it,
/// [`HeaderError::WrongMagic`] when they begin otherwise.
pub fn check_magic(bytes: &[u8], magic: &Magic) -> Result<(), HeaderError> {
    match bytes.get(..magic.len()) {
        None => Err(HeaderError::Truncated),
        Some(start) if start != magic => Err(HeaderError::WrongMagic),
        Some(_) => Ok(()),
    }
}

/// Whether `bytes` could be the start of a file of `magic`: they agree with it as far as
/// both go (a file cut inside its magic is cut short, not of another format).
pub fn begins_like(bytes: &[u8], magic: &Magic) -> bool {
    let n = bytes.len().min(magic.len());
    bytes[..n] == magic[..n]
}

/// `found` when it is a version this sowfan reads (`oldest..=newest`).
pub fn check_version(found: u32, oldest: u32, newest: u32) -> Result<u32, HeaderError> {
    if (oldest..=newest).contains(&found) {
        Ok(found)
    } else {
        Err(HeaderError::UnsupportedVersion(found))
    }
}

/// The checksum `stored` in a file is `computed`, the one of its bytes.
pub fn check_checksum(stored: u64, computed: u64) -> Result<(), HeaderError> {
    if stored == computed {
        Ok(())
    } else {
        Err(HeaderError::ChecksumMismatch)
    }
}

/// `bytes` with their last eight removed, when those are the checksum ([`checksum`], little
/// endian) of the rest: the frame of a file that ends with the checksum of all before it.
pub fn split_checksum(bytes: &[u8]) -> Result<&[u8], HeaderError> {
    let at = bytes.len().checked_sub(8).ok_or(HeaderError::Truncated)?;
    let (body, sum) = bytes.split_at(at);
    check_checksum(read_u64(sum, 0)?, checksum(body))?;
    Ok(body)
}

/// `body` followed by its checksum ([`checksum`], little endian): what [`split_checksum`]
/// reads.
pub fn append_checksum(body: &mut Vec<u8>) {
    let sum = checksum(body);
    body.extend_from_slice(&sum.to_le_bytes());
}

/// The little-endian `u16` at `at`.
pub fn read_u16(bytes: &[u8], at: usize) -> Result<u16, HeaderError> {
    Ok(u16::from_le_bytes(field(bytes, at)?))
}

/// The little-endian `u32` at `at`.
pub fn read_u32(bytes: &[u8], at: usize) -> Result<u32, HeaderError> {
    Ok(u32::from_le_bytes(field(bytes, at)?))
}

/// The little-endian `u64` at `at`.
pub fn read_u64(bytes: &[u8], at: usize) -> Result<u64, HeaderError> {
    Ok(u64::from_le_bytes(field(bytes, at)?))
}

fn field<const N: usize>(bytes: &[u8], at: usize) -> Result<[u8; N], HeaderError> {
    at.checked_add(N)
        .and_then(|end| bytes.get(at..end))
        .and_then(|slice| slice.try_into().ok())
        .ok_or(HeaderError::Truncated)
}

/// The checksum of every file written today: XXH3-64 (seed 0).
pub fn checksum(data: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(data)
}

/// [`checksum`] computed piece by piece, for a file read or written as a stream.
pub type StreamingChecksum = xxhash_rust::xxh3::Xxh3;

/// The checksum of table files of version 1, kept to read those files: over the bytes as
/// little-endian 64-bit words (the last one padded with zeros), `h = (rotl(h, 5) ^ word) ×
/// 0x9E3779B97F4A7C15`, starting from the byte count, then a final avalanche.
pub fn checksum_v1(data: &[u8]) -> u64 {
    let mut h = data.len() as u64 ^ 0x5F0F_A17B_u64;
    let mut chunks = data.chunks_exact(8);
    for chunk in &mut chunks {
        let word = u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8]));
        h = (h.rotate_left(5) ^ word).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let mut last = [0u8; 8];
        last[..rest.len()].copy_from_slice(rest);
        h = (h.rotate_left(5) ^ u64::from_le_bytes(last)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
    h ^= h >> 33;
    h = h.wrapping_mul(0xFF51_AFD7_ED55_8CCD);
    h ^ (h >> 33)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_frame_is_checked_piece_by_piece() {
        let magic = b"SOWFANXX";
        assert_eq!(check_magic(b"SOWFAN", magic), Err(HeaderError::Truncated));
        assert_eq!(
            check_magic(b"SOWFANYY..", magic),
            Err(HeaderError::WrongMagic)
        );
        assert_eq!(check_magic(b"SOWFANXX..", magic), Ok(()));
        assert!(begins_like(b"SOWF", magic) && begins_like(b"SOWFANXX..", magic));
        assert!(!begins_like(b"SOWX", magic));
        assert_eq!(check_version(2, 1, 3), Ok(2));
        assert_eq!(
            check_version(4, 1, 3),
            Err(HeaderError::UnsupportedVersion(4))
        );
        let mut bytes = b"some body".to_vec();
        append_checksum(&mut bytes);
        assert_eq!(split_checksum(&bytes), Ok(&b"some body"[..]));
        bytes[0] ^= 1;
        assert_eq!(split_checksum(&bytes), Err(HeaderError::ChecksumMismatch));
        assert_eq!(split_checksum(b"short"), Err(HeaderError::Truncated));
        assert_eq!(read_u32(&[1, 0, 0, 0, 9], 0), Ok(1));
        assert_eq!(read_u32(&[1, 0, 0], 0), Err(HeaderError::Truncated));
        assert_eq!(read_u16(&[0, 2, 1], 1), Ok(0x0102));
    }

    #[test]
    fn the_checksums_are_the_ones_files_hold() {
        // XXH3-64 of the empty input, seed 0 (its published test vector).
        assert_eq!(checksum(b""), 0x2D06_8005_38D3_94C2);
        let mut streaming = StreamingChecksum::new();
        streaming.update(b"split ");
        streaming.update(b"in two");
        assert_eq!(streaming.digest(), checksum(b"split in two"));
        assert_ne!(checksum_v1(b"a"), checksum_v1(b"b"));
    }
}
