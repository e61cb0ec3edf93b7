//! The work of `sowfan train`: a network ([`crate::nnue`]) fitted to training data
//! ([`crate::nnue::training_data`]). The network is small (a first layer of `--width`
//! over a game's features, an output a bucket), so the dense code is written here: a
//! sparse first layer (a position has a few dozen active features), the gradient by hand,
//! Adam, mini-batches split over threads in a fixed order (the same result on any number of
//! threads), and a seeded shuffle. No numerics crate: one that served would bring a
//! tensor runtime for a few hundred lines of arithmetic.
//!
//! The loss: the squared difference of `σ(output / K)` and a blend of `σ(score / K)` (the
//! search's score) and the game's result (1, ½, 0 for the side to move), with
//! `--lambda` the score's share. One game in 20 (by number) is kept out for validation.
//!
//! The games are taken in the order of the files on the command line and, within a file, of
//! their numbers, not in the order they were written: `datagen` on several threads appends
//! games as they end, so two runs of the same command write the same games in different
//! orders, and the same network must come of them.

use std::path::PathBuf;
use std::time::Instant;

use rand::rngs::Xoshiro256PlusPlus;
use rand::seq::SliceRandom;
use rand::{RngExt, SeedableRng};

use crate::cli::{
    CancelToken, Interrupted, OpenRegularError, OutputError, OutputLock, refuse_irregular,
    refuse_output_over_input, write_atomically,
};
use crate::file_header::{self, Magic};
use crate::memory::ThreadsError;
use crate::nnue::features::{ExactValue, FeatureOpener, ForeignError};
use crate::nnue::network::{
    DEFAULT_WIDTH, LANES, MAX_BUCKETS, MAX_FIRST_Q, MAX_FIRST_WEIGHT, MAX_OUTPUT_BIAS,
    MAX_OUTPUT_BIAS_Q, MAX_OUTPUT_Q, MAX_OUTPUT_WEIGHT, MAX_WIDTH, Network, NetworkError, QA, QB,
    shape_is_served,
};
use crate::nnue::training_data::{DataError, Reader};

/// Fit a learned evaluation (a network file) to training data from `sowfan datagen`.
///
/// Example: sowfan train fanorona --data fanorona.data --output fanorona.nnue
///
/// With --checkpoint, the state after each epoch is kept there, and the same command run
/// again goes on from it.
#[derive(Debug, Clone, clap::Args)]
#[command(verbatim_doc_comment)]
pub struct TrainArgs {
    /// The game (and options), as after `newgame`.
    #[arg(value_name = "GAME [KEY=VALUE ...]", required = true)]
    pub game: Vec<String>,
    /// Training data files (`sowfan datagen`), one or more.
    #[arg(long, num_args = 1.., value_name = "FILE", required = true)]
    pub data: Vec<PathBuf>,
    /// The network file to write.
    #[arg(long, value_name = "FILE")]
    pub output: PathBuf,
    /// The first layer's width: 64, 128, 192 or 256.
    #[arg(long, default_value_t = DEFAULT_WIDTH, value_name = "N")]
    pub width: usize,
    /// Output buckets, by the position's material (stones or seeds on the board): 1 to 16.
    #[arg(long, default_value_t = 1, value_name = "N")]
    pub buckets: usize,
    /// Passes over the data (at most 1000000).
    #[arg(long, default_value_t = 20, value_name = "N")]
    pub epochs: usize,
    /// Positions a step.
    #[arg(long, default_value_t = 4096, value_name = "N")]
    pub batch: usize,
    /// Adam's step size (divided by 10 for the last quarter of the epochs).
    #[arg(long, default_value_t = 0.002, value_name = "R")]
    pub rate: f32,
    /// The score's share of the target (the result's is the rest).
    #[arg(long, default_value_t = 0.5, value_name = "L")]
    pub lambda: f32,
    /// K of σ(centipoints / K).
    #[arg(long, default_value_t = 200.0, value_name = "K")]
    pub scale: f32,
    /// Seed of the initial weights and the shuffles.
    #[arg(long, default_value_t = 1, value_name = "S")]
    pub seed: u64,
    /// Threads (default: the machine's processors).
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
    /// Endgame tables: a position they cover is trained toward its exact value (its result,
    /// and its margin where the game is scored) instead of the search's score and the
    /// game's result.
    #[arg(long, value_name = "DIR")]
    pub tablebases: Option<PathBuf>,
    /// Keep the state after each epoch here, and go on from it when it exists.
    #[arg(long, value_name = "FILE")]
    pub checkpoint: Option<PathBuf>,
}

/// Why a training wrote no network.
#[derive(Debug, thiserror::Error)]
pub enum TrainError {
    /// Ctrl-C (or SIGTERM) stopped it.
    #[error(transparent)]
    Interrupted(#[from] Interrupted),
    #[error("--batch and --epochs must be at least 1")]
    ZeroBatchOrEpochs,
    #[error("--lambda must be 0..1; --scale and --rate above 0")]
    BadRates,
    #[error("--epochs {0}: at most {MAX_EPOCHS}")]
    TooManyEpochs(usize),
    #[error(
        "--width {width} --buckets {buckets}: the width must be {LANES} to {MAX_WIDTH} in steps \
         of {LANES}, the buckets 1 to {MAX_BUCKETS}"
    )]
    Shape { width: usize, buckets: usize },
    /// The game (and options) names no game, or a bad one.
    #[error("{0}")]
    Game(ForeignError),
    #[error("--tablebases '{}': {source}", path.display())]
    Tables { path: PathBuf, source: ForeignError },
    #[error("{0} has no learned evaluation to train")]
    NoNetwork(String),
    #[error("--data: {0}")]
    Data(#[from] DataError),
    #[error("'{}' holds data of '{made_for}', not of {id}", path.display())]
    OtherGame {
        path: PathBuf,
        made_for: String,
        id: String,
    },
    #[error("'{}' game {number}: {source}", path.display())]
    Position {
        path: PathBuf,
        number: u64,
        source: ForeignError,
    },
    #[error("'{}' game {number}: a feature out of range", path.display())]
    FeatureOutOfRange { path: PathBuf, number: u64 },
    #[error("the data hold no training positions")]
    NoPositions,
    #[error("--checkpoint '{}': {source}", path.display())]
    CheckpointRead {
        path: PathBuf,
        source: OpenRegularError,
    },
    #[error("--checkpoint '{}': the checkpoint {source}", path.display())]
    Checkpoint {
        path: PathBuf,
        source: CheckpointError,
    },
    #[error(
        "--checkpoint '{}' is after epoch {epoch}, past --epochs {epochs}: give --epochs \
         {epoch} or more to go on from it, or another --checkpoint to start anew",
        path.display()
    )]
    CheckpointAhead {
        path: PathBuf,
        epoch: usize,
        epochs: usize,
    },
    #[error("training diverged: a weight is no longer a number; try a smaller --rate")]
    Diverged,
    /// The network made fails the loader's checks (a bound the clipping should keep).
    #[error(transparent)]
    Network(#[from] NetworkError),
    #[error("cannot write '{}': {source}", path.display())]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    /// An output refused before any work (not a regular file, an input, locked).
    #[error(transparent)]
    Output(#[from] OutputError),
    #[error(transparent)]
    Threads(#[from] ThreadsError),
}

/// What is wrong with a checkpoint (each said after "the checkpoint").
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CheckpointError {
    #[error("is not a sowfan training checkpoint")]
    NotCheckpoint,
    #[error("fails its checksum")]
    Checksum,
    #[error("is cut short")]
    CutShort,
    #[error("was made by other settings ({0}); delete it or give another --checkpoint")]
    OtherSettings(String),
    #[error("has a size these settings do not give")]
    Size,
}

/// The most `--epochs`: far more than any fit needs.
pub const MAX_EPOCHS: usize = 1_000_000;

/// Positions in memory: each one's features from both views, flat.
#[derive(Default)]
struct Samples {
    features: Vec<u16>,
    /// `starts[i]..starts[i + 1]` are sample `i`'s features: P1's view, then P2's.
    starts: Vec<u32>,
    /// Where P2's view begins within a sample's features.
    splits: Vec<u32>,
    mover: Vec<u8>,
    /// The output bucket.
    bucket: Vec<u8>,
    /// The blended target, σ-space.
    target: Vec<f32>,
    /// A hash of the packed position, to find the same position in two games.
    key: Vec<u64>,
    /// Each game's place (file, number) and its first sample, in the order read.
    games: Vec<(GamePlace, u32)>,
}

/// Where a game comes from: the file's place on the command line, the game's number.
type GamePlace = (u32, u64);

impl Samples {
    fn len(&self) -> usize {
        self.mover.len()
    }

    /// The same samples with their games in the order of their places (see the module's
    /// documentation); a game's own positions keep their order.
    fn in_game_order(self) -> Samples {
        if self.games.is_sorted_by_key(|&(place, _)| place) {
            return self;
        }
        // A game's samples run from its first to the next game's first.
        let mut spans: Vec<(GamePlace, std::ops::Range<usize>)> = (self.games.iter().enumerate())
            .map(|(k, &(place, first))| {
                let end = self
                    .games
                    .get(k + 1)
                    .map_or(self.len(), |&(_, next)| next as usize);
                (place, first as usize..end)
            })
            .collect();
        spans.sort_by_key(|(place, _)| *place);
        let mut sorted = Samples {
            features: Vec::with_capacity(self.features.len()),
            starts: Vec::with_capacity(self.starts.len()),
            splits: Vec::with_capacity(self.splits.len()),
            mover: Vec::with_capacity(self.mover.len()),
            bucket: Vec::with_capacity(self.bucket.len()),
            target: Vec::with_capacity(self.target.len()),
            key: Vec::with_capacity(self.key.len()),
            games: Vec::with_capacity(self.games.len()),
        };
        sorted.starts.push(0);
        for (place, samples) in spans {
            sorted.games.push((place, sorted.len() as u32));
            for i in samples {
                let (start, split, stop) = (
                    self.starts[i] as usize,
                    self.splits[i] as usize,
                    self.starts[i + 1] as usize,
                );
                let base = sorted.features.len();
                sorted
                    .features
                    .extend_from_slice(&self.features[start..stop]);
                sorted.splits.push((base + split - start) as u32);
                sorted.starts.push(sorted.features.len() as u32);
                sorted.mover.push(self.mover[i]);
                sorted.bucket.push(self.bucket[i]);
                sorted.target.push(self.target[i]);
                sorted.key.push(self.key[i]);
            }
        }
        sorted
    }

    fn views(&self, i: usize) -> [&[u16]; 2] {
        let (start, split, end) = (
            self.starts[i] as usize,
            self.splits[i] as usize,
            self.starts[i + 1] as usize,
        );
        [&self.features[start..split], &self.features[split..end]]
    }
}

/// The float network (see `crate::nnue::network` for the function).
#[derive(Clone)]
struct Params {
    width: usize,
    buckets: usize,
    w0: Vec<f32>,
    b0: Vec<f32>,
    /// `buckets × 2 × width`, as in the network file.
    w1: Vec<f32>,
    b1: Vec<f32>,
}

/// A sample's first layer, both views (the first `width` of each).
type Activations = [[f32; MAX_WIDTH]; 2];

impl Params {
    fn zeros(inputs: usize, width: usize, buckets: usize) -> Params {
        Params {
            width,
            buckets,
            w0: vec![0.0; inputs * width],
            b0: vec![0.0; width],
            w1: vec![0.0; buckets * 2 * width],
            b1: vec![0.0; buckets],
        }
    }

    fn slices_mut(&mut self) -> [&mut [f32]; 4] {
        [&mut self.w0, &mut self.b0, &mut self.w1, &mut self.b1]
    }

    fn slices(&self) -> [&[f32]; 4] {
        [&self.w0, &self.b0, &self.w1, &self.b1]
    }

    fn add(&mut self, other: &Params) {
        for (a, b) in self.slices_mut().into_iter().zip(other.slices()) {
            for (x, y) in a.iter_mut().zip(b) {
                *x += y;
            }
        }
    }

    fn clear(&mut self) {
        for a in self.slices_mut() {
            a.fill(0.0);
        }
    }

    /// The output weights of `bucket`'s neuron for view `v` (0: the mover's).
    fn output_weights(width: usize, bucket: usize, v: usize) -> std::ops::Range<usize> {
        let at = (bucket * 2 + v) * width;
        at..at + width
    }

    /// The output (points) for sample views `[mover's, other's]` in `bucket`, with the
    /// accumulators.
    fn forward(&self, views: [&[u16]; 2], bucket: usize, acc: &mut Activations) -> f32 {
        let width = self.width;
        let mut out = self.b1[bucket];
        for (v, features) in views.iter().enumerate() {
            let acc = &mut acc[v][..width];
            acc.copy_from_slice(&self.b0);
            for &f in *features {
                let column = &self.w0[usize::from(f) * width..][..width];
                for (a, w) in acc.iter_mut().zip(column) {
                    *a += w;
                }
            }
            let weights = &self.w1[Params::output_weights(width, bucket, v)];
            for (a, w) in acc.iter().zip(weights) {
                out += a.clamp(0.0, 1.0) * w;
            }
        }
        out
    }

    /// Add the gradient of the loss for one sample, whose output's gradient is `g`.
    fn backward(
        &self,
        views: [&[u16]; 2],
        bucket: usize,
        acc: &Activations,
        g: f32,
        grad: &mut Params,
    ) {
        let width = self.width;
        grad.b1[bucket] += g;
        for (v, features) in views.iter().enumerate() {
            let range = Params::output_weights(width, bucket, v);
            let weights = &self.w1[range.clone()];
            let grad_w1 = &mut grad.w1[range];
            let mut delta = [0f32; MAX_WIDTH];
            for j in 0..width {
                let a = acc[v][j];
                grad_w1[j] += g * a.clamp(0.0, 1.0);
                if a > 0.0 && a < 1.0 {
                    delta[j] = g * weights[j];
                }
            }
            let delta = &delta[..width];
            for (b, d) in grad.b0.iter_mut().zip(delta) {
                *b += d;
            }
            for &f in *features {
                let column = &mut grad.w0[usize::from(f) * width..][..width];
                for (c, d) in column.iter_mut().zip(delta) {
                    *c += d;
                }
            }
        }
    }

    /// The network file's integers: each value scaled, rounded and held within the bound
    /// the loader allows (`clip` keeps the floats within them already; the rounding and a
    /// checkpoint from an older trainer might not). A value that is no number (training
    /// diverged) is refused.
    fn quantise(&self, id: String, inputs: usize) -> Result<Network, TrainError> {
        if self
            .slices()
            .iter()
            .any(|s| s.iter().any(|x| !x.is_finite()))
        {
            return Err(TrainError::Diverged);
        }
        let q = |x: &f32, scale: i32, bound: i32| {
            ((x * scale as f32).round() as i32).clamp(-bound, bound) as i16
        };
        let network = Network {
            id,
            inputs,
            width: self.width,
            buckets: self.buckets,
            w0: self.w0.iter().map(|w| q(w, QA, MAX_FIRST_Q)).collect(),
            b0: self.b0.iter().map(|b| q(b, QA, MAX_FIRST_Q)).collect(),
            w1: self.w1.iter().map(|w| q(w, QB, MAX_OUTPUT_Q)).collect(),
            b1: self
                .b1
                .iter()
                .map(|b| {
                    ((b * (QA * QB) as f32).round() as i32)
                        .clamp(-MAX_OUTPUT_BIAS_Q, MAX_OUTPUT_BIAS_Q)
                })
                .collect(),
        };
        network.check_bounds()?;
        Ok(network)
    }

    fn clip(&mut self) {
        for w in self.w0.iter_mut().chain(self.b0.iter_mut()) {
            *w = w.clamp(-MAX_FIRST_WEIGHT, MAX_FIRST_WEIGHT);
        }
        for w in &mut self.w1 {
            *w = w.clamp(-MAX_OUTPUT_WEIGHT, MAX_OUTPUT_WEIGHT);
        }
        for b in &mut self.b1 {
            *b = b.clamp(-MAX_OUTPUT_BIAS, MAX_OUTPUT_BIAS);
        }
    }
}

fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// What [`train`] reports.
pub struct TrainSummary {
    pub train_positions: usize,
    pub validation_positions: usize,
    pub epochs: usize,
    /// `None` when the data hold no validation game (game numbers divisible by 20).
    pub validation_loss: Option<f64>,
    /// Validation positions that are training positions too (the same position in a
    /// training game: repeated games, or a common position).
    pub validation_seen: usize,
    /// The validation loss over the other validation positions; `None` when every one is
    /// seen in training, or none is (it is then the validation loss).
    pub unseen_loss: Option<f64>,
    pub seconds: f64,
}

/// The data read: the training and validation samples, the inputs, the network id, and the
/// positions whose targets the tables gave.
struct Read {
    training: Samples,
    validation: Samples,
    inputs: usize,
    id: String,
    rescored: usize,
}

/// A target's two parts, `(score, result)` in σ-space, from a table's exact value.
fn exact_target(value: ExactValue, scale: f32) -> (f32, f32) {
    let result = match value.half_points.signum() {
        1 => 1.0,
        0 => 0.5,
        _ => 0.0,
    };
    if value.decisive {
        (result, result)
    } else {
        (sigmoid(value.half_points as f32 * 50.0 / scale), result)
    }
}

/// Read the data: the training and the validation games' samples.
fn read(args: &TrainArgs, open: FeatureOpener, stop: &CancelToken) -> Result<Read, TrainError> {
    let mut features = open(&args.game.join(" ")).map_err(TrainError::Game)?;
    if let Some(dir) = &args.tablebases {
        features
            .use_tables(dir)
            .map_err(|source| TrainError::Tables {
                path: dir.clone(),
                source,
            })?;
    }
    let mut rescored = 0;
    let inputs = features.network_inputs();
    if inputs == 0 {
        return Err(TrainError::NoNetwork(features.spec()));
    }
    let mut sets = [Samples::default(), Samples::default()];
    for set in &mut sets {
        set.starts.push(0);
    }
    let mut views = [Vec::new(), Vec::new()];
    for (file, path) in args.data.iter().enumerate() {
        let mut reader = Reader::open(path)?;
        let made_for = reader.header.get("game").unwrap_or("").to_string();
        let spec = open(&made_for).map(|s| s.network_id()).unwrap_or_default();
        if spec != features.network_id() {
            return Err(TrainError::OtherGame {
                path: path.clone(),
                made_for,
                id: features.network_id(),
            });
        }
        while let Some(game) = reader.next_game()? {
            if stop.is_cancelled() {
                return Err(Interrupted.into());
            }
            let set = &mut sets[usize::from(game.number % 20 == 0)];
            set.games
                .push(((file as u32, game.number), set.len() as u32));
            for sample in &game.samples {
                let bucket = features
                    .packed_features(&sample.packed, &mut views, args.buckets)
                    .map_err(|source| TrainError::Position {
                        path: path.clone(),
                        number: game.number,
                        source,
                    })?;
                if views.iter().flatten().any(|&f| usize::from(f) >= inputs) {
                    return Err(TrainError::FeatureOutOfRange {
                        path: path.clone(),
                        number: game.number,
                    });
                }
                let mover = usize::from(sample.mover & 1);
                set.features.extend_from_slice(&views[mover]);
                set.splits.push(set.features.len() as u32);
                set.features.extend_from_slice(&views[mover ^ 1]);
                set.starts.push(set.features.len() as u32);
                set.mover.push(sample.mover);
                set.key.push(xxhash_rust::xxh3::xxh3_64(&sample.packed));
                set.bucket.push(bucket.min(args.buckets - 1) as u8);
                let exact = match args.tablebases {
                    Some(_) => features.exact_value(&sample.packed).map_err(|source| {
                        TrainError::Position {
                            path: path.clone(),
                            number: game.number,
                            source,
                        }
                    })?,
                    None => None,
                };
                let (score, result) = match exact {
                    Some(value) => {
                        rescored += 1;
                        exact_target(value, args.scale)
                    }
                    None => (
                        sigmoid(f32::from(sample.score) / args.scale),
                        (f32::from(game.result_for(sample)) + 1.0) / 2.0,
                    ),
                };
                set.target
                    .push(args.lambda * score + (1.0 - args.lambda) * result);
            }
        }
        if let Some(bytes) = reader.torn() {
            eprintln!(
                "'{}' ends inside a game's block (a write cut short: the run that made it was \
                 interrupted); its last {bytes} bytes are left out",
                path.display()
            );
        }
    }
    let [training, validation] = sets.map(Samples::in_game_order);
    Ok(Read {
        training,
        validation,
        inputs,
        id: features.network_id(),
        rescored,
    })
}

/// The share of validation positions that are training positions too above which `train`
/// warns: its validation loss then tells more of memory than of what the network learnt.
const SEEN_WARNING: f64 = 0.25;

/// What the two sets share: the data's positions counted once, and the validation samples
/// whose position is no training position (their indices), over which a loss measures
/// what the network learnt rather than what it remembers.
fn overlap(training: &Samples, validation: &Samples) -> (usize, Vec<u32>) {
    let mut trained = training.key.clone();
    trained.sort_unstable();
    trained.dedup();
    let unseen: Vec<u32> = (0..validation.len() as u32)
        .filter(|&i| trained.binary_search(&validation.key[i as usize]).is_err())
        .collect();
    let mut new: Vec<u64> = unseen.iter().map(|&i| validation.key[i as usize]).collect();
    new.sort_unstable();
    new.dedup();
    (trained.len() + new.len(), unseen)
}

/// Mean loss of `params` over `set`, and with `grad` the summed gradient of `order`'s
/// samples, split over threads in a fixed order.
fn pass(
    params: &Params,
    set: &Samples,
    order: &[u32],
    scale: f32,
    threads: usize,
    grads: &mut [Params],
    want_grad: bool,
) -> f64 {
    let chunk = order.len().div_ceil(threads.max(1)).max(1);
    let losses: Vec<f64> = std::thread::scope(|scope| {
        let handles: Vec<_> = order
            .chunks(chunk)
            .zip(grads.iter_mut())
            .map(|(part, grad)| {
                scope.spawn(move || {
                    grad.clear();
                    let mut acc = [[0f32; MAX_WIDTH]; 2];
                    let mut loss = 0f64;
                    for &i in part {
                        let i = i as usize;
                        let views = set.views(i);
                        let bucket = usize::from(set.bucket[i]);
                        let out = params.forward(views, bucket, &mut acc);
                        let p = sigmoid(out * 100.0 / scale);
                        let t = set.target[i];
                        loss += f64::from((p - t) * (p - t));
                        if want_grad {
                            let g = 2.0 * (p - t) * p * (1.0 - p) * 100.0 / scale;
                            params.backward(views, bucket, &acc, g, grad);
                        }
                    }
                    loss
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or(f64::NAN))
            .collect()
    });
    if want_grad {
        let (first, rest) = grads.split_at_mut(1);
        for g in rest.iter().take(losses.len().saturating_sub(1)) {
            first[0].add(g);
        }
    }
    losses.iter().sum::<f64>() / order.len().max(1) as f64
}

/// The training state kept between epochs.
struct State {
    params: Params,
    m: Params,
    v: Params,
    step: u64,
    epoch: usize,
}

const CHECKPOINT_MAGIC: &Magic = b"SOWFANCK";

impl State {
    fn to_bytes(&self, args_key: &str) -> Vec<u8> {
        let mut out = CHECKPOINT_MAGIC.to_vec();
        out.extend_from_slice(&(args_key.len() as u32).to_le_bytes());
        out.extend_from_slice(args_key.as_bytes());
        out.extend_from_slice(&self.step.to_le_bytes());
        out.extend_from_slice(&(self.epoch as u64).to_le_bytes());
        for p in [&self.params, &self.m, &self.v] {
            for s in p.slices() {
                for x in s {
                    out.extend_from_slice(&x.to_le_bytes());
                }
            }
        }
        file_header::append_checksum(&mut out);
        out
    }

    /// The bytes of a checkpoint of these settings.
    fn size(args_key: &str, inputs: usize, width: usize, buckets: usize) -> u64 {
        let floats = (inputs * width + width + buckets * 2 * width + buckets) as u64;
        (8 + 4 + args_key.len() + 8 + 8 + 8) as u64 + 3 * 4 * floats
    }

    fn from_bytes(
        bytes: &[u8],
        args_key: &str,
        [inputs, width, buckets]: [usize; 3],
    ) -> Result<State, CheckpointError> {
        if bytes.len() < 20 || file_header::check_magic(bytes, CHECKPOINT_MAGIC).is_err() {
            return Err(CheckpointError::NotCheckpoint);
        }
        // The settings first: a checkpoint of other settings has another size, and is read
        // only as far as these settings' size (so its checksum cannot be checked).
        let key_len = u32::from_le_bytes(bytes[8..12].try_into().unwrap_or([0; 4])) as usize;
        let key = bytes
            .get(12..12 + key_len)
            .ok_or(CheckpointError::CutShort)?;
        if key != args_key.as_bytes() {
            return Err(CheckpointError::OtherSettings(
                String::from_utf8_lossy(key).into_owned(),
            ));
        }
        let body = file_header::split_checksum(bytes).map_err(|_| CheckpointError::Checksum)?;
        let mut at = 12 + key_len;
        let mut word = |n: usize| -> Result<&[u8], CheckpointError> {
            let w = body.get(at..at + n).ok_or(CheckpointError::CutShort)?;
            at += n;
            Ok(w)
        };
        let step = u64::from_le_bytes(word(8)?.try_into().unwrap_or([0; 8]));
        let epoch = u64::from_le_bytes(word(8)?.try_into().unwrap_or([0; 8])) as usize;
        let mut sets = [
            Params::zeros(inputs, width, buckets),
            Params::zeros(inputs, width, buckets),
            Params::zeros(inputs, width, buckets),
        ];
        for p in &mut sets {
            for s in p.slices_mut() {
                for x in s.iter_mut() {
                    *x = f32::from_le_bytes(word(4)?.try_into().unwrap_or([0; 4]));
                }
            }
        }
        if at != body.len() {
            return Err(CheckpointError::Size);
        }
        let [params, m, v] = sets;
        Ok(State {
            params,
            m,
            v,
            step,
            epoch,
        })
    }
}

/// Every output checked before any work: a regular file or none yet, none of them an
/// input or the other output, and this run's alone (a lock each, which also shows that
/// their folder is writable). The locks are held until they are dropped.
fn check_outputs(args: &TrainArgs) -> Result<Vec<OutputLock>, OutputError> {
    let mut outputs = vec![("--output", args.output.as_path())];
    if let Some(checkpoint) = &args.checkpoint {
        outputs.push(("--checkpoint", checkpoint.as_path()));
    }
    let inputs: Vec<(&str, &std::path::Path)> =
        args.data.iter().map(|d| ("--data", d.as_path())).collect();
    for (option, path) in &outputs {
        refuse_irregular(option, path)?;
        refuse_output_over_input((option, path), &inputs)?;
    }
    if let [output, checkpoint] = outputs[..] {
        refuse_output_over_input(output, &[checkpoint])?;
    }
    outputs
        .iter()
        .map(|(option, path)| OutputLock::file(option, path, "train"))
        .collect()
}

/// A checkpoint's bytes: a regular file only (a FIFO is refused, not waited on), and at
/// most `size` bytes (what these settings write) read.
fn read_checkpoint(path: &std::path::Path, size: u64) -> Result<Vec<u8>, TrainError> {
    use std::io::Read;
    let cannot = |source| TrainError::CheckpointRead {
        path: path.to_path_buf(),
        source,
    };
    let file = crate::cli::open_regular(path).map_err(cannot)?;
    let mut bytes = Vec::new();
    file.take(size + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| cannot(e.into()))?;
    Ok(bytes)
}

/// Train as `args` say, on the features `open` gives for `args.game` (the registry's, from
/// the command line).
pub fn train(
    args: &TrainArgs,
    open: FeatureOpener,
    stop: &CancelToken,
) -> Result<TrainSummary, TrainError> {
    if args.batch == 0 || args.epochs == 0 {
        return Err(TrainError::ZeroBatchOrEpochs);
    }
    let positive = |x: f32| x.is_finite() && x > 0.0;
    if !(0.0..=1.0).contains(&args.lambda) || !positive(args.scale) || !positive(args.rate) {
        return Err(TrainError::BadRates);
    }
    let threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let threads = crate::memory::check_threads("--threads", threads)?;
    if args.epochs > MAX_EPOCHS {
        return Err(TrainError::TooManyEpochs(args.epochs));
    }
    if !shape_is_served(args.width, args.buckets) {
        return Err(TrainError::Shape {
            width: args.width,
            buckets: args.buckets,
        });
    }
    let _locks = check_outputs(args)?;
    let started = Instant::now();
    let Read {
        training,
        validation,
        inputs,
        id,
        rescored,
    } = read(args, open, stop)?;
    if training.len() == 0 {
        return Err(TrainError::NoPositions);
    }
    let (distinct, unseen) = overlap(&training, &validation);
    let seen = validation.len() - unseen.len();
    let share = |part: usize, whole: usize| 100.0 * part as f64 / whole.max(1) as f64;
    let all = training.len() + validation.len();
    eprintln!(
        "{} training and {} validation positions, {inputs} inputs × {} wide, {} output buckets, read in {:.1} s{}",
        training.len(),
        validation.len(),
        args.width,
        args.buckets,
        started.elapsed().as_secs_f64(),
        if args.tablebases.is_some() {
            format!("; {rescored} targets from the tables")
        } else {
            String::new()
        }
    );
    eprintln!(
        "{distinct} distinct positions ({:.1} % of {all}); {seen} of the validation positions \
         ({:.1} %) are training positions too",
        share(distinct, all),
        share(seen, validation.len())
    );
    if seen as f64 > SEEN_WARNING * validation.len() as f64 {
        eprintln!(
            "warning: {:.1} % of the validation positions are training positions too (games \
             played again from the same openings, or positions every game passes): the \
             validation loss says how well the network remembers them; {}. Longer random \
             openings (`datagen --openings plies=K` with a larger K) make the games differ",
            share(seen, validation.len()),
            match unseen.len() {
                0 => "none is new, so no loss here says what it learnt".to_string(),
                n => format!("the loss over the {n} others says what it learnt"),
            }
        );
    }
    // What decides the result, for the checkpoint: it is continued only by a run of the
    // same settings (more --epochs may be asked; the rate's last-quarter step follows them).
    let key = format!(
        "{} inputs={inputs} width={} buckets={} batch={} rate={} lambda={} scale={} seed={} \
         threads={threads} positions={} rescored={rescored}",
        id,
        args.width,
        args.buckets,
        args.batch,
        args.rate,
        args.lambda,
        args.scale,
        args.seed,
        training.len()
    );
    let mut state = match args.checkpoint.as_deref().filter(|p| p.exists()) {
        Some(path) => {
            let bytes = read_checkpoint(path, State::size(&key, inputs, args.width, args.buckets))?;
            let state = State::from_bytes(&bytes, &key, [inputs, args.width, args.buckets])
                .map_err(|source| TrainError::Checkpoint {
                    path: path.to_path_buf(),
                    source,
                })?;
            if state.epoch > args.epochs {
                return Err(TrainError::CheckpointAhead {
                    path: path.to_path_buf(),
                    epoch: state.epoch,
                    epochs: args.epochs,
                });
            }
            eprintln!(
                "going on from '{}' after epoch {}",
                path.display(),
                state.epoch
            );
            state
        }
        None => {
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(args.seed);
            let mut params = Params::zeros(inputs, args.width, args.buckets);
            for w in &mut params.w0 {
                *w = rng.random_range(-0.1..0.1);
            }
            for b in &mut params.b0 {
                *b = 0.1;
            }
            for w in &mut params.w1 {
                *w = rng.random_range(-0.1..0.1);
            }
            State {
                params,
                m: Params::zeros(inputs, args.width, args.buckets),
                v: Params::zeros(inputs, args.width, args.buckets),
                step: 0,
                epoch: 0,
            }
        }
    };
    let mut grads = vec![Params::zeros(inputs, args.width, args.buckets); threads];
    let everything: Vec<u32> = (0..validation.len() as u32).collect();
    let (beta1, beta2, epsilon) = (0.9f32, 0.999f32, 1e-8f32);
    // The validation loss, and the loss over the unseen validation positions where it
    // differs from it (some seen in training, some not).
    let validate = |params: &Params, grads: &mut [Params]| {
        let mut loss_over = |indices: &[u32]| {
            pass(
                params,
                &validation,
                indices,
                args.scale,
                threads,
                grads,
                false,
            )
        };
        let all = (validation.len() > 0).then(|| loss_over(&everything));
        let new = (seen > 0 && !unseen.is_empty()).then(|| loss_over(&unseen));
        (all, new)
    };
    let shown = |loss: Option<f64>, unseen_loss: Option<f64>| {
        let mut text = loss.map_or("none (no validation games)".into(), |l| format!("{l:.6}"));
        if let Some(l) = unseen_loss {
            text += &format!(" (unseen positions {l:.6})");
        }
        text
    };
    let mut validation_loss = None;
    let mut unseen_loss = None;
    while state.epoch < args.epochs {
        let mut order: Vec<u32> = (0..training.len() as u32).collect();
        let mut rng =
            Xoshiro256PlusPlus::seed_from_u64(args.seed ^ ((state.epoch as u64 + 1) * 0x9E37_79B9));
        order.shuffle(&mut rng);
        let rate = if state.epoch * 4 >= args.epochs * 3 {
            args.rate / 10.0
        } else {
            args.rate
        };
        let mut train_loss = 0f64;
        for batch in order.chunks(args.batch) {
            if stop.is_cancelled() {
                return Err(Interrupted.into());
            }
            train_loss += pass(
                &state.params,
                &training,
                batch,
                args.scale,
                threads,
                &mut grads,
                true,
            ) * batch.len() as f64;
            state.step += 1;
            let n = batch.len() as f32;
            let (c1, c2) = (
                1.0 - beta1.powi(state.step.min(100_000) as i32),
                1.0 - beta2.powi(state.step.min(100_000) as i32),
            );
            let State { params, m, v, .. } = &mut state;
            for (((p, g), m), v) in params
                .slices_mut()
                .into_iter()
                .zip(grads[0].slices())
                .zip(m.slices_mut())
                .zip(v.slices_mut())
            {
                for i in 0..p.len() {
                    let g = g[i] / n;
                    m[i] = beta1 * m[i] + (1.0 - beta1) * g;
                    v[i] = beta2 * v[i] + (1.0 - beta2) * g * g;
                    p[i] -= rate * (m[i] / c1) / ((v[i] / c2).sqrt() + epsilon);
                }
            }
            params.clip();
        }
        state.epoch += 1;
        (validation_loss, unseen_loss) = validate(&state.params, &mut grads);
        eprintln!(
            "epoch {:>3}/{}: training loss {:.6}, validation loss {} ({:.0} s)",
            state.epoch,
            args.epochs,
            train_loss / training.len() as f64,
            shown(validation_loss, unseen_loss),
            started.elapsed().as_secs_f64()
        );
        if let Some(path) = &args.checkpoint {
            write_atomically(path, &state.to_bytes(&key)).map_err(|source| TrainError::Write {
                path: path.clone(),
                source,
            })?;
        }
    }
    if validation_loss.is_none() {
        // No epoch ran (the checkpoint was after the last): the loss of its network.
        (validation_loss, unseen_loss) = validate(&state.params, &mut grads);
    }
    let network = state.params.quantise(id, inputs)?;
    if state.params.b1.iter().any(|b| b.abs() >= MAX_OUTPUT_BIAS) {
        eprintln!(
            "warning: the output bias reached its bound (±{MAX_OUTPUT_BIAS} points): the \
             network is kept within what the engine loads; a smaller --rate may fit better"
        );
    }
    write_atomically(&args.output, &network.to_bytes()).map_err(|source| TrainError::Write {
        path: args.output.clone(),
        source,
    })?;
    Ok(TrainSummary {
        train_positions: training.len(),
        validation_positions: validation.len(),
        epochs: state.epoch,
        validation_loss,
        validation_seen: seen,
        unseen_loss,
        seconds: started.elapsed().as_secs_f64(),
    })
}
