//! The `sowfan` command: the protocol on stdin/stdout, or a tool (perft, bench, match, check,
//! solve, tablebase, analyse, play).
//! Each tool lives in its own module; this file only parses the command line and dispatches.

use std::io::BufReader;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};

use std::sync::atomic::{AtomicBool, Ordering};

use sowfan::protocol::{self, Output};
use sowfan::registry;
use sowfan::tablebase::command as tablebase_command;

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

    /// Endgame table directory, as `setoption name TablebasePath value DIR`.
    #[arg(long, value_name = "DIR")]
    tablebases: Option<PathBuf>,

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
    Match(sowfan::tournament::command::MatchArgs),
    Check(sowfan::check::command::CheckArgs),
    Solve(sowfan::solve::command::SolveArgs),
    /// Build, check and list endgame tables.
    #[command(subcommand)]
    Tablebase(TablebaseCli),
    /// Fit a game's evaluation weights to recorded games (Texel's method): the logistic
    /// loss of the static evaluation against the results of quiet positions.
    ///
    /// Example: sowfan tune kalah --records games.jsonl --iterations 2000
    #[command(verbatim_doc_comment)]
    Tune(TuneCli),
    /// Analyse games: each move against the engine's best, its loss and mark (?!, ?, ??,
    /// !), each player's average loss, the decisive mistake, and an evaluation chart.
    ///
    /// Reads `sowfan match --records` JSON Lines, `--pgn` games, game-record fixtures
    /// (docs/afrika.md) and plain lines (`<game> [options]: <moves>`, `fen <position> moves
    /// <moves>`), several games per input, from FILE or stdin (`-`). Prints aligned text or
    /// JSON Lines (one object a move, one a game) as each move is done. See README.md,
    /// "Analysing games".
    ///
    /// Example:
    ///   sowfan analyse games.jsonl --depth 10 --threads 2 --format jsonl --chart game.svg
    ///   echo 'kalah: C f a E' | sowfan analyse
    #[command(verbatim_doc_comment)]
    Analyse(AnalyseCli),
    /// Play a game against the engine in the terminal (also through a pipe).
    ///
    /// After each move: the board, the scores, whose turn it is and the legal moves. Type a
    /// move, or undo, hint, fen, moves, board, new, help, quit. See README.md, "Playing".
    ///
    /// Example: sowfan play kalah pits=4 --engine p2 --movetime 500
    #[command(verbatim_doc_comment)]
    Play(PlayCli),
}

#[derive(Clone, Copy, ValueEnum)]
enum FormatCli {
    /// Aligned columns for people.
    Text,
    /// One JSON object a move and one a game.
    Jsonl,
}

#[derive(clap::Args)]
struct AnalyseCli {
    /// The games: a file, or - (the default) for standard input.
    #[arg(value_name = "FILE|-")]
    input: Option<PathBuf>,
    /// The game of plain lines that name none (default kalah), e.g. --game "kalah pits=4".
    #[arg(long, value_name = "GAME [KEY=VALUE ...]")]
    game: Option<String>,
    /// Search each position to this depth (the default: 10).
    #[arg(long, value_name = "N", conflicts_with_all = ["movetime", "nodes"])]
    depth: Option<u32>,
    /// Search each position for this many milliseconds.
    #[arg(long, value_name = "MS", conflicts_with = "nodes")]
    movetime: Option<u64>,
    /// Search each position for this many nodes.
    #[arg(long, value_name = "N")]
    nodes: Option<u64>,
    /// Positions analysed at the same time (each search uses one thread, so the output
    /// does not depend on this).
    #[arg(long, default_value_t = 1, value_name = "T")]
    threads: usize,
    /// Transposition table of each search, in MiB.
    #[arg(long, default_value_t = 16, value_name = "MB")]
    hash: usize,
    /// Endgame table directory: covered positions get exact values.
    #[arg(long, value_name = "DIR")]
    tablebases: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = FormatCli::Text)]
    format: FormatCli,
    /// Draw each game's evaluation chart as SVG to FILE (FILE-<game number>.svg when the
    /// input holds several games).
    #[arg(long, value_name = "FILE.svg")]
    chart: Option<PathBuf>,
}

#[derive(Clone, Copy, ValueEnum)]
enum EngineSideCli {
    P1,
    P2,
    Both,
    None,
}

#[derive(clap::Args)]
struct PlayCli {
    /// Game name (default kalah) followed by key=value options.
    #[arg(value_name = "GAME [KEY=VALUE ...]")]
    game: Vec<String>,
    /// The side(s) the engine plays.
    #[arg(long, value_enum, default_value_t = EngineSideCli::P2)]
    engine: EngineSideCli,
    /// The engine's time per move in milliseconds (default 1000).
    #[arg(long, value_name = "MS", conflicts_with = "depth")]
    movetime: Option<u64>,
    /// The engine searches to this depth instead.
    #[arg(long, value_name = "N")]
    depth: Option<u32>,
    /// Endgame table directory.
    #[arg(long, value_name = "DIR")]
    tablebases: Option<PathBuf>,
    /// Transposition table size in MiB.
    #[arg(long, default_value_t = 64, value_name = "MB")]
    hash: usize,
    /// Start from this position string.
    #[arg(long)]
    fen: Option<String>,
}

#[derive(clap::Args)]
struct TuneCli {
    /// The game (and options), as after `newgame`.
    #[arg(value_name = "GAME [KEY=VALUE ...]", required = true)]
    game: Vec<String>,
    /// Match records (`sowfan match --records`), one or more.
    #[arg(long, num_args = 1.., value_name = "FILE", required = true)]
    records: Vec<PathBuf>,
    /// Full-batch Adam steps.
    #[arg(long, default_value_t = 2000, value_name = "N")]
    iterations: usize,
    /// Adam's step size, in hundredths of a point.
    #[arg(long, default_value_t = 1.0, value_name = "R")]
    rate: f64,
    /// Seed of the random subset (--max-positions).
    #[arg(long, default_value_t = 1, value_name = "S")]
    seed: u64,
    /// Leave out this many plies from the start of each game.
    #[arg(long, default_value_t = 8, value_name = "K")]
    skip_plies: usize,
    /// Use at most this many positions (a seeded random subset).
    #[arg(long, value_name = "N")]
    max_positions: Option<usize>,
    /// Write the tuned WEIGHTS constant to this file instead of stdout.
    #[arg(long, value_name = "FILE")]
    output: Option<PathBuf>,
}

#[derive(Subcommand)]
enum TablebaseCli {
    /// Build the tables of a game up to --seeds seeds (stones) in play, resuming at the
    /// first missing layer.
    ///
    /// Example: sowfan tablebase build kalah --seeds 20 --dir tables --threads 2
    #[command(verbatim_doc_comment)]
    Build {
        /// Game name followed by key=value options (only options that change values matter).
        #[arg(value_name = "GAME [KEY=VALUE ...]", required = true)]
        game: Vec<String>,
        /// Build every layer up to this many seeds (stones) in play.
        #[arg(long, value_name = "N")]
        seeds: u32,
        /// The table directory.
        #[arg(long, value_name = "DIR")]
        dir: PathBuf,
        #[arg(long, default_value_t = 1, value_name = "T")]
        threads: usize,
        /// I/K: build only slice I (from 1) of K of the top layer (the layers below must
        /// exist); `sowfan tablebase merge` assembles the slices.
        #[arg(long, value_name = "I/K")]
        shard: Option<String>,
    },
    /// Check every table file under DIR: header, size, checksum.
    Verify {
        #[arg(long, value_name = "DIR")]
        dir: PathBuf,
    },
    /// List what DIR holds: rule sets, layers, entries, sizes.
    Info {
        #[arg(long, value_name = "DIR")]
        dir: PathBuf,
    },
    /// Assemble the shards of layers into whole layer files, verifying every slice.
    Merge {
        #[arg(long, value_name = "DIR")]
        dir: PathBuf,
    },
}

/// The games and their options, from the registry, for `--help`.
fn games_help() -> String {
    let mut text = String::from("Games (name and options, as after `newgame` or in --game):\n");
    for entry in registry::GAMES {
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

fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn"))
        .target(env_logger::Target::Stderr)
        .init();
    let matches = Cli::command().after_long_help(games_help()).get_matches();
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(e) => e.exit(),
    };
    let result = match cli.command {
        None => protocol::run(
            BufReader::new(std::io::stdin()),
            Output::stdout(),
            cli.game.as_deref(),
            cli.tablebases,
        ),
        Some(Tool::Perft {
            depth,
            game,
            fen,
            moves,
        }) => perft(depth, &game, fen.as_deref(), moves.as_deref()),
        Some(Tool::Bench { depth }) => {
            let out = Output::stdout();
            let control = sowfan::search::SearchControl::default();
            sowfan::bench::run(depth, &control, &mut |line| out.line(line));
            Ok(())
        }
        Some(Tool::Solve(args)) => return sowfan::solve::command::run(args),
        Some(Tool::Tablebase(command)) => {
            let stop = catch_stop();
            let command = match command {
                TablebaseCli::Build {
                    game,
                    seeds,
                    dir,
                    threads,
                    shard,
                } => tablebase_command::Command::Build {
                    game,
                    seeds,
                    dir,
                    threads,
                    shard,
                },
                TablebaseCli::Verify { dir } => tablebase_command::Command::Verify { dir },
                TablebaseCli::Info { dir } => tablebase_command::Command::Info { dir },
                TablebaseCli::Merge { dir } => tablebase_command::Command::Merge { dir },
            };
            tablebase_command::run(command, stop)
        }
        Some(Tool::Tune(args)) => sowfan::tune::command::run(&sowfan::tune::command::TuneArgs {
            game: args.game.join(" "),
            records: args.records,
            iterations: args.iterations,
            rate: args.rate,
            seed: args.seed,
            skip_plies: args.skip_plies,
            max_positions: args.max_positions,
            output: args.output,
        }),
        Some(Tool::Analyse(args)) => {
            let stop = catch_stop();
            let args = sowfan::analysis::AnalyseArgs {
                input: args.input,
                game: args.game,
                depth: args.depth,
                nodes: args.nodes,
                movetime: args.movetime,
                threads: args.threads,
                hash_mb: args.hash,
                tablebases: args.tablebases,
                format: match args.format {
                    FormatCli::Text => sowfan::analysis::OutputFormat::Text,
                    FormatCli::Jsonl => sowfan::analysis::OutputFormat::Jsonl,
                },
                chart: args.chart,
            };
            return match sowfan::analysis::run(&args, stop) {
                Ok(report) if report.interrupted => {
                    eprintln!("sowfan analyse: interrupted");
                    ExitCode::from(130)
                }
                // Some game could not be read or replayed (each was reported).
                Ok(report) if report.errors > 0 => ExitCode::from(1),
                Ok(_) => ExitCode::SUCCESS,
                Err(message) => {
                    eprintln!("sowfan analyse: {message}");
                    ExitCode::FAILURE
                }
            };
        }
        Some(Tool::Play(args)) => {
            use std::io::IsTerminal;
            let args = sowfan::play::PlayArgs {
                game: args.game,
                engine: match args.engine {
                    EngineSideCli::P1 => sowfan::play::EngineSide::P1,
                    EngineSideCli::P2 => sowfan::play::EngineSide::P2,
                    EngineSideCli::Both => sowfan::play::EngineSide::Both,
                    EngineSideCli::None => sowfan::play::EngineSide::None,
                },
                movetime: args.movetime,
                depth: args.depth,
                tablebases: args.tablebases,
                hash_mb: args.hash,
                fen: args.fen,
            };
            let stdin = std::io::stdin();
            let echo = !stdin.is_terminal();
            sowfan::play::run(
                &args,
                &mut stdin.lock(),
                &mut std::io::stdout().lock(),
                sowfan::play::Style::from_environment(),
                echo,
            )
        }
        Some(Tool::Match(args)) => return sowfan::tournament::command::run(args),
        Some(Tool::Check(args)) => return sowfan::check::command::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("sowfan: {message}");
            ExitCode::FAILURE
        }
    }
}

/// Ctrl-C (or SIGTERM) for a long tool: raises the returned flag (the tool stops cleanly
/// and says what it kept); a second one leaves at once.
fn catch_stop() -> &'static AtomicBool {
    static STOP: AtomicBool = AtomicBool::new(false);
    let handler = ctrlc::set_handler(|| {
        if STOP.swap(true, Ordering::Relaxed) {
            std::process::exit(130);
        }
    });
    if let Err(e) = handler {
        log::warn!("Ctrl-C will end the program at once: {e}");
    }
    &STOP
}

fn perft(
    depth: u32,
    game: &[String],
    fen: Option<&str>,
    moves: Option<&str>,
) -> Result<(), String> {
    let (name, options) = match game.split_first() {
        Some((name, options)) => (name.as_str(), options),
        None => ("kalah", &[][..]),
    };
    let options: Vec<&str> = options.iter().map(String::as_str).collect();
    let mut session = registry::create(name, &options).map_err(|e| e.to_string())?;
    let moves: Vec<&str> = moves
        .map(|m| m.split_whitespace().collect())
        .unwrap_or_default();
    session
        .set_position(fen, &moves)
        .map_err(|e| e.to_string())?;
    let out = Output::stdout();
    let start = Instant::now();
    let mut total = 0u64;
    let never = std::sync::atomic::AtomicBool::new(false);
    session.divide(depth, &never, &mut |mv, count| {
        out.line(&format!("{mv}: {count}"));
        total += count;
    });
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
