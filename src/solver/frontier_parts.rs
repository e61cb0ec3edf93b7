//! `sowfan solve --frontier D --split I/K --part-file FILE` and `--combine FILE...` of such
//! parts: a proof split at the positions D plies from the root ([`super::frontier`]), part I
//! of K holding frontier positions I, I+K, I+2K, … (1-based, in frontier order).
//!
//! A part file (format 3) is a short text, for people to read and for `--combine` to check:
//!
//! ```text
//! # sowfan solve part: exact values of frontier positions, in half-points for each position's mover
//! format: sowfan-part 3
//! game: kalah pits=4 seeds=3
//! position: <the root's position string>
//! frontier: 3
//! positions: 52
//! split: 2/20
//! leaf: 2 -4 <the position string of frontier position 2>
//! leaf: 22 8 <…>
//! leaf: 42 0 <…>
//! nodes: 1234
//! tbhits: 0
//! time-ms: 12
//! end: 0123456789abcdef
//! ```
//!
//! `positions:` is the number of frontier positions of the whole proof; a `leaf:` line is a
//! frontier position's index, its exact value (half-points, for the mover of that position,
//! as `sowfan solve --fen` on it prints) and its position string; an `open: INDEX POSITION`
//! line, in its place, a position whose proof outgrew the part's `--part-nodes`, whose value
//! comes from the parts of its own split (their `position:` is it). `end:` is the XXH3-64 of
//! every byte before its line. Files are hostile input: their size is bounded before they
//! are read, every line must be one of these, and [`combine`] takes nothing on trust.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::parts::{
    self, CombineError, FORMAT_V3, FrontierMismatch, Part, PartDamage, PartFileError, checksum_of,
    cut, number, read_bounded,
};

/// The largest frontier part file read.
const MAX_BYTES: u64 = 64 << 20;
/// The largest value (half-points) a part may hold.
const MAX_VALUE: i64 = 1 << 30;
/// The most parts a frontier proof may be split into.
pub const MAX_PARTS: usize = 1_000_000;

/// What a frontier part proved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrontierPart {
    /// The game spec and the root's position string.
    pub game: String,
    pub position: String,
    /// The frontier's depth (plies) and its number of positions.
    pub depth: u32,
    pub total: usize,
    /// Part `split.0` of `split.1`.
    pub split: (usize, usize),
    /// Its positions: frontier index (1-based), exact value (half-points for that position's
    /// mover; `None`: left open, its proof outgrew the part's node budget), position string.
    pub leaves: Vec<(usize, Option<i32>, String)>,
    pub nodes: u64,
    pub tbhits: u64,
    pub millis: u64,
}

/// A part file of either kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AnyPart {
    /// By first move (formats 1 and 2).
    Moves(Part),
    /// By frontier (format 3).
    Frontier(FrontierPart),
}

/// Read a part file of any format, its form checked.
pub fn read_any(path: &Path) -> Result<AnyPart, PartFileError> {
    let bytes = read_bounded(path, MAX_BYTES)?;
    let damaged = |damage| PartFileError::Damaged {
        path: path.to_path_buf(),
        damage,
    };
    let head = bytes
        .split(|&b| b == b'\n')
        .find(|l| !l.starts_with(b"#"))
        .unwrap_or(&[]);
    if head == format!("format: {FORMAT_V3}").as_bytes() {
        return FrontierPart::parse(&bytes)
            .map(AnyPart::Frontier)
            .map_err(damaged);
    }
    if bytes.len() as u64 > 1 << 20 {
        return Err(PartFileError::TooLarge {
            path: path.to_path_buf(),
            kib: 1024,
        });
    }
    Part::parse(&bytes).map(AnyPart::Moves).map_err(damaged)
}

/// Part `i` of `k` of `total` frontier positions: their 1-based indexes.
pub fn split_indexes(total: usize, i: usize, k: usize) -> impl Iterator<Item = usize> {
    (i..=total).step_by(k)
}

/// The part (1..=k) of `k` that holds frontier position `index` (1-based).
pub fn part_of(index: usize, k: usize) -> usize {
    (index - 1) % k + 1
}

impl FrontierPart {
    /// The file's text.
    pub fn text(&self) -> String {
        let mut text = format!(
            "# sowfan solve part: exact values of frontier positions, in half-points for each \
             position's mover\nformat: {FORMAT_V3}\ngame: {}\nposition: {}\nfrontier: {}\n\
             positions: {}\nsplit: {}/{}\n",
            self.game, self.position, self.depth, self.total, self.split.0, self.split.1
        );
        for (index, value, position) in &self.leaves {
            let _ = match value {
                Some(value) => writeln!(text, "leaf: {index} {value} {position}"),
                None => writeln!(text, "open: {index} {position}"),
            };
        }
        let _ = write!(
            text,
            "nodes: {}\ntbhits: {}\ntime-ms: {}\n",
            self.nodes, self.tbhits, self.millis
        );
        let sum = checksum_of(FORMAT_V3, text.as_bytes());
        let _ = writeln!(text, "end: {sum:016x}");
        text
    }

    /// Write the part to `path` atomically and never over anything (as [`Part::write`]).
    pub fn write(&self, path: &Path) -> Result<(), PartFileError> {
        parts::write_new(path, &self.text())
    }

    /// Parse a part file's bytes; the error says what is wrong (after the file's name).
    pub fn parse(bytes: &[u8]) -> Result<FrontierPart, PartDamage> {
        let text = std::str::from_utf8(bytes).map_err(|_| PartDamage::NotText)?;
        // (key, value, offset of the line) of every line but comments.
        let mut lines = Vec::new();
        let mut offset = 0;
        for line in text.split_inclusive('\n') {
            let at = offset;
            offset += line.len();
            if line.starts_with('#') {
                continue;
            }
            let body = line.strip_suffix('\n').ok_or(PartDamage::LastLineCut)?;
            let (key, value) = body
                .split_once(": ")
                .ok_or_else(|| PartDamage::NotKeyValue(cut(body)))?;
            lines.push((key, value, at));
        }
        let mut lines = lines.into_iter();
        let mut field = |name: &str| next_field(&mut lines, name);
        if field("format")?.0 != FORMAT_V3 {
            return Err(PartDamage::NoFormat);
        }
        let game = field("game")?.0.to_string();
        let position = field("position")?.0.to_string();
        let depth = number(field("frontier")?.0, "frontier depth")?;
        let depth = u32::try_from(depth)
            .ok()
            .filter(|d| (1..=super::frontier::MAX_DEPTH).contains(d))
            .ok_or(PartDamage::DepthOutOfRange(depth))?;
        let total = number(field("positions")?.0, "number of positions")?;
        if total > super::frontier::MAX_POSITIONS as u64 {
            return Err(PartDamage::TooManyPositions(total));
        }
        let total = total as usize;
        let split = field("split")?.0;
        let split = parts::parse_split_up_to(split, MAX_PARTS)
            .map_err(|_| PartDamage::NoSplit(cut(split)))?;
        let mut leaves = Vec::new();
        let nodes = loop {
            let (key, value, _) = lines
                .next()
                .ok_or_else(|| PartDamage::EndsBefore("nodes".to_string()))?;
            match key {
                "leaf" => {
                    let mut words = value.splitn(3, ' ');
                    let (Some(index), Some(v), Some(pos)) =
                        (words.next(), words.next(), words.next())
                    else {
                        return Err(PartDamage::NoLeaf(cut(value)));
                    };
                    let index: usize = index
                        .parse()
                        .map_err(|_| PartDamage::LeafWithoutIndex(cut(value)))?;
                    let v: i64 = v
                        .parse()
                        .map_err(|_| PartDamage::LeafWithoutValue(cut(value)))?;
                    // A range, not `abs()`: i64::MIN has no absolute value.
                    if !(-MAX_VALUE..=MAX_VALUE).contains(&v) || pos.is_empty() {
                        return Err(PartDamage::NoLeaf(cut(value)));
                    }
                    leaves.push((index, Some(v as i32), pos.to_string()));
                }
                "open" => {
                    let (index, pos) = value
                        .split_once(' ')
                        .and_then(|(i, pos)| Some((i.parse::<usize>().ok()?, pos)))
                        .filter(|(_, pos)| !pos.is_empty())
                        .ok_or_else(|| PartDamage::NoOpen(cut(value)))?;
                    leaves.push((index, None, pos.to_string()));
                }
                "nodes" => break number(value, "node count")?,
                other => return Err(PartDamage::NoLeafLine(cut(other))),
            }
        };
        let mut field = |name: &str| next_field(&mut lines, name);
        let tbhits = number(field("tbhits")?.0, "tbhits")?;
        let millis = number(field("time-ms")?.0, "time")?;
        let (sum, end_at) = field("end")?;
        if sum != format!("{:016x}", checksum_of(FORMAT_V3, &bytes[..end_at])) {
            return Err(PartDamage::Checksum);
        }
        if lines.next().is_some() || !text.ends_with('\n') {
            return Err(PartDamage::GoesOn);
        }
        Ok(FrontierPart {
            game,
            position,
            depth,
            total,
            split,
            leaves,
            nodes,
            tbhits,
            millis,
        })
    }

    /// Whether this part is part `split` of the proof of `position` of `game` at the
    /// frontier `positions` (`depth` plies), every position at its index: the error says
    /// what it is instead.
    pub fn check(
        &self,
        game: &str,
        position: &str,
        depth: u32,
        positions: &[String],
    ) -> Result<(), FrontierMismatch> {
        if self.game != game {
            return Err(FrontierMismatch::OtherGame {
                found: self.game.clone(),
                game: game.to_string(),
            });
        }
        if self.position != position {
            return Err(FrontierMismatch::OtherPosition {
                found: self.position.clone(),
                position: position.to_string(),
            });
        }
        if self.depth != depth {
            return Err(FrontierMismatch::OtherDepth {
                found: self.depth,
                depth,
            });
        }
        if self.total != positions.len() {
            return Err(FrontierMismatch::OtherCount {
                found: self.total,
                depth,
                count: positions.len(),
            });
        }
        let (i, k) = self.split;
        for (index, _, text) in &self.leaves {
            if *index == 0 || *index > positions.len() || part_of(*index, k) != i {
                return Err(FrontierMismatch::NotInPart {
                    index: *index,
                    split: (i, k),
                });
            }
            if positions[index - 1] != *text {
                return Err(FrontierMismatch::OtherPositionAt {
                    index: *index,
                    found: cut(text),
                    ours: cut(&positions[index - 1]),
                });
            }
        }
        Ok(())
    }

    /// Whether it holds every position of its part, once each.
    pub fn is_whole(&self) -> bool {
        let (i, k) = self.split;
        self.leaves
            .iter()
            .map(|l| l.0)
            .eq(split_indexes(self.total, i, k))
    }
}

/// The exact value of every frontier position (in frontier order; `None` for one left open
/// by every part that holds it), combined from `parts` (read from their paths) of the proof
/// of `position` of `game` split at the frontier `positions`, `depth` plies down: each part
/// must be of that proof ([`FrontierPart::check`]), every value one its position can have
/// (`possible`), every position held by a part (the same position in two parts must have
/// the same value there, or be open in one of them).
pub fn combine(
    game: &str,
    position: &str,
    depth: u32,
    positions: &[String],
    parts: &[(PathBuf, FrontierPart)],
    possible: &dyn Fn(&str, i32) -> bool,
) -> Result<Vec<Option<i32>>, CombineError> {
    let mut found: Vec<Option<(Option<i32>, &Path)>> = vec![None; positions.len()];
    for (path, part) in parts {
        part.check(game, position, depth, positions)
            .map_err(|mismatch| CombineError::OtherProof {
                path: path.clone(),
                mismatch,
            })?;
        for (index, value, text) in &part.leaves {
            if let Some(value) = *value
                && !possible(text, value)
            {
                return Err(CombineError::ImpossibleLeafValue {
                    path: path.clone(),
                    index: *index,
                    value,
                });
            }
            match (found[index - 1], value) {
                (Some((Some(other), first)), Some(value)) if other != *value => {
                    return Err(CombineError::LeafValuesDiffer {
                        index: *index,
                        first_value: other,
                        first: first.to_path_buf(),
                        second_value: *value,
                        second: path.clone(),
                    });
                }
                (None | Some((None, _)), _) => found[index - 1] = Some((*value, path)),
                (Some(_), _) => {}
            }
        }
    }
    let missing: Vec<usize> = (1..=positions.len())
        .filter(|&i| found[i - 1].is_none())
        .collect();
    if !missing.is_empty() {
        let ks: BTreeSet<usize> = parts.iter().map(|(_, p)| p.split.1).collect();
        let runs: Vec<String> = ks
            .iter()
            .map(|&k| {
                let numbers: BTreeSet<usize> = missing.iter().map(|&m| part_of(m, k)).collect();
                let shown: Vec<String> = numbers.iter().map(|i| format!("{i}/{k}")).collect();
                shown.join(" ")
            })
            .collect();
        return Err(CombineError::MissingPositions {
            listed: missing.iter().take(40).copied().collect(),
            more: missing.len().saturating_sub(40),
            of: positions.len(),
            depth,
            runs: runs.join(", or "),
        });
    }
    Ok(found.into_iter().flatten().map(|(v, _)| v).collect())
}

/// The next `key: value` line of a part file (with its byte offset), which must be `name`'s.
fn next_field<'a>(
    lines: &mut impl Iterator<Item = (&'a str, &'a str, usize)>,
    name: &str,
) -> Result<(&'a str, usize), PartDamage> {
    match lines.next() {
        Some((key, value, at)) if key == name => Ok((value, at)),
        Some((key, _, _)) => Err(PartDamage::OutOfPlace {
            found: cut(key),
            expected: name.to_string(),
        }),
        None => Err(PartDamage::EndsBefore(name.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn part() -> FrontierPart {
        FrontierPart {
            game: "kalah pits=4 seeds=3".to_string(),
            position: "3 3 3 3 0 3 3 3 3 0 1".to_string(),
            depth: 2,
            total: 5,
            split: (2, 3),
            leaves: vec![
                (2, Some(6), "0 4 4 4 0 3 3 3 3 0 2".to_string()),
                (5, None, "3 0 4 4 1 3 3 3 3 0 2".to_string()),
            ],
            nodes: 12,
            tbhits: 0,
            millis: 5,
        }
    }

    #[test]
    fn frontier_parts_round_trip_and_every_cut_or_flip_is_refused() {
        let text = part().text();
        assert_eq!(FrontierPart::parse(text.as_bytes()), Ok(part()));
        assert!(part().is_whole());
        for end in 0..text.len() {
            assert!(
                FrontierPart::parse(&text.as_bytes()[..end]).is_err(),
                "cut at {end}"
            );
        }
        for at in 0..text.len() {
            let mut bytes = text.clone().into_bytes();
            bytes[at] ^= 1;
            assert!(FrontierPart::parse(&bytes).is_err(), "flip at {at}");
        }
    }

    #[test]
    fn splits_cover_every_index_once_and_name_their_part() {
        let mut all: Vec<usize> = (1..=4).flat_map(|i| split_indexes(10, i, 4)).collect();
        all.sort();
        assert_eq!(all, (1..=10).collect::<Vec<_>>());
        assert_eq!(split_indexes(10, 3, 4).collect::<Vec<_>>(), [3, 7]);
        assert_eq!(split_indexes(3, 5, 8).count(), 0);
        for index in 1..=10 {
            assert!(split_indexes(10, part_of(index, 4), 4).any(|i| i == index));
        }
    }

    #[test]
    fn combine_names_the_missing_parts_and_refuses_disagreeing_duplicates() {
        let positions: Vec<String> = (1..=5).map(|i| format!("p{i}")).collect();
        let make = |i: usize, values: &[i32]| FrontierPart {
            game: "g".to_string(),
            position: "r".to_string(),
            depth: 2,
            total: 5,
            split: (i, 3),
            leaves: split_indexes(5, i, 3)
                .zip(values)
                .map(|(x, &v)| (x, Some(v), format!("p{x}")))
                .collect(),
            nodes: 1,
            tbhits: 0,
            millis: 1,
        };
        let any = |_: &str, _: i32| true;
        let parts = vec![
            (PathBuf::from("a"), make(1, &[1, 4])),
            (PathBuf::from("b"), make(2, &[2, 5])),
        ];
        let error = combine("g", "r", 2, &positions, &parts, &any)
            .expect_err("missing")
            .to_string();
        assert!(
            error.contains("position 3 ") && error.contains("--split 3/3"),
            "{error}"
        );
        let mut all = parts.clone();
        all.push((PathBuf::from("c"), make(3, &[3])));
        assert_eq!(
            combine("g", "r", 2, &positions, &all, &any),
            Ok([1, 2, 3, 4, 5].map(Some).to_vec())
        );
        all.push((PathBuf::from("c2"), make(3, &[3])));
        assert!(combine("g", "r", 2, &positions, &all, &any).is_ok());
        all.push((PathBuf::from("c3"), make(3, &[-3])));
        let error = combine("g", "r", 2, &positions, &all, &any)
            .expect_err("differ")
            .to_string();
        assert!(error.contains("'c'") && error.contains("'c3'"), "{error}");
        let error = combine("g", "r", 3, &positions, &all, &any)
            .expect_err("depth")
            .to_string();
        assert!(error.contains("depth"), "{error}");
    }
}
