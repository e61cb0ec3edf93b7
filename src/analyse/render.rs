//! The analysis as text for people (aligned columns) or as JSON Lines for scripts: one
//! object a move, one a game, one an unreadable game. Field by field in README.md,
//! "Analysing games".

use std::fmt::Write;

use serde::Serialize;

use super::evaluate::{GameSummary, MoveAnalysis, PlayerStats, round2};
use super::input::{GameError, InputGame};
use crate::game::Player;

/// How the analysis is printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum OutputFormat {
    /// Aligned columns for people.
    Text,
    /// One JSON object a move and one a game.
    Jsonl,
}

/// The width of the move columns of a game's table.
pub fn move_width(game: &InputGame) -> usize {
    game.moves
        .iter()
        .map(|m| m.chars().count())
        .max()
        .unwrap_or(0)
        .max(4)
}

fn player_label(name: Option<&str>, player: Player) -> String {
    match name {
        Some(name) => format!("{name} ({})", player.name()),
        None => player.name().to_string(),
    }
}

/// The lines before a game's moves.
pub fn text_header(game: &InputGame, limits: &str, width: usize) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Game {}: {}, {} vs {} (line {}, {})",
        game.number,
        game.spec,
        player_label(game.p1.as_deref(), Player::P1),
        player_label(game.p2.as_deref(), Player::P2),
        game.line,
        game.format.as_str()
    );
    let _ = writeln!(
        out,
        "Start: {}",
        game.fen.as_deref().unwrap_or("the start position")
    );
    if game.opening > 0 {
        let _ = writeln!(
            out,
            "Opening: moves 1-{} (not the players' choice: not counted in their totals)",
            game.opening
        );
    }
    let _ = writeln!(
        out,
        "Analysis: {limits} per position; scores in points for the player who moves \
         (* proven: tables, a proof or the end; >= <= a bound)"
    );
    let _ = writeln!(
        out,
        "{:>4}  {:<2}  {:<width$}  {:<width$}  {:>10}  {:>8}  {:>6}  {:<4}  position before the move",
        "ply", "by", "move", "best", "best score", "score", "loss", "mark"
    );
    out
}

/// One move as a table row.
pub fn text_move(m: &MoveAnalysis, width: usize) -> String {
    format!(
        "{:>4}  {:<2}  {:<width$}  {:<width$}  {:>10}  {:>8}  {:>6.2}  {:<4}  {}",
        m.ply,
        m.by.name(),
        m.played,
        m.best,
        m.best_value.text(),
        m.value.text(),
        m.loss,
        m.mark.as_str(),
        m.fen
    )
}

fn stats_text(stats: &PlayerStats) -> String {
    format!(
        "{} moves, average loss {:.2}; !: {}  ?!: {}  ?: {}  ??: {}",
        stats.moves,
        stats.average_loss(),
        stats.only_moves,
        stats.inaccuracies,
        stats.mistakes,
        stats.blunders
    )
}

/// The lines after a game's moves.
pub fn text_footer(
    game: &InputGame,
    summary: &GameSummary,
    moves: &[MoveAnalysis],
    chart: Option<&str>,
) -> String {
    let mut out = String::new();
    let _ = write!(out, "Result: {}", summary.result);
    if let Some(reason) = &summary.reason {
        let _ = write!(out, " ({reason})");
    }
    out.push('\n');
    for player in [Player::P1, Player::P2] {
        let name = [&game.p1, &game.p2][player.index()];
        let _ = writeln!(
            out,
            "{}: {}",
            player_label(name.as_deref(), player),
            stats_text(&summary.players[player.index()])
        );
    }
    match summary.decisive.and_then(|i| moves.get(i)) {
        Some(m) => {
            let _ = writeln!(
                out,
                "Decisive mistake: move {}, {} {}{} (loss {:.2}; best {} {})",
                m.ply,
                m.by.name(),
                m.played,
                m.mark.as_str(),
                m.loss,
                m.best,
                m.best_value.text()
            );
        }
        None => out.push_str("Decisive mistake: none\n"),
    }
    if let Some(chart) = chart {
        let _ = writeln!(out, "Chart: {chart}");
    }
    out
}

pub fn text_error(error: &GameError) -> String {
    format!(
        "Game {} (line {}): not analysed: {}\n\n",
        error.number, error.line, error.error
    )
}

#[derive(Serialize)]
struct MoveLine<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    game: usize,
    ply: usize,
    by: &'static str,
    opening: bool,
    fen: &'a str,
    #[serde(rename = "move")]
    played: &'a str,
    best: &'a str,
    best_score: f64,
    best_kind: &'static str,
    score: f64,
    score_kind: &'static str,
    p1_score: f64,
    loss: f64,
    mark: &'static str,
    depth: u32,
    nodes: u64,
}

pub fn json_move(game: usize, m: &MoveAnalysis) -> String {
    let line = MoveLine {
        kind: "move",
        game,
        ply: m.ply,
        by: m.by.name(),
        opening: m.opening,
        fen: &m.fen,
        played: &m.played,
        best: &m.best,
        best_score: round2(m.best_value.points()),
        best_kind: m.best_value.kind(),
        score: round2(m.value.points()),
        score_kind: m.value.kind(),
        p1_score: round2(m.p1_value.points()),
        loss: m.loss,
        mark: m.mark.as_str(),
        depth: m.depth,
        nodes: m.nodes,
    };
    serde_json::to_string(&line).unwrap_or_default()
}

#[derive(Serialize)]
struct GameLine<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    game: usize,
    line: usize,
    format: &'static str,
    spec: &'a str,
    p1: Option<&'a str>,
    p2: Option<&'a str>,
    fen: Option<&'a str>,
    moves: usize,
    opening: usize,
    limits: &'a str,
    result: &'static str,
    reason: Option<&'a str>,
    p1_moves: usize,
    p1_avg_loss: f64,
    p1_only: usize,
    p1_inaccuracies: usize,
    p1_mistakes: usize,
    p1_blunders: usize,
    p2_moves: usize,
    p2_avg_loss: f64,
    p2_only: usize,
    p2_inaccuracies: usize,
    p2_mistakes: usize,
    p2_blunders: usize,
    decisive_ply: Option<usize>,
    decisive_by: Option<&'static str>,
    decisive_move: Option<&'a str>,
    decisive_loss: Option<f64>,
    chart: Option<&'a str>,
}

pub fn json_game(
    game: &InputGame,
    summary: &GameSummary,
    moves: &[MoveAnalysis],
    limits: &str,
    chart: Option<&str>,
) -> String {
    let [p1, p2] = &summary.players;
    let decisive = summary.decisive.and_then(|i| moves.get(i));
    let line = GameLine {
        kind: "game",
        game: game.number,
        line: game.line,
        format: game.format.as_str(),
        spec: &game.spec,
        p1: game.p1.as_deref(),
        p2: game.p2.as_deref(),
        fen: game.fen.as_deref(),
        moves: moves.len(),
        opening: game.opening,
        limits,
        result: summary.result,
        reason: summary.reason.as_deref(),
        p1_moves: p1.moves,
        p1_avg_loss: p1.average_loss(),
        p1_only: p1.only_moves,
        p1_inaccuracies: p1.inaccuracies,
        p1_mistakes: p1.mistakes,
        p1_blunders: p1.blunders,
        p2_moves: p2.moves,
        p2_avg_loss: p2.average_loss(),
        p2_only: p2.only_moves,
        p2_inaccuracies: p2.inaccuracies,
        p2_mistakes: p2.mistakes,
        p2_blunders: p2.blunders,
        decisive_ply: decisive.map(|m| m.ply),
        decisive_by: decisive.map(|m| m.by.name()),
        decisive_move: decisive.map(|m| m.played.as_str()),
        decisive_loss: decisive.map(|m| m.loss),
        chart,
    };
    serde_json::to_string(&line).unwrap_or_default()
}

#[derive(Serialize)]
struct ErrorLine<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    game: usize,
    line: usize,
    error: &'a str,
}

pub fn json_error(error: &GameError) -> String {
    let text = error.error.to_string();
    serde_json::to_string(&ErrorLine {
        kind: "error",
        game: error.number,
        line: error.line,
        error: &text,
    })
    .unwrap_or_default()
}
