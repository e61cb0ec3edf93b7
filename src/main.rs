//! The `sowfan` command: the protocol on stdin/stdout, or a tool (perft, bench).

use std::io::BufReader;
use std::process::ExitCode;
use std::time::Instant;

use clap::{Parser, Subcommand};

use sowfan::protocol::{self, Output};
use sowfan::registry;

#[derive(Parser)]
#[command(
    name = "sowfan",
    version,
    about = "A game engine for Kalah, Afrika, Anywoli and Fanorona",
    long_about = "A game engine for Kalah, Afrika, Anywoli and Fanorona.\n\n\
        Without a subcommand, sowfan speaks its UCI/UGI-like protocol on stdin/stdout \
        (see protocol.md): e.g.\n  printf 'newgame kalah\\nposition startpos moves C\\ngo depth 12\\n' | sowfan\n\n\
        Logs go to stderr; set RUST_LOG=debug to see every line in and out."
)]
struct Cli {
    /// Preselect the game and its options, as after `newgame`, e.g. --game "kalah pits=4".
    /// For GUIs and tournament managers that cannot send `newgame`.
    #[arg(long, value_name = "GAME [KEY=VALUE ...]")]
    game: Option<String>,

    #[command(subcommand)]
    command: Option<Tool>,
}

#[derive(Subcommand)]
enum Tool {
    /// Count move sequences of DEPTH moves (split by first move), with the speed.
    ///
    /// Example: sowfan perft 11 kalah   or   sowfan perft 6 kalah pits=4 seeds=3
    Perft {
        /// Number of moves (an extra move counts as a move).
        depth: u32,
        /// Game name (default kalah) followed by key=value options.
        #[arg(value_name = "GAME [KEY=VALUE ...]")]
        game: Vec<String>,
        /// Start from this position string instead of the start position.
        #[arg(long)]
        fen: Option<String>,
        /// Play these moves (space-separated, one argument) before counting.
        #[arg(long)]
        moves: Option<String>,
    },
    /// Search a fixed set of positions of every game to a fixed depth; prints the node
    /// total (the same for a given build) and nodes per second.
    Bench {
        /// Override every game's bench depth.
        depth: Option<u32>,
    },
}

fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn"))
        .target(env_logger::Target::Stderr)
        .init();
    let cli = Cli::parse();
    let result = match cli.command {
        None => protocol::run(
            BufReader::new(std::io::stdin()),
            Output::stdout(),
            cli.game.as_deref(),
        ),
        Some(Tool::Perft {
            depth,
            game,
            fen,
            moves,
        }) => perft(depth, &game, fen.as_deref(), moves.as_deref()),
        Some(Tool::Bench { depth }) => {
            let out = Output::stdout();
            sowfan::bench::run(depth, &mut |line| out.line(line));
            Ok(())
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("sowfan: {message}");
            ExitCode::FAILURE
        }
    }
}

fn perft(depth: u32, game: &[String], fen: Option<&str>, moves: Option<&str>) -> Result<(), String> {
    let (name, options) = match game.split_first() {
        Some((name, options)) => (name.as_str(), options),
        None => ("kalah", &[][..]),
    };
    let options: Vec<&str> = options.iter().map(String::as_str).collect();
    let mut session = registry::create(name, &options).map_err(|e| e.to_string())?;
    let moves: Vec<&str> = moves.map(|m| m.split_whitespace().collect()).unwrap_or_default();
    session
        .set_position(fen, &moves)
        .map_err(|e| e.to_string())?;
    let out = Output::stdout();
    let start = Instant::now();
    let mut total = 0u64;
    for (mv, count) in session.divide(depth) {
        out.line(&format!("{mv}: {count}"));
        total += count;
    }
    if depth == 0 {
        total = 1;
    }
    let elapsed = start.elapsed();
    out.line(&format!("Nodes searched: {total}"));
    out.line(&format!("Time: {} ms", elapsed.as_millis()));
    out.line(&format!(
        "Nodes/second: {}",
        (total as f64 / elapsed.as_secs_f64().max(1e-9)) as u64
    ));
    Ok(())
}
