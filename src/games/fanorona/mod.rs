//! Fanorona in its three standard sizes (9×5 Tsivy, 5×5 Dimy, 3×3 Telo), as in
//! protocol.md (section *Fanorona*): one implementation, three registry entries.
//!
//! A position is two bitboards (White, Black), the side to move, the number of turns in a
//! row without a capture (the quiet-limit draw rule and the repetition window) and, with
//! `first-capture-single`, which sides still have their first turn to make. A move is a
//! whole turn (see [`moves`]). White is `Player::P1`.

pub mod board;
pub mod moves;
pub mod table;
#[cfg(test)]
mod tests;

use std::fmt::Write;

use std::sync::Arc;

use crate::game::{
    Accumulator, BenchSpec, EvalTerm, Evaluation, ExactValues, GameResult, Horizon,
    MAX_TABLE_DISTANCE, MoveError, NetworkFeatures, Notation, Outcome, Player, Points,
    PositionError, Rules, SearchHints, TableIndexing, TableValues, eval_weights,
};
use crate::memory::mix64 as mix;
use crate::nnue::Network;
use crate::options::{GameOptions, OptionKind, OptionSpec};
pub use board::Size;
use board::{Geometry, NONE, opposite};
pub use moves::{ChainRules, FanoronaMove, MAX_STEPS, StepKind};

pub const OPTIONS: &[OptionSpec] = &[
    OptionSpec {
        name: "first-capture-single",
        kind: OptionKind::Bool,
        default: "false",
        help: "each side's first turn of the game is at most a single capture (no chain)",
    },
    OptionSpec {
        name: "same-direction",
        kind: OptionKind::Choice(&["forbidden", "allowed"]),
        default: "forbidden",
        help: "whether a capture chain may go on in the direction of the step just before \
               (allowed: as Ludii's Fanorona)",
    },
    OptionSpec {
        name: "repetition",
        kind: OptionKind::IntOrOff { min: 2, max: 10 },
        default: "3",
        help: "a position (board, side to move) occurring for the n-th time at the start of a \
               turn is a draw",
    },
    OptionSpec {
        name: "quiet-limit",
        kind: OptionKind::IntOrOff { min: 1, max: 1000 },
        default: "100",
        help: "this many turns in a row without a capture is a draw",
    },
];

const WHITE: usize = 0;
const BLACK: usize = 1;
/// The 9×5 board's network (see `NetworkFeatures::default_network`).
const TSIVY_NETWORK: &[u8] = include_bytes!("tsivy.nnue");
/// The size of a position packed for training data (see `Notation::pack_position`).
const PACKED_BYTES: usize = 20;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FanoronaPosition {
    /// Stones by colour: `[White, Black]`.
    stones: [u64; 2],
    /// White = P1 moves first.
    side: Player,
    /// Turns in a row without a capture, up to now.
    quiet: u32,
    /// first-capture-single: bit 0 White, bit 1 Black has not made its first turn yet.
    first_pending: u8,
}

impl FanoronaPosition {
    pub fn white(&self) -> u64 {
        self.stones[WHITE]
    }

    pub fn black(&self) -> u64 {
        self.stones[BLACK]
    }

    /// Turns in a row without a capture.
    pub fn quiet(&self) -> u32 {
        self.quiet
    }

    #[inline(always)]
    fn own(&self) -> u64 {
        self.stones[self.side.index()]
    }

    #[inline(always)]
    fn enemy(&self) -> u64 {
        self.stones[1 - self.side.index()]
    }
}

/// The points of a set of stones, lowest first.
fn bits(mut set: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (set != 0).then(|| {
            let point = set.trailing_zeros() as usize;
            set &= set - 1;
            point
        })
    })
}

fn colour_name(player: Player) -> &'static str {
    match player {
        Player::P1 => "White",
        Player::P2 => "Black",
    }
}

#[derive(Clone, Debug)]
pub struct Fanorona {
    size: Size,
    g: &'static Geometry,
    first_capture_single: bool,
    /// same-direction=allowed: a chain may go on in the direction of the step just before.
    same_direction: bool,
    repetition: Option<u32>,
    quiet_limit: Option<u32>,
    options: GameOptions,
    start: FanoronaPosition,
    /// The learned evaluation, when one is chosen (`setoption name Eval`); `None`: the
    /// hand-written one.
    network: Option<Arc<Network>>,
}

impl Fanorona {
    pub fn new(size: Size, options: GameOptions) -> Fanorona {
        let g = size.geometry();
        let stones = parse_board(g, size.start_board()).expect("start board is valid");
        let first_capture_single = options.bool("first-capture-single");
        Fanorona {
            size,
            g,
            first_capture_single,
            same_direction: options.choice("same-direction") == "allowed",
            repetition: options.int_or_off("repetition").map(|n| n as u32),
            quiet_limit: options.int_or_off("quiet-limit").map(|n| n as u32),
            options,
            start: FanoronaPosition {
                stones,
                side: Player::P1,
                quiet: 0,
                first_pending: if first_capture_single { 0b11 } else { 0 },
            },
            network: None,
        }
        .with_default_network()
    }

    /// The game evaluating with its embedded network, where it has one.
    fn with_default_network(mut self) -> Fanorona {
        self.network = Network::load_embedded(
            self.default_network(),
            &self.network_id(),
            self.network_inputs(),
        );
        self
    }

    /// The feature of a stone of `colour` on `point`, from `view`'s side: the point seen
    /// from that side (Black's board turned half a turn, a symmetry of every board here),
    /// and whether the stone is that side's own.
    #[inline]
    fn feature(&self, view: usize, colour: usize, point: usize) -> usize {
        let points = self.g.points;
        let seen = if view == WHITE {
            point
        } else {
            points - 1 - point
        };
        if colour == view { seen } else { points + seen }
    }

    /// One view's accumulator from scratch.
    fn refresh_view(
        &self,
        net: &Network,
        pos: &FanoronaPosition,
        view: usize,
        acc: &mut Accumulator,
    ) {
        let features = [WHITE, BLACK].into_iter().flat_map(|colour| {
            bits(pos.stones[colour]).map(move |point| self.feature(view, colour, point))
        });
        net.refresh(&mut acc.views[view], features);
    }

    /// The game with its default options.
    pub fn with_defaults(size: Size) -> Fanorona {
        let options = GameOptions::parse(size.game_name(), OPTIONS, &[])
            .expect("no options are always valid");
        Fanorona::new(size, options)
    }

    pub fn size(&self) -> Size {
        self.size
    }

    pub fn geometry(&self) -> &'static Geometry {
        self.g
    }

    /// Is the mover limited to a single capture step this turn (first-capture-single)?
    #[inline(always)]
    fn single_capture(&self, pos: &FanoronaPosition) -> bool {
        pos.first_pending & (1 << pos.side.index()) != 0
    }

    /// The chain rules of the mover's turn.
    #[inline(always)]
    fn chain_rules(&self, pos: &FanoronaPosition) -> ChainRules {
        ChainRules {
            single: self.single_capture(pos),
            same_direction: self.same_direction,
        }
    }

    /// The quiet limit, when tables can count it (see [`TableIndexing::table_rules`]).
    #[inline(always)]
    fn table_limit(&self) -> Option<u32> {
        self.quiet_limit.filter(|&l| l <= MAX_TABLE_DISTANCE)
    }

    #[inline(always)]
    fn quiet_limit_reached(&self, pos: &FanoronaPosition) -> bool {
        self.quiet_limit.is_some_and(|limit| pos.quiet >= limit)
    }

    /// The feature `pursuit`: in an ending, the stones of the side ahead within two steps of
    /// a stone of the side behind (positive when the mover is ahead, negative when behind,
    /// 0 when level or before the ending).
    #[inline]
    fn pursuit(&self, own: u64, enemy: u64, material: i32) -> i32 {
        let g = self.g;
        let stones = (own | enemy).count_ones();
        if material == 0 || 11 * stones > 3 * 2 * self.size.stones_per_side() {
            return 0;
        }
        let (ahead, behind) = if material > 0 {
            (own, enemy)
        } else {
            (enemy, own)
        };
        let near = g.neighbourhood(g.neighbourhood(behind));
        material.signum() * (ahead & near).count_ones() as i32
    }

    /// The evaluation drawn toward the draw as the quiet limit nears ([`Evaluation::eval_scale`]).
    #[inline(always)]
    fn toward_the_quiet_draw(&self, pos: &FanoronaPosition, score: i32) -> i32 {
        let (numerator, denominator) = self.eval_scale(pos);
        (i64::from(score) * numerator / denominator) as i32
    }

    /// `W` or `B` for the stone on `point`, if any (position strings and pictures).
    fn stone_letter(pos: &FanoronaPosition, point: usize) -> Option<char> {
        let bit = 1u64 << point;
        if pos.stones[WHITE] & bit != 0 {
            Some('W')
        } else if pos.stones[BLACK] & bit != 0 {
            Some('B')
        } else {
            None
        }
    }

    fn board_text(&self, pos: &FanoronaPosition) -> String {
        let g = self.g;
        let mut out = String::new();
        for rank in (0..g.ranks).rev() {
            let mut run = 0;
            for file in 0..g.files {
                let Some(c) = Self::stone_letter(pos, rank * g.files + file) else {
                    run += 1;
                    continue;
                };
                if run > 0 {
                    let _ = write!(out, "{run}");
                    run = 0;
                }
                out.push(c);
            }
            if run > 0 {
                let _ = write!(out, "{run}");
            }
            if rank > 0 {
                out.push('/');
            }
        }
        out
    }

    /// Check the move text step by step against the rules, building the move, so that an
    /// illegal move is rejected with the rule it breaks.
    fn check_move(
        &self,
        pos: &FanoronaPosition,
        text: &str,
        from: usize,
        steps: &[(usize, Option<StepKind>)],
    ) -> Result<FanoronaMove, MoveError> {
        let g = self.g;
        let name = |p: usize| g.point_name(p);
        let me = pos.side;
        let (mut own, mut enemy) = (pos.own(), pos.enemy());
        if own & (1 << from) == 0 {
            let why = if enemy & (1 << from) != 0 {
                format!(
                    "{} holds a {} stone, but {} is to move",
                    name(from),
                    colour_name(me.other()),
                    colour_name(me)
                )
            } else {
                format!("{} is empty", name(from))
            };
            return Err(MoveError::illegal(text, why));
        }
        let mut at = from;
        let mut visited = 1u64 << from;
        let mut last = None;
        let mut mv = FanoronaMove::chain_start(from);
        for (i, &(to, kind)) in steps.iter().enumerate() {
            let d = self.line_direction(text, at, to)?;
            let occupied = (own | enemy) & (1 << to) != 0;
            let Some(kind) = kind else {
                // A paika (the parser allows these only as the single step of a move).
                if occupied {
                    return Err(MoveError::illegal(
                        text,
                        format!("{} is occupied", name(to)),
                    ));
                }
                if g.capturers(own, enemy) != 0 {
                    let mut legal = Vec::new();
                    self.legal_moves(pos, &mut legal);
                    let example = legal
                        .first()
                        .map(|&m| format!(", e.g. {}", self.format_move(pos, m)))
                        .unwrap_or_default();
                    return Err(MoveError::illegal(
                        text,
                        format!(
                            "capturing is compulsory and {} can capture{example}",
                            colour_name(me)
                        ),
                    ));
                }
                return Ok(FanoronaMove::paika(from, d));
            };
            if i > 0 && self.single_capture(pos) {
                return Err(MoveError::illegal(
                    text,
                    format!(
                        "first-capture-single: {}'s first turn is a single capture, not a chain",
                        colour_name(me)
                    ),
                ));
            }
            if visited & (1 << to) != 0 {
                return Err(MoveError::illegal(
                    text,
                    format!("the stone has already been on {} this turn", name(to)),
                ));
            }
            if occupied {
                return Err(MoveError::illegal(
                    text,
                    format!("{} is occupied", name(to)),
                ));
            }
            if last == Some(d) && !self.same_direction {
                return Err(MoveError::illegal(
                    text,
                    format!(
                        "{}-{} goes in the same direction as the step just before \
                         (same-direction=forbidden)",
                        name(at),
                        name(to)
                    ),
                ));
            }
            let (victim, along, what) = match kind {
                StepKind::Approach => (g.step(to, d), d, "beyond"),
                _ => (g.step(at, opposite(d)), opposite(d), "behind"),
            };
            if victim == NONE || enemy & (1 << victim) == 0 {
                let kind_name = if kind == StepKind::Approach {
                    "approach"
                } else {
                    "withdrawal"
                };
                let place = if kind == StepKind::Approach {
                    format!("the point beyond {}", name(to))
                } else {
                    format!("the point behind {}", name(at))
                };
                let why = if victim == NONE {
                    format!("{kind_name} captures nothing: there is no point {what} on that line")
                } else {
                    format!(
                        "{kind_name} captures nothing: {place} ({}) holds no {} stone",
                        name(victim as usize),
                        colour_name(me.other())
                    )
                };
                return Err(MoveError::illegal(text, why));
            }
            let line = g.line(enemy, victim, along);
            enemy &= !line;
            own ^= 1 << at | 1 << to;
            mv = mv.with_capture(d, kind == StepKind::Withdrawal, line.count_ones());
            visited |= 1 << to;
            last = Some(d);
            at = to;
        }
        let mut legal = Vec::new();
        self.legal_moves(pos, &mut legal);
        if legal.contains(&mv) {
            Ok(mv)
        } else {
            // Every rule was checked above: reaching this is a bug, reported rather than hidden.
            Err(MoveError::illegal(text, "not among the legal moves here"))
        }
    }

    /// The direction of a step from `from` to `to`, or why there is no line between them.
    fn line_direction(&self, text: &str, from: usize, to: usize) -> Result<usize, MoveError> {
        let g = self.g;
        if let Some(d) = g.direction(from, to) {
            return Ok(d);
        }
        let (ff, fr) = ((from % g.files) as i32, (from / g.files) as i32);
        let (tf, tr) = ((to % g.files) as i32, (to / g.files) as i32);
        let (df, dr) = (tf - ff, tr - fr);
        let why = if (df, dr) == (0, 0) {
            format!("a step must leave {}", g.point_name(from))
        } else if df.abs() <= 1 && dr.abs() <= 1 {
            format!(
                "{} is a weak point (file + rank odd): no diagonal line to {}",
                g.point_name(from),
                g.point_name(to)
            )
        } else {
            format!(
                "{} is not next to {}: a step goes to an adjacent point",
                g.point_name(to),
                g.point_name(from)
            )
        };
        Err(MoveError::illegal(text, why))
    }
}

/// `BBB/B1W/WWW` → `[White, Black]` bitboards; ranks from the top, digits are runs of
/// empty points, `.` is one empty point.
fn parse_board(g: &Geometry, text: &str) -> Result<[u64; 2], PositionError> {
    let ranks: Vec<&str> = text.split('/').collect();
    let shape = format!(
        "{} ranks of {} points from rank {} down, separated by '/', with W, B and digits for runs of empty points",
        g.ranks, g.files, g.ranks
    );
    if ranks.len() != g.ranks {
        return Err(PositionError::new(format!(
            "the board has {} ranks, expected {shape}",
            ranks.len()
        )));
    }
    let mut stones = [0u64; 2];
    for (i, rank_text) in ranks.iter().enumerate() {
        let rank = g.ranks - 1 - i;
        let mut file = 0usize;
        for c in rank_text.chars() {
            let (run, colour) = match c {
                'W' => (1, Some(WHITE)),
                'B' => (1, Some(BLACK)),
                '.' => (1, None),
                '1'..='9' => (c as usize - '0' as usize, None),
                other => {
                    return Err(PositionError::new(format!(
                        "unexpected '{other}' in rank {}: expected W, B, . or a digit 1-9",
                        rank + 1
                    )));
                }
            };
            if file + run > g.files {
                return Err(PositionError::new(format!(
                    "rank {} ('{rank_text}') has more than {} points",
                    rank + 1,
                    g.files
                )));
            }
            if let Some(colour) = colour {
                stones[colour] |= 1 << (rank * g.files + file);
            }
            file += run;
        }
        if file != g.files {
            return Err(PositionError::new(format!(
                "rank {} ('{rank_text}') has {file} points, expected {}",
                rank + 1,
                g.files
            )));
        }
    }
    Ok(stones)
}

eval_weights! {
    /// A stone of material difference: the unit.
    stone = 100, unit = true,
        "a stone of material difference";
    /// The mover's best immediate capture, per stone it takes (captures are compulsory and
    /// the mover strikes first: a nearly sure gain, a chain may add more).
    strike = 80, unit = false,
        "a stone the mover's best capture takes";
    /// Each further capturable target of the mover beyond the first (up to four).
    strike_target = 15, unit = false,
        "a capturable target of the mover beyond the first (up to 4)";
    /// The opponent's best capture against us, per stone (ours may be saved, or traded, by
    /// our own capture: weighed less than a strike).
    exposed = 25, unit = false,
        "a stone the opponent's best capture takes (counted negative)";
    /// Each of our stones the opponent could capture (up to four).
    exposed_target = 5, unit = false,
        "a stone of ours the opponent can capture, up to 4 (counted negative)";
    /// A stone that can step, ours minus theirs.
    mobility = 4, unit = false,
        "a stone that can step, ours minus theirs";
    /// A stone on a strong point (with diagonals), ours minus theirs.
    strong_point = 5, unit = false,
        "a stone on a strong point, ours minus theirs";
    /// In an ending (at most 3/11 of the starting stones left), a stone of the side ahead
    /// within two steps of a stone of the side behind, for the side ahead: stones apart
    /// cannot capture, and an ending is won by closing in.
    pursuit = 10, unit = false,
        "in an ending, a stone of the side ahead within two steps of the other side's (for the side ahead)";
}

impl Fanorona {
    /// The evaluation's features from the mover's view, in the order of [`TERMS`].
    #[inline]
    fn features(&self, pos: &FanoronaPosition) -> [i32; 8] {
        let g = self.g;
        let (own, enemy) = (pos.own(), pos.enemy());
        let empty = g.all & !(own | enemy);
        let material = own.count_ones() as i32 - enemy.count_ones() as i32;
        let mine = g.threats(own, enemy);
        let theirs = g.threats(enemy, own);
        let (strike, strike_targets) = if mine.longest > 0 {
            (
                mine.longest as i32,
                mine.targets.count_ones().min(4) as i32 - 1,
            )
        } else {
            (0, 0)
        };
        let mobility = g.can_step(own, empty).count_ones() as i32
            - g.can_step(enemy, empty).count_ones() as i32;
        let strong = (own & g.strong).count_ones() as i32 - (enemy & g.strong).count_ones() as i32;
        let pursuit = self.pursuit(own, enemy, material);
        [
            material,
            strike,
            strike_targets,
            -(theirs.longest as i32),
            -(theirs.targets.count_ones().min(4) as i32),
            mobility,
            strong,
            pursuit,
        ]
    }
}

impl Rules for Fanorona {
    type Position = FanoronaPosition;

    type Move = FanoronaMove;

    fn spec(&self) -> String {
        self.options.spec()
    }

    fn start_position(&self) -> FanoronaPosition {
        self.start
    }

    fn to_move(&self, pos: &FanoronaPosition) -> Player {
        pos.side
    }

    fn legal_moves(&self, pos: &FanoronaPosition, moves: &mut Vec<FanoronaMove>) {
        moves.clear();
        let (own, enemy) = (pos.own(), pos.enemy());
        if own == 0 || enemy == 0 || self.quiet_limit_reached(pos) {
            return;
        }
        moves::generate(self.g, own, enemy, self.chain_rules(pos), moves);
    }

    fn count_legal_moves(&self, pos: &FanoronaPosition, _scratch: &mut Vec<FanoronaMove>) -> usize {
        let (own, enemy) = (pos.own(), pos.enemy());
        if own == 0 || enemy == 0 || self.quiet_limit_reached(pos) {
            return 0;
        }
        moves::count(self.g, own, enemy, self.chain_rules(pos))
    }

    fn play(&self, pos: &mut FanoronaPosition, mv: FanoronaMove) {
        let me = pos.side.index();
        let [white, black] = &mut pos.stones;
        let (own, enemy) = if me == WHITE {
            (white, black)
        } else {
            (black, white)
        };
        moves::apply(self.g, own, enemy, mv);
        pos.quiet = if mv.is_capture() {
            0
        } else {
            pos.quiet.saturating_add(1)
        };
        pos.first_pending &= !(1 << me);
        pos.side = pos.side.other();
    }

    fn outcome(&self, pos: &FanoronaPosition) -> Option<Outcome> {
        let (own, enemy) = (pos.own(), pos.enemy());
        let lost = |reason| {
            Some(Outcome {
                result: GameResult::won_by(Some(pos.side.other())),
                scores: self.scores(pos),
                reason,
            })
        };
        if own == 0 {
            return lost("no stones left");
        }
        if enemy == 0 {
            // Only from a position string: the side not to move has already lost.
            return Some(Outcome {
                result: GameResult::won_by(Some(pos.side)),
                scores: self.scores(pos),
                reason: "no stones left",
            });
        }
        let empty = self.g.all & !(own | enemy);
        if self.g.can_step(own, empty) == 0 {
            return lost("no legal move");
        }
        if self.quiet_limit_reached(pos) {
            return Some(Outcome {
                result: GameResult::Draw,
                scores: self.scores(pos),
                reason: "turns without capture limit",
            });
        }
        None
    }

    /// Stones each player has captured (start count minus the opponent's stones).
    fn scores(&self, pos: &FanoronaPosition) -> [Points; 2] {
        let start = self.size.stones_per_side() as i32;
        [
            Points::whole(start - pos.stones[BLACK].count_ones() as i32),
            Points::whole(start - pos.stones[WHITE].count_ones() as i32),
        ]
    }

    // No `null_move`: null-move pruning lost 35 to 82 Elo (docs/strength.md, Fanorona):
    // a paika often gives the opponent a capture, so passing would be the best move and is
    // no test of the position.
    fn hash(&self, pos: &FanoronaPosition) -> u64 {
        // The quiet counter changes the game only when a limit is set; the points use bits
        // 0..45, so the state fits above them.
        let quiet = if self.quiet_limit.is_some() {
            pos.quiet.min(2047) as u64
        } else {
            0
        };
        let state = pos.side.index() as u64 | (pos.first_pending as u64) << 1 | quiet << 3;
        mix(mix(pos.stones[WHITE] ^ 0x9e37_79b9_7f4a_7c15) ^ pos.stones[BLACK] ^ state << 50)
    }

    fn repetition_limit(&self) -> Option<u32> {
        self.repetition
    }

    /// Board and side to move (plus the first-capture-single state, which differs only
    /// before a side's first turn); not the quiet counter.
    fn repetition_key(&self, pos: &FanoronaPosition) -> u64 {
        let state = pos.side.index() as u64 | (pos.first_pending as u64) << 1;
        mix(mix(pos.stones[WHITE] ^ 0x2545_f491_4f6c_dd1d) ^ pos.stones[BLACK] ^ state << 50)
    }

    /// A capture can never be undone, so only positions since the last one can repeat.
    fn reversible_plies(&self, pos: &FanoronaPosition) -> usize {
        pos.quiet as usize
    }

    fn repetition_outcome(&self, pos: &FanoronaPosition) -> Outcome {
        Outcome {
            result: GameResult::Draw,
            scores: self.scores(pos),
            reason: "repetition",
        }
    }

    fn bench(&self) -> BenchSpec {
        // Positions reached in play (see fixtures/perft/fanorona.txt).
        match self.size {
            Size::Tsivy => BenchSpec {
                depth: 7,
                positions: &[
                    "BB2BBBB1/BBBWB1B2/BW4WBW/WWWBWBWW1/WWWW2WWW w 0",
                    "1B2BBBBB/1B4BBB/W2W1BWBW/4B4/1W1W3WW b 0",
                    "BB7/1B1B3W1/B1B2W3/1B5WW/6W1W w 5",
                ],
            },
            Size::Dimy => BenchSpec {
                depth: 9,
                positions: &[
                    "BB1B1/BB3/2B1W/W2W1/1WWW1 w 0",
                    "1B1BB/2BBB/2W1W/2WWW/W2WW b 0",
                ],
            },
            Size::Telo => BenchSpec {
                depth: 12,
                positions: &["BB1/BWW/1WW b 0"],
            },
        }
    }
}

impl Notation for Fanorona {
    fn parse_position(&self, text: &str) -> Result<FanoronaPosition, PositionError> {
        let fields: Vec<&str> = text.split_whitespace().collect();
        let start = self.format_position(&self.start);
        let expected_fields = if self.first_capture_single { 4 } else { 3 };
        let usage = if self.first_capture_single {
            format!(
                "a {} position is '<board> <w|b> <turns without capture> <first turns to come: wb|w|b|->', e.g. '{start}'",
                self.size.game_name()
            )
        } else {
            format!(
                "a {} position is '<board> <w|b> <turns without capture>', e.g. '{start}'",
                self.size.game_name()
            )
        };
        if fields.len() != expected_fields {
            let hint = match (self.first_capture_single, fields.len()) {
                (false, 4) => " (a 4th field belongs to first-capture-single=true)",
                (true, 3) => " (first-capture-single=true needs the 4th field)",
                _ => "",
            };
            return Err(PositionError::new(format!(
                "expected {expected_fields} fields, found {}{hint}: {usage}",
                fields.len()
            )));
        }
        let stones = parse_board(self.g, fields[0])
            .map_err(|e| PositionError::new(format!("{e}; {usage}")))?;
        let limit = self.size.stones_per_side();
        for (colour, player) in [(WHITE, Player::P1), (BLACK, Player::P2)] {
            let n = stones[colour].count_ones();
            if n > limit {
                return Err(PositionError::new(format!(
                    "{n} {} stones: a side has at most {limit} on this board",
                    colour_name(player)
                )));
            }
        }
        let side = match fields[1] {
            "w" => Player::P1,
            "b" => Player::P2,
            other => {
                return Err(PositionError::new(format!(
                    "side to move must be w or b, not '{other}'"
                )));
            }
        };
        let most = self.quiet_limit.unwrap_or(u32::MAX);
        let quiet = crate::games::parse_digits::<u32>(fields[2])
            .filter(|&n| n <= most)
            .ok_or_else(|| {
                let limit = match self.quiet_limit {
                    Some(limit) => format!(" (the quiet-limit is {limit})"),
                    None => String::new(),
                };
                PositionError::new(format!(
                    "turns without capture must be a number 0..{most}{limit}, not '{}'",
                    fields[2]
                ))
            })?;
        let mut first_pending = 0;
        if let Some(&flags) = fields.get(3) {
            first_pending = match flags {
                "wb" => 0b11,
                "w" => 0b01,
                "b" => 0b10,
                "-" => 0,
                other => {
                    return Err(PositionError::new(format!(
                        "first turns to come must be wb, w, b or -, not '{other}'"
                    )));
                }
            };
        }
        Ok(FanoronaPosition {
            stones,
            side,
            quiet,
            first_pending,
        })
    }

    /// White's and Black's stones (8 bytes each, little-endian), the side to move (0 White,
    /// 1 Black), the turns without capture (2 bytes) and the first turns to come (bit 0
    /// White, bit 1 Black): 20 bytes.
    fn pack_position(&self, pos: &FanoronaPosition, out: &mut Vec<u8>) {
        out.extend_from_slice(&pos.stones[WHITE].to_le_bytes());
        out.extend_from_slice(&pos.stones[BLACK].to_le_bytes());
        out.push(pos.side.index() as u8);
        out.extend_from_slice(&(pos.quiet.min(u32::from(u16::MAX)) as u16).to_le_bytes());
        out.push(pos.first_pending);
    }

    fn unpack_position(&self, bytes: &[u8]) -> Result<FanoronaPosition, PositionError> {
        let bytes: &[u8; PACKED_BYTES] = bytes.try_into().map_err(|_| {
            PositionError::new(format!(
                "a packed {} position has {PACKED_BYTES} bytes, not {}",
                self.size.game_name(),
                bytes.len()
            ))
        })?;
        let word = |at: usize| {
            let mut b = [0u8; 8];
            b.copy_from_slice(&bytes[at..at + 8]);
            u64::from_le_bytes(b)
        };
        let stones = [word(0), word(8)];
        if (stones[WHITE] | stones[BLACK]) & !self.g.all != 0 {
            return Err(PositionError::new(
                "a packed position with stones off the board",
            ));
        }
        if stones[WHITE] & stones[BLACK] != 0 {
            return Err(PositionError::new(
                "a packed position with two stones on one point",
            ));
        }
        let limit = self.size.stones_per_side();
        if stones.iter().any(|s| s.count_ones() > limit) {
            return Err(PositionError::new(format!(
                "a packed position with more than {limit} stones of one side"
            )));
        }
        let side = match bytes[16] {
            0 => Player::P1,
            1 => Player::P2,
            other => {
                return Err(PositionError::new(format!(
                    "a packed position with side to move {other} (0 White, 1 Black)"
                )));
            }
        };
        let quiet = u32::from(u16::from_le_bytes([bytes[17], bytes[18]]));
        if self.quiet_limit.is_some_and(|limit| quiet > limit) {
            return Err(PositionError::new(format!(
                "a packed position with {quiet} turns without capture, past the quiet-limit"
            )));
        }
        let first_pending = bytes[19];
        let allowed = if self.first_capture_single { 0b11 } else { 0 };
        if first_pending & !allowed != 0 {
            return Err(PositionError::new(format!(
                "a packed position with first turns to come {first_pending:#b}, not allowed \
                 by these rules"
            )));
        }
        Ok(FanoronaPosition {
            stones,
            side,
            quiet,
            first_pending,
        })
    }

    fn format_position(&self, pos: &FanoronaPosition) -> String {
        let mut out = self.board_text(pos);
        let side = if pos.side == Player::P1 { "w" } else { "b" };
        let _ = write!(out, " {side} {}", pos.quiet);
        if self.first_capture_single {
            out.push(' ');
            out.push_str(match pos.first_pending {
                0b11 => "wb",
                0b01 => "w",
                0b10 => "b",
                _ => "-",
            });
        }
        out
    }

    fn parse_move(&self, pos: &FanoronaPosition, text: &str) -> Result<FanoronaMove, MoveError> {
        let g = self.g;
        let shape = "a move is from-to (a paika, e.g. c2-d2) or from-to with A (approach) or \
                     W (withdrawal) after each capture step (e.g. f2-e3A, d4-d3A-c3W-d2A)";
        let parts: Vec<&str> = text.split('-').collect();
        if parts.len() < 2 {
            return Err(MoveError::malformed(text, shape));
        }
        let last_file = (b'a' + g.files as u8 - 1) as char;
        let point = |p: &str| {
            g.parse_point(p).ok_or_else(|| {
                MoveError::malformed(
                    text,
                    format!(
                        "'{p}' is not a point of the {}×{} board (a1..{last_file}{}): {shape}",
                        g.files, g.ranks, g.ranks
                    ),
                )
            })
        };
        let from = point(parts[0])?;
        let mut steps = Vec::with_capacity(parts.len() - 1);
        for part in &parts[1..] {
            let (name, kind) = match part.as_bytes().last() {
                Some(b'A') => (&part[..part.len() - 1], Some(StepKind::Approach)),
                Some(b'W') => (&part[..part.len() - 1], Some(StepKind::Withdrawal)),
                _ => (*part, None),
            };
            steps.push((point(name)?, kind));
        }
        if steps.len() > 1 && steps.iter().any(|(_, k)| k.is_none()) {
            return Err(MoveError::malformed(
                text,
                format!("only captures chain, so every step of a chain needs A or W: {shape}"),
            ));
        }
        if steps.len() > MAX_STEPS {
            return Err(MoveError::malformed(
                text,
                format!("a chain has at most {MAX_STEPS} steps"),
            ));
        }
        if let Some(outcome) = self.outcome(pos) {
            return Err(MoveError::illegal(
                text,
                format!("the game is over ({})", outcome.reason),
            ));
        }
        self.check_move(pos, text, from, &steps)
    }

    fn format_move(&self, _pos: &FanoronaPosition, mv: FanoronaMove) -> String {
        moves::notation(self.g, mv)
    }

    fn render(&self, pos: &FanoronaPosition) -> String {
        let g = self.g;
        let mut out = String::new();
        for rank in (0..g.ranks).rev() {
            let _ = write!(out, " {} ", rank + 1);
            for file in 0..g.files {
                let c = Self::stone_letter(pos, rank * g.files + file).unwrap_or('.');
                if file > 0 {
                    out.push('-');
                }
                out.push(c);
            }
            out.push('\n');
            if rank > 0 {
                out.push_str("   ");
                for file in 0..g.files {
                    if file > 0 {
                        // The diagonal between two files leaves from the strong point.
                        let strong_above = (file - 1 + rank) % 2 == 0;
                        out.push(if strong_above { '\\' } else { '/' });
                    }
                    out.push('|');
                }
                out.push('\n');
            }
        }
        out.push_str("   ");
        for file in 0..g.files {
            if file > 0 {
                out.push(' ');
            }
            out.push((b'a' + file as u8) as char);
        }
        out.push('\n');
        let _ = write!(
            out,
            "To move: {} ({}); turns without capture: {}",
            colour_name(pos.side),
            pos.side.name(),
            pos.quiet
        );
        if let Some(limit) = self.quiet_limit {
            let _ = write!(out, " of {limit}");
        }
        if self.first_capture_single && pos.first_pending != 0 {
            let _ = write!(out, "; first turn (single capture) to come for");
            for (bit, player) in [(1, Player::P1), (2, Player::P2)] {
                if pos.first_pending & bit != 0 {
                    let _ = write!(out, " {}", colour_name(player));
                }
            }
        }
        out
    }
}

impl Evaluation for Fanorona {
    fn evaluate(&self, pos: &FanoronaPosition) -> i32 {
        self.toward_the_quiet_draw(pos, WEIGHTS.score(&self.features(pos)))
    }

    fn eval_terms(&self) -> &'static [EvalTerm] {
        &TERMS
    }

    fn eval_features(&self, pos: &FanoronaPosition, features: &mut [i32]) {
        features.copy_from_slice(&self.features(pos));
    }

    /// Drawn toward the draw as the quiet limit nears: by half at the limit (linearly in
    /// the turns without capture). A lead that no capture has turned into stones for many
    /// turns is likely to end in the quiet-limit draw; and of two lines that keep a lead,
    /// the one whose capture comes sooner scores more, so the side ahead makes progress
    /// instead of marking time.
    #[inline(always)]
    fn eval_scale(&self, pos: &FanoronaPosition) -> (i64, i64) {
        match self.quiet_limit {
            Some(limit) if limit > 0 => {
                let (limit, quiet) = (i64::from(limit), i64::from(pos.quiet.min(limit)));
                (2 * limit - quiet, 2 * limit)
            }
            _ => (1, 1),
        }
    }

    fn stones_in_play(&self, pos: &FanoronaPosition) -> Option<u32> {
        Some(pos.stones[0].count_ones() + pos.stones[1].count_ones())
    }

    /// No capture at hand (captures are compulsory).
    fn is_quiet(&self, pos: &FanoronaPosition) -> bool {
        self.g.threats(pos.own(), pos.enemy()).longest == 0
    }

    /// A capture at hand must be played (every legal move is a capture): the search plays
    /// the captures out before it evaluates.
    fn horizon(&self, pos: &FanoronaPosition) -> Horizon {
        if self.is_quiet(pos) {
            Horizon::Quiet
        } else {
            Horizon::Forced
        }
    }

    /// One pass over the captures at hand: the feature `strike` (the mover's best capture)
    /// is positive exactly when a capture is due.
    fn evaluate_at_horizon(&self, pos: &FanoronaPosition) -> (i32, Horizon) {
        let features = self.features(pos);
        let horizon = if features[1] > 0 {
            Horizon::Forced
        } else {
            Horizon::Quiet
        };
        (
            self.toward_the_quiet_draw(pos, WEIGHTS.score(&features)),
            horizon,
        )
    }
}

impl NetworkFeatures for Fanorona {
    /// A stone of either colour on any point, from each side's view: 2 × points.
    fn network_inputs(&self) -> usize {
        2 * self.g.points
    }

    fn network_id(&self) -> String {
        format!("fanorona {}x{}", self.g.files, self.g.ranks)
    }

    fn network_features(&self, pos: &FanoronaPosition, view: Player, out: &mut Vec<u16>) {
        for colour in [WHITE, BLACK] {
            for point in bits(pos.stones[colour]) {
                out.push(self.feature(view.index(), colour, point) as u16);
            }
        }
    }

    /// 9×5: trained by `sowfan train` on `sowfan datagen` games (docs/nnue.md); the
    /// smaller boards evaluate by hand.
    fn default_network(&self) -> Option<&'static [u8]> {
        match self.size {
            Size::Tsivy => Some(TSIVY_NETWORK),
            Size::Dimy | Size::Telo => None,
        }
    }

    fn accumulates(&self) -> bool {
        self.network.is_some()
    }

    fn refresh_accumulator(&self, pos: &FanoronaPosition, acc: &mut Accumulator) {
        if let Some(net) = &self.network {
            for view in [WHITE, BLACK] {
                self.refresh_view(net, pos, view, acc);
            }
        }
    }

    /// The stones a turn moved and captured: one stone leaves a point and arrives on
    /// another, and the captured stones leave theirs.
    fn update_accumulator(
        &self,
        before: &FanoronaPosition,
        _mv: FanoronaMove,
        after: &FanoronaPosition,
        parent: &Accumulator,
        child: &mut Accumulator,
    ) {
        let Some(net) = &self.network else {
            return;
        };
        *child = *parent;
        for view in [WHITE, BLACK] {
            for colour in [WHITE, BLACK] {
                let (old, new) = (before.stones[colour], after.stones[colour]);
                for point in bits(old & !new) {
                    net.sub(&mut child.views[view], self.feature(view, colour, point));
                }
                for point in bits(new & !old) {
                    net.add(&mut child.views[view], self.feature(view, colour, point));
                }
            }
        }
    }

    fn evaluate_accumulated(&self, pos: &FanoronaPosition, acc: &Accumulator) -> (i32, Horizon) {
        let Some(net) = &self.network else {
            return self.evaluate_at_horizon(pos);
        };
        let horizon = if self.is_quiet(pos) {
            Horizon::Quiet
        } else {
            Horizon::Forced
        };
        let score = net.output(acc, pos.side.index());
        (self.toward_the_quiet_draw(pos, score), horizon)
    }

    fn set_network(&mut self, bytes: Option<&[u8]>) -> Result<(), String> {
        self.network = Network::load(bytes, &self.network_id(), self.network_inputs())?;
        Ok(())
    }
}

impl SearchHints for Fanorona {
    fn history_key(&self, _pos: &FanoronaPosition, mv: FanoronaMove) -> Option<usize> {
        // The stone and its first step: below 45 * 16 = 720.
        let (d, kind) = mv.step(0);
        Some(mv.from() * 16 + d * 2 + usize::from(kind == StepKind::Withdrawal))
    }

    fn order_hint(&self, _pos: &FanoronaPosition, mv: FanoronaMove) -> i32 {
        if mv.is_capture() {
            // Bigger captures first; among equals, the longer chain (it ends further on).
            let captured = mv.captured() as i32;
            1000 + 32 * captured + mv.len() as i32
        } else {
            // Every paika alike: the history heuristic orders them, and the late ones are
            // searched reduced (a hint would exempt them from the reductions).
            0
        }
    }
}

impl ExactValues for Fanorona {
    /// Fanorona is won or lost, not scored: for the exact solver a win is worth one point,
    /// a loss minus one, a draw nothing (`sowfan solve` says `Value: win`, `draw`, `loss`).
    fn final_value(&self, outcome: &Outcome, mover: Player) -> i32 {
        match outcome.result.winner() {
            Some(winner) if winner == mover => 2,
            Some(_) => -2,
            None => 0,
        }
    }

    fn value_at_stake(&self, _pos: &FanoronaPosition) -> Option<i32> {
        Some(2)
    }

    fn value_step(&self) -> i32 {
        2
    }

    fn win_draw_loss(&self) -> bool {
        true
    }
}

impl TableIndexing for Fanorona {
    /// Tables exist under a quiet limit a byte can count (the distance semantics, see
    /// [`TableValues::Distance`]); they hold positions after both first turns. Neither the
    /// repetition rule (it cannot change the value of a position reached without repeating,
    /// docs/tablebases.md) nor first-capture-single (its positions are not covered) changes
    /// a table value, so they are not part of the rules; same-direction=allowed is.
    fn table_rules(&self) -> Option<String> {
        let limit = self.table_limit()?;
        let same = if self.same_direction {
            " same-direction=allowed"
        } else {
            ""
        };
        Some(format!(
            "{} quiet-limit={limit}{same}",
            self.size.game_name()
        ))
    }

    fn table_values(&self) -> TableValues {
        TableValues::Distance {
            limit: self.quiet_limit.unwrap_or(0).min(MAX_TABLE_DISTANCE),
            win: 2,
        }
    }

    /// A layer is a material (the two stone counts); see [`table`].
    fn table_index(&self, pos: &FanoronaPosition, max_layer: u32) -> Option<(u32, u64)> {
        if pos.first_pending != 0 || self.table_limit().is_none() {
            return None;
        }
        table::indexer(self.size).index(pos.own(), pos.enemy(), max_layer)
    }

    fn table_layer_size(&self, layer: u32) -> u64 {
        table::indexer(self.size).layer_size(layer)
    }

    fn table_position(&self, layer: u32, index: u64) -> Option<FanoronaPosition> {
        let (own, enemy) = table::indexer(self.size).position(layer, index)?;
        Some(FanoronaPosition {
            stones: [own, enemy],
            side: Player::P1,
            quiet: 0,
            first_pending: 0,
        })
    }

    fn table_top_layer(&self, stones: u32) -> Option<u32> {
        table::top_layer(stones)
    }

    fn table_layer_name(&self, layer: u32) -> String {
        let (a, b) = table::material(layer);
        format!("{a} and {b} stones")
    }

    /// The stones in play: a paika keeps both counts and a capture removes stones for
    /// good, so a material reads only its own layer and materials of fewer stones in all.
    fn table_layer_stage(&self, layer: u32) -> u32 {
        let (a, b) = table::material(layer);
        a + b
    }

    fn table_turns_left(&self, pos: &FanoronaPosition) -> u32 {
        self.quiet_limit
            .map_or(u32::MAX, |limit| limit.saturating_sub(pos.quiet))
    }

    /// The positions one paika before `pos`: the side not to move stepped a stone to its
    /// point from a neighbour on a line that is empty now, and could not capture before
    /// (a paika is legal only then).
    fn table_unmoves(&self, pos: &FanoronaPosition, out: &mut Vec<FanoronaPosition>) {
        out.clear();
        let g = self.g;
        let (own, enemy) = (pos.own(), pos.enemy());
        let empty = g.all & !(own | enemy);
        let mut stones = enemy;
        while stones != 0 {
            let to = stones.trailing_zeros() as usize;
            stones &= stones - 1;
            for d in 0..board::DIRECTIONS {
                let from = g.neighbour[d][to];
                if from == NONE || empty & (1u64 << from) == 0 {
                    continue;
                }
                let before = enemy ^ (1u64 << to) ^ (1u64 << from);
                if g.capturers(before, own) != 0 {
                    continue;
                }
                let mut stones = [0u64; 2];
                stones[pos.side.other().index()] = before;
                stones[pos.side.index()] = own;
                out.push(FanoronaPosition {
                    stones,
                    side: pos.side.other(),
                    quiet: pos.quiet.saturating_sub(1),
                    first_pending: 0,
                });
            }
        }
    }
}
