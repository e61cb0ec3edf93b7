//! The rules of each game, one module (file or folder) per game.

pub mod afrika;
pub mod anywoli;
pub mod fanorona;
pub mod kalah;
pub mod mancala;
