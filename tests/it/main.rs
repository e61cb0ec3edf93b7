//! Integration tests: one test binary (linking is the slow part of an LTO build), one module
//! per topic, a folder for a topic with several files. `support` holds what the topics
//! share: driving the real `sowfan` binary through pipes, running it with a time limit.

mod accuracy;
mod afrika;
mod analyse;
mod anywoli;
mod behaviours;
mod check;
mod cli_help;
mod datagen;
mod docs;
mod fanorona;
mod fuzz;
mod hardening;
mod hostile_tables;
mod kalah;
mod layers;
mod ludii_plugin;
mod r#match;
mod match_slices;
mod minimal_game;
mod nnue;
mod numbers_that_lie;
mod play;
mod protocol;
mod quiescence;
mod record_fuzz;
mod robustness;
mod root_entry;
mod root_split;
mod slurm;
mod solve_frontier;
mod solve_limits;
mod solve_save;
mod support;
mod table_chain;
mod tablebase;
mod tune;
