//! The rules of each game, one module (file or folder) per game.

pub mod anywoli;
pub mod kalah;
pub mod mancala;
