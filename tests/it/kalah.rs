//! Kalah rules through perft and full games.
