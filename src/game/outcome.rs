//! Who plays and how a game ends: the players, the result, the final scores.

use super::Points;

/// The two players. `P1` is the player who moves first from the start position of the game
/// (South in Kalah and Anywoli, North in Afrika, White in Fanorona), whatever side they end
/// up on (Kalah's pie rule can move P1 to the North side).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Player {
    P1,
    P2,
}

impl Player {
    pub fn other(self) -> Player {
        match self {
            Player::P1 => Player::P2,
            Player::P2 => Player::P1,
        }
    }

    pub fn index(self) -> usize {
        match self {
            Player::P1 => 0,
            Player::P2 => 1,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Player::P1 => "p1",
            Player::P2 => "p2",
        }
    }
}

/// The result of a finished game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GameResult {
    P1Win,
    P2Win,
    Draw,
}

impl GameResult {
    /// The result of a game won by `winner` (`None` = draw).
    pub fn won_by(winner: Option<Player>) -> GameResult {
        match winner {
            Some(Player::P1) => GameResult::P1Win,
            Some(Player::P2) => GameResult::P2Win,
            None => GameResult::Draw,
        }
    }

    /// Decide by comparing scores: higher wins, equal draws.
    pub fn from_scores(scores: [Points; 2]) -> GameResult {
        match scores[0].cmp(&scores[1]) {
            std::cmp::Ordering::Greater => GameResult::P1Win,
            std::cmp::Ordering::Less => GameResult::P2Win,
            std::cmp::Ordering::Equal => GameResult::Draw,
        }
    }

    pub fn winner(self) -> Option<Player> {
        match self {
            GameResult::P1Win => Some(Player::P1),
            GameResult::P2Win => Some(Player::P2),
            GameResult::Draw => None,
        }
    }

    /// The UGI spelling: `p1win`, `p2win`, `draw`.
    pub fn as_str(self) -> &'static str {
        match self {
            GameResult::P1Win => "p1win",
            GameResult::P2Win => "p2win",
            GameResult::Draw => "draw",
        }
    }

    /// The result [`GameResult::as_str`] spells as `text`.
    pub fn parse(text: &str) -> Option<GameResult> {
        [GameResult::P1Win, GameResult::P2Win, GameResult::Draw]
            .into_iter()
            .find(|result| result.as_str() == text)
    }
}

/// How and why a game ended, with the final scores (indexed by `Player::index`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Outcome {
    pub result: GameResult,
    pub scores: [Points; 2],
    /// A short phrase for humans, e.g. "South's pits are empty", "third repetition".
    pub reason: &'static str,
}

impl Outcome {
    /// The final margin for `player`: own score minus the opponent's.
    pub fn margin(&self, player: Player) -> Points {
        let me = player.index();
        self.scores[me] - self.scores[1 - me]
    }
}
