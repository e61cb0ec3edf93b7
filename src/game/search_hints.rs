//! Opt-in: what a game tells the search to order and prune its moves.

use super::Rules;

/// The range of [`SearchHints::history_key`].
pub const HISTORY_KEYS: usize = 1024;

/// Move ordering and pruning hints for the search (`src/search/`) and the exact solver. The
/// defaults give no hint and turn no pruning on: always correct, only slower.
pub trait SearchHints: Rules {
    /// Move-ordering hint: higher is searched earlier (after the transposition-table move).
    fn order_hint(&self, _pos: &Self::Position, _mv: Self::Move) -> i32 {
        0
    }

    /// A cheap score of a position from its mover's view, higher better, that the exact
    /// solver uses to order moves its other keys (points banked, [`SearchHints::order_hint`]) find
    /// equal. It costs one call per child the solver searches: it must be much cheaper than
    /// [`Evaluation::evaluate`](super::Evaluation::evaluate). The default, 0 for every position, keeps the move-generation order.
    fn proof_order(&self, _pos: &Self::Position) -> i32 {
        0
    }

    /// What the move does, as a number below [`HISTORY_KEYS`] that is the same in different
    /// positions (e.g. the pit sown, or a stone's first step): the history heuristic learns
    /// which keys cause cut-offs. `None` (the default): the game has no such notion.
    fn history_key(&self, _pos: &Self::Position, _mv: Self::Move) -> Option<usize> {
        None
    }

    /// Whether [`SearchHints::order_hint`] only ranks moves that may all be quiet, instead of
    /// singling out the forcing ones (a capture, an extra move) with a non-zero hint:
    /// then late-move reductions take a late move by its place in the order alone. The
    /// default: no, a move with a hint is never reduced. A game says yes only once the
    /// reductions have won their SPRT at equal time there (docs/strength.md).
    fn hint_ranks_quiet_moves(&self) -> bool {
        false
    }

    /// Whether several search threads (one line, `MultiPV` 1) work on one depth and split
    /// its root moves: all search the first move, then each takes the next move no thread
    /// has taken. If not, they spread over the depths (one thread a depth) and share only
    /// the table. Splitting pays where the moves after the first hold much of an
    /// iteration's work; a game whose first root move holds nearly all of it says no
    /// (Afrika). The two were compared by time to depth (docs/results/strength-threads.md).
    fn threads_split_root_moves(&self) -> bool {
        true
    }

    /// Whether the search prunes late quiet moves near the leaves: outside the PV, at most
    /// 3 plies from the horizon, a move without an ordering hint from the (4 + depth²)-th
    /// on, or any such move where the node's evaluation is 150 a ply of depth or more below
    /// α, is not searched (late-move and futility pruning). It is a judgement: a game
    /// says yes only once it has won its SPRT at equal time there (docs/strength.md: Kalah
    /// does; in Fanorona and Anywoli it lost). The default: no.
    fn prunes_late_moves(&self) -> bool {
        false
    }

    /// The position after the side to move passes its turn, for null-move pruning: a
    /// search that gives the opponent a free move and still fails high takes the node as
    /// good enough not to search. `None` (the default) where a pass is no fair test of the
    /// position: a game with no such notion, or a mover with a forcing move due (a
    /// compulsory capture), or where passing would be a likely best move (zugzwang). The
    /// search never plays two passes in a row, and a pass is never part of a line it
    /// reports. A game offers passes only once the pruning has won its SPRT there
    /// (docs/strength.md: Afrika does; in Kalah, Anywoli and Fanorona it lost).
    fn null_move(&self, _pos: &Self::Position) -> Option<Self::Position> {
        None
    }

    /// With [`Horizon::Optional`](super::Horizon::Optional): is `mv` one of the forcing moves (a capture, an extra
    /// move) the quiescence search plays out? The default: none is.
    fn is_forcing(&self, _pos: &Self::Position, _mv: Self::Move) -> bool {
        false
    }
}
