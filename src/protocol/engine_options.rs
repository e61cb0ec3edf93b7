//! The engine's options, each declared once: its name, type, default, range and what it
//! sets. The `uci`/`ugi` option lines, `setoption`'s reading of a value, the names the
//! unknown-option warning lists, the engine's starting settings and protocol.md's option
//! table (checked by a test) all follow from [`ENGINE_OPTIONS`].

use thiserror::Error;

use crate::memory::{MAX_HASH_MB, MAX_THREADS, max_hash_mb};
use crate::registry;
use crate::search::{DEFAULT_MOVE_OVERHEAD_MS, MAX_CONTEMPT, SearchSettings};

/// The hash table's size at start, in MiB.
pub const DEFAULT_HASH_MB: usize = 16;
pub const MAX_MULTIPV: usize = 64;
/// The most `Move Overhead` keeps back, in milliseconds.
pub const MAX_MOVE_OVERHEAD_MS: u64 = 5000;

/// What the text `<empty>` stands for in a string option: no value (a GUI cannot send an
/// empty one).
pub const EMPTY: &str = "<empty>";

/// One engine option.
#[derive(Debug, Clone, Copy)]
pub struct EngineOption {
    pub name: &'static str,
    pub kind: Kind,
    /// What `uci` shows as the option's default: the declared one, or the engine's
    /// current value (a GUI that asks again sees the game it chose).
    pub shows: Shows,
}

/// An option's type with its default and range, and the [`Setting`] a value makes.
#[derive(Debug, Clone, Copy)]
pub enum Kind {
    Spin(Spin),
    /// `true` or `false`, any case.
    Check {
        default: bool,
        sets: fn(bool) -> Setting<'static>,
    },
    Combo {
        default: &'static str,
        vars: Vars,
        sets: for<'a> fn(&'a str) -> Setting<'a>,
    },
    /// Any text, trimmed; empty or [`EMPTY`] is no value.
    Text {
        default: &'static str,
        sets: for<'a> fn(Option<&'a str>) -> Setting<'a>,
    },
    Button {
        sets: Setting<'static>,
    },
}

/// A whole number in `min..=max`.
#[derive(Debug, Clone, Copy)]
pub struct Spin {
    pub default: i64,
    pub min: i64,
    pub max: i64,
    /// The `max` that `uci` shows when this machine allows less than `max` (`Hash`: what
    /// this process can hold); `setoption` accepts up to `max` and the setting itself says
    /// why a value is too much here.
    pub max_here: Option<fn() -> i64>,
    pub wording: SpinWording,
    /// Called with a value inside `min..=max`.
    pub sets: fn(i64) -> Setting<'static>,
}

/// How a spin's errors read. Two styles, both kept word for word: clients and tests read
/// these texts, and a change of them is a change of the protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpinWording {
    /// The name as the client wrote it, and a missing value asked for:
    /// `option 'hash' needs a value 1..65536`.
    AsWritten,
    /// The declared name, and a missing value read as empty (surrounding white space is
    /// dropped): `option 'Contempt': '' is not a number in -500..500`.
    Declared,
}

/// The values of a combo.
#[derive(Debug, Clone, Copy)]
pub enum Vars {
    /// These, any case; the setting gets the declared spelling.
    Fixed(&'static [&'static str]),
    /// The registry's games. The text goes to the registry as it came (trimmed), whose
    /// error lists the games.
    Games,
}

impl Vars {
    pub fn names(self) -> Vec<&'static str> {
        match self {
            Vars::Fixed(vars) => vars.to_vec(),
            Vars::Games => registry::GAMES.iter().map(|g| g.name).collect(),
        }
    }
}

/// What `uci` shows as an option's default.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shows {
    Default,
    /// The game played now.
    Game,
    /// The current game's `key=value` options ([`EMPTY`] when none).
    GameOptions,
    /// The endgame tables' directory ([`EMPTY`] when none).
    TablebasePath,
}

/// What a `setoption` does, its value read by the option's kind and range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Setting<'a> {
    /// A new hash table of this many MiB.
    Hash(usize),
    Threads(usize),
    MultiPv(usize),
    Ponder(bool),
    MoveOverhead(u64),
    Contempt(i32),
    ClearHash,
    /// Switch to this game (a name for the registry to check).
    Variant(&'a str),
    /// The current game with these `key=value` options (`None`: its defaults).
    GameOptions(Option<&'a str>),
    /// Evaluate with a network (`true`) or by hand.
    EvalNetwork(bool),
    /// A network file to load (`None`: the game's own network).
    EvalFile(Option<&'a str>),
    /// Where endgame tables are looked for (`None`: nowhere).
    TablebasePath(Option<&'a str>),
}

/// Every engine option, in the order `uci` lists them.
pub const ENGINE_OPTIONS: &[EngineOption] = &[
    EngineOption {
        name: "Hash",
        kind: Kind::Spin(Spin {
            default: DEFAULT_HASH_MB as i64,
            min: 1,
            max: MAX_HASH_MB as i64,
            max_here: Some(|| max_hash_mb() as i64),
            wording: SpinWording::AsWritten,
            sets: |mb| Setting::Hash(mb as usize),
        }),
        shows: Shows::Default,
    },
    EngineOption {
        name: "Threads",
        kind: Kind::Spin(Spin {
            default: 1,
            min: 1,
            max: MAX_THREADS as i64,
            max_here: None,
            wording: SpinWording::AsWritten,
            sets: |n| Setting::Threads(n as usize),
        }),
        shows: Shows::Default,
    },
    EngineOption {
        name: "MultiPV",
        kind: Kind::Spin(Spin {
            default: 1,
            min: 1,
            max: MAX_MULTIPV as i64,
            max_here: None,
            wording: SpinWording::AsWritten,
            sets: |n| Setting::MultiPv(n as usize),
        }),
        shows: Shows::Default,
    },
    EngineOption {
        name: "Ponder",
        kind: Kind::Check {
            default: false,
            sets: Setting::Ponder,
        },
        shows: Shows::Default,
    },
    EngineOption {
        name: "Move Overhead",
        kind: Kind::Spin(Spin {
            default: DEFAULT_MOVE_OVERHEAD_MS as i64,
            min: 0,
            max: MAX_MOVE_OVERHEAD_MS as i64,
            max_here: None,
            wording: SpinWording::AsWritten,
            sets: |ms| Setting::MoveOverhead(ms as u64),
        }),
        shows: Shows::Default,
    },
    EngineOption {
        name: "Contempt",
        kind: Kind::Spin(Spin {
            default: 0,
            min: -(MAX_CONTEMPT as i64),
            max: MAX_CONTEMPT as i64,
            max_here: None,
            wording: SpinWording::Declared,
            sets: |n| Setting::Contempt(n as i32),
        }),
        shows: Shows::Default,
    },
    EngineOption {
        name: "Clear Hash",
        kind: Kind::Button {
            sets: Setting::ClearHash,
        },
        shows: Shows::Default,
    },
    EngineOption {
        name: "UCI_Variant",
        kind: Kind::Combo {
            default: registry::GAMES[0].name,
            vars: Vars::Games,
            sets: |name| Setting::Variant(name),
        },
        shows: Shows::Game,
    },
    EngineOption {
        name: "GameOptions",
        kind: Kind::Text {
            default: EMPTY,
            sets: |text| Setting::GameOptions(text),
        },
        shows: Shows::GameOptions,
    },
    EngineOption {
        name: "Eval",
        kind: Kind::Combo {
            default: "network",
            vars: Vars::Fixed(&["network", "classic"]),
            sets: |var| Setting::EvalNetwork(var == "network"),
        },
        shows: Shows::Default,
    },
    EngineOption {
        name: "EvalFile",
        kind: Kind::Text {
            default: EMPTY,
            sets: |file| Setting::EvalFile(file),
        },
        shows: Shows::Default,
    },
    EngineOption {
        name: "TablebasePath",
        kind: Kind::Text {
            default: EMPTY,
            sets: |dir| Setting::TablebasePath(dir),
        },
        shows: Shows::TablebasePath,
    },
];

/// A `setoption` that sets nothing.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum EngineOptionError {
    /// A warning, not an error: a GUI may offer options of other engines.
    #[error("unknown option '{name}' (options: {})", option_names())]
    Unknown { name: String },
    #[error("option '{name}' needs a value {min}..{max}")]
    MissingNumber { name: String, min: i64, max: i64 },
    #[error("option '{name}': '{text}' is not a number in {min}..{max}")]
    NotInRange {
        name: String,
        text: String,
        min: i64,
        max: i64,
    },
    /// `choices`: the values, `true or false`.
    #[error("option '{name}' takes {choices}")]
    NotAChoice { name: &'static str, choices: String },
}

/// The options' names, as the unknown-option warning lists them.
pub fn option_names() -> String {
    ENGINE_OPTIONS
        .iter()
        .map(|o| o.name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The option named `name` (any case).
pub fn find(name: &str) -> Option<&'static EngineOption> {
    ENGINE_OPTIONS
        .iter()
        .find(|o| o.name.eq_ignore_ascii_case(name))
}

/// What `setoption name <name> [value <value>]` sets.
pub fn parse<'a>(name: &str, value: Option<&'a str>) -> Result<Setting<'a>, EngineOptionError> {
    let Some(option) = find(name) else {
        return Err(EngineOptionError::Unknown {
            name: name.to_string(),
        });
    };
    match option.kind {
        Kind::Spin(spin) => spin.read(option.name, name, value).map(spin.sets),
        Kind::Check { sets, .. } => match value.map(str::to_ascii_lowercase).as_deref() {
            Some("true") => Ok(sets(true)),
            Some("false") => Ok(sets(false)),
            _ => Err(not_a_choice(option.name, &["true", "false"])),
        },
        Kind::Combo {
            vars: Vars::Fixed(vars),
            sets,
            ..
        } => value
            .and_then(|text| vars.iter().find(|v| v.eq_ignore_ascii_case(text)))
            .map(|var| sets(var))
            .ok_or_else(|| not_a_choice(option.name, vars)),
        Kind::Combo {
            vars: Vars::Games,
            sets,
            ..
        } => Ok(sets(value.unwrap_or("").trim())),
        Kind::Text { sets, .. } => {
            let text = value.unwrap_or("").trim();
            Ok(sets((!text.is_empty() && text != EMPTY).then_some(text)))
        }
        Kind::Button { sets } => Ok(sets),
    }
}

fn not_a_choice(name: &'static str, choices: &[&str]) -> EngineOptionError {
    EngineOptionError::NotAChoice {
        name,
        choices: choices.join(" or "),
    }
}

impl Spin {
    /// The number `value` gives, inside the range. `declared` is the option's name,
    /// `written` as the client wrote it.
    fn read(
        &self,
        declared: &str,
        written: &str,
        value: Option<&str>,
    ) -> Result<i64, EngineOptionError> {
        let (name, text) = match (self.wording, value) {
            (SpinWording::AsWritten, Some(text)) => (written, text),
            (SpinWording::AsWritten, None) => {
                return Err(EngineOptionError::MissingNumber {
                    name: written.to_string(),
                    min: self.min,
                    max: self.max,
                });
            }
            (SpinWording::Declared, value) => (declared, value.unwrap_or("")),
        };
        let number = if self.wording == SpinWording::Declared {
            text.trim().parse::<i64>().ok()
        } else if self.min >= 0 {
            // No sign: `-0` is not a count.
            text.parse::<u64>().ok().and_then(|n| i64::try_from(n).ok())
        } else {
            text.parse::<i64>().ok()
        };
        match number {
            Some(n) if (self.min..=self.max).contains(&n) => Ok(n),
            _ => Err(EngineOptionError::NotInRange {
                name: name.to_string(),
                text: text.to_string(),
                min: self.min,
                max: self.max,
            }),
        }
    }
}

impl EngineOption {
    /// The option's type, as `uci` and protocol.md name it.
    pub fn type_name(&self) -> &'static str {
        match self.kind {
            Kind::Spin(_) => "spin",
            Kind::Check { .. } => "check",
            Kind::Combo { .. } => "combo",
            Kind::Text { .. } => "string",
            Kind::Button { .. } => "button",
        }
    }

    /// The declared default, as `uci` writes it (empty for a button).
    pub fn default_text(&self) -> String {
        match self.kind {
            Kind::Spin(spin) => spin.default.to_string(),
            Kind::Check { default, .. } => default.to_string(),
            Kind::Combo { default, .. } | Kind::Text { default, .. } => default.to_string(),
            Kind::Button { .. } => String::new(),
        }
    }

    /// The option's `uci` line; `current` is what it shows as default when
    /// [`EngineOption::shows`] is not [`Shows::Default`].
    pub fn uci_line(&self, current: Option<&str>) -> String {
        let default = match current {
            Some(value) if self.shows != Shows::Default => value.to_string(),
            _ => self.default_text(),
        };
        let head = format!("option name {} type {}", self.name, self.type_name());
        match self.kind {
            Kind::Spin(spin) => {
                let max = spin.max_here.map_or(spin.max, |here| here());
                format!("{head} default {default} min {} max {max}", spin.min)
            }
            Kind::Combo { vars, .. } => {
                let vars: String = vars.names().iter().map(|v| format!(" var {v}")).collect();
                format!("{head} default {default}{vars}")
            }
            Kind::Check { .. } | Kind::Text { .. } => format!("{head} default {default}"),
            Kind::Button { .. } => head,
        }
    }
}

/// The search settings the engine starts with: the options' defaults.
pub fn default_settings() -> SearchSettings {
    let mut settings = SearchSettings::default();
    for option in ENGINE_OPTIONS {
        let setting = match option.kind {
            Kind::Spin(spin) => (spin.sets)(spin.default),
            Kind::Check { default, sets } => sets(default),
            _ => continue,
        };
        match setting {
            Setting::Threads(n) => settings.threads = n,
            Setting::MultiPv(n) => settings.multipv = n,
            Setting::MoveOverhead(ms) => settings.move_overhead = ms,
            Setting::Contempt(n) => settings.contempt = n,
            _ => {}
        }
    }
    settings
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_search_starts_as_the_tools_search() {
        // The tools (bench, match openings, datagen) search with `SearchSettings::default()`:
        // the engine's defaults are the same, so that its searches are theirs.
        assert_eq!(default_settings(), SearchSettings::default());
    }

    #[test]
    fn every_option_has_its_own_name() {
        for (i, a) in ENGINE_OPTIONS.iter().enumerate() {
            for b in &ENGINE_OPTIONS[i + 1..] {
                assert!(!a.name.eq_ignore_ascii_case(b.name), "{}", a.name);
            }
        }
    }

    #[test]
    fn every_spin_default_is_in_its_range() {
        for option in ENGINE_OPTIONS {
            if let Kind::Spin(spin) = option.kind {
                assert!(
                    (spin.min..=spin.max).contains(&spin.default),
                    "{}",
                    option.name
                );
            }
        }
    }

    #[test]
    fn values_are_read_by_kind_and_range() {
        assert_eq!(parse("hash", Some("8")), Ok(Setting::Hash(8)));
        assert_eq!(
            parse("NoSuch", Some("1")).map_err(|e| e.to_string()),
            Err(
                "unknown option 'NoSuch' (options: Hash, Threads, MultiPV, Ponder, Move \
                 Overhead, Contempt, Clear Hash, UCI_Variant, GameOptions, Eval, EvalFile, \
                 TablebasePath)"
                    .to_string()
            )
        );
        assert_eq!(
            parse("Move Overhead", Some("-0")).map_err(|e| e.to_string()),
            Err("option 'Move Overhead': '-0' is not a number in 0..5000".to_string())
        );
        assert_eq!(parse("contempt", Some(" -0 ")), Ok(Setting::Contempt(0)));
        assert_eq!(
            parse("EVAL", Some("Classic")),
            Ok(Setting::EvalNetwork(false))
        );
        assert_eq!(parse("EvalFile", Some(EMPTY)), Ok(Setting::EvalFile(None)));
        assert_eq!(parse("UCI_Variant", None), Ok(Setting::Variant("")));
        assert_eq!(parse("clear hash", Some("x")), Ok(Setting::ClearHash));
    }
}
