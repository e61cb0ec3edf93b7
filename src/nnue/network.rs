//! The network: its file and its integer inference. A first layer over a game's features,
//! one [`Accumulator`] view a side (how a game fills it is the game's choice: see the
//! module above), then a clipped ReLU and one output neuron over [mover's view, other view].
//! Integer arithmetic: 16-bit accumulator and first-layer weights (scaled by [`QA`]), 16-bit
//! output weights (scaled by [`QB`]), a 32-bit sum for each view (64 activations of at most
//! 255 times any 16-bit weight: below 2^29, it cannot wrap) and a 64-bit sum of the two and
//! the bias; the loops are over fixed-size arrays, which the compiler vectorises. The output
//! is held within ±[`MAX_OUTPUT_CP`], far below the search's exact and mate scores.
//!
//! The float network the trainer fits is the same function: `out = Σ clamp(acc_mover, 0, 1)
//! · w_mover + Σ clamp(acc_other, 0, 1) · w_other + b`, in points (1.0 = 100 centipoints).
//!
//! A network file is hostile input, like a table:
//!
//! ```text
//! "SOWFANNN"  version: u16 = 1  id length: u16  id (the game and board it is for)
//! inputs: u16  hidden: u16  first weights: i16 × inputs × hidden (input-major)
//! first biases: i16 × hidden  output weights: i16 × 2 × hidden (mover's view, then the
//! other)  output bias: i32  xxh3-64 of everything before: u64
//! ```
//!
//! Little-endian. A file for another game or board, of another size or version, or whose
//! checksum fails is refused with a message that says which; so is one whose weights or
//! biases pass the bounds `sowfan train` keeps ([`MAX_FIRST_Q`], [`MAX_OUTPUT_Q`],
//! [`MAX_OUTPUT_BIAS_Q`]), which keep every sum far inside its integer type.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use thiserror::Error;

use super::accumulator::{ACCUMULATOR_WIDTH, Accumulator};
use crate::file_header::{self, Magic};

/// The hidden layer's width: the accumulator's.
pub const HIDDEN: usize = ACCUMULATOR_WIDTH;
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
/// The largest evaluation a network gives, in centipoints (153,600: a network within the
/// bounds above cannot pass it, and [`Network::output`] holds any other to it).
pub const MAX_OUTPUT_CP: i32 =
    ((2 * HIDDEN as i64 * QA as i64 * MAX_OUTPUT_Q as i64 + MAX_OUTPUT_BIAS_Q as i64) * 100
        / (QA as i64 * QB as i64)) as i32;
/// The most inputs a network may have.
pub const MAX_INPUTS: usize = 4096;

/// The largest network file read: far above any network of these games.
pub const MAX_FILE_BYTES: u64 = 64 << 20;

const MAGIC: &Magic = b"SOWFANNN";
pub const VERSION: u16 = 1;

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum NetworkError {
    #[error("not a sowfan network (its first bytes are not SOWFANNN)")]
    NotNetwork,
    /// It begins as a network does but ends before the end of its header.
    #[error("a network file cut short: {0} bytes, less than its header")]
    CutShort(usize),
    #[error("a network of version {0}; this sowfan reads version {VERSION}")]
    Version(u16),
    #[error("a network for '{found}', not for '{expected}'")]
    OtherGame { found: String, expected: String },
    #[error(
        "a network of {found} inputs and {hidden} hidden; this game needs {expected} inputs and {HIDDEN} hidden"
    )]
    Size {
        found: usize,
        hidden: usize,
        expected: usize,
    },
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
    /// `inputs × HIDDEN`, input-major: the column of input `i` is `w0[i * HIDDEN..]`.
    pub w0: Vec<i16>,
    pub b0: [i16; HIDDEN],
    /// The mover's view's weights, then the other view's.
    pub w1: [[i16; HIDDEN]; 2],
    pub b1: i32,
}

impl std::fmt::Debug for Network {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Network({}, {} inputs, {HIDDEN} hidden)",
            self.id, self.inputs
        )
    }
}

impl Network {
    /// The file's bytes (see the module's documentation).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.extend_from_slice(&(self.id.len() as u16).to_le_bytes());
        out.extend_from_slice(self.id.as_bytes());
        out.extend_from_slice(&(self.inputs as u16).to_le_bytes());
        out.extend_from_slice(&(HIDDEN as u16).to_le_bytes());
        for w in self
            .w0
            .iter()
            .chain(&self.b0)
            .chain(self.w1.iter().flatten())
        {
            out.extend_from_slice(&w.to_le_bytes());
        }
        out.extend_from_slice(&self.b1.to_le_bytes());
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
        let (found, only) = (u32::from(version), u32::from(VERSION));
        file_header::check_version(found, only, only)
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
        let (found_inputs, hidden) = match (u16_at(at), u16_at(at + 2)) {
            (Some(i), Some(h)) => (usize::from(i), usize::from(h)),
            _ => return Err(short(at + 4)),
        };
        if found_inputs != inputs || hidden != HIDDEN {
            return Err(NetworkError::Size {
                found: found_inputs,
                hidden,
                expected: inputs,
            });
        }
        let weights = inputs * HIDDEN + HIDDEN + 2 * HIDDEN;
        let expected = at + 4 + 2 * weights + 4 + 8;
        if bytes.len() != expected {
            return Err(short(expected));
        }
        let body = file_header::split_checksum(bytes).map_err(|_| NetworkError::Checksum)?;
        let mut values = body[at + 4..at + 4 + 2 * weights]
            .chunks_exact(2)
            .map(|b| i16::from_le_bytes([b[0], b[1]]));
        let w0: Vec<i16> = values.by_ref().take(inputs * HIDDEN).collect();
        let mut b0 = [0i16; HIDDEN];
        for (slot, v) in b0.iter_mut().zip(values.by_ref()) {
            *slot = v;
        }
        let mut w1 = [[0i16; HIDDEN]; 2];
        for (slot, v) in w1.iter_mut().flatten().zip(values.by_ref()) {
            *slot = v;
        }
        let tail = &body[at + 4 + 2 * weights..];
        let b1 = i32::from_le_bytes([tail[0], tail[1], tail[2], tail[3]]);
        let network = Network {
            id: found_id,
            inputs,
            w0,
            b0,
            w1,
            b1,
        };
        network.check_bounds()?;
        Ok(network)
    }

    /// Every weight and bias within the bounds the trainer keeps (the first one beyond is
    /// named): then no sum of [`Network::output`] nor of an accumulator of up to 63 features
    /// can leave its integer type.
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
        let wide = |w: &i16| i64::from(*w);
        within("first-layer weight", self.w0.iter().map(wide), MAX_FIRST_Q)?;
        within("first-layer bias", self.b0.iter().map(wide), MAX_FIRST_Q)?;
        within(
            "output weight",
            self.w1.iter().flatten().map(wide),
            MAX_OUTPUT_Q,
        )?;
        within("output bias", [i64::from(self.b1)], MAX_OUTPUT_BIAS_Q)?;
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
    /// columns (features out of range are ignored: the game gives none).
    pub fn refresh(&self, view: &mut [i16; HIDDEN], features: impl IntoIterator<Item = usize>) {
        *view = self.b0;
        for feature in features {
            self.add(view, feature);
        }
    }

    #[inline]
    fn column(&self, feature: usize) -> Option<&[i16; HIDDEN]> {
        self.w0
            .get(feature * HIDDEN..(feature + 1) * HIDDEN)
            .and_then(|c| c.try_into().ok())
    }

    /// A feature turned on in one view.
    #[inline]
    pub fn add(&self, view: &mut [i16; HIDDEN], feature: usize) {
        if let Some(column) = self.column(feature) {
            for (a, w) in view.iter_mut().zip(column) {
                *a = a.wrapping_add(*w);
            }
        }
    }

    /// A feature turned off in one view.
    #[inline]
    pub fn sub(&self, view: &mut [i16; HIDDEN], feature: usize) {
        if let Some(column) = self.column(feature) {
            for (a, w) in view.iter_mut().zip(column) {
                *a = a.wrapping_sub(*w);
            }
        }
    }

    /// The evaluation in centipoints for the side whose view is `mover` (0 or 1), within
    /// ±[`MAX_OUTPUT_CP`]. A view's sum is 32-bit (at most 64 × 255 × 32,767 < 2^31 in
    /// size whatever the weights); the two views' and the bias are added in 64 bits.
    #[inline]
    pub fn output(&self, acc: &Accumulator, mover: usize) -> i32 {
        let views = [&acc.views[mover & 1], &acc.views[(mover & 1) ^ 1]];
        let mut sum = i64::from(self.b1);
        for (view, weights) in views.iter().zip(&self.w1) {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn network(inputs: usize) -> Network {
        let mut w0 = vec![0i16; inputs * HIDDEN];
        for (i, w) in w0.iter_mut().enumerate() {
            *w = ((i * 37) % 200) as i16 - 100;
        }
        let mut w1 = [[0i16; HIDDEN]; 2];
        for (i, w) in w1.iter_mut().flatten().enumerate() {
            *w = (i % 50) as i16 - 25;
        }
        Network {
            id: "test 3x3".into(),
            inputs,
            w0,
            b0: [17; HIDDEN],
            w1,
            b1: 1234,
        }
    }

    #[test]
    fn a_network_reads_back_and_a_wrong_file_says_what_is_wrong() {
        let net = network(18);
        let bytes = net.to_bytes();
        assert_eq!(Network::from_bytes(&bytes, "test 3x3", 18), Ok(net.clone()));
        assert_eq!(
            Network::from_bytes(b"hello", "test 3x3", 18),
            Err(NetworkError::NotNetwork)
        );
        assert!(matches!(
            Network::from_bytes(&bytes, "test 5x5", 18),
            Err(NetworkError::OtherGame { .. })
        ));
        assert!(matches!(
            Network::from_bytes(&bytes, "test 3x3", 50),
            Err(NetworkError::Size { found: 18, .. })
        ));
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

    #[test]
    fn updates_equal_a_refresh_and_the_output_follows_the_float_formula() {
        let net = network(18);
        let mut acc = Accumulator::default();
        net.refresh(&mut acc.views[0], [1, 5, 9]);
        net.refresh(&mut acc.views[1], [2, 12]);
        let mut updated = acc;
        net.sub(&mut updated.views[0], 5);
        net.add(&mut updated.views[0], 7);
        let mut fresh = Accumulator::default();
        net.refresh(&mut fresh.views[0], [1, 7, 9]);
        net.refresh(&mut fresh.views[1], [2, 12]);
        assert_eq!(updated.views, fresh.views);
        let float = |mover: usize| {
            let mut sum = f64::from(net.b1) / f64::from(QA * QB);
            for (v, view) in [mover, mover ^ 1].into_iter().enumerate() {
                for i in 0..HIDDEN {
                    let a = f64::from(acc.views[view][i]).clamp(0.0, f64::from(QA)) / f64::from(QA);
                    sum += a * f64::from(net.w1[v][i]) / f64::from(QB);
                }
            }
            sum * 100.0
        };
        for mover in [0, 1] {
            assert!((f64::from(net.output(&acc, mover)) - float(mover)).abs() <= 1.0);
        }
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
        assert_eq!(MAX_OUTPUT_CP, 153_600);
    }

    #[test]
    fn a_weight_beyond_its_bound_is_refused_by_name() {
        let at_bound = |net: &mut Network| {
            net.b1 = MAX_OUTPUT_BIAS_Q;
            net.w1[1][3] = -MAX_OUTPUT_Q as i16;
            net.w0[5] = MAX_FIRST_Q as i16;
            net.b0[2] = -MAX_FIRST_Q as i16;
        };
        let mut net = network(18);
        at_bound(&mut net);
        assert_eq!(
            Network::from_bytes(&net.to_bytes(), "test 3x3", 18),
            Ok(net.clone())
        );
        type Change = fn(&mut Network);
        let cases: [(Change, &str, i64, i64); 5] = [
            (
                |n| n.b1 = i32::MAX,
                "output bias",
                i64::from(i32::MAX),
                8_355_840,
            ),
            (
                |n| n.b1 = -MAX_OUTPUT_BIAS_Q - 1,
                "output bias",
                -8_355_841,
                8_355_840,
            ),
            (|n| n.w1[1][63] = 513, "output weight", 513, 512),
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
            views: [[QA as i16; HIDDEN], [i16::MAX; HIDDEN]],
        };
        // At the bounds: the largest sums a loaded network can make, exact.
        let mut net = network(18);
        net.w1 = [[MAX_OUTPUT_Q as i16; HIDDEN]; 2];
        net.b1 = MAX_OUTPUT_BIAS_Q;
        assert_eq!(net.check_bounds(), Ok(()));
        assert_eq!(net.output(&acc, 0), MAX_OUTPUT_CP);
        net.w1 = [[-MAX_OUTPUT_Q as i16; HIDDEN]; 2];
        net.b1 = -MAX_OUTPUT_BIAS_Q;
        assert_eq!(net.output(&acc, 1), -MAX_OUTPUT_CP);
        // Beyond them (a network made in memory, never loaded): no wrap, held to the bound.
        net.w1 = [[i16::MAX; HIDDEN]; 2];
        net.b1 = i32::MAX;
        assert_eq!(net.output(&acc, 0), MAX_OUTPUT_CP);
        net.w1 = [[i16::MIN; HIDDEN]; 2];
        net.b1 = i32::MIN;
        assert_eq!(net.output(&acc, 1), -MAX_OUTPUT_CP);
        net.w1 = [[i16::MIN; HIDDEN]; 2];
        net.b1 = i32::MAX;
        // 2^31 - 1 - 2 × 64 × 255 × 32,768 in centipoints: positive, not wrapped.
        assert_eq!(net.output(&acc, 0), MAX_OUTPUT_CP);
    }
}
