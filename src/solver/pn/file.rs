//! Proof files of the proof-number solver's table: [`crate::solver::save`] for a
//! [`PnTt`], without the root's record (the session keeps that).

use std::path::Path;

use crate::solver::save::{self, RootProof};
pub use crate::solver::save::{ProofFileError, ProofIdentity, ProofWork};

use super::tt::PnTt;

/// Save `table` as the proof of `identity` (see [`save::save`]); the buckets written.
pub fn save(
    path: &Path,
    identity: &ProofIdentity,
    work: ProofWork,
    table: &PnTt,
) -> Result<u64, ProofFileError> {
    save::save(path, identity, work, &RootProof::nothing(), table)
}

/// Load the proof of `identity` into `table` (see [`save::load`]); `Ok(None)`: no file.
pub fn load(
    path: &Path,
    identity: &ProofIdentity,
    table: &PnTt,
) -> Result<Option<ProofWork>, ProofFileError> {
    Ok(save::load(path, identity, table)?.map(|saved| saved.work))
}
