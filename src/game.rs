//! The contract between a game's rules and everything generic: search, perft, protocol.
//!
//! A game is a value (it carries its options, e.g. Kalah's pit count); positions and moves
//! are plain data. Nothing outside `src/games/` knows any rule: the search only asks for
//! legal moves, plays them on a copy, and asks whose turn it is and whether the game is over.

use std::fmt;

use thiserror::Error;

/// The two players. `P1` is the player who moves first from the start position of the game
/// (South in Kalah and Anywoli, North in Afrika, White in Fanorona), whatever side they end
/// up on (Kalah's pie rule can move P1 to the North side).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Player {
    P1,
    P2,
}

impl Player {
    pub fn other(self) -> Player {
        match self {
            Player::P1 => Player::P2,
            Player::P2 => Player::P1,
        }
    }

    pub fn index(self) -> usize {
        match self {
            Player::P1 => 0,
            Player::P2 => 1,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Player::P1 => "p1",
            Player::P2 => "p2",
        }
    }
}

/// The result of a finished game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GameResult {
    P1Win,
    P2Win,
    Draw,
}

impl GameResult {
    /// The result of a game won by `winner` (`None` = draw).
    pub fn won_by(winner: Option<Player>) -> GameResult {
        match winner {
            Some(Player::P1) => GameResult::P1Win,
            Some(Player::P2) => GameResult::P2Win,
            None => GameResult::Draw,
        }
    }

    /// Decide by comparing scores: higher wins, equal draws.
    pub fn from_scores(scores: [Points; 2]) -> GameResult {
        match scores[0].cmp(&scores[1]) {
            std::cmp::Ordering::Greater => GameResult::P1Win,
            std::cmp::Ordering::Less => GameResult::P2Win,
            std::cmp::Ordering::Equal => GameResult::Draw,
        }
    }

    pub fn winner(self) -> Option<Player> {
        match self {
            GameResult::P1Win => Some(Player::P1),
            GameResult::P2Win => Some(Player::P2),
            GameResult::Draw => None,
        }
    }

    /// The UGI spelling: `p1win`, `p2win`, `draw`.
    pub fn as_str(self) -> &'static str {
        match self {
            GameResult::P1Win => "p1win",
            GameResult::P2Win => "p2win",
            GameResult::Draw => "draw",
        }
    }

    /// The result [`GameResult::as_str`] spells as `text`.
    pub fn parse(text: &str) -> Option<GameResult> {
        [GameResult::P1Win, GameResult::P2Win, GameResult::Draw]
            .into_iter()
            .find(|result| result.as_str() == text)
    }
}

/// How and why a game ended, with the final scores (indexed by `Player::index`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Outcome {
    pub result: GameResult,
    pub scores: [Points; 2],
    /// A short phrase for humans, e.g. "South's pits are empty", "third repetition".
    pub reason: &'static str,
}

impl Outcome {
    /// The final margin for `player`: own score minus the opponent's.
    pub fn margin(&self, player: Player) -> Points {
        let me = player.index();
        self.scores[me] - self.scores[1 - me]
    }
}

/// A score in a game's own points, held in halves so that a komi such as 2.5 is exact.
/// Displays as `64`, `66.5`, `-0.5`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Points {
    halves: i32,
}

impl Points {
    pub const ZERO: Points = Points { halves: 0 };

    pub fn whole(n: i32) -> Points {
        Points { halves: 2 * n }
    }

    pub fn from_halves(halves: i32) -> Points {
        Points { halves }
    }

    pub fn halves(self) -> i32 {
        self.halves
    }
}

impl std::ops::Add for Points {
    type Output = Points;
    fn add(self, rhs: Points) -> Points {
        Points {
            halves: self.halves + rhs.halves,
        }
    }
}

impl std::ops::Sub for Points {
    type Output = Points;
    fn sub(self, rhs: Points) -> Points {
        Points {
            halves: self.halves - rhs.halves,
        }
    }
}

impl fmt::Display for Points {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sign = if self.halves < 0 { "-" } else { "" };
        let abs = self.halves.unsigned_abs();
        if abs.is_multiple_of(2) {
            write!(f, "{sign}{}", abs / 2)
        } else {
            write!(f, "{sign}{}.5", abs / 2)
        }
    }
}

/// `+8`, `0`, `-2.5`: a value in half-points, signed (a margin, an exact value).
pub fn value_text(halves: i32) -> String {
    let points = Points::from_halves(halves);
    if halves > 0 {
        format!("+{points}")
    } else {
        points.to_string()
    }
}

/// The longest line, in plies, that any search follows from its root: deeper positions are
/// judged, not searched. Games whose rules count plies (a quiet-move limit) compare with it.
pub const MAX_PLY: usize = 256;

/// The width of a learned evaluation's first layer (see `crate::nnue`).
pub const ACCUMULATOR_WIDTH: usize = 64;

/// A learned evaluation's first layer for one position, from each side's view (`views[0]`:
/// P1's; `views[1]`: P2's). The search keeps one per ply and updates it move by move
/// ([`Game::update_accumulator`]); a game without a network never touches it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(align(64))]
pub struct Accumulator {
    pub views: [[i16; ACCUMULATOR_WIDTH]; 2],
}

impl Default for Accumulator {
    fn default() -> Accumulator {
        Accumulator {
            views: [[0; ACCUMULATOR_WIDTH]; 2],
        }
    }
}

/// A position string that does not describe a position of this game.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{0}")]
pub struct PositionError(pub String);

impl PositionError {
    pub fn new(message: impl Into<String>) -> PositionError {
        PositionError(message.into())
    }
}

/// A move text that is not a legal move in the position.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum MoveError {
    /// Not a move of this game at all (wrong shape).
    #[error("'{text}' is not a move: {why}")]
    Malformed { text: String, why: String },
    /// A move of this game, but not legal here.
    #[error("'{text}' is illegal here: {why}")]
    Illegal { text: String, why: String },
}

impl MoveError {
    pub fn malformed(text: &str, why: impl Into<String>) -> MoveError {
        MoveError::Malformed {
            text: text.to_string(),
            why: why.into(),
        }
    }

    pub fn illegal(text: &str, why: impl Into<String>) -> MoveError {
        MoveError::Illegal {
            text: text.to_string(),
            why: why.into(),
        }
    }
}

/// The range of [`Game::history_key`].
pub const HISTORY_KEYS: usize = 1024;

/// One term of a game's evaluation, which is the sum of weight × feature over its terms
/// (see [`Game::eval_terms`]): the weight's name, its value, what it measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EvalTerm {
    pub name: &'static str,
    pub value: i32,
    /// This weight sets the unit (100 = one point) and is not tuned.
    pub unit: bool,
    pub meaning: &'static str,
}

/// A game's evaluation weights from one list: the typed `Weights` struct (a `const` the
/// compiler folds), its values `WEIGHTS`, the same as `TERMS` for the tuner and the docs,
/// and `Weights::score`, the sum of weight × feature with the features in the list's order.
///
/// ```ignore
/// eval_weights! {
///     /// A seed of store difference: the unit.
///     store = 100, unit = true, "a seed of store difference";
///     /// A seed of row difference.
///     row_seed = 25, unit = false, "a seed of row difference";
/// }
/// ```
macro_rules! eval_weights {
    ($( $(#[$doc:meta])* $field:ident = $value:expr, unit = $unit:expr, $meaning:literal; )+) => {
        /// The weights of the evaluation, in hundredths of a point (docs/strength.md lists
        /// them with how they were chosen).
        #[derive(Debug, Clone, Copy)]
        pub struct Weights {
            $( $(#[$doc])* pub $field: i32, )+
        }

        pub const WEIGHTS: Weights = Weights { $( $field: $value, )+ };

        /// [`WEIGHTS`] as the evaluation's terms, in the order of the features.
        pub static TERMS: [$crate::game::EvalTerm; [$(stringify!($field)),+].len()] = [
            $( $crate::game::EvalTerm {
                name: stringify!($field),
                value: WEIGHTS.$field,
                unit: $unit,
                meaning: $meaning,
            }, )+
        ];

        impl Weights {
            /// Σ weight × feature, the features in the order of the weights.
            #[inline]
            pub fn score(&self, features: &[i32; [$(stringify!($field)),+].len()]) -> i32 {
                let [$($field),+] = *features;
                0 $( + self.$field * $field )+
            }
        }
    };
}
pub(crate) use eval_weights;

/// What `bench` searches for a game: position strings (the start position is always
/// included first) and the depth to search each to.
#[derive(Debug, Clone)]
pub struct BenchSpec {
    pub depth: u32,
    pub positions: &'static [&'static str],
}

/// See [`Game::horizon`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Horizon {
    /// Nothing forcing is pending: the evaluation holds.
    Quiet,
    /// Every legal move is forcing and one must be played: search them before evaluating.
    Forced,
    /// Some moves are forcing ([`Game::is_forcing`]) and the mover may decline them: search
    /// those before evaluating.
    Optional,
}

/// The deepest a quiescence search goes past the horizon (forced turns in a row) before
/// it evaluates anyway.
pub const QUIESCENCE_PLIES: usize = 12;

/// The rules of one game, with its options applied.
///
/// Contract used by the search and the protocol:
/// - `legal_moves` is empty exactly when `outcome` is `Some` (history rules aside).
/// - `play` is only called with a move from `legal_moves` of the same position.
/// - Move generation is deterministic: the same position always yields the same moves in
///   the same order (the transposition table stores a move as its index in that list).
/// - Hot paths (`legal_moves`, `play`, `evaluate`, `hash`) must not allocate once the
///   caller's move buffer has grown to size.
pub trait Game: Clone + Send + Sync + 'static {
    /// Cheap to copy: the search plays moves on copies (copy-make).
    type Position: Clone + Send + Sync + fmt::Debug + 'static;
    type Move: Copy + Eq + Send + Sync + fmt::Debug + 'static;

    /// The game's name and non-default options as written after `newgame`.
    fn spec(&self) -> String;

    fn start_position(&self) -> Self::Position;

    fn to_move(&self, pos: &Self::Position) -> Player;

    /// All legal moves (whole turns), appended to `moves` after clearing it.
    fn legal_moves(&self, pos: &Self::Position, moves: &mut Vec<Self::Move>);

    fn play(&self, pos: &mut Self::Position, mv: Self::Move);

    /// How many moves `legal_moves` would give: what perft counts on its last ply. A game
    /// may count without building the moves; `scratch` is a buffer it may use.
    fn count_legal_moves(&self, pos: &Self::Position, scratch: &mut Vec<Self::Move>) -> usize {
        self.legal_moves(pos, scratch);
        scratch.len()
    }

    /// `Some` when the position alone ends the game (repetition is judged separately).
    fn outcome(&self, pos: &Self::Position) -> Option<Outcome>;

    /// Current scores (stores, captured stones, …) indexed by `Player::index`, for display.
    fn scores(&self, pos: &Self::Position) -> [Points; 2];

    /// Static evaluation from the point of view of the player to move; 100 = one seed or
    /// stone. Never a mate-range value.
    fn evaluate(&self, pos: &Self::Position) -> i32;

    /// Hash of everything that can influence the rest of the game (transposition table).
    fn hash(&self, pos: &Self::Position) -> u64;

    /// Move-ordering hint: higher is searched earlier (after the transposition-table move).
    fn order_hint(&self, _pos: &Self::Position, _mv: Self::Move) -> i32 {
        0
    }

    /// A cheap score of a position from its mover's view, higher better, that the exact
    /// solver uses to order moves its other keys (points banked, [`Game::order_hint`]) find
    /// equal. It costs one call per child the solver searches: it must be much cheaper than
    /// [`Game::evaluate`]. The default, 0 for every position, keeps the move-generation order.
    fn proof_order(&self, _pos: &Self::Position) -> i32 {
        0
    }

    /// What the move does, as a number below [`HISTORY_KEYS`] that is the same in different
    /// positions (e.g. the pit sown, or a stone's first step): the history heuristic learns
    /// which keys cause cut-offs. `None` (the default): the game has no such notion.
    fn history_key(&self, _pos: &Self::Position, _mv: Self::Move) -> Option<usize> {
        None
    }

    /// A position occurring for the `n`-th time ends the game (`None`: no such rule).
    fn repetition_limit(&self) -> Option<u32> {
        None
    }

    /// What identifies a position for the repetition rule (default: the hash).
    fn repetition_key(&self, pos: &Self::Position) -> u64 {
        self.hash(pos)
    }

    /// How many earlier positions can possibly equal this one (the moves since the last
    /// irreversible one); bounds the repetition scan.
    fn reversible_plies(&self, _pos: &Self::Position) -> usize {
        usize::MAX
    }

    /// The outcome when the repetition rule ends the game in `pos`.
    fn repetition_outcome(&self, pos: &Self::Position) -> Outcome {
        Outcome {
            result: GameResult::Draw,
            scores: self.scores(pos),
            reason: "repetition",
        }
    }

    fn parse_position(&self, text: &str) -> Result<Self::Position, PositionError>;

    fn format_position(&self, pos: &Self::Position) -> String;

    /// Parse a move text and check it is legal in `pos`, explaining what is wrong if not.
    fn parse_move(&self, pos: &Self::Position, text: &str) -> Result<Self::Move, MoveError>;

    fn format_move(&self, pos: &Self::Position, mv: Self::Move) -> String;

    /// A picture of the board for `d` (several lines, no trailing newline needed).
    fn render(&self, pos: &Self::Position) -> String;

    fn bench(&self) -> BenchSpec;

    // Training data (`sowfan datagen`): positions kept in a compact binary form.

    /// `pos` in a compact binary form, appended to `out` (at most 65,535 bytes), read back
    /// by [`Game::unpack_position`]. The default is the position string's bytes; a game may
    /// store less (Fanorona: its two bitboards and counters, 20 bytes).
    fn pack_position(&self, pos: &Self::Position, out: &mut Vec<u8>) {
        out.extend_from_slice(self.format_position(pos).as_bytes());
    }

    /// The position that [`Game::pack_position`] wrote. The bytes come from a file, so
    /// they are hostile input: anything that is not a position of this game is an error.
    fn unpack_position(&self, bytes: &[u8]) -> Result<Self::Position, PositionError> {
        let text = std::str::from_utf8(bytes)
            .map_err(|_| PositionError::new("a packed position that is not UTF-8 text"))?;
        self.parse_position(text)
    }

    // A learned evaluation (`crate::nnue`): features a view, an accumulator a ply. The
    // defaults are a game without one: the search then keeps no accumulator.

    /// The features a view of this game's network has (0: the game has no network). A
    /// feature is a fact of the position from one side's view (Fanorona: "my stone on my
    /// point p", "the other's stone on my point p").
    fn network_inputs(&self) -> usize {
        0
    }

    /// What a network file must be made for: the game and board (not the options that
    /// leave the features alone), e.g. `fanorona 9x5`.
    fn network_id(&self) -> String {
        String::new()
    }

    /// The active features of `pos` from `view`'s side, appended to `out` (each below
    /// [`Game::network_inputs`]).
    fn network_features(&self, _pos: &Self::Position, _view: Player, _out: &mut Vec<u16>) {}

    /// Evaluate with this network (a network file's bytes, checked: hostile input) from now
    /// on, or with the hand-written evaluation (`None`). The default: a game without a
    /// network refuses one.
    fn set_network(&mut self, bytes: Option<&[u8]>) -> Result<(), String> {
        match bytes {
            None => Ok(()),
            Some(_) => Err("this game has no learned evaluation".to_string()),
        }
    }

    /// The network the game evaluates with unless told otherwise (a file embedded in the
    /// binary), if it has one for these rules.
    fn default_network(&self) -> Option<&'static [u8]> {
        None
    }

    /// Does the evaluation use an accumulator now (a network is loaded and chosen)?
    fn accumulates(&self) -> bool {
        false
    }

    /// `acc` computed from scratch for `pos`.
    fn refresh_accumulator(&self, _pos: &Self::Position, _acc: &mut Accumulator) {}

    /// `child`'s accumulator after `mv` took `before` to `after`, from `parent`'s (the
    /// accumulator of `before`). The default computes it from scratch.
    fn update_accumulator(
        &self,
        _before: &Self::Position,
        _mv: Self::Move,
        after: &Self::Position,
        _parent: &Accumulator,
        child: &mut Accumulator,
    ) {
        self.refresh_accumulator(after, child);
    }

    /// [`Game::evaluate_at_horizon`] with the position's accumulator at hand (when
    /// [`Game::accumulates`]).
    fn evaluate_accumulated(&self, pos: &Self::Position, _acc: &Accumulator) -> (i32, Horizon) {
        self.evaluate_at_horizon(pos)
    }

    // Tuning (`src/tune/`): the evaluation as weights × features.

    /// The evaluation's terms, in the order of [`Game::eval_features`]: `evaluate` is
    /// `Σ term.value × feature` (clamped; a test checks it for every game). Empty: the
    /// evaluation is not open to tuning.
    fn eval_terms(&self) -> &'static [EvalTerm] {
        &[]
    }

    /// The features of `pos` from the mover's view, one per term, written to `features`
    /// (as long as [`Game::eval_terms`]).
    fn eval_features(&self, _pos: &Self::Position, _features: &mut [i32]) {}

    /// The factor `(numerator, denominator)` by which `evaluate` scales `Σ term.value ×
    /// feature` in `pos` (rounded toward zero): e.g. an evaluation drawn toward the draw
    /// that a rule's counter brings nearer. The tuner scales the features by it. Default: 1.
    fn eval_scale(&self, _pos: &Self::Position) -> (i64, i64) {
        (1, 1)
    }

    /// The stones (seeds) still on the board of `pos`, for tools that sort positions by
    /// the phase of the game (e.g. `sowfan accuracy`'s range of stones in play). `None`:
    /// the game does not say.
    fn stones_in_play(&self, _pos: &Self::Position) -> Option<u32> {
        None
    }

    /// Is `pos` quiet: nothing forcing pending (no capture, no extra move at hand)? Tuning
    /// learns from quiet positions only, where the static evaluation is meant to hold.
    fn is_quiet(&self, _pos: &Self::Position) -> bool {
        true
    }

    /// What the search does with `pos` at its horizon (no depth left) before it trusts the
    /// evaluation (a quiescence search, at most [`QUIESCENCE_PLIES`] plies past the
    /// horizon; the evaluation is the mover's floor, "stand pat"). [`Horizon::Quiet`] (the
    /// default): evaluate. [`Horizon::Forced`]: every legal move is forcing (a compulsory
    /// capture): search them all. [`Horizon::Optional`]: the mover may play a forcing move
    /// ([`Game::is_forcing`]) or not: search those only.
    fn horizon(&self, _pos: &Self::Position) -> Horizon {
        Horizon::Quiet
    }

    /// [`Game::evaluate`] and [`Game::horizon`] of one position, as the search asks for both
    /// at every leaf: a game whose two share work (Fanorona: the captures at hand) answers
    /// both in one pass.
    fn evaluate_at_horizon(&self, pos: &Self::Position) -> (i32, Horizon) {
        (self.evaluate(pos), self.horizon(pos))
    }

    /// Whether [`Game::order_hint`] only ranks moves that may all be quiet, instead of
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

    /// With [`Horizon::Optional`]: is `mv` one of the forcing moves (a capture, an extra
    /// move) the quiescence search plays out? The default: none is.
    fn is_forcing(&self, _pos: &Self::Position, _mv: Self::Move) -> bool {
        false
    }

    // Exact play: the solver (`src/solver/`) and endgame tables (`src/tables/`) ask the
    // game for these. The defaults are always correct, only slower: nothing is banked, the
    // key is the whole hash, no bound is known, no tables exist.

    /// The value of a finished game for `mover`, in half-points: by default the final margin
    /// `scores[mover] − scores[other]`. A game decided by something else than points (e.g.
    /// Fanorona) maps a win to a positive, a loss to a negative value.
    fn final_value(&self, outcome: &Outcome, mover: Player) -> i32 {
        outcome.margin(mover).halves()
    }

    /// The part of the final value that is already decided in `pos`, from the mover's view
    /// in half-points (e.g. the stores' difference in Kalah): the rest, `final − banked`,
    /// must depend only on what [`Game::exact_key`] describes.
    fn banked_value(&self, _pos: &Self::Position) -> i32 {
        0
    }

    /// A bound on how far the final value can still move from the banked value (half-points;
    /// e.g. twice the seeds left in the pits). `None`: no bound is known.
    fn value_at_stake(&self, _pos: &Self::Position) -> Option<i32> {
        None
    }

    /// Bounds `(lower, upper)` on `final − banked` (half-points, mover's view): the range
    /// [`Game::value_at_stake`] allows, narrowed where the rules guarantee each player part
    /// of what is at stake whatever happens (e.g. a Kalah player whose pit reaches its store
    /// banks at least that seed). Both ends must lie on the grid of [`Game::value_step`]
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

    /// Every final value is a win, a draw or a loss for the mover ([`Game::final_value`]
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

    /// The rules as far as they change table values (e.g. `kalah pits=6 empty-capture=true
    /// end=any-row leftovers=owner`): tables built for one string serve every game with the
    /// same string. `None`: this game (with these options) has no endgame tables.
    fn table_rules(&self) -> Option<String> {
        None
    }

    /// The table layer (e.g. seeds in the pits) and the index in it of `pos` seen from the
    /// mover; `None` when no table covers it (e.g. a pie swap is pending), or beyond
    /// `max_layer`. Every move keeps or lowers the layer.
    fn table_index(&self, _pos: &Self::Position, _max_layer: u32) -> Option<(u32, u64)> {
        None
    }

    /// Where the exact solver finds `pos`: `Ok` its endgame-table entry
    /// ([`Game::table_index`]) when tables up to `max_layer` cover it, else `Err` its
    /// transposition key ([`Game::exact_key`]). The solver asks this of every child it
    /// meets; a game whose table index and exact key share their work (one rank of the
    /// board) answers both in one pass. The default asks the two in turn.
    fn table_index_or_key(
        &self,
        pos: &Self::Position,
        max_layer: Option<u32>,
    ) -> Result<(u32, u64), u64> {
        match max_layer.and_then(|max| self.table_index(pos, max)) {
            Some(at) => Ok(at),
            None => Err(self.exact_key(pos)),
        }
    }

    /// How many positions a layer holds.
    fn table_layer_size(&self, _layer: u32) -> u64 {
        0
    }

    /// The position of an index, with the mover to move and nothing banked. `None` for an
    /// index no position has (a slot the indexing leaves unused, e.g. the second of two
    /// mirror images that [`Game::table_index`] never gives); its entry holds 0.
    fn table_position(&self, _layer: u32, _index: u64) -> Option<Self::Position> {
        None
    }

    /// What a table entry means (see [`TableValues`]); by default the margin to gain.
    fn table_values(&self) -> TableValues {
        TableValues::Margin
    }

    /// The highest layer that holds positions with at most `in_play` seeds (stones) in
    /// play: what `tablebase build --seeds N` builds up to. By default the layer is the
    /// number in play.
    fn table_top_layer(&self, in_play: u32) -> Option<u32> {
        Some(in_play)
    }

    /// What a layer holds, for people (`tablebase info`, build reports).
    fn table_layer_name(&self, layer: u32) -> String {
        format!("{layer} in play")
    }

    /// The stage of a layer, for building layers side by side (`tablebase build --layer`,
    /// `tablebase plan`): a position of a layer of stage `s` has children only in its own
    /// layer, in layers of stages below `s`, or at the end of the game, so the layers of one
    /// stage can be built at once, each from the lower stages alone. A stage must never be
    /// below the stage of a layer its positions reach, and lower layers come first (a move
    /// keeps or lowers the layer). The default, the layer itself, is always safe: a layer
    /// reads every layer below it.
    fn table_layer_stage(&self, layer: u32) -> u32 {
        layer
    }

    /// [`TableValues::Distance`] tables: the turns `pos` has left before the limit on
    /// turns inside a layer ends the game (e.g. quiet-limit minus the turns without a
    /// capture so far).
    fn table_turns_left(&self, _pos: &Self::Position) -> u32 {
        u32::MAX
    }

    /// [`TableValues::Distance`] tables: every position of the same layer from which one
    /// legal move leads exactly to `pos` (written to `out` after clearing it). The
    /// builder walks these backwards from the decided positions (retrograde analysis);
    /// positions may be given in any orientation ([`Game::table_index`] maps them).
    fn table_unmoves(&self, _pos: &Self::Position, out: &mut Vec<Self::Position>) {
        out.clear();
    }
}

/// What one signed byte of a game's endgame table says about its position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TableValues {
    /// The mover's final margin minus the banked margin, in whole points (Kalah, Afrika):
    /// every position's value is a function of the position alone.
    Margin,
    /// For games won or lost, not scored, where a limit on the turns in a row inside one
    /// layer draws the game (Fanorona's quiet-limit: a layer is a material, and only a
    /// capture leaves it). The byte is the value with the distance it needs: `+d` the
    /// mover wins if at least `d` turns are left (counting the turn that leaves the layer
    /// or ends the game), `-(d + 1)` the mover loses if at least `d` are left (`-1`: lost
    /// already), `0` a draw however many are left; short of the turns, a draw. A win is
    /// worth `win` half-points ([`Game::final_value`]). `limit`: the turns a fresh layer
    /// starts with (at most [`MAX_TABLE_DISTANCE`]).
    Distance { limit: u32, win: i32 },
}

/// The longest distance a [`TableValues::Distance`] byte holds (its lowest value, -127,
/// is a loss in 126 turns; -128 is the builder's "unknown").
pub const MAX_TABLE_DISTANCE: u32 = 126;

impl TableValues {
    /// The value (half-points, for the mover) of a stored byte when `turns_left` turns are
    /// left (ignored for [`TableValues::Margin`]).
    #[inline]
    pub fn value(self, byte: i8, turns_left: u32) -> i32 {
        match self {
            TableValues::Margin => 2 * byte as i32,
            TableValues::Distance { win, .. } => match byte {
                0 => 0,
                d if d > 0 && d as u32 <= turns_left => win,
                d if d < 0 && (-(d as i32) - 1) as u32 <= turns_left => -win,
                _ => 0,
            },
        }
    }

    /// The turns `byte` needs to be decided (`None`: a draw, or a margin table).
    pub fn distance(self, byte: i8) -> Option<u32> {
        match self {
            TableValues::Margin => None,
            TableValues::Distance { .. } => match byte {
                0 => None,
                d if d > 0 => Some(d as u32),
                d => Some((-(d as i32) - 1) as u32),
            },
        }
    }
}
