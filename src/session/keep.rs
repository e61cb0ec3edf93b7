//! A proof kept on disk while it runs ([`crate::solver::save`]): resumed from `--resume`,
//! saved to `--save` every `--checkpoint`, when stopped and when done, with what is proven of
//! the root (its bounds, its moves' values) — for both solvers' tables.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Instant;

use thiserror::Error;

use super::solve_request::SolveRequest;
use crate::solver::save::{self, ProofFileError, ProofIdentity, ProofTt, ProofWork, RootProof};

/// Why a proof's files could not be taken up ([`Keeper::open`]).
#[derive(Debug, Error)]
pub enum KeepError {
    /// `--save` is held by another run, or its lock cannot be made (the lock's own words).
    #[error("{0}")]
    SaveLock(String),
    #[error(transparent)]
    Load(#[from] ProofFileError),
    #[error("--resume '{}': there is no such file (start a proof with --save)", .0.display())]
    NoResumeFile(PathBuf),
    /// The file's record of the root's moves is not the position's.
    #[error(
        "proof file '{}' is damaged: it records {recorded} root moves, the position has {moves}",
        path.display()
    )]
    RootMoves {
        path: PathBuf,
        recorded: usize,
        moves: usize,
    },
    /// Saving to `--save` failed (the proof itself goes on, or has ended).
    #[error(transparent)]
    Save(ProofFileError),
}

/// A [`KeepError`] shared: a [`SolvingError`](super::SolvingError) is cloned to whoever
/// waits on the solve, and an io error is neither `Clone` nor `PartialEq`. Two are equal
/// when they say the same.
#[derive(Debug, Clone, Error)]
#[error(transparent)]
pub struct SharedKeepError(pub Arc<KeepError>);

impl PartialEq for SharedKeepError {
    fn eq(&self, other: &SharedKeepError) -> bool {
        self.0.to_string() == other.0.to_string()
    }
}

impl Eq for SharedKeepError {}

impl From<KeepError> for SharedKeepError {
    fn from(error: KeepError) -> SharedKeepError {
        SharedKeepError(Arc::new(error))
    }
}

/// One proof's file keeping, for one run.
pub(super) struct Keeper<'a> {
    request: &'a SolveRequest,
    identity: ProofIdentity,
    /// What earlier runs spent (from the file resumed).
    pub earlier: ProofWork,
    /// The file resumed held work.
    pub resumed: bool,
    started: Instant,
    root: Mutex<RootProof>,
    /// Nodes of this run so far, as the solver last told them (for checkpoints).
    nodes: AtomicU64,
    /// The checkpoint thread's end.
    done: Mutex<bool>,
    wake: Condvar,
    /// `--save`, held against another proof saving to it for as long as this one runs.
    _save_lock: Option<crate::cli::OutputLock>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl<'a> Keeper<'a> {
    /// Load `request.resume` into `table` (empty) when asked: `moves` is the root's number
    /// of legal moves, which a file's record of them must match.
    pub fn open<T: ProofTt>(
        request: &'a SolveRequest,
        identity: ProofIdentity,
        moves: usize,
        table: &T,
    ) -> Result<Keeper<'a>, KeepError> {
        let save_lock = request
            .save
            .as_deref()
            .map(|path| {
                crate::cli::OutputLock::file("--save", path, "solve")
                    .map_err(|e| KeepError::SaveLock(e.to_string()))
            })
            .transpose()?;
        let mut keeper = Keeper {
            request,
            identity,
            earlier: ProofWork::default(),
            resumed: false,
            started: Instant::now(),
            root: Mutex::new(RootProof::nothing()),
            nodes: AtomicU64::new(0),
            done: Mutex::new(false),
            wake: Condvar::new(),
            _save_lock: save_lock,
        };
        let Some(path) = &request.resume else {
            return Ok(keeper);
        };
        match save::load(path, &keeper.identity, table)? {
            None if request.resume_optional => {}
            None => return Err(KeepError::NoResumeFile(path.clone())),
            Some(saved) => {
                if !saved.root.moves.is_empty() && saved.root.moves.len() != moves {
                    table.clear();
                    return Err(KeepError::RootMoves {
                        path: path.clone(),
                        recorded: saved.root.moves.len(),
                        moves,
                    });
                }
                log::info!(
                    "proof file '{}': resumed a proof of {} nodes, {} s",
                    path.display(),
                    saved.work.nodes,
                    saved.work.millis / 1000
                );
                keeper.earlier = saved.work;
                keeper.resumed = true;
                *lock(&keeper.root) = saved.root;
            }
        }
        Ok(keeper)
    }

    /// The value of root move `index` proven by an earlier run.
    pub fn known_move(&self, index: usize) -> Option<i32> {
        lock(&self.root).moves.get(index).copied().flatten()
    }

    /// Root move `index` (of `moves`) is proven to be worth `value`.
    pub fn proven_move(&self, index: usize, moves: usize, value: i32) {
        let mut root = lock(&self.root);
        root.moves.resize(moves, None);
        if let Some(slot) = root.moves.get_mut(index) {
            *slot = Some(value);
        }
    }

    /// The root's value is proven to lie in `lower..=upper`.
    pub fn proven_bounds(&self, lower: i32, upper: i32) {
        let mut root = lock(&self.root);
        match root.bounds() {
            Some((l, u)) => (root.lower, root.upper) = (l.max(lower), u.min(upper)),
            None => (root.lower, root.upper) = (lower, upper),
        }
    }

    /// This run's nodes so far (what a checkpoint records).
    pub fn count(&self, nodes: u64) {
        self.nodes.store(nodes, Ordering::Relaxed);
    }

    /// Save the proof (`nodes`: this run's) if asked to; the buckets written.
    pub fn save<T: ProofTt>(&self, table: &T, nodes: u64) -> Result<u64, KeepError> {
        let Some(path) = &self.request.save else {
            return Ok(0);
        };
        let work = ProofWork {
            nodes: self.earlier.nodes + nodes,
            millis: self.earlier.millis + self.started.elapsed().as_millis() as u64,
        };
        let root = lock(&self.root).clone();
        let saving = Instant::now();
        let buckets =
            save::save(path, &self.identity, work, &root, table).map_err(KeepError::Save)?;
        log::info!(
            "proof file '{}': saved {buckets} buckets in {} ms",
            path.display(),
            saving.elapsed().as_millis()
        );
        Ok(buckets)
    }

    /// A save between two others: a failure is a warning, the proof goes on.
    pub fn checkpoint<T: ProofTt>(&self, table: &T, nodes: u64) {
        if let Err(e) = self.save(table, nodes) {
            log::warn!("checkpoint: {e}");
        }
    }

    /// Run `work` while a thread saves `table` every `--checkpoint` (the table is shared
    /// and lock-free: a save is a snapshot of entries, each whole). Without `--save`, or
    /// when the system refuses the thread (then with a warning), `work` runs alone.
    pub fn with_checkpoints<T: ProofTt + Sync, R>(
        &self,
        table: &T,
        stop: &AtomicBool,
        work: impl FnOnce() -> R,
    ) -> R {
        if self.request.save.is_none() {
            return work();
        }
        *lock(&self.done) = false;
        std::thread::scope(|scope| {
            let saver = std::thread::Builder::new()
                .name("checkpoint".to_string())
                .spawn_scoped(scope, || {
                    let mut done = lock(&self.done);
                    let mut due = Instant::now() + self.request.checkpoint;
                    // `done` is looked at before every wait: the work may end before this
                    // thread first waits, and its wake-up would be lost.
                    while !*done && !stop.load(Ordering::Relaxed) {
                        let now = Instant::now();
                        if now >= due {
                            self.checkpoint(table, self.nodes.load(Ordering::Relaxed));
                            due = Instant::now() + self.request.checkpoint;
                            continue;
                        }
                        done = self
                            .wake
                            .wait_timeout(done, due - now)
                            .unwrap_or_else(|e| e.into_inner())
                            .0;
                    }
                });
            if let Err(e) = &saver {
                log::warn!(
                    "checkpoint: cannot start the thread that saves ({e}); saving at the end only"
                );
            }
            let result = work();
            *lock(&self.done) = true;
            self.wake.notify_all();
            result
        })
    }
}
