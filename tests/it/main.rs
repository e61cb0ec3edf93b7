//! Integration tests: one test binary (linking is the slow part of an LTO build), one module
//! per topic. `engine` drives the real `sowfan` binary through pipes.

mod afrika;
mod analyse;
mod anywoli;
mod check;
mod cli_help;
mod engine;
mod fanorona;
mod fanorona_brute;
mod fanorona_perft;
mod fanorona_telo;
mod fuzz;
mod hardening;
mod kalah;
mod layers;
mod perft_fixture;
mod play;
mod protocol;
mod robustness;
mod tablebase;
mod tournament;
mod tune;
