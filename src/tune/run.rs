//! The work of `sowfan tune`: recorded games read into quiet positions, the weights fitted,
//! the result printed and written. `commands/tune.rs` holds only the entry point.

use std::fmt::Write as _;
use std::path::PathBuf;

use crate::cli::{CancelToken, Interrupted};
use crate::game::EvalTerm;
use crate::registry;
use crate::tune::records::{RecordsError, SampleOptions, SampleSet, SampleStats, read_samples};
use crate::tune::{FitOptions, fit};

/// Fit a game's evaluation weights to recorded games (Texel's method): the logistic
/// loss of the static evaluation against the results of quiet positions.
///
/// Example: sowfan tune kalah --records games.jsonl --iterations 2000
#[derive(Debug, Clone, clap::Args)]
#[command(verbatim_doc_comment)]
pub struct TuneArgs {
    /// The game (and options), as after `newgame`.
    #[arg(value_name = "GAME [KEY=VALUE ...]", required = true)]
    pub game: Vec<String>,
    /// Match records (`sowfan match --records`), one or more.
    #[arg(long, num_args = 1.., value_name = "FILE", required = true)]
    pub records: Vec<PathBuf>,
    /// Full-batch Adam steps.
    #[arg(long, default_value_t = 2000, value_name = "N")]
    pub iterations: usize,
    /// Adam's step size, in hundredths of a point.
    #[arg(long, default_value_t = 1.0, value_name = "R")]
    pub rate: f64,
    /// Seed of the random subset (--max-positions).
    #[arg(long, default_value_t = 1, value_name = "S")]
    pub seed: u64,
    /// Leave out this many plies from the start of each game.
    #[arg(long, default_value_t = 8, value_name = "K")]
    pub skip_plies: usize,
    /// Use at most this many positions (a seeded random subset, drawn as the records are
    /// read: memory holds no more than these).
    #[arg(long, value_name = "N")]
    pub max_positions: Option<usize>,
    /// Write the tuned WEIGHTS constant to this file instead of stdout.
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// Why a tune wrote no weights.
#[derive(Debug, thiserror::Error)]
pub enum TuneError {
    /// Ctrl-C (or SIGTERM) stopped it.
    #[error(transparent)]
    Interrupted(#[from] Interrupted),
    /// Anything else, said as it is shown to the user.
    #[error("{0}")]
    Failed(String),
    /// An output refused before any work (not a regular file, an input, locked).
    #[error(transparent)]
    Output(#[from] crate::cli::OutputError),
}

impl From<String> for TuneError {
    fn from(message: String) -> TuneError {
        TuneError::Failed(message)
    }
}

impl From<RecordsError> for TuneError {
    fn from(error: RecordsError) -> TuneError {
        match error {
            RecordsError::Interrupted(interrupted) => TuneError::Interrupted(interrupted),
            other => TuneError::Failed(other.to_string()),
        }
    }
}

/// The weights in the form of the game's `WEIGHTS` constant.
pub fn source_form(terms: &[EvalTerm], values: &[i32]) -> String {
    let mut text = String::from("pub const WEIGHTS: Weights = Weights {\n");
    for (term, value) in terms.iter().zip(values) {
        let _ = writeln!(text, "    {}: {value},", term.name);
    }
    text.push_str("};\n");
    text
}

pub fn tune(args: &TuneArgs, stop: &CancelToken) -> Result<(), TuneError> {
    let session = registry::create_from_spec(&args.game.join(" ")).map_err(|e| e.to_string())?;
    let name = args.game.first().cloned().unwrap_or_default();
    let terms = session.eval_terms();
    if terms.is_empty() {
        return Err(format!("{name}'s evaluation has no tunable terms").into());
    }
    if args.records.is_empty() {
        return Err(TuneError::Failed(
            "give at least one --records file (from sowfan match --records)".into(),
        ));
    }
    if let Some(output) = &args.output {
        crate::cli::refuse_irregular("--output", output)?;
        let inputs: Vec<(&str, &std::path::Path)> = args
            .records
            .iter()
            .map(|r| ("--records", r.as_path()))
            .collect();
        crate::cli::refuse_output_over_input(("--output", output), &inputs)?;
    }
    // Held until the weights are written: two tunes never race to one file.
    let _lock = args
        .output
        .as_deref()
        .map(|output| crate::cli::OutputLock::file("--output", output, "tune"))
        .transpose()?;
    let options = SampleOptions {
        game: name.clone(),
        skip_plies: args.skip_plies,
    };
    let mut set = SampleSet::new(args.max_positions, args.seed);
    let mut stats = SampleStats::default();
    for path in &args.records {
        read_samples(path, &options, &mut set, &mut stats, stop)?;
    }
    let samples = set.samples;
    println!(
        "Records: {} games of {name} ({} skipped: other games or not ended by the rules), \
         {} positions after ply {}, {} of them quiet; {} used",
        stats.games,
        stats.skipped_games,
        stats.positions,
        args.skip_plies,
        stats.positions - stats.not_quiet,
        samples.len()
    );
    if samples.is_empty() {
        return Err(TuneError::Failed("no positions to learn from".into()));
    }
    let initial: Vec<f64> = terms.iter().map(|t| t.value as f64).collect();
    let fixed: Vec<bool> = terms.iter().map(|t| t.unit).collect();
    let result = fit(
        &samples,
        &initial,
        &fixed,
        &FitOptions {
            iterations: args.iterations,
            rate: args.rate,
        },
        stop,
    )
    .ok_or(Interrupted)?;
    println!(
        "Scale k: {:.4} (p = 1 / (1 + e^(-k * eval / 100)))",
        result.scale
    );
    println!("Loss before: {:.6}", result.loss_before);
    println!("Loss after:  {:.6}", result.loss_after);
    let tuned: Vec<i32> = result.weights.iter().map(|w| w.round() as i32).collect();
    println!("{:<16} {:>8} {:>8}", "weight", "before", "after");
    for ((term, before), after) in terms.iter().zip(&initial).zip(&tuned) {
        println!("{:<16} {:>8} {:>8}", term.name, *before as i32, after);
    }
    let source = source_form(terms, &tuned);
    match &args.output {
        Some(path) => {
            crate::cli::write_atomically(path, source.as_bytes())
                .map_err(|e| format!("cannot write '{}': {e}", path.display()))?;
            println!("Weights written to {}", path.display());
        }
        None => print!("{source}"),
    }
    Ok(())
}
