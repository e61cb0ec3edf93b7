//! Pieces shared by the sowing games (Kalah, Afrika, Anywoli): the two board sides, pit
//! lettering, the comma-separated pit lists of position strings, hashing of pit arrays.
//! Only notation and data layout live here; each game keeps its own sowing rules.

use crate::compositions::Compositions;
use crate::game::{MoveError, PositionError};

/// A side of a two-row board. South owns the lower row (`A`.. upper-case letters), North
/// the upper row (`a`.. lower-case letters), each lettered from its owner's left.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Side {
    South,
    North,
}

impl Side {
    pub fn other(self) -> Side {
        match self {
            Side::South => Side::North,
            Side::North => Side::South,
        }
    }

    pub fn index(self) -> usize {
        match self {
            Side::South => 0,
            Side::North => 1,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Side::South => "South",
            Side::North => "North",
        }
    }

    /// The position-string letter: `S` or `N`.
    pub fn letter(self) -> char {
        match self {
            Side::South => 'S',
            Side::North => 'N',
        }
    }

    pub fn from_letter(text: &str) -> Option<Side> {
        match text {
            "S" | "s" => Some(Side::South),
            "N" | "n" => Some(Side::North),
            _ => None,
        }
    }

    /// The letter of this side's pit `i` (0-based from the owner's left).
    pub fn pit_letter(self, i: usize) -> char {
        let base = match self {
            Side::South => b'A',
            Side::North => b'a',
        };
        (base + i as u8) as char
    }

    /// The letters of a row of `n` pits, e.g. `A..F`.
    pub fn pit_range(self, n: usize) -> String {
        format!("{}..{}", self.pit_letter(0), self.pit_letter(n - 1))
    }
}

/// A pit letter: which side owns it and its 0-based index, if it is a letter at all.
pub fn parse_pit_letter(text: &str) -> Option<(Side, usize)> {
    let mut chars = text.chars();
    let c = chars.next()?;
    if chars.next().is_some() {
        return None;
    }
    match c {
        'A'..='Z' => Some((Side::South, (c as u8 - b'A') as usize)),
        'a'..='z' => Some((Side::North, (c as u8 - b'a') as usize)),
        _ => None,
    }
}

/// Parse `4,4,0,12` into exactly `expected` counts, each at most `max`.
pub fn parse_counts(
    text: &str,
    expected: usize,
    max: u32,
    what: &str,
) -> Result<Vec<u32>, PositionError> {
    let parts: Vec<&str> = text.split(',').collect();
    if parts.len() != expected {
        return Err(PositionError::new(format!(
            "{what}: expected {expected} comma-separated numbers, found {} in '{text}'",
            parts.len()
        )));
    }
    parts
        .iter()
        .map(|p| match super::parse_digits::<u32>(p) {
            Some(n) if n <= max => Ok(n),
            Some(n) => Err(PositionError::new(format!(
                "{what}: {n} is more than the {max} this board can hold"
            ))),
            None => Err(PositionError::new(format!(
                "{what}: '{p}' is not a seed count (digits only, a number 0..{max})"
            ))),
        })
        .collect()
}

/// Write counts as `4,4,0,12`.
pub fn format_counts(out: &mut String, counts: impl IntoIterator<Item = u32>) {
    use std::fmt::Write;
    for (i, c) in counts.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        let _ = write!(out, "{c}");
    }
}

/// The seed (side to move, flags) spread over all bits before the counts come in: xored in
/// as it is, its low bits would cancel the first count's (side 1 with 6 seeds in the first
/// pit hashed like side 0 with 7).
#[inline]
fn mix_seed(seed: u64) -> u64 {
    let h = (seed ^ 0x9E37_79B9_7F4A_7C15).wrapping_mul(0xD6E8_FEB8_6659_FD93);
    h ^ (h >> 32)
}

/// A fast, well-mixed hash of small counts (a multiply-xorshift fold; not cryptographic).
#[inline]
pub fn hash_counts(counts: &[u16], seed: u64) -> u64 {
    let mut h = mix_seed(seed);
    for chunk in counts.chunks(4) {
        let mut word = 0u64;
        for (i, &c) in chunk.iter().enumerate() {
            word |= (c as u64) << (16 * i);
        }
        h = (h ^ word).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        h ^= h >> 29;
    }
    h = h.wrapping_mul(0x94D0_49BB_1331_11EB);
    h ^ (h >> 32)
}

/// [`hash_counts`] for counts held in bytes (boards whose seeds fit in a `u8`).
#[inline]
pub fn hash_bytes(counts: &[u8], seed: u64) -> u64 {
    let mut h = mix_seed(seed);
    for chunk in counts.chunks(8) {
        let mut word = 0u64;
        for (i, &c) in chunk.iter().enumerate() {
            word |= (c as u64) << (8 * i);
        }
        h = (h ^ word).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        h ^= h >> 29;
    }
    h = h.wrapping_mul(0x94D0_49BB_1331_11EB);
    h ^ (h >> 32)
}

/// Parse the board field of a two-row position string: `<South row>,<South store>/<North
/// row>,<North store>`, each row from its owner's left. Returns, South first, each side's
/// `pits` counts followed by its store. `words` name a pit and a store in messages
/// (`("pits", "store")`, `("houses", "store")`, `("pits", "captured stones")`).
pub fn parse_board(
    field: &str,
    pits: usize,
    max: u32,
    words: (&str, &str),
    usage: &str,
) -> Result<[Vec<u32>; 2], PositionError> {
    let Some((south, north)) = field.split_once('/') else {
        return Err(PositionError::new(format!(
            "the board needs a '/' between South and North: {usage}"
        )));
    };
    let side = |side: Side, text: &str| {
        let what = format!(
            "{} ({} {} then {})",
            side.name(),
            words.0,
            side.pit_range(pits),
            words.1
        );
        parse_counts(text, pits + 1, max, &what)
    };
    Ok([side(Side::South, south)?, side(Side::North, north)?])
}

/// Write the board field of a two-row position string: each side's row then its store,
/// South first (the inverse of [`parse_board`]).
pub fn format_board<I: IntoIterator<Item = u32>>(out: &mut String, south: I, north: I) {
    format_counts(out, south);
    out.push('/');
    format_counts(out, north);
}

/// The picture of a two-row board with a store at each end (North's on the left), rows
/// given from their owners' left, lettered above and below. Ends with a newline.
pub fn render_with_stores(south: &[u32], north: &[u32], stores: [u32; 2]) -> String {
    use std::fmt::Write;
    let n = south.len();
    let mut out = String::new();
    let border = format!(" +----{}+----+", "+----".repeat(n));
    let letters = |out: &mut String, side: Side, order: &mut dyn Iterator<Item = usize>| {
        out.push_str("       ");
        for i in order {
            let _ = write!(out, "  {}  ", side.pit_letter(i));
        }
        out.truncate(out.trim_end().len());
        out.push('\n');
    };
    letters(&mut out, Side::North, &mut (0..n).rev());
    let _ = writeln!(out, "{border}");
    out.push_str(" |    ");
    for count in north.iter().rev() {
        let _ = write!(out, "|{count:>3} ");
    }
    out.push_str("|    |\n");
    let _ = writeln!(
        out,
        " |{:>3} +{}{:>3} |",
        stores[Side::North.index()],
        "----+".repeat(n),
        stores[Side::South.index()]
    );
    out.push_str(" |    ");
    for count in south {
        let _ = write!(out, "|{count:>3} ");
    }
    out.push_str("|    |\n");
    let _ = writeln!(out, "{border}");
    letters(&mut out, Side::South, &mut (0..n));
    out
}

/// How a game names its pits in move errors: `"pit"`/`"house"`, the phrase that starts the
/// description of its moves (`"a Kalah move"`), and its other move (`"swap"`, `"pass"`).
pub struct PitWords<'a> {
    pub noun: &'a str,
    pub game_move: &'a str,
    pub other_move: &'a str,
}

/// Parse a move that names one of the mover's `pits` by letter: its 0-based index, or an
/// error saying what is wrong (not a letter, no such pit, the opponent's pit).
pub fn parse_own_pit(
    text: &str,
    to_move: Side,
    pits: usize,
    words: &PitWords,
) -> Result<usize, MoveError> {
    let letters = format!(
        "South {}, North {}",
        Side::South.pit_range(pits),
        Side::North.pit_range(pits)
    );
    let Some((side, i)) = parse_pit_letter(text) else {
        return Err(MoveError::malformed(
            text,
            format!(
                "{} is a {} letter ({letters}) or {}",
                words.game_move, words.noun, words.other_move
            ),
        ));
    };
    if i >= pits {
        return Err(MoveError::malformed(
            text,
            format!("this board has {pits} {}s a side ({letters})", words.noun),
        ));
    }
    if side != to_move {
        return Err(MoveError::illegal(
            text,
            format!(
                "{text} is {}'s {} but {} is to move ({})",
                side.name(),
                words.noun,
                to_move.name(),
                to_move.pit_range(pits)
            ),
        ));
    }
    Ok(i)
}

/// Both rows as the player to move sees them, own row first (cells `own..own + pits`), then
/// the opponent's (`other..other + pits`), into `view[..2 * pits]`: the layout that exact keys
/// and endgame tables rank, so that a position and its mirror share an entry.
#[inline]
pub fn mover_view<T: Copy>(cells: &[T], own: usize, other: usize, pits: usize, view: &mut [T]) {
    view[..pits].copy_from_slice(&cells[own..own + pits]);
    view[pits..2 * pits].copy_from_slice(&cells[other..other + pits]);
}

/// The two rows of endgame-table entry `entry` of `layer` (the position with the mover's
/// row first, as [`mover_view`] lays it out), unranked into `view` (both rows): `(mover's
/// row, opponent's row)`, or `None` past the layer's end.
pub fn table_rows<'v>(
    index: &Compositions,
    layer: u32,
    entry: u64,
    view: &'v mut [u32],
) -> Option<(&'v [u32], &'v [u32])> {
    if !index.unrank(layer, entry, view) {
        return None;
    }
    let pits = view.len() / 2;
    Some(view.split_at(pits))
}

/// The exact-search key of pits seen from the mover (`view`: own row, then the opponent's),
/// with one more bit of state (`flag`): `seeds << 57 | rank << 1 | flag` — a perfect key, no
/// collision possible — while the layer is small (under 64 seeds, under 2^56 boards), a hash
/// with the top bit set above.
#[inline]
pub fn exact_key<T: Copy + Into<u32>>(index: &Compositions, view: &[T], flag: bool) -> u64 {
    exact_key_ranked(index, view, index.rank(view), flag)
}

/// [`exact_key`] of a board whose rank (`index.rank(view)`) is already known.
#[inline]
pub fn exact_key_ranked<T: Copy + Into<u32>>(
    index: &Compositions,
    view: &[T],
    ranked: Option<(u32, u64)>,
    flag: bool,
) -> u64 {
    match ranked {
        Some((seeds, rank)) if seeds < 64 && index.count(seeds) < 1 << 56 => {
            (seeds as u64) << 57 | rank << 1 | flag as u64
        }
        _ => {
            let mut counts = [0u16; 32];
            for (count, &c) in counts.iter_mut().zip(view) {
                *count = c.into() as u16;
            }
            hash_counts(&counts[..view.len().min(32)], 0xE5AC_7000 | flag as u64) | 1 << 63
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    /// Every small board, both sides, several flag values: no two hash alike.
    #[test]
    fn small_boards_and_their_side_hash_apart() {
        let mut seen = HashSet::new();
        let mut count = 0;
        for a in 0..8u16 {
            for b in 0..8u16 {
                for c in 0..8u16 {
                    for d in 0..4u16 {
                        for e in 0..4u16 {
                            for seed in 0..4u64 {
                                let counts = [a, b, c, d, e, 0, 1, 0];
                                assert!(
                                    seen.insert(hash_counts(&counts, seed)),
                                    "{counts:?} {seed}"
                                );
                                let bytes = counts.map(|x| x as u8);
                                assert!(seen.insert(hash_bytes(&bytes, seed ^ 0x100)));
                                count += 2;
                            }
                        }
                    }
                }
            }
        }
        assert_eq!(seen.len(), count);
    }
}
