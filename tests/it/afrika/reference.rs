//! A deliberately simple second implementation of Afrika (protocol.md, *Afrika*), written from the
//! rules text alone and sharing nothing with `src/games/afrika/`: two rows of counts lettered
//! from their owners' left, moves as text, sowing one stone at a time along the cycle the rules
//! describe, new boards by cloning. Slow on purpose; the engine is checked against it.

use sowfan::game::Outcome;

use crate::support::walk;

/// The game's options as the rules state them.
#[derive(Clone, Copy, Debug, Default)]
pub struct Rules {
    /// Komi in half points, added to South.
    pub komi_halves: i64,
    /// The game ends when a score (komi included) reaches this.
    pub target: Option<i64>,
}

impl Rules {
    /// From `key=value` words as after `newgame afrika`.
    pub fn from_options(options: &[&str]) -> Rules {
        let mut rules = Rules::default();
        for option in options {
            let (key, value) = option.split_once('=').expect("key=value");
            match key {
                "komi" => {
                    let value: f64 = value.parse().expect("komi is a number");
                    rules.komi_halves = (value * 2.0).round() as i64;
                }
                "target" if value == "off" => rules.target = None,
                "target" => rules.target = Some(value.parse().expect("target is a number")),
                other => panic!("the reference knows no option '{other}'"),
            }
        }
        rules
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Board {
    /// South's pits A..H.
    pub south: [u32; 8],
    /// North's pits a..h.
    pub north: [u32; 8],
    pub south_score: u32,
    pub north_score: u32,
    pub north_to_move: bool,
}

impl Board {
    /// 8 stones in each of the 16 pits; North moves first.
    pub fn start() -> Board {
        Board {
            south: [8; 8],
            north: [8; 8],
            south_score: 0,
            north_score: 0,
            north_to_move: true,
        }
    }

    /// `<A..H>,<South score>/<a..h>,<North score> <N|S>` (trusted input: test data).
    pub fn parse(text: &str) -> Board {
        let (board, side) = text.split_once(' ').expect("board and side");
        let (south, north) = board.split_once('/').expect("two rows");
        let row = |t: &str| -> Vec<u32> { t.split(',').map(|n| n.parse().unwrap()).collect() };
        let (s, n) = (row(south), row(north));
        let mut b = Board {
            south: [0; 8],
            north: [0; 8],
            south_score: s[8],
            north_score: n[8],
            north_to_move: side == "N",
        };
        b.south.copy_from_slice(&s[..8]);
        b.north.copy_from_slice(&n[..8]);
        b
    }

    pub fn text(&self) -> String {
        let row = |pits: &[u32; 8], score: u32| {
            let mut parts: Vec<String> = pits.iter().map(|n| n.to_string()).collect();
            parts.push(score.to_string());
            parts.join(",")
        };
        format!(
            "{}/{} {}",
            row(&self.south, self.south_score),
            row(&self.north, self.north_score),
            if self.north_to_move { "N" } else { "S" }
        )
    }

    /// Scores (North, South) in half points, komi included.
    pub fn scores_halves(&self, rules: &Rules) -> (i64, i64) {
        (
            2 * self.north_score as i64,
            2 * self.south_score as i64 + rules.komi_halves,
        )
    }

    pub fn is_over(&self, rules: &Rules) -> bool {
        let empty = self.south.iter().chain(self.north.iter()).all(|&n| n == 0);
        let (north, south) = self.scores_halves(rules);
        let reached = rules
            .target
            .is_some_and(|t| north >= 2 * t || south >= 2 * t);
        empty || reached
    }

    /// `p1win` (North), `p2win` (South) or `draw`, once the game is over.
    pub fn result(&self, rules: &Rules) -> &'static str {
        let (north, south) = self.scores_halves(rules);
        if north > south {
            "p1win"
        } else if south > north {
            "p2win"
        } else {
            "draw"
        }
    }

    /// The mover's row and the opponent's row, and the letters of each.
    fn rows(&self) -> (&[u32; 8], &[u32; 8], u8, u8) {
        if self.north_to_move {
            (&self.north, &self.south, b'a', b'A')
        } else {
            (&self.south, &self.north, b'A', b'a')
        }
    }

    /// Every legal move as text, in no particular order.
    pub fn moves(&self, rules: &Rules) -> Vec<String> {
        if self.is_over(rules) {
            return Vec::new();
        }
        let (own, opp, own_letter, opp_letter) = self.rows();
        // Opponent pit i faces own pit 7 - i (South's A faces North's h, and so on).
        let capturable: Vec<usize> = (0..8).filter(|&i| opp[i] > 0 && own[7 - i] == 0).collect();
        if let Some(smallest) = capturable.iter().map(|&i| opp[i]).min() {
            return capturable
                .into_iter()
                .filter(|&i| opp[i] == smallest)
                .map(|i| format!("x{}", (opp_letter + i as u8) as char))
                .collect();
        }
        (0..8)
            .filter(|&i| own[i] > 0)
            .map(|i| ((own_letter + i as u8) as char).to_string())
            .collect()
    }

    /// The board after the move `text` (one of `moves`).
    pub fn play(&self, text: &str) -> Board {
        let mut next = self.clone();
        let north = self.north_to_move;
        let (own, opp, score) = if north {
            (&mut next.north, &mut next.south, &mut next.north_score)
        } else {
            (&mut next.south, &mut next.north, &mut next.south_score)
        };
        let letter = text.bytes().last().expect("a letter");
        let index = (letter.to_ascii_lowercase() - b'a') as usize;
        if text.starts_with('x') {
            *score += opp[index];
            opp[index] = 0;
        } else {
            // The cycle for the mover: own pits left to right, then the opponent's.
            let mut stones = own[index];
            let skip_origin = stones >= 16;
            own[index] = 0;
            let mut place = index;
            while stones > 0 {
                place = (place + 1) % 16;
                if place == index && skip_origin {
                    continue;
                }
                if place < 8 {
                    own[place] += 1;
                } else {
                    opp[place - 8] += 1;
                }
                stones -= 1;
            }
        }
        next.north_to_move = !north;
        next
    }
}

/// The reference as the tree walks see it.
impl walk::Reference for Rules {
    type Pos = Board;

    fn text(&self, board: &Board) -> String {
        board.text()
    }

    fn moves(&self, board: &Board) -> Vec<(String, Board)> {
        board
            .moves(self)
            .into_iter()
            .map(|text| {
                let after = board.play(&text);
                (text, after)
            })
            .collect()
    }

    fn check_end(&self, board: &Board, outcome: Option<&Outcome>, text: &str) {
        assert_eq!(outcome.is_some(), board.is_over(self), "game over? {text}");
        if let Some(outcome) = outcome {
            assert_eq!(
                outcome.result.as_str(),
                board.result(self),
                "result of {text}"
            );
        }
    }
}
