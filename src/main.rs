//! The `sowfan` command: the protocol on stdin/stdout, or a tool (perft, bench, match,
//! check, solve, tablebase, tune, datagen, train, analyse, accuracy, play). Each tool owns its arguments, its run and
//! its exit status (src/commands/, one file a tool); this file sets up logging, parses and
//! dispatches.

use std::io::BufReader;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

use sowfan::commands::{
    accuracy, analyse, bench, check, datagen, r#match, perft, play, solve, tablebase, train, tune,
};
use sowfan::{cli, protocol, registry};

#[derive(Parser)]
#[command(
    name = "sowfan",
    version = env!("SOWFAN_VERSION"),
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

/// The tools; each one's help is its arguments' doc comment.
#[derive(Subcommand)]
enum Tool {
    Perft(perft::PerftArgs),
    Bench(bench::BenchArgs),
    Match(r#match::MatchArgs),
    Check(check::CheckArgs),
    Solve(solve::SolveArgs),
    /// Build, check and list endgame tables.
    #[command(subcommand)]
    Tablebase(tablebase::TablebaseCommand),
    Tune(tune::TuneArgs),
    Datagen(datagen::DatagenArgs),
    Train(train::TrainArgs),
    Analyse(sowfan::analyse::AnalyseArgs),
    Accuracy(sowfan::accuracy::AccuracyArgs),
    Play(sowfan::play::PlayArgs),
}

fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn"))
        .target(env_logger::Target::Stderr)
        .init();
    let matches = Cli::command()
        .after_long_help(registry::games_help())
        .get_matches();
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(e) => e.exit(),
    };
    match cli.command {
        None => cli::exit_status(protocol::run(
            BufReader::new(std::io::stdin()),
            protocol::Output::stdout(),
            cli.game.as_deref(),
            cli.tablebases,
        )),
        Some(Tool::Perft(args)) => perft::run(args),
        Some(Tool::Bench(args)) => bench::run(args),
        Some(Tool::Match(args)) => r#match::run(args),
        Some(Tool::Check(args)) => check::run(args),
        Some(Tool::Solve(args)) => solve::run(args),
        Some(Tool::Tablebase(command)) => tablebase::run(command),
        Some(Tool::Tune(args)) => tune::run(args),
        Some(Tool::Datagen(args)) => datagen::run(args),
        Some(Tool::Train(args)) => train::run(args),
        Some(Tool::Analyse(args)) => analyse::run(args),
        Some(Tool::Accuracy(args)) => accuracy::run(args),
        Some(Tool::Play(args)) => play::run(args),
    }
}
