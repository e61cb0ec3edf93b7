//! The search's pruning and reduction constants, in one place: each says what it is and why
//! it has its value. Whether a game prunes at all is the game's to say (below); these are
//! the margins, depths, reductions and move counts of the pruning it asks for.
//!
//! Issue 49's candidates were each built and measured alone, in every game
//! (docs/strength.md, commands I, J, M and N). What won its SPRT at equal time in a game is
//! asked of that game: null-move pruning (`Game::null_move`, Afrika), late-move and futility
//! pruning (`Game::prunes_late_moves`, Kalah), and late-move reductions by the order alone
//! where a game's hint only ranks moves (`Game::hint_ranks_quiet_moves`, Afrika). Internal
//! iterative reductions, singular and one-reply extensions, rejected at equal time in
//! Fanorona, were removed (their code: 72dd84a), and so were aspiration windows, reductions
//! from a log table and counter moves, which won no SPRT in any game, and a clock that
//! follows the best move's stability, rejected with clocks in Fanorona (their code: 0d9bfcb).
//! The values below are those measured there (docs/strength.md, "Search"): changing one
//! changes `sowfan bench`'s node count and needs a match of its own.

// ------------------------------------------------------------------ null-move pruning

/// Null-move pruning ([`Game::null_move`](crate::game::SearchHints::null_move)) from this depth
/// left on. Already at this depth the reduction leaves the pass only a quiescence search;
/// shallower nodes are cheap enough to search whole. The value measured with the rest of
/// the rule for Afrika (docs/strength.md), not tuned on its own.
pub(super) const NULL_MIN_DEPTH: u32 = 3;
/// From this depth left on a null move's fail-high is checked by a shallower search of the
/// node without passes near it (zugzwang-like positions where a pass would be best). Only
/// deep cuts, which save the most and would cost the most when wrong: every fail-high
/// verified (from depth 3) was rejected in Fanorona (docs/strength.md).
pub(super) const NULL_VERIFY_DEPTH: u32 = 12;
/// The null move's search is this many plies shallower than the node besides the pass
/// itself, plus a ply for every [`NULL_REDUCTION_DEPTH_DIVISOR`] of depth and for every
/// [`NULL_REDUCTION_EVAL_STEP`] of evaluation above beta (at most
/// [`NULL_REDUCTION_EVAL_MAX`]): R = 3 + depth/3 + up to 2, the rule of the Stockfish-like
/// engines, as measured for Afrika (+77 Elo at equal time, docs/strength.md).
pub(super) const NULL_REDUCTION: u32 = 3;
/// A ply more of null-move reduction for each this many plies of depth left: deep nodes
/// afford a shallower test.
pub(super) const NULL_REDUCTION_DEPTH_DIVISOR: u32 = 3;
/// A ply more of null-move reduction for each this much of the evaluation above beta, in
/// evaluation units (100 = one point): the further the mover stands above beta, the
/// likelier a pass still holds.
pub(super) const NULL_REDUCTION_EVAL_STEP: i32 = 200;
/// At most this many plies of null-move reduction for the evaluation's margin over beta.
pub(super) const NULL_REDUCTION_EVAL_MAX: i32 = 2;
/// A verification searches with no pass for the first `NUMERATOR / DENOMINATOR` (3/4) of
/// its reduced depth, as Stockfish's verification search does: it must not rest on passes
/// itself, and its last plies may still prune with them.
pub(super) const NULL_VERIFY_NO_PASS_NUMERATOR: usize = 3;
/// See [`NULL_VERIFY_NO_PASS_NUMERATOR`].
pub(super) const NULL_VERIFY_NO_PASS_DENOMINATOR: usize = 4;

// ------------------------------------------------------- late-move and futility pruning

/// Late-move and futility pruning
/// ([`Game::prunes_late_moves`](crate::game::SearchHints::prunes_late_moves)) at this depth left
/// and below, outside the PV: near the leaves, where a move wrongly left out costs least.
/// As measured in Kalah: +29 Elo at equal nodes, +26 at equal time (docs/strength.md).
pub(super) const PRUNING_MAX_DEPTH: u32 = 3;
/// Late-move pruning: a quiet move is not searched from this place in the order (0 =
/// first) plus depth² on: the (4 + depth²)-th move on, the fifth at depth 1 and the
/// thirteenth at depth 3; the deeper the node, the more of its moves are looked at.
pub(super) const LATE_MOVE_COUNT: usize = 3;
/// Futility pruning: the most a quiet move is taken to gain over the node's static
/// evaluation, per ply of depth left, in evaluation units (100 = one point): a quiet move
/// at a node evaluated this times the depth or more below alpha is not searched.
pub(super) const FUTILITY_MARGIN: i32 = 150;

// ----------------------------------------------------------------- late-move reductions

/// Late-move reductions from this place in the order on (0 = first): from the fourth move,
/// after the table's move, the killer and the best by hint or history. From the third
/// instead was rejected in Afrika (docs/strength.md).
pub(super) const LMR_MIN_MOVE: usize = 3;
/// Late-move reductions at this depth left and above: with less, a reduced move would go
/// straight to the quiescence search.
pub(super) const LMR_MIN_DEPTH: u32 = 3;
/// A late move's reduction, in plies, short of the deep rule below.
pub(super) const LMR_REDUCTION: u32 = 1;
/// The deep rule: from this place in the order on (the seventh move) and at
/// [`LMR_DEEP_DEPTH`] or more, a late move is reduced by [`LMR_DEEP_REDUCTION`]: the later
/// the move and the deeper the node, the likelier it is poor and the more a full search of
/// it costs. A table of ln(depth)·ln(move number)/2 in place of the two steps was rejected
/// (docs/strength.md).
pub(super) const LMR_DEEP_MOVE: usize = 6;
/// The depth left from which the deep rule applies ([`LMR_DEEP_MOVE`]).
pub(super) const LMR_DEEP_DEPTH: u32 = 6;
/// The deep rule's reduction, in plies ([`LMR_DEEP_MOVE`]).
pub(super) const LMR_DEEP_REDUCTION: u32 = 2;
