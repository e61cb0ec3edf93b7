//! The network: its file and its integer inference. A first layer over a game's features,
//! one [`Accumulator`] view a side (how a game fills it is the game's choice: see the
//! module above), then a clipped ReLU and an output neuron over [mover's view, other view],
//! one of several by the position's material (the output buckets; a game says which
//! bucket a position is in). The first layer is 64, 128, 192 or 256 wide (a multiple of
//! [`LANES`], at most the accumulator's [`MAX_WIDTH`]).
//!
//! Integer arithmetic: 16-bit accumulator and first-layer weights (scaled by [`QA`]), 16-bit
//! output weights (scaled by [`QB`]), a 32-bit sum for each view (at most 256 activations of
//! at most 255 times any 16-bit weight: 256 · 255 · 32,768 = 2^31 − 2^23, it cannot wrap) and a 64-bit sum of the two and the bias; the loops are over fixed-size arrays of
//! [`LANES`], which the compiler vectorises. The output is held within ±[`MAX_OUTPUT_CP`],
//! below the search's exact and mate scores.
//!
//! The float network the trainer fits is the same function: `out = Σ clamp(acc_mover, 0, 1)
//! · w_mover[b] + Σ clamp(acc_other, 0, 1) · w_other[b] + bias[b]`, in points (1.0 = 100
//! centipoints), with `b` the position's bucket.
//!
//! A network file is hostile input, like a table:
//!
//! ```text
//! "SOWFANNN"  version: u16 = 2  id length: u16  id (the game and board it is for)
//! inputs: u16  width: u16  buckets: u16
//! first weights: i16 × inputs × width (input-major)  first biases: i16 × width
//! output weights: i16 × buckets × 2 × width (bucket by bucket: the mover's view, then
//! the other)  output biases: i32 × buckets  xxh3-64 of everything before: u64
//! ```
//!
//! Version 1 (the first networks) is still read: it has no `buckets` field, a width of 64
//! and one bucket. Little-endian. A file for another game or board, of another size or
//! version, or whose checksum fails is refused with a message that says which; so is one
//! whose weights or biases pass the bounds `sowfan train` keeps ([`MAX_FIRST_Q`],
//! [`MAX_OUTPUT_Q`], [`MAX_OUTPUT_BIAS_Q`]), which keep every sum inside its integer type.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use thiserror::Error;

use super::accumulator::{ACCUMULATOR_WIDTH, Accumulator};
use crate::file_header::{self, Magic};

/// The lanes the first layer's loops take at a time: a network's width is a multiple of it,
/// so that every loop is over fixed-size arrays, which the compiler vectorises.
pub const LANES: usize = 64;
/// The widest first layer: the accumulator's width.
pub const MAX_WIDTH: usize = ACCUMULATOR_WIDTH;
/// The first layer's width of a network of version 1 (and `sowfan train`'s default).
pub const DEFAULT_WIDTH: usize = 64;
/// The most output buckets a network may have.
pub const MAX_BUCKETS: usize = 16;
/// The first layer's scale: an activation of 1.0 is `QA`.
pub const QA: i32 = 255;
/// The output weights' scale.
pub const QB: i32 = 64;
/// The largest first-layer weight or bias the trainer allows: an accumulator of up to 60
/// features and its bias stays within 16 bits (61 · 1.98 · 255 < 32,767; Fanorona has at
/// most 44).
pub const MAX_FIRST_WEIGHT: f32 = 1.98;
/// The largest output weight the trainer allows.
pub const MAX_OUTPUT_WEIGHT: f32 = 8.0;
/// The largest output bias the trainer allows, in points.
pub const MAX_OUTPUT_BIAS: f32 = 512.0;
/// The largest first-layer weight or bias a network file may hold: [`MAX_FIRST_WEIGHT`]
/// quantised (× [`QA`], rounded).
pub const MAX_FIRST_Q: i32 = 505;
/// The largest output weight a network file may hold: [`MAX_OUTPUT_WEIGHT`] × [`QB`].
pub const MAX_OUTPUT_Q: i32 = 512;
/// The largest output bias a network file may hold: [`MAX_OUTPUT_BIAS`] × [`QA`] × [`QB`].
pub const MAX_OUTPUT_BIAS_Q: i32 = 512 * QA * QB;
/// The largest evaluation a network gives, in centipoints (460,800, i.e. 4,608 points: a
/// network of the widest first layer within the bounds above cannot pass it, and
/// [`Network::output`] holds any other to it). The search's proven scores begin at 8,000
/// points.
pub const MAX_OUTPUT_CP: i32 =
    ((2 * MAX_WIDTH as i64 * QA as i64 * MAX_OUTPUT_Q as i64 + MAX_OUTPUT_BIAS_Q as i64) * 100
        / (QA as i64 * QB as i64)) as i32;
/// The most inputs a network may have.
pub const MAX_INPUTS: usize = 4096;

/// The largest network file read: far above any network of these games.
pub const MAX_FILE_BYTES: u64 = 64 << 20;

const MAGIC: &Magic = b"SOWFANNN";
/// The version written.
pub const VERSION: u16 = 2;
/// The oldest version read.
pub const OLDEST_VERSION: u16 = 1;

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum NetworkError {
    #[error("not a sowfan network (its first bytes are not SOWFANNN)")]
    NotNetwork,
    /// It begins as a network does but ends before the end of its header.
    #[error("a network file cut short: {0} bytes, less than its header")]
    CutShort(usize),
    #[error("a network of version {0}; this sowfan reads versions {OLDEST_VERSION} to {VERSION}")]
    Version(u16),
    #[error("a network for '{found}', not for '{expected}'")]
    OtherGame { found: String, expected: String },
    #[error("a network of {found} inputs; this game needs {expected}")]
    Size { found: usize, expected: usize },
    #[error(
        "a network {width} wide with {buckets} output buckets; this sowfan reads widths of \
         {LANES} to {MAX_WIDTH} in steps of {LANES}, and 1 to {MAX_BUCKETS} buckets"
    )]
    Shape { width: usize, buckets: usize },
    #[error("a network file of {found} bytes; its sizes need {expected}")]
    Length { found: usize, expected: usize },
    #[error("the network fails its checksum (a damaged file)")]
    Checksum,
    /// A network offered to a game that evaluates by hand only.
    #[error("this game has no learned evaluation")]
    NoNetwork,
    #[error(
        "the network's {field} {value} is beyond ±{bound}, the bound that keeps its sums \
         within their integers (sowfan train writes none beyond it)"
    )]
    OutOfBounds {
        field: &'static str,
        value: i64,
        bound: i64,
    },
}

/// Why a network file could not be read: the message names the file.
#[derive(Debug, Error)]
pub enum NetworkFileError {
    #[error("cannot read '{}': {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    /// A device or a pipe could wait or never end.
    #[error("cannot read '{}': not a regular file", path.display())]
    NotRegularFile { path: PathBuf },
    #[error("'{}' has more than {MAX_FILE_BYTES} bytes: no network is that large", path.display())]
    TooLarge { path: PathBuf },
    #[error("'{}': {source}", path.display())]
    Invalid { path: PathBuf, source: NetworkError },
}

/// A network file's bytes, checked (magic, version, sizes, checksum) whatever its game.
/// Only a regular file is read (a device or a pipe could wait or never end), and at most
/// [`MAX_FILE_BYTES`].
pub fn read_file(path: &Path) -> Result<Vec<u8>, NetworkFileError> {
    use std::io::Read;
    let path_buf = || path.to_path_buf();
    let cannot = |source| NetworkFileError::Read {
        path: path_buf(),
        source,
    };
    let meta = std::fs::metadata(path).map_err(cannot)?;
    if !meta.is_file() {
        return Err(NetworkFileError::NotRegularFile { path: path_buf() });
    }
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|file| file.take(MAX_FILE_BYTES + 1).read_to_end(&mut bytes))
        .map_err(cannot)?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(NetworkFileError::TooLarge { path: path_buf() });
    }
    Network::check(&bytes).map_err(|source| NetworkFileError::Invalid {
        path: path_buf(),
        source,
    })?;
    Ok(bytes)
}

/// A network's weights, quantised.
#[derive(Clone, PartialEq, Eq)]
pub struct Network {
    pub id: String,
    pub inputs: usize,
    /// The first layer's width: a multiple of [`LANES`], at most [`MAX_WIDTH`].
    pub width: usize,
    /// Output buckets: 1 to [`MAX_BUCKETS`].
    pub buckets: usize,
    /// `inputs × width`, input-major: the column of input `i` is `w0[i * width..]`.
    pub w0: Vec<i16>,
    /// `width`.
    pub b0: Vec<i16>,
    /// `buckets × 2 × width`: bucket by bucket, the mover's view's weights, then the other
    /// view's.
    pub w1: Vec<i16>,
    /// One a bucket.
    pub b1: Vec<i32>,
}

impl std::fmt::Debug for Network {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Network({}, {} inputs, {} wide, {} buckets)",
            self.id, self.inputs, self.width, self.buckets
        )
    }
}

/// Is this a shape the inference serves?
pub fn shape_is_served(width: usize, buckets: usize) -> bool {
    width > 0
        && width.is_multiple_of(LANES)
        && width <= MAX_WIDTH
        && (1..=MAX_BUCKETS).contains(&buckets)
}

impl Network {
    /// A network of zero weights of this shape.
    pub fn zeros(id: &str, inputs: usize, width: usize, buckets: usize) -> Network {
        Network {
            id: id.to_string(),
            inputs,
            width,
            buckets,
            w0: vec![0; inputs * width],
            b0: vec![0; width],
            w1: vec![0; buckets * 2 * width],
            b1: vec![0; buckets],
        }
    }

    /// The file's bytes (see the module's documentation), of the version written.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.extend_from_slice(&(self.id.len() as u16).to_le_bytes());
        out.extend_from_slice(self.id.as_bytes());
        for size in [self.inputs, self.width, self.buckets] {
            out.extend_from_slice(&(size as u16).to_le_bytes());
        }
        for w in self.w0.iter().chain(&self.b0).chain(&self.w1) {
            out.extend_from_slice(&w.to_le_bytes());
        }
        for b in &self.b1 {
            out.extend_from_slice(&b.to_le_bytes());
        }
        file_header::append_checksum(&mut out);
        out
    }

    /// The first bytes: the magic, and a header (version, id length) after it.
    fn check_head(bytes: &[u8]) -> Result<(), NetworkError> {
        if file_header::check_magic(bytes, MAGIC).is_err() {
            return Err(NetworkError::NotNetwork);
        }
        if bytes.len() < 14 {
            return Err(NetworkError::CutShort(bytes.len()));
        }
        Ok(())
    }

    /// Check a network file whatever its game (magic, version, sizes, checksum) and say
    /// which game and board it is for.
    pub fn check(bytes: &[u8]) -> Result<String, NetworkError> {
        Network::check_head(bytes)?;
        let id_len = usize::from(u16::from_le_bytes([bytes[10], bytes[11]]));
        let id = bytes
            .get(12..12 + id_len)
            .map(|b| String::from_utf8_lossy(b).into_owned())
            .unwrap_or_default();
        let inputs = bytes
            .get(12 + id_len..14 + id_len)
            .map_or(0, |b| usize::from(u16::from_le_bytes([b[0], b[1]])));
        Network::from_bytes(bytes, &id, inputs).map(|net| net.id)
    }

    /// Read a network for the game whose network id is `id` and which has `inputs`
    /// features a view.
    pub fn from_bytes(bytes: &[u8], id: &str, inputs: usize) -> Result<Network, NetworkError> {
        Network::check_head(bytes)?;
        let u16_at = |at: usize| {
            bytes
                .get(at..at + 2)
                .map(|b| u16::from_le_bytes([b[0], b[1]]))
        };
        let version = u16_at(8).unwrap_or(0);
        file_header::check_version(
            u32::from(version),
            u32::from(OLDEST_VERSION),
            u32::from(VERSION),
        )
        .map_err(|_| NetworkError::Version(version))?;
        let id_len = usize::from(u16_at(10).unwrap_or(0));
        let short = |expected: usize| NetworkError::Length {
            found: bytes.len(),
            expected,
        };
        let found_id = bytes
            .get(12..12 + id_len)
            .ok_or_else(|| short(12 + id_len + 4))?;
        let found_id = String::from_utf8_lossy(found_id).into_owned();
        if found_id != id {
            return Err(NetworkError::OtherGame {
                found: found_id,
                expected: id.to_string(),
            });
        }
        let at = 12 + id_len;
        // Version 1: inputs, hidden (64); version 2: inputs, width, buckets.
        let sizes = if version == 1 { 2 } else { 3 };
        let read: Option<Vec<usize>> = (0..sizes)
            .map(|k| u16_at(at + 2 * k).map(usize::from))
            .collect();
        let Some(read) = read else {
            return Err(short(at + 2 * sizes));
        };
        let (found_inputs, width) = (read[0], read[1]);
        let buckets = read.get(2).copied().unwrap_or(1);
        if found_inputs != inputs {
            return Err(NetworkError::Size {
                found: found_inputs,
                expected: inputs,
            });
        }
        if !shape_is_served(width, buckets) || (version == 1 && width != DEFAULT_WIDTH) {
            return Err(NetworkError::Shape { width, buckets });
        }
        let at = at + 2 * sizes;
        let weights = inputs * width + width + buckets * 2 * width;
        let expected = at + 2 * weights + 4 * buckets + 8;
        if bytes.len() != expected {
            return Err(short(expected));
        }
        let body = file_header::split_checksum(bytes).map_err(|_| NetworkError::Checksum)?;
        let mut values = body[at..at + 2 * weights]
            .chunks_exact(2)
            .map(|b| i16::from_le_bytes([b[0], b[1]]));
        let w0: Vec<i16> = values.by_ref().take(inputs * width).collect();
        let b0: Vec<i16> = values.by_ref().take(width).collect();
        let w1: Vec<i16> = values.collect();
        let b1: Vec<i32> = body[at + 2 * weights..]
            .chunks_exact(4)
            .map(|b| i32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        let network = Network {
            id: found_id,
            inputs,
            width,
            buckets,
            w0,
            b0,
            w1,
            b1,
        };
        network.check_bounds()?;
        Ok(network)
    }

    /// The shape served, and every weight and bias within the bounds the trainer keeps (the
    /// first one beyond is named): then no sum of [`Network::output`] nor of an accumulator
    /// of up to 63 features can leave its integer type.
    pub fn check_bounds(&self) -> Result<(), NetworkError> {
        fn within(
            field: &'static str,
            values: impl IntoIterator<Item = i64>,
            bound: i32,
        ) -> Result<(), NetworkError> {
            let bound = i64::from(bound);
            match values.into_iter().find(|v| v.abs() > bound) {
                Some(value) => Err(NetworkError::OutOfBounds {
                    field,
                    value,
                    bound,
                }),
                None => Ok(()),
            }
        }
        let shape = NetworkError::Shape {
            width: self.width,
            buckets: self.buckets,
        };
        if !shape_is_served(self.width, self.buckets)
            || self.w0.len() != self.inputs * self.width
            || self.b0.len() != self.width
            || self.w1.len() != self.buckets * 2 * self.width
            || self.b1.len() != self.buckets
        {
            return Err(shape);
        }
        let wide = |w: &i16| i64::from(*w);
        within("first-layer weight", self.w0.iter().map(wide), MAX_FIRST_Q)?;
        within("first-layer bias", self.b0.iter().map(wide), MAX_FIRST_Q)?;
        within("output weight", self.w1.iter().map(wide), MAX_OUTPUT_Q)?;
        within(
            "output bias",
            self.b1.iter().map(|b| i64::from(*b)),
            MAX_OUTPUT_BIAS_Q,
        )?;
        Ok(())
    }

    /// A game's network from `bytes` (checked: hostile input), shared by the game's copies;
    /// `None` for no network (the game evaluates by hand).
    pub fn load(
        bytes: Option<&[u8]>,
        id: &str,
        inputs: usize,
    ) -> Result<Option<Arc<Network>>, NetworkError> {
        bytes
            .map(|bytes| Network::from_bytes(bytes, id, inputs).map(Arc::new))
            .transpose()
    }

    /// A game's embedded network: one that fails its checks is logged and the game
    /// evaluates by hand.
    pub fn load_embedded(bytes: Option<&[u8]>, id: &str, inputs: usize) -> Option<Arc<Network>> {
        Network::load(bytes, id, inputs).unwrap_or_else(|e| {
            log::warn!("the embedded network: {e}; evaluating by hand");
            None
        })
    }

    /// The accumulator of one view from scratch: the biases plus the active features'
    /// columns (features out of range are ignored: the game gives none). Only the
    /// network's width of the view is written.
    pub fn refresh(
        &self,
        view: &mut [i16; ACCUMULATOR_WIDTH],
        features: impl IntoIterator<Item = usize>,
    ) {
        by_width!(self.width, W => {
            let lanes = lanes_mut::<W>(view);
            *lanes = self.afresh_w::<W>(features);
        });
    }

    /// A feature turned on in one view.
    #[inline]
    pub fn add(&self, view: &mut [i16; ACCUMULATOR_WIDTH], feature: usize) {
        by_width!(self.width, W => self.add_w::<W>(lanes_mut::<W>(view), feature));
    }

    /// A feature turned off in one view.
    #[inline]
    pub fn sub(&self, view: &mut [i16; ACCUMULATOR_WIDTH], feature: usize) {
        by_width!(self.width, W => self.sub_w::<W>(lanes_mut::<W>(view), feature));
    }

    /// `child`'s views as `parent`'s: the lanes in use only.
    #[inline]
    pub fn copy(&self, parent: &Accumulator, child: &mut Accumulator) {
        by_width!(self.width, W => {
            for (to, from) in child.views.iter_mut().zip(&parent.views) {
                *lanes_mut::<W>(to) = *lanes::<W>(from);
            }
        });
    }

    /// The bucket for a material of `material` out of at most `most` (stones, seeds on the
    /// board): the buckets split `1..=most` in equal parts, the fullest board in the last.
    #[inline]
    pub fn bucket_of(buckets: usize, material: usize, most: usize) -> usize {
        (material.saturating_sub(1) * buckets / most.max(1)).min(buckets.saturating_sub(1))
    }

    /// The evaluation in centipoints for the side whose view is `mover` (0 or 1), by the
    /// output of `bucket` (held below [`Network::buckets`]), within ±[`MAX_OUTPUT_CP`]. A
    /// view's sum is 32-bit (see the module's documentation); the two views' and the bias
    /// are added in 64 bits.
    #[inline]
    pub fn output(&self, acc: &Accumulator, mover: usize, bucket: usize) -> i32 {
        let views = [&acc.views[mover & 1], &acc.views[(mover & 1) ^ 1]];
        by_width!(self.width, W => {
            let views = [lanes::<W>(views[0]), lanes::<W>(views[1])];
            #[cfg(target_arch = "x86_64")]
            if has_avx2() {
                // SAFETY: the processor has AVX2, checked just now.
                return unsafe { self.output_avx2::<W>(views, bucket) };
            }
            self.output_w::<W>(views, bucket)
        })
    }

    /// The evaluation of a position whose views' features are `features` (the mover's
    /// first), summed afresh on the stack, by the output of `bucket`: what a game that keeps
    /// no accumulator evaluates with.
    #[inline]
    pub fn output_afresh<I: IntoIterator<Item = usize>>(
        &self,
        features: [I; 2],
        bucket: usize,
    ) -> i32 {
        by_width!(self.width, W => {
            #[cfg(target_arch = "x86_64")]
            if has_avx2() {
                // SAFETY: the processor has AVX2, checked just now.
                return unsafe { self.output_afresh_avx2::<W, I>(features, bucket) };
            }
            self.output_afresh_w::<W, I>(features, bucket)
        })
    }

    #[inline(always)]
    fn output_afresh_w<const W: usize, I: IntoIterator<Item = usize>>(
        &self,
        features: [I; 2],
        bucket: usize,
    ) -> i32 {
        let [mover, other] = features;
        let views = [self.afresh_w::<W>(mover), self.afresh_w::<W>(other)];
        self.output_w::<W>([&views[0], &views[1]], bucket)
    }

    // The same loops built with AVX2: 16 lanes of 16 bits at a time instead of SSE2's 8
    // (see `has_avx2`). Each wraps a whole operation, since a call into one cannot be
    // inlined into code built without AVX2.

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn output_avx2<const W: usize>(&self, views: [&[i16; W]; 2], bucket: usize) -> i32 {
        self.output_w::<W>(views, bucket)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn output_afresh_avx2<const W: usize, I: IntoIterator<Item = usize>>(
        &self,
        features: [I; 2],
        bucket: usize,
    ) -> i32 {
        self.output_afresh_w::<W, I>(features, bucket)
    }

    #[inline(always)]
    fn column<const W: usize>(&self, feature: usize) -> Option<&[i16; W]> {
        self.w0
            .get(feature * W..(feature + 1) * W)
            .and_then(|c| c.try_into().ok())
    }

    /// [`Network::add`] at width `W` (the network's, as a constant: see `by_width`).
    #[inline(always)]
    pub fn add_w<const W: usize>(&self, view: &mut [i16; W], feature: usize) {
        if let Some(column) = self.column::<W>(feature) {
            for (a, w) in view.iter_mut().zip(column) {
                *a = a.wrapping_add(*w);
            }
        }
    }

    /// [`Network::sub`] at width `W` (the network's, as a constant: see `by_width`).
    #[inline(always)]
    pub fn sub_w<const W: usize>(&self, view: &mut [i16; W], feature: usize) {
        if let Some(column) = self.column::<W>(feature) {
            for (a, w) in view.iter_mut().zip(column) {
                *a = a.wrapping_sub(*w);
            }
        }
    }

    #[inline(always)]
    fn afresh_w<const W: usize>(&self, features: impl IntoIterator<Item = usize>) -> [i16; W] {
        let mut view = [0i16; W];
        if let Ok(biases) = <&[i16; W]>::try_from(&self.b0[..]) {
            view = *biases;
        }
        for feature in features {
            self.add_w::<W>(&mut view, feature);
        }
        view
    }

    #[inline(always)]
    fn output_w<const W: usize>(&self, views: [&[i16; W]; 2], bucket: usize) -> i32 {
        // A loaded network has `buckets` ≥ 1 biases (`check_bounds`); one made in memory
        // is read without a panic whatever it holds.
        let bucket = bucket.min(self.buckets.saturating_sub(1));
        let mut sum = i64::from(self.b1.get(bucket).copied().unwrap_or(0));
        for (v, view) in views.iter().enumerate() {
            let Some(weights) = self
                .w1
                .get((bucket * 2 + v) * W..(bucket * 2 + v + 1) * W)
                .and_then(|w| <&[i16; W]>::try_from(w).ok())
            else {
                continue;
            };
            let mut part = 0i32;
            for (a, w) in view.iter().zip(weights) {
                part += i32::from((*a).clamp(0, QA as i16)) * i32::from(*w);
            }
            sum += i64::from(part);
        }
        let cp = sum * 100 / i64::from(QA * QB);
        cp.clamp(-i64::from(MAX_OUTPUT_CP), i64::from(MAX_OUTPUT_CP)) as i32
    }
}

/// Whether this processor has AVX2, with which the network's loops take 16 lanes of 16
/// bits at a time instead of SSE2's 8: Fanorona's search takes 0.81 of the time
/// (docs/nnue.md). The arithmetic is the same integers in another order of lanes, so every
/// processor computes the same evaluation. The answer is cached by the standard library: a
/// load and a branch.
#[inline(always)]
pub fn has_avx2() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::is_x86_feature_detected!("avx2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Run `$body` with `$w` the network's width as a constant (64, 128, 192 or 256: the widths
/// [`shape_is_served`]), so that every loop is over fixed-size arrays; a caller that makes
/// many changes at once dispatches once.
macro_rules! by_width {
    ($width:expr, $w:ident => $body:expr) => {
        match $width {
            64 => {
                const $w: usize = 64;
                $body
            }
            128 => {
                const $w: usize = 128;
                $body
            }
            192 => {
                const $w: usize = 192;
                $body
            }
            _ => {
                const $w: usize = $crate::nnue::network::MAX_WIDTH;
                $body
            }
        }
    };
}
pub(crate) use by_width;

/// A view's first `W` lanes.
#[inline(always)]
pub fn lanes<const W: usize>(view: &[i16; ACCUMULATOR_WIDTH]) -> &[i16; W] {
    view.first_chunk::<W>()
        .unwrap_or_else(|| unreachable!("W ≤ the accumulator's width"))
}

/// A view's first `W` lanes, to change.
#[inline(always)]
pub fn lanes_mut<const W: usize>(view: &mut [i16; ACCUMULATOR_WIDTH]) -> &mut [i16; W] {
    view.first_chunk_mut::<W>()
        .unwrap_or_else(|| unreachable!("W ≤ the accumulator's width"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn network(inputs: usize, width: usize, buckets: usize) -> Network {
        let mut net = Network::zeros("test 3x3", inputs, width, buckets);
        for (i, w) in net.w0.iter_mut().enumerate() {
            *w = ((i * 37) % 200) as i16 - 100;
        }
        for (i, w) in net.w1.iter_mut().enumerate() {
            *w = (i % 50) as i16 - 25;
        }
        net.b0.fill(17);
        for (k, b) in net.b1.iter_mut().enumerate() {
            *b = 1234 - 500 * k as i32;
        }
        net
    }

    #[test]
    fn a_network_reads_back_and_a_wrong_file_says_what_is_wrong() {
        let net = network(18, 64, 1);
        let bytes = net.to_bytes();
        assert_eq!(Network::from_bytes(&bytes, "test 3x3", 18), Ok(net.clone()));
        let wide = network(18, 192, 4);
        assert_eq!(
            Network::from_bytes(&wide.to_bytes(), "test 3x3", 18),
            Ok(wide.clone())
        );
        assert_eq!(
            Network::from_bytes(b"hello", "test 3x3", 18),
            Err(NetworkError::NotNetwork)
        );
        assert!(matches!(
            Network::from_bytes(&bytes, "test 5x5", 18),
            Err(NetworkError::OtherGame { .. })
        ));
        assert_eq!(
            Network::from_bytes(&bytes, "test 3x3", 50),
            Err(NetworkError::Size {
                found: 18,
                expected: 50
            })
        );
        let mut damaged = bytes.clone();
        damaged[40] ^= 4;
        assert_eq!(
            Network::from_bytes(&damaged, "test 3x3", 18),
            Err(NetworkError::Checksum)
        );
        assert!(matches!(
            Network::from_bytes(&bytes[..bytes.len() - 1], "test 3x3", 18),
            Err(NetworkError::Length { .. })
        ));
        assert_eq!(Network::check(&bytes), Ok("test 3x3".to_string()));
        assert_eq!(Network::check(&damaged), Err(NetworkError::Checksum));
        assert_eq!(Network::check(b"SOWFANNN"), Err(NetworkError::CutShort(8)));
        assert_eq!(Network::check(b"SOWFAN"), Err(NetworkError::NotNetwork));
        assert_eq!(
            Network::check(b"NOTANETWORK..."),
            Err(NetworkError::NotNetwork)
        );
        let mut version = bytes;
        version[8] = 7;
        assert_eq!(
            Network::from_bytes(&version, "test 3x3", 18),
            Err(NetworkError::Version(7))
        );
    }

    /// The bytes of `net` (64 wide, one bucket) as a version-1 file wrote them.
    fn version_1(net: &Network) -> Vec<u8> {
        let mut out = MAGIC.to_vec();
        out.extend_from_slice(&1u16.to_le_bytes());
        out.extend_from_slice(&(net.id.len() as u16).to_le_bytes());
        out.extend_from_slice(net.id.as_bytes());
        out.extend_from_slice(&(net.inputs as u16).to_le_bytes());
        out.extend_from_slice(&64u16.to_le_bytes());
        for w in net.w0.iter().chain(&net.b0).chain(&net.w1) {
            out.extend_from_slice(&w.to_le_bytes());
        }
        out.extend_from_slice(&net.b1[0].to_le_bytes());
        file_header::append_checksum(&mut out);
        out
    }

    #[test]
    fn a_version_1_file_reads_as_64_wide_with_one_bucket() {
        let net = network(18, 64, 1);
        let old = version_1(&net);
        assert_eq!(Network::from_bytes(&old, "test 3x3", 18), Ok(net.clone()));
        assert_eq!(Network::check(&old), Ok("test 3x3".to_string()));
        // Written again, it is a version-2 file of the same network.
        let again = Network::from_bytes(&old, "test 3x3", 18).map(|n| n.to_bytes());
        assert_eq!(again, Ok(net.to_bytes()));
    }

    #[test]
    fn a_shape_the_inference_does_not_serve_is_refused() {
        for (width, buckets) in [(0, 1), (32, 1), (96, 1), (320, 1), (64, 0), (64, 17)] {
            let mut net = network(18, 64, 1);
            net.width = width;
            net.buckets = buckets;
            net.w0 = vec![0; 18 * width];
            net.b0 = vec![0; width];
            net.w1 = vec![0; buckets * 2 * width];
            net.b1 = vec![0; buckets];
            let expected = NetworkError::Shape { width, buckets };
            assert_eq!(net.check_bounds(), Err(expected.clone()));
            assert_eq!(
                Network::from_bytes(&net.to_bytes(), "test 3x3", 18),
                Err(expected.clone()),
                "{width} {buckets}"
            );
            assert!(expected.to_string().contains("64 to 256 in steps of 64"));
        }
    }

    /// The network's function in floats, as the trainer has it.
    fn float(net: &Network, acc: &Accumulator, mover: usize, bucket: usize) -> f64 {
        let mut sum = f64::from(net.b1[bucket]) / f64::from(QA * QB);
        for (v, view) in [mover, mover ^ 1].into_iter().enumerate() {
            for i in 0..net.width {
                let a = f64::from(acc.views[view][i]).clamp(0.0, f64::from(QA)) / f64::from(QA);
                let w = net.w1[(bucket * 2 + v) * net.width + i];
                sum += a * f64::from(w) / f64::from(QB);
            }
        }
        sum * 100.0
    }

    #[test]
    fn updates_equal_a_refresh_and_the_output_follows_the_float_formula() {
        for (width, buckets) in [(64, 1), (128, 3), (256, 8)] {
            let net = network(18, width, buckets);
            let mut acc = Accumulator::default();
            net.refresh(&mut acc.views[0], [1, 5, 9]);
            net.refresh(&mut acc.views[1], [2, 12]);
            let mut updated = Accumulator::default();
            net.copy(&acc, &mut updated);
            net.sub(&mut updated.views[0], 5);
            net.add(&mut updated.views[0], 7);
            let mut fresh = Accumulator::default();
            net.refresh(&mut fresh.views[0], [1, 7, 9]);
            net.refresh(&mut fresh.views[1], [2, 12]);
            assert_eq!(updated.views, fresh.views);
            // The lanes past the width are left alone.
            assert!(
                fresh
                    .views
                    .iter()
                    .all(|v| v[width..].iter().all(|&a| a == 0))
            );
            for mover in [0, 1] {
                for bucket in 0..buckets {
                    let got = f64::from(net.output(&acc, mover, bucket));
                    assert!((got - float(&net, &acc, mover, bucket)).abs() <= 1.0);
                }
                // A bucket past the last is the last.
                assert_eq!(
                    net.output(&acc, mover, buckets + 3),
                    net.output(&acc, mover, buckets - 1)
                );
            }
        }
    }

    /// The AVX2 loops are the portable ones built for more lanes: the same integers, on
    /// accumulators below 0, within and above the clip, for every width and bucket.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn the_avx2_output_is_the_portable_output() {
        if !has_avx2() {
            return;
        }
        for (width, buckets) in [(64, 1), (128, 8), (192, 2), (256, 8)] {
            let net = network(90, width, buckets);
            let mut acc = Accumulator::default();
            for (i, a) in acc.views.iter_mut().flatten().enumerate() {
                *a = ((i * 7919) % 900) as i16 - 300;
            }
            for mover in [0, 1] {
                for bucket in 0..buckets {
                    let views = [&acc.views[mover], &acc.views[mover ^ 1]];
                    let (portable, avx2) = by_width!(width, W => {
                        let views = [lanes::<W>(views[0]), lanes::<W>(views[1])];
                        // SAFETY: the processor has AVX2, checked above.
                        (net.output_w::<W>(views, bucket), unsafe { net.output_avx2::<W>(views, bucket) })
                    });
                    assert_eq!(portable, avx2, "width {width} bucket {bucket}");
                    let features = [[3, 17, 44, 60], [1, 2, 89, 88]];
                    let (portable, avx2) = by_width!(width, W => (
                        net.output_afresh_w::<W, _>(features, bucket),
                        // SAFETY: the processor has AVX2, checked above.
                        unsafe { net.output_afresh_avx2::<W, _>(features, bucket) },
                    ));
                    assert_eq!(portable, avx2, "width {width} bucket {bucket}");
                }
            }
        }
    }

    #[test]
    fn buckets_split_the_material_evenly_the_fullest_in_the_last() {
        assert_eq!(Network::bucket_of(1, 44, 44), 0);
        let of = |material| Network::bucket_of(8, material, 44);
        assert_eq!(
            [of(0), of(1), of(2), of(6), of(7), of(43), of(44)],
            [0, 0, 0, 0, 1, 7, 7]
        );
        let counts: Vec<usize> = (0..8)
            .map(|b| (1..=44).filter(|&m| of(m) == b).count())
            .collect();
        assert!(counts.iter().all(|&c| (5..=6).contains(&c)), "{counts:?}");
        assert_eq!(Network::bucket_of(8, 100, 44), 7);
    }

    #[test]
    fn the_trainers_bounds_are_the_loaders() {
        assert_eq!((MAX_FIRST_WEIGHT * QA as f32).round() as i32, MAX_FIRST_Q);
        assert_eq!((MAX_OUTPUT_WEIGHT * QB as f32).round() as i32, MAX_OUTPUT_Q);
        assert_eq!(
            (MAX_OUTPUT_BIAS * (QA * QB) as f32).round() as i32,
            MAX_OUTPUT_BIAS_Q
        );
        // An accumulator of 63 features and its bias stays within 16 bits.
        assert!(64 * MAX_FIRST_Q <= i32::from(i16::MAX));
        assert_eq!(MAX_OUTPUT_CP, 460_800);
        // A view's sum of the widest layer cannot wrap, whatever the weights.
        assert!(MAX_WIDTH as i64 * i64::from(QA) * 32_768 < i64::from(i32::MAX));
    }

    #[test]
    fn a_weight_beyond_its_bound_is_refused_by_name() {
        let at_bound = |net: &mut Network| {
            net.b1[0] = MAX_OUTPUT_BIAS_Q;
            net.w1[64 + 3] = -MAX_OUTPUT_Q as i16;
            net.w0[5] = MAX_FIRST_Q as i16;
            net.b0[2] = -MAX_FIRST_Q as i16;
        };
        let mut net = network(18, 64, 2);
        at_bound(&mut net);
        assert_eq!(
            Network::from_bytes(&net.to_bytes(), "test 3x3", 18),
            Ok(net.clone())
        );
        type Change = fn(&mut Network);
        let cases: [(Change, &str, i64, i64); 6] = [
            (
                |n| n.b1[0] = i32::MAX,
                "output bias",
                i64::from(i32::MAX),
                8_355_840,
            ),
            (
                |n| n.b1[1] = -MAX_OUTPUT_BIAS_Q - 1,
                "output bias",
                -8_355_841,
                8_355_840,
            ),
            (|n| n.w1[127] = 513, "output weight", 513, 512),
            (|n| n.w1[255] = -513, "output weight", -513, 512),
            (|n| n.w0[100] = i16::MIN, "first-layer weight", -32_768, 505),
            (|n| n.b0[0] = 506, "first-layer bias", 506, 505),
        ];
        for (change, field, value, bound) in cases {
            let mut hostile = net.clone();
            change(&mut hostile);
            let bytes = hostile.to_bytes();
            let expected = NetworkError::OutOfBounds {
                field,
                value,
                bound,
            };
            assert_eq!(
                Network::from_bytes(&bytes, "test 3x3", 18),
                Err(expected.clone())
            );
            assert_eq!(Network::check(&bytes), Err(expected.clone()));
            let text = expected.to_string();
            assert!(
                text.contains(field) && text.contains(&format!("±{bound}")),
                "{text}"
            );
        }
    }

    #[test]
    fn the_output_cannot_wrap_and_stays_within_its_bound() {
        let acc = Accumulator {
            views: [[QA as i16; MAX_WIDTH], [i16::MAX; MAX_WIDTH]],
        };
        // At the bounds: the largest sums a loaded network can make, exact.
        let mut net = network(18, MAX_WIDTH, 1);
        net.w1.fill(MAX_OUTPUT_Q as i16);
        net.b1[0] = MAX_OUTPUT_BIAS_Q;
        assert_eq!(net.check_bounds(), Ok(()));
        assert_eq!(net.output(&acc, 0, 0), MAX_OUTPUT_CP);
        net.w1.fill(-MAX_OUTPUT_Q as i16);
        net.b1[0] = -MAX_OUTPUT_BIAS_Q;
        assert_eq!(net.output(&acc, 1, 0), -MAX_OUTPUT_CP);
        // Beyond them (a network made in memory, never loaded): no wrap, held to the bound.
        net.w1.fill(i16::MAX);
        net.b1[0] = i32::MAX;
        assert_eq!(net.output(&acc, 0, 0), MAX_OUTPUT_CP);
        net.w1.fill(i16::MIN);
        net.b1[0] = i32::MIN;
        assert_eq!(net.output(&acc, 1, 0), -MAX_OUTPUT_CP);
        net.w1.fill(i16::MIN);
        net.b1[0] = i32::MAX;
        // 2^31 - 1 - 2 × 256 × 255 × 32,768 < -2^31: negative, where a 32-bit sum would
        // have wrapped to a positive one.
        assert_eq!(net.output(&acc, 0, 0), -MAX_OUTPUT_CP);
    }
}
