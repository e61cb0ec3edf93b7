//! Game options written `key=value` after a game name (`newgame kalah pits=4 pie=true`).
//!
//! Each game declares its options as a table of [`OptionSpec`]s; this module validates the
//! text against the table, so every game gets the same syntax and the same error messages
//! (which always list what is accepted).

use std::fmt;

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

    fn parse_value(&self, text: &str) -> Result<OptionValue, String> {
        let bad = || {
            format!(
                "bad value '{text}' for option '{}': expected {}",
                self.name,
                self.accepted()
            )
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
    #[error("{0}")]
    BadValue(String),
    #[error("option '{0}' is given twice")]
    Repeated(String),
}

/// Validated option values of one game, every option present (defaults filled in).
#[derive(Debug, Clone)]
pub struct GameOptions {
    specs: &'static [OptionSpec],
    values: Vec<OptionValue>,
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
            given[index] = Some(specs[index].parse_value(value).map_err(OptionError::BadValue)?);
        }
        let mut values = Vec::with_capacity(specs.len());
        for (spec, value) in specs.iter().zip(given) {
            let value = match value {
                Some(v) => v,
                // Defaults are part of the program: a bad one is a bug caught by the tests.
                None => spec
                    .parse_value(spec.default)
                    .expect("option default is valid"),
            };
            values.push(value);
        }
        Ok(GameOptions { specs, values })
    }

    fn value(&self, name: &str) -> OptionValue {
        let index = self
            .specs
            .iter()
            .position(|s| s.name == name)
            .unwrap_or_else(|| panic!("game reads undeclared option '{name}'"));
        self.values[index]
    }

    pub fn bool(&self, name: &str) -> bool {
        match self.value(name) {
            OptionValue::Bool(b) => b,
            other => panic!("option '{name}' is not boolean: {other:?}"),
        }
    }

    pub fn int(&self, name: &str) -> i64 {
        match self.value(name) {
            OptionValue::Int(n) => n,
            other => panic!("option '{name}' is not an integer: {other:?}"),
        }
    }

    /// An `IntOrOff` option: `None` when `off`.
    pub fn int_or_off(&self, name: &str) -> Option<i64> {
        match self.value(name) {
            OptionValue::Int(n) => Some(n),
            OptionValue::Off => None,
            other => panic!("option '{name}' is not an integer: {other:?}"),
        }
    }

    pub fn points(&self, name: &str) -> Points {
        match self.value(name) {
            OptionValue::Half(p) => p,
            other => panic!("option '{name}' is not a number: {other:?}"),
        }
    }

    pub fn choice(&self, name: &str) -> &'static str {
        match self.value(name) {
            OptionValue::Choice(w) => w,
            other => panic!("option '{name}' is not a choice: {other:?}"),
        }
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
        assert_eq!(o.int("pits"), 4);
        assert!(!o.bool("pie"));
        assert_eq!(o.points("komi"), Points::from_halves(5));
        assert_eq!(o.int_or_off("target"), None);
        assert_eq!(o.choice("end"), "on-move");
        assert_eq!(o.non_default(), vec!["pits=4", "komi=2.5", "end=on-move"]);
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
