//! The command line of every tool, one file a subcommand: its clap arguments (derived on the
//! library's own types where it has them), its `run(args) -> ExitCode` and its exit-status
//! rules. The work is in the library below; src/main.rs parses and dispatches here.

// The arguments' doc comments are the command-line help, where `<command>` is a placeholder,
// not an HTML tag.
#![allow(rustdoc::invalid_html_tags)]

pub mod accuracy;
pub mod analyse;
pub mod bench;
pub mod check;
pub mod datagen;
pub mod r#match;
pub mod perft;
pub mod play;
pub mod solve;
pub mod tablebase;
pub mod train;
pub mod tune;
