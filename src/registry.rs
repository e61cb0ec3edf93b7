//! The games sowfan plays, by name. Adding a game means adding one entry here.

use thiserror::Error;

use crate::game::Game;
use crate::games::afrika::{self, Afrika};
use crate::games::anywoli::{self, Anywoli};
use crate::games::fanorona::{self, Fanorona, Size};
use crate::games::kalah::{self, Kalah};
use crate::nnue::features::{ExactValue, ForeignError, PackedFeatures};
use crate::options::{GameOptions, OptionError, OptionSpec};
use crate::session::{GameSession, PositionCommandError, Session};

/// One playable game: its protocol name, its options, and how to build it.
pub struct GameEntry {
    pub name: &'static str,
    pub summary: &'static str,
    pub options: &'static [OptionSpec],
    /// The game with validated options; an error only when the game's code reads an option
    /// its table does not declare.
    pub build: fn(GameOptions) -> Result<Box<dyn Session>, OptionError>,
}

fn session<G: Game>(game: Result<G, OptionError>) -> Result<Box<dyn Session>, OptionError> {
    Ok(Box::new(GameSession::new(game?)))
}

pub const GAMES: &[GameEntry] = &[
    GameEntry {
        name: kalah::NAME,
        summary: "Kalah(m,n), the two-row mancala with stores; South moves first",
        options: kalah::OPTIONS,
        build: |options| session(Kalah::new(options)),
    },
    GameEntry {
        name: afrika::NAME,
        summary: "Afrika, 2x8 pits, compulsory captures from an own empty pit; North moves first",
        options: afrika::OPTIONS,
        build: |options| session(Afrika::new(options)),
    },
    GameEntry {
        name: anywoli::NAME,
        summary: "Anywoli, relay sowing on 2x12 houses, fours captured; South moves first",
        options: anywoli::OPTIONS,
        build: |options| session(Anywoli::new(options)),
    },
    GameEntry {
        name: "fanorona",
        summary: "Fanoron-Tsivy, Fanorona on the 9x5 board; White moves first",
        options: fanorona::OPTIONS,
        build: |options| session(Fanorona::new(Size::Tsivy, options)),
    },
    GameEntry {
        name: "fanorona-dimy",
        summary: "Fanoron-Dimy, Fanorona on the 5x5 board; White moves first",
        options: fanorona::OPTIONS,
        build: |options| session(Fanorona::new(Size::Dimy, options)),
    },
    GameEntry {
        name: "fanorona-telo",
        summary: "Fanoron-Telo, Fanorona on the 3x3 board; White moves first",
        options: fanorona::OPTIONS,
        build: |options| session(Fanorona::new(Size::Telo, options)),
    },
];

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum RegistryError {
    #[error("no game given: expected one of {}", names())]
    Missing,
    #[error("unknown game '{0}': expected one of {names}", names = names())]
    UnknownGame(String),
    #[error(transparent)]
    Option(#[from] OptionError),
}

/// A game named on a command line that cannot be set up ([`create_at`]).
#[derive(Debug, Error)]
pub enum CreateAtError {
    #[error(transparent)]
    Game(#[from] RegistryError),
    #[error(transparent)]
    Position(#[from] PositionCommandError),
}

/// The game names, `kalah, afrika, …`.
pub fn names() -> String {
    GAMES.iter().map(|g| g.name).collect::<Vec<_>>().join(", ")
}

pub fn find(name: &str) -> Result<&'static GameEntry, RegistryError> {
    GAMES
        .iter()
        .find(|g| g.name == name)
        .ok_or_else(|| RegistryError::UnknownGame(name.to_string()))
}

/// Build a game from its name and `key=value` options, e.g. `["kalah", "pits=4"]`.
pub fn create(name: &str, options: &[&str]) -> Result<Box<dyn Session>, RegistryError> {
    let entry = find(name)?;
    let options = GameOptions::parse(entry.name, entry.options, options)?;
    Ok((entry.build)(options)?)
}

/// Build a game from one string: `"kalah pits=4 seeds=3"`.
pub fn create_from_spec(spec: &str) -> Result<Box<dyn Session>, RegistryError> {
    let mut tokens = spec.split_whitespace();
    let name = tokens.next().ok_or(RegistryError::Missing)?;
    let options: Vec<&str> = tokens.collect();
    create(name, &options)
}

/// A game's network features by its spec (as [`create_from_spec`]), for training
/// ([`crate::nnue::train`], which opens games through this and knows none itself).
pub fn packed_features(spec: &str) -> Result<Box<dyn PackedFeatures>, ForeignError> {
    Ok(Box::new(SessionFeatures(create_from_spec(spec)?)))
}

/// A game whose rules no endgame table covers.
#[derive(Debug, Error)]
#[error("{0} has no endgame tables")]
pub struct NoTablesError(pub String);

/// A session seen only through its network features.
struct SessionFeatures(Box<dyn Session>);

impl PackedFeatures for SessionFeatures {
    fn spec(&self) -> String {
        self.0.spec()
    }
    fn network_inputs(&self) -> usize {
        self.0.network_inputs()
    }
    fn network_id(&self) -> String {
        self.0.network_id()
    }
    fn packed_features(
        &self,
        bytes: &[u8],
        views: &mut [Vec<u16>; 2],
        buckets: usize,
    ) -> Result<usize, ForeignError> {
        Ok(self.0.packed_features(bytes, views, buckets)?)
    }

    fn use_tables(&mut self, dir: &std::path::Path) -> Result<(), ForeignError> {
        match self.0.open_tables(dir)? {
            Some(tables) => {
                self.0.set_tables(Some(tables));
                Ok(())
            }
            None => Err(NoTablesError(self.0.spec()).into()),
        }
    }

    fn exact_value(&mut self, bytes: &[u8]) -> Result<Option<ExactValue>, ForeignError> {
        let fen = self.0.unpack_to_fen(bytes)?;
        self.0.set_position(Some(&fen), &[])?;
        Ok(self.0.table_value().map(|value| ExactValue {
            half_points: value.value,
            decisive: value.decisive,
        }))
    }
}

/// A game named on a command line (`["kalah", "pits=4"]`; no words: Kalah) set to `fen` (or
/// its start) with `moves` (space-separated) played: what `perft` and `solve` start from.
pub fn create_at(
    words: &[String],
    fen: Option<&str>,
    moves: Option<&str>,
) -> Result<Box<dyn Session>, CreateAtError> {
    let (name, options) = crate::cli::game_words(words);
    let mut session = create(name, &options)?;
    let moves: Vec<&str> = moves
        .map(|m| m.split_whitespace().collect())
        .unwrap_or_default();
    session.set_position(fen, &moves)?;
    Ok(session)
}

/// The games and their options, for `--help`.
pub fn games_help() -> String {
    let mut text = String::from("Games (name and options, as after `newgame` or in --game):\n");
    for entry in GAMES {
        text.push_str(&format!("  {:<15} {}\n", entry.name, entry.summary));
        for option in entry.options {
            text.push_str(&format!(
                "  {:<15}   {}={} (default {}): {}\n",
                "",
                option.name,
                option.accepted(),
                option.default,
                option.help
            ));
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_game_builds_with_defaults_and_round_trips_its_start() {
        for entry in GAMES {
            let game = create(entry.name, &[]).unwrap();
            assert_eq!(game.spec(), entry.name);
            let mut copy = game.clone_box();
            copy.set_position(Some(&game.start_fen()), &[]).unwrap();
            assert_eq!(copy.fen(), game.fen());
            assert!(!game.legal_moves().is_empty());
        }
    }

    #[test]
    fn errors_list_what_is_accepted() {
        let e = create_from_spec("chess").err().unwrap().to_string();
        assert!(e.contains("kalah"), "{e}");
        let e = create_from_spec("kalah pitz=3").err().unwrap().to_string();
        assert!(e.contains("pits="), "{e}");
        assert!(matches!(
            create_from_spec("  "),
            Err(RegistryError::Missing)
        ));
        let g = create_from_spec("kalah pits=4 seeds=3 pie=true").unwrap();
        assert_eq!(g.spec(), "kalah pits=4 seeds=3 pie=true");
    }
}
