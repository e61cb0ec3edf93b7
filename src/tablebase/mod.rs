//! Endgame tables built by sowfan: the exact value of every position with at most N seeds
//! (stones) in play, one file per layer ([`format`](mod@format)), built by [`build`], read through
//! memory maps by [`Tables`].
//!
//! The value stored for a position is what the player to move still gains from the pieces in
//! play: the final margin (mover − opponent) minus the margin already banked (stores,
//! captured stones, komi). Banked points stay outside the table, so one table serves every
//! store content and every komi, and a byte an entry suffices. The game says how positions are
//! indexed ([`crate::game::Game::table_index`]); nothing here knows a rule.

pub mod build;
pub mod format;

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use memmap2::Mmap;
use thiserror::Error;

use crate::game::Game;
use format::{FormatError, Header};

#[derive(Debug, Error)]
pub enum TableError {
    #[error("no table directory '{0}'")]
    NoDirectory(PathBuf),
    #[error("'{path}': {error}")]
    Format { path: PathBuf, error: FormatError },
    #[error("'{path}': {message}")]
    Mismatch { path: PathBuf, message: String },
    #[error("'{path}': {error}")]
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error("{0} has no endgame tables")]
    Unsupported(String),
    #[error(
        "no endgame tables of '{rules}' in '{}' (expected '{}'; build them with 'sowfan \
         tablebase build')",
        dir.display(),
        expected.display()
    )]
    Absent {
        rules: String,
        dir: PathBuf,
        /// The first file looked for: layer 0 of these rules.
        expected: PathBuf,
    },
}

/// The tables `game` can use from `dir`, opened the way every user of tables (the protocol,
/// solve, analyse, play) opens them: `Ok(None)` when this game has no tables at all (nothing
/// to say); a directory without this game's tables is [`TableError::Absent`], whose text
/// says which file was looked for and how to build it. What each case means (an error, a
/// note, silence) is the caller's to decide.
pub fn open_for_use<G: Game>(game: &G, dir: &Path) -> Result<Option<Arc<Tables>>, TableError> {
    match Tables::open(game, dir) {
        Ok(Some(tables)) => Ok(Some(Arc::new(tables))),
        Ok(None) => {
            let rules = game.table_rules().unwrap_or_default();
            Err(TableError::Absent {
                expected: format::layer_file(&format::rules_folder(dir, &rules), 0),
                dir: dir.to_path_buf(),
                rules,
            })
        }
        Err(TableError::Unsupported(_)) => Ok(None),
        Err(e) => Err(e),
    }
}

/// One layer's values, memory-mapped.
struct Layer {
    map: Mmap,
    offset: usize,
}

/// The tables of one rule set found in a directory: layers 0..=max_layer, all present.
pub struct Tables {
    rules: String,
    folder: PathBuf,
    layers: Vec<Layer>,
}

impl Tables {
    /// Open the tables of `game`'s rules under `dir`: every layer from 0 up to the first
    /// missing one, headers checked against the rules and the layer sizes (the data is not
    /// read: pages come in as positions are probed). `Ok(None)` when the directory holds no
    /// layer of these rules.
    pub fn open<G: Game>(game: &G, dir: &Path) -> Result<Option<Tables>, TableError> {
        let rules = game
            .table_rules()
            .ok_or_else(|| TableError::Unsupported(game.spec()))?;
        if !dir.is_dir() {
            return Err(TableError::NoDirectory(dir.to_path_buf()));
        }
        let folder = format::rules_folder(dir, &rules);
        let mut layers = Vec::new();
        loop {
            let layer = layers.len() as u32;
            let path = format::layer_file(&folder, layer);
            if !path.exists() {
                break;
            }
            let (header, map) = open_layer(&path)?;
            let expected = game.table_layer_size(layer);
            let mismatch = |message: String| TableError::Mismatch {
                path: path.clone(),
                message,
            };
            if header.rules != rules {
                return Err(mismatch(format!(
                    "holds '{}', expected '{rules}'",
                    header.rules
                )));
            }
            if header.layer != layer || !header.is_whole_layer() || header.entries != expected {
                return Err(mismatch(format!(
                    "expected the whole layer {layer} of {expected} entries, found layer {} \
                     entries {}..{} of {}",
                    header.layer,
                    header.first,
                    header.first + header.count,
                    header.entries
                )));
            }
            if map.len() != header.len() + header.count as usize {
                return Err(mismatch(format!(
                    "{} bytes, expected {}",
                    map.len(),
                    header.len() + header.count as usize
                )));
            }
            layers.push(Layer {
                offset: header.len(),
                map,
            });
        }
        if layers.is_empty() {
            return Ok(None);
        }
        Ok(Some(Tables {
            rules,
            folder,
            layers,
        }))
    }

    pub fn rules(&self) -> &str {
        &self.rules
    }

    pub fn folder(&self) -> &Path {
        &self.folder
    }

    /// The largest layer held (every smaller one is held too).
    pub fn max_layer(&self) -> u32 {
        self.layers.len() as u32 - 1
    }

    /// `final − banked` of `pos` for the mover, in half-points, if a table covers it.
    #[inline]
    pub fn probe<G: Game>(&self, game: &G, pos: &G::Position) -> Option<i32> {
        let (layer, index) = game.table_index(pos, self.max_layer())?;
        let layer = self.layers.get(layer as usize)?;
        let byte = *layer.map.get(layer.offset + index as usize)?;
        Some(2 * (byte as i8) as i32)
    }

    /// Start loading the entry of `pos` into the cache, if a table covers it.
    #[inline]
    pub fn prefetch<G: Game>(&self, game: &G, pos: &G::Position) {
        if let Some((layer, index)) = game.table_index(pos, self.max_layer())
            && let Some(layer) = self.layers.get(layer as usize)
            && let Some(byte) = layer.map.get(layer.offset + index as usize)
        {
            crate::memory::prefetch(byte as *const u8);
        }
    }

    /// The stored value of entry `index` of `layer` (whole points), for tools and tests.
    pub fn value(&self, layer: u32, index: u64) -> Option<i8> {
        let layer = self.layers.get(layer as usize)?;
        layer
            .map
            .get(layer.offset + index as usize)
            .map(|&b| b as i8)
    }
}

/// Map a table file and read its header.
pub fn open_layer(path: &Path) -> Result<(Header, Mmap), TableError> {
    let io = |error| TableError::Io {
        path: path.to_path_buf(),
        error,
    };
    let file = File::open(path).map_err(io)?;
    // SAFETY: the map is read-only and table files are never modified in place (they are
    // written under a temporary name and renamed); a file truncated by someone else while
    // mapped would be a fault we cannot rule out, as for any mapped file.
    let map = unsafe { Mmap::map(&file) }.map_err(io)?;
    let header = Header::decode(&map).map_err(|error| TableError::Format {
        path: path.to_path_buf(),
        error,
    })?;
    Ok((header, map))
}

/// Where tables are looked for when no directory is given: `$SOWFAN_TABLEBASES`, else
/// `$XDG_DATA_HOME/sowfan/tablebases`, else `~/.local/share/sowfan/tablebases`.
pub fn default_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("SOWFAN_TABLEBASES").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(dir));
    }
    let data = std::env::var_os("XDG_DATA_HOME")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME")
                .filter(|d| !d.is_empty())
                .map(|home| PathBuf::from(home).join(".local/share"))
        })?;
    Some(data.join("sowfan").join("tablebases"))
}
