//! What a proof file ([`crate::solver::save`]) needs of a solver's table, apart from the
//! file code, so that the tables (which implement it) and the file code (which uses them)
//! import it from below instead of from each other.

/// Words of a bucket: 4 entries of 2 words.
pub const BUCKET_WORDS: usize = 8;

/// What a proof file needs of a table.
pub trait ProofTt {
    /// The file's first 8 bytes: which solver's table it holds.
    const MAGIC: &'static [u8; 8];
    /// The oldest version of the file this table reads (1: no root section).
    const OLDEST_VERSION: u32;
    fn bucket_count(&self) -> usize;
    /// The words of bucket `index` (< `bucket_count`), all zero when it is empty.
    fn bucket_words(&self, index: usize) -> [u64; BUCKET_WORDS];
    /// Write bucket `index`'s words (checked with [`ProofTt::valid_entry`] first).
    fn set_bucket_words(&self, index: usize, words: &[u64; BUCKET_WORDS]);
    /// Could an entry's two words have been written by the table (or is it empty)?
    fn valid_entry(first: u64, second: u64) -> bool;
    /// Forget everything.
    fn clear(&self);
}
