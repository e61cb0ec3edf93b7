//! What the integration tests share, written once: the pipe driver of the real binary
//! ([`Engine`]), and the perft fixture format.

mod engine;
pub mod perft_fixture;

pub use engine::{BIN, Engine, field, run_script};
