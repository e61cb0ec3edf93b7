//! sowfan: a game engine for Kalah, Afrika, Anywoli and Fanorona, speaking a UCI-like
//! protocol (see `protocol.md`).
//!
//! Layers, from the rules up: [`game`] (the `Game` trait), [`games`] (one module per game),
//! [`perft`] and [`search`] (generic over `Game`), [`session`] (a game in play behind an
//! object-safe trait), [`registry`] (games by name), [`protocol`] (the text protocol),
//! [`client`] (an external engine driven over the protocol), [`openings`] (where the games
//! of a match, and the positions of a check, start), [`records`] (match records, written
//! and read through one schema), [`tournament`] (`sowfan match`: engine matches refereed by
//! the rules), [`check`] (`sowfan check`: an engine's protocol compliance, refereed by the
//! same rules), [`analysis`] (`sowfan analyse`: recorded games judged move by move),
//! [`play`] (`sowfan play`: a game against the engine in a terminal).

pub mod analysis;
pub mod bench;
pub mod check;
pub mod cli;
pub mod client;
pub mod compositions;
pub mod game;
pub mod games;
pub mod memory;
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
pub mod tablebase;
pub mod tournament;
pub mod tune;
