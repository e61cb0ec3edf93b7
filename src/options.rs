//! Game options written `key=value` after a game name (`newgame kalah pits=4 pie=true`).
//!
//! Each game declares its options as a table of [`OptionSpec`]s; this module validates the
//! text against the table, so every game gets the same syntax and the same error messages
//! (which always list what is accepted).

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};

use thiserror::Error;

use crate::game::Points;

#[derive(Debug, Clone, Copy)]
pub enum OptionKind {
    /// `true` / `false`.
    Bool,
    /// An integer in `min..=max`.
    Int { min: i64, max: i64 },
    /// An integer in `min..=max`, or `off`.
    IntOrOff { min: i64, max: i64 },
    /// A number in half units (`2.5`), in `min..=max` whole units.
    Half { min: i64, max: i64 },
    /// One of a fixed set of words.
    Choice(&'static [&'static str]),
}

/// One option of a game: name, kind, default (as text) and a line of help.
#[derive(Debug, Clone, Copy)]
pub struct OptionSpec {
    pub name: &'static str,
    pub kind: OptionKind,
    pub default: &'static str,
    pub help: &'static str,
}

impl OptionSpec {
    /// What values are accepted, e.g. `1..12`, `true|false`.
    pub fn accepted(&self) -> String {
        match self.kind {
            OptionKind::Bool => "true|false".to_string(),
            OptionKind::Int { min, max } => format!("{min}..{max}"),
            OptionKind::IntOrOff { min, max } => format!("{min}..{max}|off"),
            OptionKind::Half { min, max } => format!("{min}..{max} in steps of 0.5"),
            OptionKind::Choice(words) => words.join("|"),
        }
    }

    fn parse_value(&self, text: &str) -> Result<OptionValue, OptionError> {
        let bad = || OptionError::BadValue {
            value: text.to_string(),
            option: self.name,
            accepted: self.accepted(),
        };
        match self.kind {
            OptionKind::Bool => match text {
                "true" => Ok(OptionValue::Bool(true)),
                "false" => Ok(OptionValue::Bool(false)),
                _ => Err(bad()),
            },
            OptionKind::Int { min, max } => match text.parse::<i64>() {
                Ok(n) if (min..=max).contains(&n) => Ok(OptionValue::Int(n)),
                _ => Err(bad()),
            },
            OptionKind::IntOrOff { min, max } => match text {
                "off" => Ok(OptionValue::Off),
                _ => match text.parse::<i64>() {
                    Ok(n) if (min..=max).contains(&n) => Ok(OptionValue::Int(n)),
                    _ => Err(bad()),
                },
            },
            OptionKind::Half { min, max } => match parse_halves(text) {
                Some(h) if (2 * min..=2 * max).contains(&h) => {
                    Ok(OptionValue::Half(Points::from_halves(h as i32)))
                }
                _ => Err(bad()),
            },
            OptionKind::Choice(words) => words
                .iter()
                .find(|w| **w == text)
                .map(|w| OptionValue::Choice(w))
                .ok_or_else(bad),
        }
    }
}

/// `2`, `2.5`, `-1.0`, `0.50` → halves; anything finer than a half is rejected.
fn parse_halves(text: &str) -> Option<i64> {
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (whole, frac) = match digits.split_once('.') {
        Some((w, f)) => (w, f),
        None => (digits, ""),
    };
    if whole.is_empty() || !whole.bytes().all(|b| b.is_ascii_digit()) || whole.len() > 9 {
        return None;
    }
    if !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let frac = frac.trim_end_matches('0');
    let half = match frac {
        "" => 0,
        "5" => 1,
        _ => return None,
    };
    let value = whole.parse::<i64>().ok()? * 2 + half;
    Some(if negative { -value } else { value })
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OptionValue {
    Bool(bool),
    Int(i64),
    Off,
    Half(Points),
    Choice(&'static str),
}

impl fmt::Display for OptionValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OptionValue::Bool(b) => write!(f, "{b}"),
            OptionValue::Int(n) => write!(f, "{n}"),
            OptionValue::Off => write!(f, "off"),
            OptionValue::Half(p) => write!(f, "{p}"),
            OptionValue::Choice(w) => write!(f, "{w}"),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum OptionError {
    #[error("'{token}' is not key=value (options of {game}: {accepted})")]
    NotKeyValue {
        token: String,
        game: &'static str,
        accepted: String,
    },
    #[error("{game} has no option '{key}' (options of {game}: {accepted})")]
    Unknown {
        key: String,
        game: &'static str,
        accepted: String,
    },
    #[error("bad value '{value}' for option '{option}': expected {accepted}")]
    BadValue {
        value: String,
        option: &'static str,
        accepted: String,
    },
    #[error("option '{0}' is given twice")]
    Repeated(String),
    /// A game reads an option its table does not declare: a misspelt name in the game's
    /// code, reported rather than panicking (each game's tests read them all).
    #[error("{game} reads undeclared option '{name}'")]
    Undeclared { game: &'static str, name: String },
    /// A game compares a `Choice` option with a word the option does not declare.
    #[error("{game} reads option '{name}' as '{word}', which it does not declare")]
    UndeclaredWord {
        game: &'static str,
        name: String,
        word: String,
    },
    /// A game reads an option as another kind than its table declares.
    #[error("{game} reads option '{name}' as {expected}, but it is declared otherwise")]
    WrongKind {
        game: &'static str,
        name: String,
        expected: &'static str,
    },
}

/// Validated option values of one game, every option present (defaults filled in).
#[derive(Debug, Clone)]
pub struct GameOptions {
    game: &'static str,
    specs: &'static [OptionSpec],
    values: Vec<OptionValue>,
    /// Which options the game has read (see [`GameOptions::unread`]).
    read: ReadMarks,
}

/// One bit per option read, atomic so that the options stay `Sync` inside a shared game.
#[derive(Debug, Default)]
struct ReadMarks(AtomicU64);

impl ReadMarks {
    fn mark(&self, index: usize) {
        let bit = 1u64.checked_shl(index as u32).unwrap_or(0);
        self.0.fetch_or(bit, Ordering::Relaxed);
    }

    /// Options past the 64th are never marked, nor reported unread.
    fn is_marked(&self, index: usize) -> bool {
        index >= 64 || self.0.load(Ordering::Relaxed) & (1 << index) != 0
    }
}

impl Clone for ReadMarks {
    fn clone(&self) -> ReadMarks {
        ReadMarks(AtomicU64::new(self.0.load(Ordering::Relaxed)))
    }
}

impl GameOptions {
    /// Parse `key=value` tokens against `specs`; options not mentioned take their default.
    pub fn parse(
        game: &'static str,
        specs: &'static [OptionSpec],
        tokens: &[&str],
    ) -> Result<GameOptions, OptionError> {
        let accepted = || describe_specs(specs);
        let mut given: Vec<Option<OptionValue>> = vec![None; specs.len()];
        for token in tokens {
            let Some((key, value)) = token.split_once('=') else {
                return Err(OptionError::NotKeyValue {
                    token: token.to_string(),
                    game,
                    accepted: accepted(),
                });
            };
            let Some(index) = specs.iter().position(|s| s.name == key) else {
                return Err(OptionError::Unknown {
                    key: key.to_string(),
                    game,
                    accepted: accepted(),
                });
            };
            if given[index].is_some() {
                return Err(OptionError::Repeated(key.to_string()));
            }
            given[index] = Some(specs[index].parse_value(value)?);
        }
        let mut values = Vec::with_capacity(specs.len());
        for (spec, value) in specs.iter().zip(given) {
            let value = match value {
                Some(v) => v,
                // Defaults are part of the program: a bad one is a bug caught by the tests,
                // reported as any bad value rather than a panic.
                None => spec.parse_value(spec.default)?,
            };
            values.push(value);
        }
        Ok(GameOptions {
            game,
            specs,
            values,
            read: ReadMarks::default(),
        })
    }

    fn value(&self, name: &str) -> Result<OptionValue, OptionError> {
        let index = self
            .specs
            .iter()
            .position(|s| s.name == name)
            .ok_or_else(|| OptionError::Undeclared {
                game: self.game,
                name: name.to_string(),
            })?;
        self.read.mark(index);
        Ok(self.values[index])
    }

    fn wrong_kind(&self, name: &str, expected: &'static str) -> OptionError {
        OptionError::WrongKind {
            game: self.game,
            name: name.to_string(),
            expected,
        }
    }

    pub fn bool(&self, name: &str) -> Result<bool, OptionError> {
        match self.value(name)? {
            OptionValue::Bool(b) => Ok(b),
            _ => Err(self.wrong_kind(name, "a boolean")),
        }
    }

    pub fn int(&self, name: &str) -> Result<i64, OptionError> {
        match self.value(name)? {
            OptionValue::Int(n) => Ok(n),
            _ => Err(self.wrong_kind(name, "an integer")),
        }
    }

    /// An `IntOrOff` option: `None` when `off`.
    pub fn int_or_off(&self, name: &str) -> Result<Option<i64>, OptionError> {
        match self.value(name)? {
            OptionValue::Int(n) => Ok(Some(n)),
            OptionValue::Off => Ok(None),
            _ => Err(self.wrong_kind(name, "an integer or off")),
        }
    }

    pub fn points(&self, name: &str) -> Result<Points, OptionError> {
        match self.value(name)? {
            OptionValue::Half(p) => Ok(p),
            _ => Err(self.wrong_kind(name, "a number")),
        }
    }

    pub fn choice(&self, name: &str) -> Result<&'static str, OptionError> {
        match self.value(name)? {
            OptionValue::Choice(w) => Ok(w),
            _ => Err(self.wrong_kind(name, "a choice")),
        }
    }

    /// Is the `Choice` option `name` set to `word`? A word the option does not declare is an
    /// error, so that a misspelt word fails rather than reads as a silent `false`.
    pub fn choice_is(&self, name: &str, word: &str) -> Result<bool, OptionError> {
        let chosen = self.choice(name)?;
        let declared = self.specs.iter().any(|s| {
            s.name == name && matches!(s.kind, OptionKind::Choice(words) if words.contains(&word))
        });
        if !declared {
            return Err(OptionError::UndeclaredWord {
                game: self.game,
                name: name.to_string(),
                word: word.to_string(),
            });
        }
        Ok(chosen == word)
    }

    /// The declared options the game has not read: each game's tests check that none are
    /// left, so an option declared but ignored (or read under another name) fails a test.
    pub fn unread(&self) -> Vec<&'static str> {
        self.specs
            .iter()
            .enumerate()
            .filter(|&(index, _)| !self.read.is_marked(index))
            .map(|(_, spec)| spec.name)
            .collect()
    }

    /// The game name and its non-default options, as written after `newgame`
    /// (`kalah pits=4 pie=true`).
    pub fn spec(&self) -> String {
        let mut spec = self.game.to_string();
        for option in self.non_default() {
            spec.push(' ');
            spec.push_str(&option);
        }
        spec
    }

    /// The options that differ from their defaults, as `key=value` tokens in table order.
    pub fn non_default(&self) -> Vec<String> {
        self.specs
            .iter()
            .zip(&self.values)
            .filter(|(spec, value)| spec.parse_value(spec.default).ok() != Some(**value))
            .map(|(spec, value)| format!("{}={}", spec.name, value))
            .collect()
    }
}

/// `pits=1..12 (default 6), seeds=…`: the one-line summary used in error messages.
pub fn describe_specs(specs: &[OptionSpec]) -> String {
    if specs.is_empty() {
        return "none".to_string();
    }
    specs
        .iter()
        .map(|s| format!("{}={} (default {})", s.name, s.accepted(), s.default))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPECS: &[OptionSpec] = &[
        OptionSpec {
            name: "pits",
            kind: OptionKind::Int { min: 1, max: 12 },
            default: "6",
            help: "",
        },
        OptionSpec {
            name: "pie",
            kind: OptionKind::Bool,
            default: "false",
            help: "",
        },
        OptionSpec {
            name: "komi",
            kind: OptionKind::Half { min: -64, max: 64 },
            default: "0",
            help: "",
        },
        OptionSpec {
            name: "target",
            kind: OptionKind::IntOrOff { min: 1, max: 128 },
            default: "off",
            help: "",
        },
        OptionSpec {
            name: "end",
            kind: OptionKind::Choice(&["any-row", "on-move"]),
            default: "any-row",
            help: "",
        },
    ];

    #[test]
    fn defaults_and_values() {
        let o = GameOptions::parse("t", SPECS, &["pits=4", "komi=2.5", "end=on-move"]).unwrap();
        assert_eq!(o.int("pits"), Ok(4));
        assert_eq!(o.bool("pie"), Ok(false));
        assert_eq!(o.points("komi"), Ok(Points::from_halves(5)));
        assert_eq!(o.int_or_off("target"), Ok(None));
        assert_eq!(o.choice("end"), Ok("on-move"));
        assert_eq!(o.choice_is("end", "on-move"), Ok(true));
        assert_eq!(o.non_default(), vec!["pits=4", "komi=2.5", "end=on-move"]);
        assert!(o.unread().is_empty());
    }

    #[test]
    fn misreads_are_errors() {
        let o = GameOptions::parse("t", SPECS, &[]).unwrap();
        assert!(matches!(o.int("pit"), Err(OptionError::Undeclared { .. })));
        assert!(matches!(o.bool("pits"), Err(OptionError::WrongKind { .. })));
        assert!(matches!(o.int("pie"), Err(OptionError::WrongKind { .. })));
        assert!(matches!(
            o.int_or_off("end"),
            Err(OptionError::WrongKind { .. })
        ));
        assert!(matches!(
            o.points("target"),
            Err(OptionError::WrongKind { .. })
        ));
        assert!(matches!(
            o.choice("komi"),
            Err(OptionError::WrongKind { .. })
        ));
        assert!(matches!(
            o.choice_is("end", "on-mvoe"),
            Err(OptionError::UndeclaredWord { .. })
        ));
        let fresh = GameOptions::parse("t", SPECS, &[]).unwrap();
        assert_eq!(fresh.unread(), vec!["pits", "pie", "komi", "target", "end"]);
        assert_eq!(fresh.int("pits"), Ok(6));
        assert_eq!(fresh.unread(), vec!["pie", "komi", "target", "end"]);
    }

    #[test]
    fn errors_name_what_is_accepted() {
        let e = GameOptions::parse("t", SPECS, &["pits=13"]).unwrap_err();
        assert!(e.to_string().contains("1..12"), "{e}");
        let e = GameOptions::parse("t", SPECS, &["seeds=3"]).unwrap_err();
        assert!(e.to_string().contains("pits="), "{e}");
        let e = GameOptions::parse("t", SPECS, &["pie"]).unwrap_err();
        assert!(matches!(e, OptionError::NotKeyValue { .. }));
        let e = GameOptions::parse("t", SPECS, &["pie=yes"]).unwrap_err();
        assert!(e.to_string().contains("true|false"), "{e}");
        let e = GameOptions::parse("t", SPECS, &["komi=2.25"]).unwrap_err();
        assert!(e.to_string().contains("0.5"), "{e}");
        assert!(GameOptions::parse("t", SPECS, &["pits=4", "pits=5"]).is_err());
    }

    #[test]
    fn halves() {
        assert_eq!(parse_halves("2.5"), Some(5));
        assert_eq!(parse_halves("-1"), Some(-2));
        assert_eq!(parse_halves("0.50"), Some(1));
        assert_eq!(parse_halves("3."), Some(6));
        assert_eq!(parse_halves(".5"), None);
        assert_eq!(parse_halves("1.2"), None);
        assert_eq!(parse_halves("x"), None);
    }
}
