//! Damage to generated lines: position strings and moves corrupted, bytes flipped, words
//! shuffled, invalid UTF-8, and now and then a very long line.

use super::lines::Generator;
use super::model::Model;
use super::vocabulary::{BAD_UTF8, ODD_UNICODE, WORDS};

impl Generator {
    pub(super) fn mutate_fen(&mut self, fen: &str) -> String {
        let mut fen = fen.to_string();
        for _ in 0..1 + self.rng.below(3) {
            fen = self.mutate_fen_once(&fen);
        }
        if fen.trim().is_empty() || fen.split_whitespace().any(|w| w == "moves") {
            fen.push_str(" x");
        }
        fen
    }

    fn mutate_fen_once(&mut self, fen: &str) -> String {
        let chars: Vec<char> = fen.chars().collect();
        let at = self.rng.below(chars.len().max(1));
        let mut fields: Vec<String> = fen.split(' ').map(String::from).collect();
        match self.rng.below(13) {
            0 => {
                let c = *self.rng.pick(&[
                    ',', '/', '0', '1', '9', 'S', 'N', 'w', 'b', 'W', 'B', 'p', 'x', '-', '+', '.',
                    ' ', 'é',
                ]);
                let mut chars = chars;
                if at < chars.len() {
                    chars[at] = c;
                }
                chars.into_iter().collect()
            }
            1 => {
                let mut chars = chars;
                if at < chars.len() {
                    chars.remove(at);
                }
                chars.into_iter().collect()
            }
            2 => {
                let mut chars = chars;
                if at < chars.len() {
                    let c = chars[at];
                    chars.insert(at, c);
                }
                chars.into_iter().collect()
            }
            3 => {
                if !fields.is_empty() {
                    let i = self.rng.below(fields.len());
                    fields.remove(i);
                }
                fields.join(" ")
            }
            4 => {
                let extra = if !fields.is_empty() && self.rng.one_in(2) {
                    self.rng.pick(&fields).clone()
                } else {
                    self.rng
                        .pick(&["0", "-", "x", "p", "wb", "99", "S", "N", "w", "-1", "+3"])
                        .to_string()
                };
                let i = self.rng.below(fields.len() + 1);
                fields.insert(i, extra);
                fields.join(" ")
            }
            5 => {
                let (a, b) = (self.rng.below(fields.len()), self.rng.below(fields.len()));
                fields.swap(a, b);
                fields.join(" ")
            }
            6 | 7 => {
                // A number replaced by an extreme one, or given a sign.
                let runs = digit_runs(fen);
                if runs.is_empty() {
                    return fen.to_string();
                }
                let (s, e) = *self.rng.pick(&runs);
                let new = if self.rng.one_in(2) {
                    self.number()
                } else {
                    format!("{}{}", self.rng.pick(&["+", "-", "0", "00"]), &fen[s..e])
                };
                format!("{}{new}{}", &fen[..s], &fen[e..])
            }
            8 => {
                // A row or rank dropped or duplicated.
                let board = fields.first().cloned().unwrap_or_default();
                let mut rows: Vec<String> = board.split('/').map(String::from).collect();
                let i = self.rng.below(rows.len());
                if self.rng.one_in(2) && rows.len() > 1 {
                    rows.remove(i);
                } else {
                    let row = rows[i].clone();
                    rows.insert(i, row);
                }
                if let Some(first) = fields.first_mut() {
                    *first = rows.join("/");
                }
                fields.join(" ")
            }
            9 => {
                // A cell dropped or duplicated in a comma-separated row.
                let runs = digit_runs(fen);
                if runs.is_empty() {
                    return fen.to_string();
                }
                let (s, e) = *self.rng.pick(&runs);
                if self.rng.one_in(2) {
                    format!("{}{},{}", &fen[..s], &fen[s..e], &fen[s..])
                } else {
                    let e = if fen[e..].starts_with(',') { e + 1 } else { e };
                    format!("{}{}", &fen[..s], &fen[e..])
                }
            }
            10 => {
                if self.rng.one_in(2) {
                    fen.to_uppercase()
                } else {
                    fen.to_lowercase()
                }
            }
            11 => chars[..at].iter().collect(),
            _ => {
                let board = fields.first().cloned().unwrap_or_default();
                let big: String = board.repeat(1 + self.rng.below(50));
                if let Some(first) = fields.first_mut() {
                    *first = big;
                }
                fields.join(" ")
            }
        }
    }

    pub(super) fn mutate_move(&mut self, mv: &str) -> String {
        let mut m = mv.to_string();
        match self.rng.below(12) {
            0 => {
                m = m
                    .chars()
                    .map(|c| {
                        if c.is_ascii_uppercase() {
                            c.to_ascii_lowercase()
                        } else {
                            c.to_ascii_uppercase()
                        }
                    })
                    .collect()
            }
            1 => m.push(*self.rng.pick(&['A', 'W', 'x', '-', '1', 'é'])),
            2 => m.insert(0, 'x'),
            3 => {
                m = self
                    .rng
                    .pick(&["swap", "pass", "0000", "null", "(none)", "--"])
                    .to_string()
            }
            4 => m = format!("{m}{m}"),
            5 => {
                m.pop();
            }
            6 => {
                m = format!(
                    "{m}-{}",
                    self.rng.pick(&["a1", "e3", "i5", "z9", "a0", "a10"])
                )
            }
            7 => {
                m = self
                    .rng
                    .pick(&["a10-a11", "c3-d3a", "c2-d2", "d2-e3A", "xZ", "M", "m"])
                    .to_string()
            }
            8 => m = self.rng.pick(ODD_UNICODE).to_string(),
            9 => m = self.rng.pick(WORDS).to_string(),
            10 => m = format!("{m}\u{0}"),
            _ => m = self.number(),
        }
        if m.is_empty() || m == "moves" {
            m.push('?');
        }
        m
    }

    /// A very long line: up to 1 MiB.
    pub(super) fn long_line(&mut self, model: &Model) -> Vec<u8> {
        let size = 1usize << self.rng.range(10, 20);
        let legal = model.session.legal_moves();
        let first = legal.first().cloned().unwrap_or_else(|| "A".into());
        let (head, unit): (String, String) = match self.rng.below(8) {
            0 => ("position startpos moves".into(), format!(" {first}")),
            1 => {
                let line = self.corpus.line(&*model.session, &mut self.rng);
                (
                    "position startpos moves".into(),
                    format!(" {}", line.moves.join(" ")),
                )
            }
            2 => (
                "go depth 1 searchmoves".into(),
                format!(" {}", legal.join(" ")),
            ),
            3 => ("setoption name GameOptions value".into(), " pits=4".into()),
            4 => ("newgame kalah".into(), " seeds=3".into()),
            5 => (String::new(), " \t".into()),
            6 => ("d".into(), " x".into()),
            _ => {
                let n = 1 + self.rng.below(64);
                let unit: String = (0..n)
                    .map(|_| char::from(b'!' + (self.rng.next() % 94) as u8))
                    .collect();
                (String::new(), unit)
            }
        };
        let mut line = head.into_bytes();
        let unit = if unit.trim().is_empty() && !line.is_empty() {
            " x".to_string()
        } else {
            unit
        };
        while line.len() < size {
            line.extend_from_slice(unit.as_bytes());
        }
        line
    }

    /// Byte-level damage: flips, insertions, deletions, shuffles, invalid UTF-8.
    pub(super) fn mutate(&mut self, line: &mut Vec<u8>) {
        for _ in 0..1 + self.rng.below(3) {
            let at = self.rng.below(line.len() + 1);
            match self.rng.below(12) {
                0 => {
                    if at < line.len() {
                        line[at] ^= 1 << self.rng.below(8);
                    }
                }
                1 => {
                    let b = *self.rng.pick(&[
                        0u8, 0xff, 0xfe, 0x80, 0xc3, 0xc0, b'\t', b'\r', b' ', 0x7f, 0x1b, 0x0b,
                    ]);
                    line.insert(at, b);
                }
                2 => {
                    let bad = *self.rng.pick(BAD_UTF8);
                    line.splice(at..at, bad.iter().copied());
                }
                3 => {
                    let end = (at + 1 + self.rng.below(8)).min(line.len());
                    if at < end {
                        line.drain(at..end);
                    }
                }
                4 => line.truncate(at),
                5..=7 => {
                    let text = String::from_utf8_lossy(line).into_owned();
                    let mut words: Vec<String> = text.split(' ').map(String::from).collect();
                    match self.rng.below(4) {
                        0 => self.rng.shuffle(&mut words),
                        1 => {
                            let i = self.rng.below(words.len());
                            let w = words[i].clone();
                            words.insert(i, w);
                        }
                        2 => {
                            let i = self.rng.below(words.len());
                            words.remove(i);
                        }
                        _ => {
                            let i = self.rng.below(words.len());
                            words[i] = self.number();
                        }
                    }
                    *line = words.join(" ").into_bytes();
                }
                8 => {
                    let sep = *self.rng.pick(&[&b"\t"[..], b"  ", b" \t", b"\x00"]);
                    let mut out = Vec::new();
                    for &b in line.iter() {
                        if b == b' ' {
                            out.extend_from_slice(sep);
                        } else {
                            out.push(b);
                        }
                    }
                    *line = out;
                }
                9 => {
                    line.insert(0, *self.rng.pick(b" \t"));
                    line.push(*self.rng.pick(b" \t\r"));
                }
                10 => line.make_ascii_uppercase(),
                _ => {
                    let odd = self.rng.pick(ODD_UNICODE).as_bytes();
                    line.splice(at..at, odd.iter().copied());
                }
            }
        }
    }
}

fn digit_runs(text: &str) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut runs = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i].is_ascii_digit() {
            let start = i;
            while i < bytes.len() && bytes[i].is_ascii_digit() {
                i += 1;
            }
            runs.push((start, i));
        } else {
            i += 1;
        }
    }
    runs
}
