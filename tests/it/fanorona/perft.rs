//! Fanorona perft table (`fixtures/perft/fanorona.txt`) checked against the independent
//! brute-force generator of `brute.rs`: at every node of the tree, the engine's moves
//! must be exactly the brute force's moves (as texts, A and W apart), each move text must
//! parse back to the same move, and playing it must give the position the brute force
//! computed. Depths beyond the brute force's budget are checked with the fast generator.

use sowfan::game::prelude::*;
use sowfan::games::fanorona::{Fanorona, OPTIONS, Size};
use sowfan::options::GameOptions;

use super::brute::Board;
use crate::support::perft_fixture::{self, Budget, PerftLine};
use crate::support::walk::{self, Walk, walk};

const FIXTURE: &str = include_str!("../../../fixtures/perft/fanorona.txt");

fn cases() -> Vec<PerftLine> {
    perft_fixture::parse(FIXTURE)
}

/// The engine's game for a spec such as `fanorona-dimy quiet-limit=10`, and the rule
/// settings the brute force needs (read from the spec text by itself).
struct Setup {
    game: Fanorona,
    files: usize,
    ranks: usize,
    brute: BruteForce,
}

fn setup(spec: &str) -> Setup {
    let mut tokens = spec.split_whitespace();
    let name = tokens.next().expect("game name");
    let options: Vec<&str> = tokens.collect();
    let (size, files, ranks) = match name {
        "fanorona" => (Size::Tsivy, 9, 5),
        "fanorona-dimy" => (Size::Dimy, 5, 5),
        "fanorona-telo" => (Size::Telo, 3, 3),
        other => panic!("not a Fanorona game: {other}"),
    };
    let mut quiet_limit = Some(100);
    let mut single = false;
    let mut same_direction = false;
    for option in &options {
        match option.split_once('=') {
            Some(("quiet-limit", "off")) => quiet_limit = None,
            Some(("quiet-limit", n)) => quiet_limit = Some(n.parse().expect("limit")),
            Some(("first-capture-single", v)) => single = v == "true",
            Some(("same-direction", v)) => same_direction = v == "allowed",
            _ => {}
        }
    }
    let parsed = GameOptions::parse(size.game_name(), OPTIONS, &options).expect("options");
    Setup {
        game: Fanorona::new(size, parsed).expect("Fanorona reads its options"),
        files,
        ranks,
        brute: BruteForce {
            quiet_limit,
            single,
            same_direction,
        },
    }
}

/// The brute force as the tree walk sees it: the rule settings it needs.
struct BruteForce {
    quiet_limit: Option<u32>,
    single: bool,
    same_direction: bool,
}

impl walk::Reference for BruteForce {
    type Pos = Board;

    fn text(&self, board: &Board) -> String {
        board.format(self.single)
    }

    fn moves(&self, board: &Board) -> Vec<(String, Board)> {
        board.moves_by(self.quiet_limit, self.single, self.same_direction)
    }
}

fn start_text(s: &Setup, fen: Option<&str>) -> String {
    match fen {
        Some(f) => f.to_string(),
        None => s.game.format_position(&s.game.start_position()),
    }
}

/// Brute-force-check every fixture line to the deepest depth whose count is within the
/// brute budget (`start_budget` for start positions, `brute_budget` for the others), and
/// the deeper counts within `fast_budget` with the fast generator. `replay_leaves` as in
/// [`Walk`]: the deep run leaves it out.
fn check_fixture(
    replay_leaves: bool,
    start_budget: u64,
    brute_budget: u64,
    fast_budget: u64,
) -> Vec<String> {
    let mut report = Vec::new();
    for case in cases() {
        let brute_budget = if case.fen().is_none() {
            start_budget
        } else {
            brute_budget
        };
        let s = setup(&case.spec);
        let text = start_text(&s, case.fen());
        let pos = s.game.parse_position(&text).expect("fixture position");
        let board = Board::parse(s.files, s.ranks, &text);
        // The brute force lists its moves in its own order.
        let how = Walk {
            ordered: false,
            read_back: true,
            replay_leaves,
            leaf_moves: false,
        };
        let budget = Budget {
            reference: brute_budget,
            engine: fast_budget,
        };
        let reached = perft_fixture::check_line(&case, &budget, &s.game, &pos, |depth| {
            walk(&s.game, &s.brute, &pos, &board, depth, &how)
        });
        assert!(
            reached.reference >= 2,
            "{}: the brute force must cover depth 2",
            case.spec
        );
        let (brute_depth, fast_depth) = (reached.reference, reached.engine.max(reached.reference));
        report.push(format!(
            "{} | {text}: brute force to depth {brute_depth}, fast to {fast_depth}",
            case.spec
        ));
    }
    report
}

#[test]
fn fanorona_perft_table_agrees_with_brute_force() {
    // Debug builds (cargo test) are slower: keep the same checks, smaller trees.
    let (brute, fast) = if cfg!(debug_assertions) {
        (60_000, 2_000_000)
    } else {
        (600_000, 12_000_000)
    };
    let report = check_fixture(true, brute, brute, fast);
    assert!(report.len() >= 10, "{report:#?}");
}

/// The deep check behind the fixture's numbers: run with
/// `cargo test --release -- --ignored fanorona_perft_deep --nocapture`. Brute force to
/// depth 7 from the 9×5 start (175 million leaves), to 30 million leaves elsewhere (every
/// move of the last ply compared by text and resulting position, not re-parsed); the fast
/// generator for every count up to 300 million.
#[test]
#[ignore = "long: the full brute-force comparison behind fixtures/perft/fanorona.txt; see CONTRIBUTING.md"]
fn fanorona_perft_deep() {
    for line in check_fixture(false, 200_000_000, 30_000_000, 300_000_000) {
        println!("{line}");
    }
}

/// The fixture's `same-direction=allowed` lines against the same positions under the
/// traditional rule: never fewer turns, more somewhere on 9×5 and 5×5 (a chain going straight
/// on), the same on 3×3 (its lines are too short for such a step).
#[test]
fn fanorona_same_direction_allowed_only_adds_turns() {
    let lines = cases();
    let allowed: Vec<&PerftLine> = lines
        .iter()
        .filter(|l| l.spec.contains("same-direction=allowed"))
        .collect();
    assert!(
        allowed.len() >= 5,
        "{} lines with the option",
        allowed.len()
    );
    let mut differ = std::collections::BTreeMap::new();
    for line in allowed {
        let plain_spec = line.spec.replace(" same-direction=allowed", "");
        let plain = lines
            .iter()
            .find(|l| l.spec == plain_spec && l.fen() == line.fen())
            .unwrap_or_else(|| panic!("no line '{plain_spec} | {}'", line.position));
        let counts = line.counts.iter().zip(&plain.counts);
        assert!(
            counts.clone().all(|(a, p)| a >= p),
            "{} | {}: {:?} against {:?}",
            line.spec,
            line.position,
            line.counts,
            plain.counts
        );
        let more = counts.filter(|(a, p)| a > p).count();
        let name = plain_spec
            .split_whitespace()
            .next()
            .expect("name")
            .to_string();
        *differ.entry(name).or_insert(0) += more;
    }
    assert_eq!(differ.get("fanorona-telo"), Some(&0), "{differ:?}");
    assert!(
        differ.get("fanorona-dimy").is_some_and(|&n| n > 0),
        "{differ:?}"
    );
    assert!(differ.get("fanorona").is_some_and(|&n| n > 0), "{differ:?}");
}

#[test]
fn fanorona_nine_by_five_first_moves() {
    let s = setup("fanorona");
    let pos = s.game.start_position();
    let mut moves = Vec::new();
    s.game.legal_moves(&pos, &mut moves);
    let mut texts: Vec<String> = moves.iter().map(|&m| s.game.format_move(&pos, m)).collect();
    texts.sort();
    assert_eq!(texts, ["d2-e3A", "d3-e3A", "d3-e3W", "e2-e3A", "f2-e3A"]);
    assert_eq!(sowfan::perft::perft(&s.game, &pos, 2), 39);
}
