//! Endgame tables built by sowfan: the exact value of every position with at most N seeds
//! (stones) in play, one file per layer ([`format`](mod@format)), built by [`build`], read through
//! memory maps by [`Tables`].
//!
//! The value stored for a position is, for scored games (Kalah, Afrika), what the player to
//! move still gains from the pieces in play: the final margin (mover − opponent) minus the
//! margin already banked (stores, captured stones, komi). Banked points stay outside the
//! table, so one table serves every store content and every komi, and a byte an entry
//! suffices. For games won or lost under a limit on turns inside a layer (Fanorona's
//! quiet-limit), the byte is win/draw/loss with the turns the result needs, so that a probe
//! is exact whatever the counter ([`crate::game::TableValues`]). The game says how positions
//! are indexed ([`TableIndexing::table_index`](crate::game::TableIndexing::table_index)) and what a byte means; nothing here knows
//! a rule.

pub mod build;
pub mod format;
mod job;
pub mod mapped;
pub mod probe_bench;
mod retro;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::Ordering;

use thiserror::Error;

use crate::game::{Game, TableValues};
use format::{FormatError, Header};
use mapped::{Health, MappedFile, OpenError};

#[derive(Debug, Error)]
pub enum TableError {
    #[error("no table directory '{0}'")]
    NoDirectory(PathBuf),
    #[error("'{path}': {error}")]
    Format { path: PathBuf, error: FormatError },
    #[error("'{path}': {message}")]
    Mismatch { path: PathBuf, message: String },
    #[error("'{path}': {error}")]
    Open { path: PathBuf, error: OpenError },
    #[error("'{path}': damaged: {message}")]
    Damaged { path: PathBuf, message: String },
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

/// One layer's values, mapped under the guard of [`mapped`].
struct Layer {
    file: MappedFile,
    offset: usize,
    /// The data's checksum as the header gives it, and the format version that says how it
    /// is computed ([`format::Header::checksum_of`]).
    checksum: u64,
    version: u32,
    /// The values this layer can hold (see [`value_range`]).
    low: i8,
    high: i8,
}

/// The tables of one rule set found in a directory: layers 0..=max_layer, all present.
///
/// The tables stop answering (every probe says "not covered", so searches go on without
/// them and stay correct) once they are found damaged: a file that shrank under its mapping
/// (the SIGBUS guard of [`mapped`]), a file written since it was opened (checked by
/// [`Tables::failure`]), or a value no position of its layer can have. [`Tables::failure`]
/// says which and why.
pub struct Tables {
    rules: String,
    folder: PathBuf,
    layers: Vec<Layer>,
    health: Arc<Health>,
    values: TableValues,
}

impl Tables {
    /// Open the tables of `game`'s rules under `dir`: every layer from 0 up to the first
    /// missing one, each a regular file whose header, name and size are what these rules
    /// need ([`check_header`]; the data is not read: pages come in as positions are
    /// probed). `Ok(None)` when the directory holds no layer of these rules.
    pub fn open<G: Game>(game: &G, dir: &Path) -> Result<Option<Tables>, TableError> {
        let rules = game
            .table_rules()
            .ok_or_else(|| TableError::Unsupported(game.spec()))?;
        if !dir.is_dir() {
            return Err(TableError::NoDirectory(dir.to_path_buf()));
        }
        let folder = format::rules_folder(dir, &rules);
        let health = Arc::new(Health::default());
        let mut layers = Vec::new();
        while layers.len() <= MAX_LAYER as usize {
            let layer = layers.len() as u32;
            let path = format::layer_file(&folder, layer);
            // A dangling symlink counts as present: opening it says what is wrong.
            if std::fs::symlink_metadata(&path).is_err() {
                break;
            }
            let (header, file) = open_file(&path, &health)?;
            check_header(game, &path, &header, file.bytes().len())?;
            if header.layer != layer || !header.is_whole_layer() {
                return Err(TableError::Mismatch {
                    path,
                    message: format!("expected the whole layer {layer}"),
                });
            }
            let (low, high) = value_range(game, layer);
            layers.push(Layer {
                offset: header.len(),
                checksum: header.checksum,
                version: header.version,
                low,
                high,
                file,
            });
        }
        if layers.is_empty() {
            return Ok(None);
        }
        Ok(Some(Tables {
            rules,
            folder,
            layers,
            health,
            values: game.table_values(),
        }))
    }

    /// The same tables held in memory instead of mapped ([`MappedFile::to_memory`]): worth
    /// its reading time for a long proof over big tables, which then probes them without
    /// page faults and mostly without address-translation misses. Fails, leaving `self` as
    /// it was, when memory cannot be had or a file changed since it was opened. Every byte
    /// is read, so each layer's data is checked against its checksum: a layer that does not
    /// match marks the tables damaged (both these and `self`: [`Tables::failure`] says which
    /// file), and they answer nothing.
    pub fn to_memory(&self) -> Result<Tables, TableError> {
        let mut layers = Vec::with_capacity(self.layers.len());
        for layer in &self.layers {
            let file = layer.file.to_memory().map_err(|error| TableError::Open {
                path: layer.file.path().to_path_buf(),
                error,
            })?;
            let sum = format::checksum_for(
                layer.version,
                file.bytes().get(layer.offset..).unwrap_or_default(),
            );
            if sum != layer.checksum {
                self.health.fail(format!(
                    "'{}': checksum {sum:016x}, the header says {:016x}: the data is damaged \
                     ('sowfan tablebase verify' checks every file)",
                    file.path().display(),
                    layer.checksum
                ));
            }
            layers.push(Layer { file, ..*layer });
        }
        Ok(Tables {
            rules: self.rules.clone(),
            folder: self.folder.clone(),
            layers,
            health: Arc::clone(&self.health),
            values: self.values,
        })
    }

    /// Whether the tables are held in memory ([`Tables::to_memory`]) rather than mapped.
    pub fn in_memory(&self) -> bool {
        self.layers.iter().all(|layer| layer.file.in_memory())
    }

    /// What the bytes of these tables mean.
    pub fn values(&self) -> TableValues {
        self.values
    }

    pub fn rules(&self) -> &str {
        &self.rules
    }

    pub fn folder(&self) -> &Path {
        &self.folder
    }

    /// Bytes of the table files mapped (what they may add to the resident memory of the
    /// process as their pages are read).
    pub fn mapped_bytes(&self) -> u64 {
        self.layers
            .iter()
            .map(|layer| layer.file.bytes().len() as u64)
            .sum()
    }

    /// The largest layer held (every smaller one is held too).
    pub fn max_layer(&self) -> u32 {
        self.layers.len() as u32 - 1
    }

    /// `final − banked` of `pos` for the mover, in half-points, if a table covers it and
    /// the tables are sound (for distance tables: under the turns `pos` has left). The
    /// byte is read first and the health flag checked after, so a read that faulted (and
    /// read a zero page) is never served; a value beyond what its layer allows breaks the
    /// tables.
    #[inline]
    pub fn probe<G: Game>(&self, game: &G, pos: &G::Position) -> Option<i32> {
        let byte = self.probe_byte(game, pos)?;
        Some(self.decode(game, pos, byte))
    }

    /// [`Tables::probe`] with the distance the value needs, in turns (distance tables:
    /// the turns to the end of the layer; `None` for a draw or a margin table).
    pub fn probe_entry<G: Game>(&self, game: &G, pos: &G::Position) -> Option<(i32, Option<u32>)> {
        let byte = self.probe_byte(game, pos)?;
        let value = self.decode(game, pos, byte);
        Some((value, self.values.distance(byte).filter(|_| value != 0)))
    }

    #[inline]
    fn decode<G: Game>(&self, game: &G, pos: &G::Position, byte: i8) -> i32 {
        match self.values {
            TableValues::Margin => 2 * byte as i32,
            values => values.value(byte, game.table_turns_left(pos)),
        }
    }

    /// [`Tables::probe`] of a position whose [`TableIndexing::table_index`](crate::game::TableIndexing::table_index) (with
    /// [`Tables::max_layer`]) is known: `at`.
    #[inline]
    pub fn probe_at<G: Game>(&self, game: &G, pos: &G::Position, at: (u32, u64)) -> Option<i32> {
        let byte = self.probe_byte_at(at)?;
        Some(self.decode(game, pos, byte))
    }

    /// The stored byte of `pos`, checked as [`Tables::probe`] says.
    #[inline]
    fn probe_byte<G: Game>(&self, game: &G, pos: &G::Position) -> Option<i8> {
        self.probe_byte_at(game.table_index(pos, self.max_layer())?)
    }

    #[inline]
    fn probe_byte_at(&self, (layer, index): (u32, u64)) -> Option<i8> {
        let layer = self.layers.get(layer as usize)?;
        let byte = read_byte(layer.file.bytes().get(layer.offset + index as usize)?);
        if self.health.broken.load(Ordering::Relaxed) {
            return None;
        }
        if byte < layer.low || byte > layer.high {
            self.implausible(layer, index, byte);
            return None;
        }
        Some(byte)
    }

    #[cold]
    #[inline(never)]
    fn implausible(&self, layer: &Layer, index: u64, byte: i8) {
        self.health.fail(format!(
            "'{}': entry {index} holds {byte}, but no position of this layer can have a \
             value outside {}..={} (the file is damaged; 'sowfan tablebase verify' checks \
             every entry)",
            layer.file.path().display(),
            layer.low,
            layer.high
        ));
    }

    /// Whether the value the tables give `pos` is the one its moves give: the best, for its
    /// mover, of every child's value (the end of the game, or the tables again). A file
    /// damaged in a way its values' range cannot show (a win turned into a loss) is found
    /// here before its value decides a root: the tables are then marked damaged
    /// ([`Tables::failure`] says where) and stop answering. One probe a legal move, so cheap
    /// enough wherever a table value decides the answer for a position (`go`, `solve`,
    /// `analyse`, `d`). True when the tables do not cover `pos` or a child (nothing to
    /// compare), or are already broken.
    pub fn check_consistent<G: Game>(&self, game: &G, pos: &G::Position) -> bool {
        if game.outcome(pos).is_some() {
            return true;
        }
        let Some(stored) = self.exact_value(game, pos) else {
            return true;
        };
        let mover = game.to_move(pos);
        let mut moves = Vec::new();
        game.legal_moves(pos, &mut moves);
        let mut best: Option<(i32, G::Move)> = None;
        for &mv in &moves {
            let mut child = pos.clone();
            game.play(&mut child, mv);
            let Some(value) = self.exact_value(game, &child) else {
                return true;
            };
            let value = if game.to_move(&child) == mover {
                value
            } else {
                -value
            };
            if best.is_none_or(|(b, _)| value > b) {
                best = Some((value, mv));
            }
        }
        let Some((best, mv)) = best else {
            return true;
        };
        if best == stored {
            return true;
        }
        let path = game
            .table_index(pos, self.max_layer())
            .and_then(|(layer, _)| self.layers.get(layer as usize))
            .map_or_else(|| self.folder.clone(), |l| l.file.path().to_path_buf());
        self.health.fail(format!(
            "'{}': the tables value {} at {stored}, but its best move, {}, is worth {best} \
             (the file is damaged; 'sowfan tablebase verify' checks every entry)",
            path.display(),
            game.format_position(pos),
            game.format_move(pos, mv),
        ));
        false
    }

    /// The final value of `pos` for its mover (half-points), when known: the end of the game,
    /// or the banked value and what the tables say of the rest.
    fn exact_value<G: Game>(&self, game: &G, pos: &G::Position) -> Option<i32> {
        match game.outcome(pos) {
            Some(outcome) => Some(game.final_value(&outcome, game.to_move(pos))),
            None => Some(game.banked_value(pos) + self.probe(game, pos)?),
        }
    }

    /// Start loading the entry of `pos` into the cache, if a table covers it.
    #[inline]
    pub fn prefetch<G: Game>(&self, game: &G, pos: &G::Position) {
        if let Some(at) = game.table_index(pos, self.max_layer()) {
            self.prefetch_at(at);
        }
    }

    /// [`Tables::prefetch`] of a position whose table index is known.
    #[inline]
    pub fn prefetch_at(&self, (layer, index): (u32, u64)) {
        if let Some(layer) = self.layers.get(layer as usize)
            && let Some(byte) = layer.file.bytes().get(layer.offset + index as usize)
        {
            crate::memory::prefetch(byte as *const u8);
        }
    }

    /// The stored value of entry `index` of `layer` (whole points), for tools and tests.
    pub fn value(&self, layer: u32, index: u64) -> Option<i8> {
        let layer = self.layers.get(layer as usize)?;
        let byte = read_byte(layer.file.bytes().get(layer.offset + index as usize)?);
        (!self.health.broken.load(Ordering::SeqCst)).then_some(byte)
    }

    /// Why these tables no longer answer, if they do not: a file that shrank under its
    /// mapping, a file written since it was opened (one `fstat` a layer, so cheap enough
    /// before each search or proof), a damaged value. Checking breaks them if a file
    /// changed.
    pub fn failure(&self) -> Option<String> {
        if !self.health.broken.load(Ordering::SeqCst)
            && let Some(reason) = self.layers.iter().find_map(|l| l.file.changed())
        {
            self.health.fail(reason);
        }
        if !self.health.broken.load(Ordering::SeqCst) {
            return None;
        }
        let reason = self
            .health
            .reason()
            .or_else(|| {
                // A fault (the handler cannot say why) first, else any other change.
                let faulted = self.layers.iter().find(|l| l.file.faulted());
                faulted.and_then(|l| l.file.changed())
            })
            .or_else(|| self.layers.iter().find_map(|l| l.file.changed()))
            .unwrap_or_else(|| "a table file changed while in use".to_string());
        Some(format!(
            "endgame tables in '{}' unusable: {reason}; going on without them",
            self.folder.display()
        ))
    }

    /// [`Tables::failure`], but only the first time it is found (for a consumer that says it
    /// once); later calls say nothing.
    pub fn new_failure(&self) -> Option<String> {
        let failure = self.failure()?;
        (!self.health.reported.swap(true, Ordering::SeqCst)).then_some(failure)
    }
}

/// A mapped byte, read before anything that follows: the read may fault and be repaired by
/// the SIGBUS guard (which sets the health flag the caller checks next), so neither the
/// compiler may move the flag's load before it nor assume the byte unchanged. On the
/// faulting thread the processor keeps program order with its own signal handler; the
/// fence costs no instruction.
#[inline(always)]
fn read_byte(byte: &u8) -> i8 {
    // SAFETY: a valid reference to a mapped byte; a volatile read of it is a plain load.
    let value = unsafe { std::ptr::read_volatile(byte) } as i8;
    std::sync::atomic::compiler_fence(Ordering::SeqCst);
    value
}

/// The highest layer a table can have: its values must fit a signed byte, whose lowest
/// value (−128) is the builder's "unknown".
pub const MAX_LAYER: u32 = i8::MAX as u32;

/// The most seeds (stones) in play such that layers `0..=top` hold every position with that
/// many: what tables up to `top` cover, in the words a user builds them with (`--seeds`,
/// `--pieces`; [`TableIndexing::table_top_layer`](crate::game::TableIndexing::table_top_layer)). `None` when they cover no count whole.
pub fn in_play_covered<G: Game>(game: &G, top: u32) -> Option<u32> {
    let mut covered = None;
    // Counts below 2 may hold no layer (Fanorona's first is one stone a side).
    for in_play in 0..=(2 * MAX_LAYER + 2) {
        match game.table_top_layer(in_play) {
            Some(layer) if layer <= top => covered = Some(in_play),
            Some(_) => break,
            None => {}
        }
    }
    covered
}

/// The values an entry of `layer` can hold. Margin tables: ± what the layer has at stake
/// in whole points (the positions of a layer have the same pieces in play, so what the
/// first one has at stake bounds them all; Kalah and Afrika: the seeds in play, the layer
/// itself), at most 127. Distance tables: a win within the limit (`limit`) down to a loss
/// within it (`-(limit + 1)`). The builder's "unknown" (−128) is never a value.
pub fn value_range<G: Game>(game: &G, layer: u32) -> (i8, i8) {
    match game.table_values() {
        TableValues::Margin => {
            let stake = (0..game.table_layer_size(layer).min(64))
                .find_map(|index| game.table_position(layer, index))
                .and_then(|pos| game.value_at_stake(&pos));
            let bound = match stake {
                Some(halves) => (halves / 2).clamp(0, i8::MAX as i32) as i8,
                None => i8::MAX,
            };
            (-bound, bound)
        }
        TableValues::Distance { limit, .. } => {
            let limit = limit.min(crate::game::MAX_TABLE_DISTANCE) as i8;
            (-limit - 1, limit)
        }
    }
}

/// Open a table file (a regular file, never blocking) and read its header.
pub fn open_file(path: &Path, health: &Arc<Health>) -> Result<(Header, MappedFile), TableError> {
    let file = MappedFile::open(path, health).map_err(|error| TableError::Open {
        path: path.to_path_buf(),
        error,
    })?;
    let header = Header::decode(file.bytes()).map_err(|error| TableError::Format {
        path: path.to_path_buf(),
        error,
    })?;
    Ok((header, file))
}

/// [`open_file`] on its own: the file and its header, for tools that look at one file.
pub fn open_alone(path: &Path) -> Result<(Header, MappedFile), TableError> {
    open_file(path, &Arc::new(Health::default()))
}

/// Everything a table file must be for `game`'s rules, whatever its data: checked alike by
/// the loader, the builder, `merge` and `verify`. The header names these rules, the folder
/// is these rules' folder, the file's name matches the layer (or the slice) the header
/// names, the layer has the entries the game counts, and the file's length is the header's
/// and the data's.
pub fn check_header<G: Game>(
    game: &G,
    path: &Path,
    header: &Header,
    file_len: usize,
) -> Result<(), TableError> {
    let mismatch = |message: String| TableError::Mismatch {
        path: path.to_path_buf(),
        message,
    };
    let rules = game
        .table_rules()
        .ok_or_else(|| TableError::Unsupported(game.spec()))?;
    if header.rules != rules {
        return Err(mismatch(format!(
            "holds '{}', expected '{rules}'",
            header.rules
        )));
    }
    let kind = format::value_kind(game.table_values());
    if header.kind != kind {
        return Err(mismatch(format!(
            "value kind {}, these rules' tables have kind {kind}",
            header.kind
        )));
    }
    let folder = format::rules_folder(Path::new(""), &rules);
    // `./layer-000.sftb` (a tool run inside the folder): the folder's real name.
    let parent = path.parent().and_then(|p| match p.file_name() {
        Some(name) => Some(name.to_os_string()),
        None => p.canonicalize().ok()?.file_name().map(|n| n.to_os_string()),
    });
    if parent.as_deref() != Some(folder.as_os_str()) {
        return Err(mismatch(format!(
            "tables of '{rules}' belong in a folder named '{}'",
            folder.display()
        )));
    }
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(format::FileName::parse);
    let layer = header.layer;
    if layer > MAX_LAYER {
        return Err(mismatch(format!(
            "layer {layer} (tables go up to {MAX_LAYER})"
        )));
    }
    let entries = game.table_layer_size(layer);
    if header.entries != entries {
        return Err(mismatch(format!(
            "layer {layer} has {entries} entries, the header says {}",
            header.entries
        )));
    }
    match name {
        Some(format::FileName::Layer(n)) if n == layer && header.is_whole_layer() => {}
        Some(format::FileName::Shard {
            layer: n,
            shard,
            shards,
        }) if n == layer
            && build::shard_range(entries, shard, shards) == (header.first, header.count) => {}
        _ => {
            return Err(mismatch(format!(
                "the name does not match the content: layer {layer}, entries {}..{} of {}",
                header.first,
                header.first + header.count,
                header.entries
            )));
        }
    }
    let expected = header.len() as u64 + header.count;
    if file_len as u64 != expected {
        return Err(mismatch(format!(
            "{file_len} bytes, the header promises {expected}"
        )));
    }
    Ok(())
}

/// Check a table file through and through for `game`: what the loader checks
/// ([`check_header`]), the checksum of the data, and that every value is one its layer can
/// hold. The header on success.
pub fn check_file<G: Game>(game: &G, path: &Path) -> Result<Header, TableError> {
    let health = Arc::new(Health::default());
    let (header, file) = open_file(path, &health)?;
    check_header(game, path, &header, file.bytes().len())?;
    let data = file.bytes().get(header.len()..).unwrap_or_default();
    let sum = header.checksum_of(data);
    let damaged = |message: String| TableError::Damaged {
        path: path.to_path_buf(),
        message,
    };
    if let Some(change) = file.changed() {
        return Err(damaged(change));
    }
    if sum != header.checksum {
        return Err(damaged(format!(
            "checksum {sum:016x}, the header says {:016x}: the data is damaged",
            header.checksum
        )));
    }
    let (low, high) = value_range(game, header.layer);
    if let Some(at) = data
        .iter()
        .position(|&b| (b as i8) < low || (b as i8) > high)
    {
        let value = data[at] as i8;
        let what = if value == i8::MIN {
            "the builder's mark of an unknown value".to_string()
        } else {
            format!("outside the {low}..={high} this layer allows")
        };
        return Err(damaged(format!(
            "entry {} holds {value}, {what}",
            header.first + at as u64
        )));
    }
    Ok(header)
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
