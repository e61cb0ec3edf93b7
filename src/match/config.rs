//! What a match is made of, parsed from the command line's `key=value` lists: openings,
//! the SPRT, who plays whom (the engines' own words are read by [`crate::client::spec`]).
//!
//! Every error says which key was wrong and what is accepted.

use std::path::PathBuf;
use std::time::Duration;

use thiserror::Error;

use crate::client::spec::EngineSpec;
use crate::openings::OpeningsSpec;
pub use crate::openings::parse_openings;

/// A sequential probability ratio test: H0 "the first engine is elo0 stronger" against
/// H1 "elo1 stronger", with false-positive rate `alpha` and false-negative rate `beta`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SprtSpec {
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
}

/// What `--sprt` accepts, said after each of its errors.
const SPRT_USAGE: &str = "expected --sprt elo0=<elo> elo1=<elo> [alpha=0.05] [beta=0.05]";

/// Why the words of `--sprt` are no test.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum SprtError {
    #[error("--sprt: bad '{0}'; {SPRT_USAGE}")]
    NotKeyValue(String),
    #[error("--sprt: {key}={value} is not a number; {SPRT_USAGE}")]
    NotANumber { key: String, value: String },
    #[error("--sprt: unknown key '{0}'; {SPRT_USAGE}")]
    UnknownKey(String),
    #[error("--sprt: elo0= and elo1= are required; {SPRT_USAGE}")]
    EloMissing,
    #[error("--sprt: elo1 ({elo1}) must be greater than elo0 ({elo0})")]
    EloOrder { elo0: f64, elo1: f64 },
    #[error("--sprt: {name}={p} must be between 0 and 0.5")]
    RateOutOfRange { name: &'static str, p: f64 },
}

pub fn parse_sprt(words: &[String]) -> Result<SprtSpec, SprtError> {
    let (mut elo0, mut elo1, mut alpha, mut beta) = (None, None, 0.05, 0.05);
    for word in words {
        let Some((key, value)) = word.split_once('=') else {
            return Err(SprtError::NotKeyValue(word.clone()));
        };
        let number: f64 = value
            .parse()
            .ok()
            .filter(|v: &f64| v.is_finite())
            .ok_or_else(|| SprtError::NotANumber {
                key: key.to_string(),
                value: value.to_string(),
            })?;
        match key {
            "elo0" => elo0 = Some(number),
            "elo1" => elo1 = Some(number),
            "alpha" => alpha = number,
            "beta" => beta = number,
            _ => return Err(SprtError::UnknownKey(key.to_string())),
        }
    }
    let (Some(elo0), Some(elo1)) = (elo0, elo1) else {
        return Err(SprtError::EloMissing);
    };
    if elo1 <= elo0 {
        return Err(SprtError::EloOrder { elo0, elo1 });
    }
    for (name, p) in [("alpha", alpha), ("beta", beta)] {
        if !(p > 0.0 && p < 0.5) {
            return Err(SprtError::RateOutOfRange { name, p });
        }
    }
    Ok(SprtSpec {
        elo0,
        elo1,
        alpha,
        beta,
    })
}

/// One slice of a match cut for several machines (`--slice I/K`): slice `index` (from 1)
/// of `count` plays the rounds `r` (from 0) with `r % count == index - 1`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Slice {
    pub index: usize,
    pub count: usize,
}

impl Slice {
    /// The slice that plays round `round` (from 0) of a match cut in `count` slices.
    pub fn of_round(round: usize, count: usize) -> Slice {
        Slice {
            index: round % count.max(1) + 1,
            count,
        }
    }

    /// Whether this slice plays round `round` (from 0).
    pub fn plays(&self, round: usize) -> bool {
        Slice::of_round(round, self.count) == *self
    }

    /// `I/K` as given to `--slice` and written in the records; `Err` says what is wrong.
    pub fn parse(text: &str) -> Result<Slice, SliceError> {
        let (index, count) = text
            .split_once('/')
            .ok_or_else(|| SliceError::NoSlash(text.to_string()))?;
        let number = |part: &str| -> Result<usize, SliceError> {
            part.trim()
                .parse::<usize>()
                .map_err(|_| SliceError::NotANumber {
                    text: text.to_string(),
                    part: part.to_string(),
                })
        };
        let (index, count) = (number(index)?, number(count)?);
        if count == 0 || count > MAX_SLICES {
            return Err(SliceError::Count(text.to_string()));
        }
        if index == 0 || index > count {
            return Err(SliceError::OutOfRange {
                text: text.to_string(),
                index,
                count,
            });
        }
        Ok(Slice { index, count })
    }
}

/// What a slice is, said after most of its errors.
const SLICE_USAGE: &str = "a slice is I/K: slice I (from 1) of K slices, e.g. 2/4";

/// Why a text (of `--slice` or a record) is no slice `I/K`.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SliceError {
    #[error("'{0}' is not a slice; {SLICE_USAGE}")]
    NoSlash(String),
    #[error("'{text}' is not a slice ('{part}' is no whole number); {SLICE_USAGE}")]
    NotANumber { text: String, part: String },
    #[error("'{0}': the number of slices K must be from 1 to {MAX_SLICES}; {SLICE_USAGE}")]
    Count(String),
    #[error(
        "'{text}': slice {index} is out of range; the slices of {count} are numbered 1 to \
         {count}"
    )]
    OutOfRange {
        text: String,
        index: usize,
        count: usize,
    },
}

/// The most slices a match may be cut in: far more machines than any match uses, few enough
/// that a report's table of slices stays small.
pub const MAX_SLICES: usize = 100_000;

impl std::fmt::Display for Slice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// Who plays whom when more than two engines are given (`--tournament`; the variants'
/// comments are its help).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum TournamentKind {
    /// Every engine plays every other.
    RoundRobin,
    /// The first engine plays each of the others.
    Gauntlet,
}

/// Everything a match needs.
#[derive(Debug, Clone)]
pub struct MatchConfig {
    pub engines: Vec<EngineSpec>,
    /// The game and its options as after `newgame`.
    pub game: String,
    /// Games per pairing; openings are played in pairs with colours swapped.
    pub games: usize,
    pub concurrency: usize,
    pub seed: u64,
    pub openings: Option<OpeningsSpec>,
    pub sprt: Option<SprtSpec>,
    /// JSON Lines, one game a line, written as each game ends.
    pub records: Option<PathBuf>,
    /// The same games as PGN-like text.
    pub pgn: Option<PathBuf>,
    /// Go on from the games `records` holds instead of starting afresh.
    pub resume: bool,
    pub tournament: TournamentKind,
    /// Time allowed for `ugiok`/`uciok`, `readyok`, and the `bestmove` after `stop`.
    pub ready_timeout: Duration,
    /// Time allowed for a search without a clock (depth= / nodes=) before the engine is
    /// declared hung, loses, and is killed.
    pub move_timeout: Duration,
    /// Adjudicate a draw after this many moves (opening included); `None`: never.
    pub max_plies: Option<usize>,
    /// Print a line for every finished game.
    pub show_games: bool,
    /// `--slice`: play only this slice's rounds (and never stop on the SPRT).
    pub slice: Option<Slice>,
    /// `--report`: play nothing; report on the records of every slice.
    pub report: Vec<PathBuf>,
}

/// The pairings (engine indices; the first named plays P1 in the first game of each pair).
pub fn pairings(engines: usize, kind: TournamentKind) -> Vec<(usize, usize)> {
    match kind {
        TournamentKind::RoundRobin => (0..engines)
            .flat_map(|a| (a + 1..engines).map(move |b| (a, b)))
            .collect(),
        TournamentKind::Gauntlet => (1..engines).map(|b| (0, b)).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::openings::Balance;

    /// Words split at spaces; `~` stands for a space inside a word.
    fn words(text: &str) -> Vec<String> {
        text.split(' ').map(|w| w.replace('~', " ")).collect()
    }

    #[test]
    fn openings_and_sprt() {
        assert_eq!(
            parse_openings(&words("plies=8")).unwrap(),
            OpeningsSpec::Random {
                plies: 8,
                balance: None
            }
        );
        assert_eq!(
            parse_openings(&words("file=o.txt order=random")).unwrap(),
            OpeningsSpec::File {
                path: PathBuf::from("o.txt"),
                random_order: true
            }
        );
        assert_eq!(
            parse_openings(&words("plies=4 balanced=1.5")).unwrap(),
            OpeningsSpec::Random {
                plies: 4,
                balance: Some(Balance {
                    max_centipoints: 150,
                    nodes: Balance::DEFAULT_NODES
                })
            }
        );
        assert_eq!(
            parse_openings(&words("balanced=0 probe-nodes=500 plies=2")).unwrap(),
            OpeningsSpec::Random {
                plies: 2,
                balance: Some(Balance {
                    max_centipoints: 0,
                    nodes: 500
                })
            }
        );
        for bad in [
            "plies=4 balanced=-1",
            "plies=4 balanced=nan",
            "plies=4 balanced=inf",
            "plies=4 probe-nodes=100",
            "plies=4 balanced=2 probe-nodes=0",
            "plies=4 balanced=2 probe-nodes=x",
            "file=o.txt balanced=2",
            "plies=4 order=random",
        ] {
            let e = parse_openings(&words(bad)).unwrap_err().to_string();
            assert!(e.contains("expected --openings"), "{bad}: {e}");
        }
        assert!(parse_openings(&words("plies=2 file=x")).is_err());
        assert!(parse_openings(&words("plies=two")).is_err());
        let s = parse_sprt(&words("elo0=0 elo1=10")).unwrap();
        assert_eq!((s.elo0, s.elo1, s.alpha, s.beta), (0.0, 10.0, 0.05, 0.05));
        assert!(parse_sprt(&words("elo0=5 elo1=0")).is_err());
        assert!(parse_sprt(&words("elo0=0 elo1=5 alpha=0.7")).is_err());
        assert!(parse_sprt(&words("elo1=5")).is_err());
    }

    #[test]
    fn slices_are_parsed_and_share_the_rounds() {
        assert_eq!(Slice::parse("2/4"), Ok(Slice { index: 2, count: 4 }));
        assert_eq!(Slice::parse("1/1"), Ok(Slice { index: 1, count: 1 }));
        for (bad, expected) in [
            ("0/4", "out of range"),
            ("5/4", "out of range"),
            ("1/0", "from 1 to"),
            ("2", "not a slice"),
            ("a/4", "no whole number"),
            ("-1/4", "no whole number"),
            ("1/4/5", "no whole number"),
        ] {
            let e = Slice::parse(bad).unwrap_err().to_string();
            assert!(e.contains(expected), "{bad}: {e}");
        }
        // Every round in exactly one slice.
        for count in 1..6 {
            for round in 0..20 {
                let owners: Vec<usize> = (1..=count)
                    .filter(|&index| Slice { index, count }.plays(round))
                    .collect();
                assert_eq!(owners, vec![round % count + 1]);
            }
        }
        assert_eq!(Slice { index: 3, count: 7 }.to_string(), "3/7");
    }

    #[test]
    fn pairings_by_kind() {
        assert_eq!(
            pairings(3, TournamentKind::RoundRobin),
            vec![(0, 1), (0, 2), (1, 2)]
        );
        assert_eq!(pairings(3, TournamentKind::Gauntlet), vec![(0, 1), (0, 2)]);
        assert_eq!(pairings(2, TournamentKind::Gauntlet), vec![(0, 1)]);
    }
}
