//! The learned evaluation (NNUE), all in this folder: a small network over a game's
//! features, read from a file, and the tools that make one.
//!
//! A network is a first layer over a game's features (facts of the position from one side's
//! view), kept as an [`accumulator`] of both sides' views, then a clipped ReLU and one output
//! neuron over [mover's view, other view] ([`network`]: the file and the integer inference).
//! How the first layer is filled depends on the game's feature set ([`features`]):
//!
//! - **stones on points** (Fanorona, [`features::stones`]): a turn moves one stone and
//!   captures a few, so the search keeps an accumulator a ply and updates it by the features
//!   the move turned on and off (`NetworkFeatures::update_accumulator`);
//! - **pits and stores** (Kalah, Afrika, Anywoli, [`features::sowing`]): a sowing turn
//!   changes most of a row, so the first layer is summed afresh for each evaluated position
//!   and the search keeps none (`NetworkFeatures::accumulates` is false).
//!
//! A game says which set it reads, and which network it embeds ([`networks`](#networks)),
//! in its own `network_features.rs` (its `NetworkFeatures`); a game without a network needs
//! nothing from here.
//!
//! Making a network: `sowfan datagen` (`crate::datagen`: self-play games scored by a
//! search) writes [`training_data`], which `sowfan train` ([`train`]) fits a network to.
//! Training reads a game only through [`features::PackedFeatures`], which the registry gives
//! for a game by name, so it lives here and imports no game, session or search. Datagen
//! plays whole games with the search and the sessions, which themselves evaluate with what is
//! here, so it stays a tool of its own outside this folder: inside, it would close a circle
//! between modules. docs/nnue.md gives the commands that made each embedded network.
//!
//! # Networks
//!
//! The embedded networks are `networks/*.nnue`: `kalah.nnue` (Kalah 6×4), `afrika.nnue`,
//! `anywoli.nnue` (12 houses of 4) and `tsivy.nnue` (Fanorona 9×5).
//!
//! # Layers
//!
//! The folder spans the crate's layers (tests/it/layers.rs places each part): the
//! accumulator and the network file sit below the `Game` contract, which names them; the
//! feature sets are generic utilities the games use; the training data is shared by tools;
//! [`train`] is a tool. Nothing here imports a module above the utilities.

pub mod accumulator;
pub mod features;
pub mod network;
pub mod train;
pub mod training_data;
