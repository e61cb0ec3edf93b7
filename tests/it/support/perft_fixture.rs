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
