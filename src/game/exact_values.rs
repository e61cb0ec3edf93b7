//! Opt-in: what exact play (the solver, endgame tables) needs to know of a game's values.

use super::{Outcome, Player, Rules};

/// Exact play: the solver (`src/solver/`) and endgame tables (`src/tables/`) ask the game
/// for these. The defaults are always correct, only slower: nothing is banked, the key is the
/// whole hash, no bound is known.
pub trait ExactValues: Rules {
    /// The value of a finished game for `mover`, in half-points: by default the final margin
    /// `scores[mover] − scores[other]`. A game decided by something else than points (e.g.
    /// Fanorona) maps a win to a positive, a loss to a negative value.
    fn final_value(&self, outcome: &Outcome, mover: Player) -> i32 {
        outcome.margin(mover).halves()
    }

    /// The part of the final value that is already decided in `pos`, from the mover's view
    /// in half-points (e.g. the stores' difference in Kalah): the rest, `final − banked`,
    /// must depend only on what [`ExactValues::exact_key`] describes.
    fn banked_value(&self, _pos: &Self::Position) -> i32 {
        0
    }

    /// A bound on how far the final value can still move from the banked value (half-points;
    /// e.g. twice the seeds left in the pits). `None`: no bound is known.
    fn value_at_stake(&self, _pos: &Self::Position) -> Option<i32> {
        None
    }

    /// Without endgame tables, the value at stake (half-points, as
    /// [`ExactValues::value_at_stake`]) up to which a `go` first gives the exact solver part of
    /// its time (a third): where the solver often proves a position in that time (its table
    /// keeps what the proofs of earlier moves found), and a proof plays the move of the best
    /// final margin, which a search's evaluation may miss by a point. `None` (the default):
    /// the solver is tried only near loaded tables.
    fn proof_stake_without_tables(&self) -> Option<i32> {
        None
    }

    /// Bounds `(lower, upper)` on `final − banked` (half-points, mover's view): the range
    /// [`ExactValues::value_at_stake`] allows, narrowed where the rules guarantee each player part
    /// of what is at stake whatever happens (e.g. a Kalah player whose pit reaches its store
    /// banks at least that seed). Both ends must lie on the grid of [`ExactValues::value_step`]
    /// from `−stake`. The default, `±value_at_stake`, is always true; `None`: no bound.
    fn value_range(&self, pos: &Self::Position) -> Option<(i32, i32)> {
        self.value_at_stake(pos).map(|stake| (-stake, stake))
    }

    /// The spacing of the final values a position can still reach: every one of them
    /// differs from `banked − stake` by a multiple of this (half-points). E.g. 4 in Kalah,
    /// where each seed in play goes to one player (the margin moves by 2 points a seed). The
    /// default, 1, is always true.
    fn value_step(&self) -> i32 {
        1
    }

    /// Every final value is a win, a draw or a loss for the mover ([`ExactValues::final_value`]
    /// positive, zero or negative): exact play proves which with proof numbers
    /// (`src/solver/pn/`), repetition rule or not (see there why a position without earlier
    /// occurrences has the same value with the rule and without it).
    fn win_draw_loss(&self) -> bool {
        false
    }

    /// A key of everything that decides `final − banked`, from the mover's view (so that
    /// mirrored positions share it): the exact solver's transposition key. The default, the
    /// full hash, is correct for any game.
    fn exact_key(&self, pos: &Self::Position) -> u64 {
        self.hash(pos)
    }
}
