//! `sowfan play` through a pipe, as a script (or a person) would drive it: a whole Kalah
//! game with an illegal move, `hint`, `undo`, the end and the offered analysis.

use std::io::{Read, Write};
use std::process::{Child, ChildStdin};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

use crate::support::run::{self, output_with_input};
use crate::support::scaled;

/// A running `sowfan play`, read up to each prompt.
struct Play {
    child: Child,
    stdin: ChildStdin,
    chunks: Receiver<Vec<u8>>,
    /// Everything printed so far.
    transcript: String,
    /// Where the output since the last prompt begins.
    seen: usize,
}

impl Play {
    fn start(args: &[&str]) -> Play {
        let mut child = run::piped(&["play"])
            .args(args)
            .env_remove("NO_COLOR")
            .spawn()
            .expect("start sowfan play");
        let mut stdout = child.stdout.take().expect("stdout");
        let stdin = child.stdin.take().expect("stdin");
        let (tx, chunks) = mpsc::channel();
        std::thread::spawn(move || {
            let mut buffer = [0u8; 4096];
            while let Ok(n) = stdout.read(&mut buffer) {
                if n == 0 || tx.send(buffer[..n].to_vec()).is_err() {
                    break;
                }
            }
        });
        Play {
            child,
            stdin,
            chunks,
            transcript: String::new(),
            seen: 0,
        }
    }

    /// The output since the last prompt up to the next (`p1> `, `p2> `, `game over> `).
    fn until_prompt(&mut self) -> String {
        let deadline = Instant::now() + scaled(Duration::from_secs(60));
        while self.transcript.len() == self.seen || !self.transcript.ends_with("> ") {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.chunks.recv_timeout(left) {
                Ok(chunk) => self.transcript.push_str(&String::from_utf8_lossy(&chunk)),
                Err(_) => panic!("no prompt; output so far:\n{}", self.transcript),
            }
        }
        let text = self.transcript[self.seen..].to_string();
        self.seen = self.transcript.len();
        text
    }

    fn send(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").expect("write");
        self.stdin.flush().expect("flush");
    }
}

/// The last `Legal moves:` line of `text`.
fn legal(text: &str) -> Vec<String> {
    text.lines()
        .rfind(|l| l.starts_with("Legal moves:"))
        .map(|l| {
            l["Legal moves:".len()..]
                .split_whitespace()
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

fn last_fen(text: &str) -> String {
    text.lines()
        .rfind(|l| l.starts_with("Fen: "))
        .map(|l| l["Fen: ".len()..].to_string())
        .expect("a Fen line")
}

#[test]
fn play_a_whole_kalah_game_through_a_pipe() {
    let mut play = Play::start(&["kalah", "--engine", "p2", "--depth", "2"]);
    let first = play.until_prompt();
    assert!(first.starts_with("sowfan play: kalah (you play p1, sowfan plays p2)"));
    assert!(first.contains("Score: p1 0 p2 0"), "{first}");
    assert!(first.contains("To move: p1"), "{first}");
    assert_eq!(legal(&first), ["A", "B", "C", "D", "E", "F"]);
    assert!(first.ends_with("p1> "));
    // An illegal move is explained and nothing changes.
    play.send("a");
    let answer = play.until_prompt();
    assert!(answer.contains("'a' is illegal here"), "{answer}");
    assert!(answer.contains("Legal moves: A B C D E F"), "{answer}");
    play.send("");
    play.until_prompt();
    play.send("fen");
    let fen = play.until_prompt();
    assert!(fen.contains("4,4,4,4,4,4,0/4,4,4,4,4,4,0 S"), "{fen}");
    // The hint names a legal move and a score.
    play.send("hint");
    let hint = play.until_prompt();
    let hint_line = hint
        .lines()
        .find(|l| l.starts_with("Hint: "))
        .unwrap_or_else(|| panic!("{hint}"));
    let hinted = hint_line.split_whitespace().nth(1).unwrap();
    assert!(
        ["A", "B", "C", "D", "E", "F"].contains(&hinted),
        "{hint_line}"
    );
    assert!(hint_line.contains("(score "), "{hint_line}");
    // Play the first legal move each turn to the end; take one turn back on the way.
    let mut text = first;
    let mut turns = 0;
    let mut undone = false;
    loop {
        if text.contains("Game over: ") {
            break;
        }
        let moves = legal(&text);
        assert!(!moves.is_empty(), "{text}");
        let before = last_fen(&text);
        play.send(&moves[0]);
        text = play.until_prompt();
        turns += 1;
        if turns == 3 && !undone {
            undone = true;
            play.send("undo");
            let back = play.until_prompt();
            assert!(back.contains("Taken back."), "{back}");
            assert_eq!(last_fen(&back), before, "undo returns to this turn");
            play.send(&moves[0]);
            text = play.until_prompt();
        }
        assert!(turns < 200, "the game does not end");
    }
    assert!(undone, "the game ended before the undo");
    assert!(play.transcript.contains("sowfan (p2) plays "), "{text}");
    let over = text
        .lines()
        .find(|l| l.starts_with("Game over: "))
        .unwrap()
        .to_string();
    assert!(
        over.starts_with("Game over: p1win (")
            || over.starts_with("Game over: p2win (")
            || over.starts_with("Game over: draw ("),
        "{over}"
    );
    assert!(text.contains("Result: "), "{text}");
    assert!(text.ends_with("game over> "), "{text}");
    // The offered command analyses the game just played.
    let command = text
        .lines()
        .find(|l| l.trim_start().starts_with("echo '"))
        .expect("the analyse command")
        .trim()
        .to_string();
    let line = command
        .strip_prefix("echo '")
        .and_then(|c| c.split_once("' | sowfan analyse"))
        .map(|(line, _)| line.to_string())
        .expect("echo '<game>' | sowfan analyse");
    play.send("moves");
    let moves = play.until_prompt();
    let position = moves
        .lines()
        .find(|l| l.starts_with("position startpos moves "))
        .expect("a position command");
    assert_eq!(
        line,
        format!("kalah: {}", &position["position startpos moves ".len()..])
    );
    play.send("quit");
    let status = play.child.wait().expect("exit");
    assert!(status.success());
    assert!(!play.transcript.contains('\x1b'), "no colours in a pipe");
    // Analysing the game line works end to end.
    let output = output_with_input(
        &["analyse", "--depth", "2", "--format", "jsonl"],
        &format!("{line}\n"),
    );
    assert!(output.status.success());
    let text = String::from_utf8(output.stdout).unwrap();
    let game: serde_json::Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    assert_eq!(game["type"], "game");
    assert!(
        over.contains(game["result"].as_str().unwrap()),
        "{over} {game}"
    );
}

#[test]
fn play_ends_at_the_end_of_the_input_and_explains_commands() {
    let mut play = Play::start(&["kalah", "pits=4", "seeds=3", "--engine", "none"]);
    let first = play.until_prompt();
    assert!(first.contains("you play both sides"), "{first}");
    play.send("help");
    let help = play.until_prompt();
    for word in ["undo", "hint", "fen", "moves", "new", "quit"] {
        assert!(help.contains(word), "{help}");
    }
    play.send("C D");
    let two = play.until_prompt();
    assert!(two.contains("is not one move"), "{two}");
    play.send("undo");
    assert!(play.until_prompt().contains("Nothing to take back."));
    // Both sides are the person's: undo takes back one move.
    play.send("C");
    let after = play.until_prompt();
    assert!(after.ends_with("p2> "), "{after}");
    play.send("undo");
    assert!(play.until_prompt().ends_with("p1> "));
    play.send("C");
    play.until_prompt();
    play.send("new");
    let new = play.until_prompt();
    assert!(new.contains("Fen: 3,3,3,3,0/3,3,3,3,0 S"), "{new}");
    drop(play.stdin);
    let status = play.child.wait().expect("exit at the end of the input");
    assert!(status.success());
}

/// Item 4 for play: a line that is not UTF-8 (or far too long) is said to be ignored and
/// the game goes on (it used to end the game as an unreadable input).
#[test]
fn play_ignores_a_line_that_is_not_utf8_and_goes_on() {
    let mut child = run::piped(&["play", "kalah", "--engine", "none"])
        .env("NO_COLOR", "1")
        .spawn()
        .expect("start sowfan play");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut input = b"C\n\xff\xfe\n".to_vec();
    input.extend(vec![b'x'; 100 << 10]);
    input.extend_from_slice(b"\nA\nmoves\nquit\n");
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let output = child.wait_with_output().expect("play ends");
    writer.join().expect("written");
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{text}");
    assert!(text.contains("not UTF-8 text, ignored"), "{text}");
    assert!(
        text.contains("is not a move or a command, ignored"),
        "{text}"
    );
    assert!(text.contains("position startpos moves C A"), "{text}");
}
