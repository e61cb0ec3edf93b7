//! Anywoli's exact values and endgame-table indexing.

use crate::game::{ExactValues, TableIndexing};

use super::*;

// Anywoli has no endgame tables and banks nothing before the end: the defaults (no tables,
// the whole hash as the exact key) are its answers.
impl ExactValues for Anywoli {}

impl TableIndexing for Anywoli {}
