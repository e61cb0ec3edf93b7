//! The perft fixture format shared by every game, `fixtures/perft/<game>.txt`: `#` comments,
//! and data lines `<game and options> | <startpos or position string> | <perft(1)> ...`.

pub struct PerftLine {
    /// The game and its options, as after `newgame`.
    pub spec: String,
    /// `startpos` or a position string.
    pub position: String,
    /// perft(1), perft(2), ...
    pub counts: Vec<u64>,
}

impl PerftLine {
    /// The position string, or `None` for the start position.
    pub fn fen(&self) -> Option<&str> {
        (self.position != "startpos").then_some(self.position.as_str())
    }

    /// The `key=value` options of `spec`.
    pub fn options(&self) -> Vec<&str> {
        self.spec.split_whitespace().skip(1).collect()
    }
}

pub fn parse(text: &str) -> Vec<PerftLine> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|line| {
            let parts: Vec<&str> = line.split('|').map(str::trim).collect();
            assert_eq!(parts.len(), 3, "bad perft fixture line: {line}");
            PerftLine {
                spec: parts[0].to_string(),
                position: parts[1].to_string(),
                counts: parts[2]
                    .split_whitespace()
                    .map(|n| n.parse().expect("a leaf count"))
                    .collect(),
            }
        })
        .collect()
}

/// How far a fixture check goes on each line: the reference walks to the deepest count
/// within `reference` leaves (one walk gives every shallower count too), and the engine's
/// own perft gives every count within `engine` leaves.
pub struct Budget {
    pub reference: u64,
    pub engine: u64,
}

/// The depths a line was checked to.
#[derive(Debug)]
pub struct Reached {
    pub reference: usize,
    pub engine: usize,
}

/// Check one fixture line: `reference_walk(depth)` gives the nodes at each ply below the
/// line's position (`[0]` the root, `[depth]` the leaves, as [`super::walk::walk`] returns
/// them) and must equal the line's counts; `sowfan::perft` must give each count within the
/// engine's budget. The name of the line is in every failure.
pub fn check_line<G: sowfan::game::Game>(
    line: &PerftLine,
    budget: &Budget,
    game: &G,
    pos: &G::Position,
    reference_walk: impl FnOnce(usize) -> Vec<u64>,
) -> Reached {
    let name = format!("{} | {}", line.spec, line.position);
    let reference = line
        .counts
        .iter()
        .take_while(|&&n| n <= budget.reference)
        .count();
    let counts = reference_walk(reference);
    assert_eq!(counts.len(), reference + 1, "{name}: a count for each ply");
    assert_eq!(
        counts[1..],
        line.counts[..reference],
        "the reference disagrees: {name}"
    );
    let mut engine = 0;
    for (i, &expected) in line.counts.iter().enumerate() {
        if expected > budget.engine {
            break;
        }
        let depth = i as u32 + 1;
        assert_eq!(
            sowfan::perft::perft(game, pos, depth),
            expected,
            "the engine's perft({depth}) disagrees: {name}"
        );
        engine = i + 1;
    }
    Reached { reference, engine }
}
