//! sowfan: a game engine for Kalah, Afrika, Anywoli and Fanorona, speaking a UCI-like
//! protocol (see `protocol.md`).
//!
//! Layers, bottom to top; every import points down, never up, and never sideways between two
//! units of one layer (tests/it/layers.rs keeps this true):
//!
//! 1. [`file_header`]: the magic, version and checksum of every binary file, read and
//!    checked in one place;
//! 2. the learned evaluation's [`nnue::accumulator`] (a position's first layer, as the search
//!    keeps it) and [`nnue::network`] (the network file and its integer inference): below
//!    the contract, which names them;
//! 3. the contract: [`game`] (the `Game` trait in parts, one file each: the rules, the
//!    notation, and the opt-in capabilities; `Points`, `Outcome`, `MAX_PLY`);
//! 4. generic utilities: [`options`] (game options), [`compositions`] (ranking of pit
//!    contents), [`memory`] (big zeroed tables, memory limits, prefetch), [`cli`] (Ctrl-C
//!    token, exit status, game words), [`nnue`] (the learned evaluation's folder: its map, and
//!    [`nnue::features`], the feature sets the games' networks read), [`text`] (outside text
//!    made safe to print on one line);
//! 5. [`games`]: one module per game, the only place that knows a rule;
//! 6. [`tables`]: endgame tables, read and built, generic over `Game`;
//! 7. [`perft`], [`search`], [`solver`] (exact values: MTD(f) and proof numbers): generic
//!    over `Game`;
//! 8. [`session`]: a game in play behind one object-safe trait;
//! 9. [`registry`]: the games by name;
//! 10. [`bench`](mod@bench): the fixed search suite;
//! 11. what the tools share: [`protocol`] (the text protocol on stdin/stdout), [`client`]
//!     (an external engine driven over the protocol), [`openings`] (where the games of a
//!     match, and the positions of a check, start), [`records`] (match records, written and
//!     read through one schema), [`nnue::training_data`] (self-play positions for learning an
//!     evaluation, written and read);
//! 12. the tools' work, none importing another: `r#match` (`sowfan match`), [`check`]
//!     (an engine's protocol compliance), [`analyse`](mod@analyse) (`sowfan analyse`: recorded games
//!     judged move by move), [`accuracy`] (`sowfan accuracy`: engines' moves against perfect
//!     play), [`play`] (a game against the engine in a terminal), [`tune`]
//!     (evaluation weights fitted to records), [`tablebase`] (`sowfan tablebase`: build,
//!     verify, list, merge), [`solve`] (`sowfan solve`: a proof from the command line),
//!     [`datagen`] (`sowfan datagen`: self-play games written as training data),
//!     [`nnue::train`] (`sowfan train`: a network fitted to training data, in the learned
//!     evaluation's folder; it reads a game only through the feature sets' `PackedFeatures`);
//! 13. [`commands`]: each tool's command line, one file a subcommand (its clap arguments,
//!     its run, its exit status), none importing another;
//! 14. `main.rs`: parses the command line and dispatches.
//!
//! Names: a tool's module is named as its subcommand (`match`, a keyword, as a raw identifier),
//! and its command line is `commands/<subcommand>.rs`; `tt` is a transposition table, `tables`
//! and `tablebase` are endgame tables only; no module name stands in two layers.

pub mod accuracy;
pub mod analyse;
pub mod bench;
pub mod check;
pub mod cli;
pub mod client;
pub mod commands;
pub mod compositions;
pub mod datagen;
pub mod file_header;
pub mod game;
pub mod games;
pub mod r#match;
pub mod memory;
pub mod nnue;
pub mod openings;
pub mod options;
pub mod perft;
pub mod play;
pub mod protocol;
pub mod records;
pub mod registry;
pub mod search;
pub mod session;
pub mod solve;
pub mod solver;
pub mod tablebase;
pub mod tables;
pub mod text;
pub mod tune;
