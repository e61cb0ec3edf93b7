//! `sowfan match`: engine-against-engine matches refereed by sowfan's own rules.
//!
//! The runner starts every engine as a child process and speaks the protocol to it (the
//! engine client, [`crate::client`]); a [`Session`] of the game referees every move
//! ([`referee`]). Games run on `--concurrency`
//! worker threads, each with its own engine processes; the main thread collects finished
//! games in the order they end, writes their records, keeps the statistics ([`stats`]) and
//! the progress bar, and stops the match when the SPRT decides.
//!
//! A match may be cut in slices played on several machines (`--slice`, [`config::Slice`]):
//! each plays its share of the rounds, and [`report`] reads every slice's records together.
//!
//! Nothing here knows a game's rules: any game in the registry can be played.

pub mod config;
pub mod referee;
pub mod report;
pub mod resume;
pub mod stats;

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::cli::{CancelToken, Interrupted};
use crate::client::process::{CANCEL_POLL, EngineProcess, Failure};
use crate::game::{GameResult, Player};
use crate::memory::ThreadsError;
use crate::openings::OpeningsError;
use crate::openings::{self, Opening};
use crate::records::{GameRecord, OpeningRecord, RecordFileError, RecordWriter};
use crate::registry::{self, RegistryError};
use crate::session::Session;

use config::{MatchConfig, Slice};
use referee::{Played, Referee, Seat, Termination};
use resume::{Identity, RecordsReadError};
use stats::{SprtVerdict, Tally};

/// One scheduled game.
#[derive(Debug, Clone, Copy)]
struct Job {
    /// From 0, in schedule order.
    number: usize,
    /// Opening index.
    round: usize,
    pairing: usize,
    p1: usize,
    p2: usize,
}

/// What a finished match looked like, for the caller (and tests).
#[derive(Debug, Clone)]
pub struct MatchSummary {
    pub names: Vec<String>,
    pub pairings: Vec<(usize, usize)>,
    pub tallies: Vec<Tally>,
    pub games: usize,
    /// Of `games`, those an earlier run played (`--resume`).
    pub resumed: usize,
    pub terminations: BTreeMap<&'static str, u32>,
    pub sprt: Option<SprtVerdict>,
    /// Cancelled (Ctrl-C) before every game was played.
    pub interrupted: bool,
    pub elapsed: Duration,
}

/// Why a match could not be played, or stopped: each text is what the user is shown.
#[derive(Debug, thiserror::Error)]
pub enum MatchError {
    #[error("--slice needs --records: the report over all slices reads every slice's records")]
    SliceWithoutRecords,
    #[error("--resume needs --records, the file to go on from")]
    ResumeWithoutRecords,
    #[error("--game: {0}")]
    Game(RegistryError),
    #[error("a match needs at least two --engine")]
    TooFewEngines,
    #[error("--games must be at least 1")]
    NoGames,
    /// `--concurrency` refused (`memory::check_threads` says why).
    #[error("{0}")]
    Concurrency(ThreadsError),
    #[error("--sprt needs exactly two engines")]
    SprtEngines,
    #[error(transparent)]
    Openings(#[from] OpeningsError),
    /// An engine's program could not be run at all (its message says why).
    #[error("engine {number} ({command}): {message}")]
    NotStarted {
        number: usize,
        command: String,
        message: String,
    },
    /// Ctrl-C while the engines were started.
    #[error(transparent)]
    Interrupted(#[from] Interrupted),
    #[error("interrupted before the first game")]
    InterruptedBeforeFirstGame,
    /// The records or PGN file: opened, or written after a game (the match then stopped).
    #[error(transparent)]
    Records(#[from] RecordFileError),
    /// `--resume`: the records file is not this match's.
    #[error(transparent)]
    Resume(#[from] RecordsReadError),
}

/// Play the match, printing progress and the final summary to stdout. Cancelling `cancel`
/// (Ctrl-C) stops it as when the SPRT decides: games in flight are abandoned and their
/// engines stopped, finished games keep their records, and the summary of the finished
/// games is printed.
pub fn run(config: &MatchConfig, cancel: &CancelToken) -> Result<MatchSummary, MatchError> {
    if config.slice.is_some() && config.records.is_none() {
        return Err(MatchError::SliceWithoutRecords);
    }
    let Prepared {
        base,
        game_spec,
        pairings,
        openings,
        names,
        jobs,
        identities,
    } = prepare(config, cancel, config.slice.map(|s| s.count))?;
    if config.resume && config.records.is_none() {
        return Err(MatchError::ResumeWithoutRecords);
    }
    // Opened (and locked) before a resumed file is read: no other match changes it between.
    let mut writer = RecordWriter::open(
        config.records.as_deref(),
        config.pgn.as_deref(),
        config.resume,
    )?;
    let earlier = match (&config.records, config.resume) {
        (Some(path), true) => {
            let found = resume::read_records(path, &identities, config.slice)?;
            writer.rewrite_pgn(found.iter().map(|(_, record)| record))?;
            found.into_iter().map(|(game, _)| game).collect()
        }
        _ => Vec::new(),
    };

    println!(
        "Match: {game_spec}, {} games per pairing, {} pairing{}, seed {}, concurrency {}",
        config.games,
        pairings.len(),
        if pairings.len() == 1 { "" } else { "s" },
        config.seed,
        config.concurrency
    );
    for (i, (spec, name)) in config.engines.iter().zip(&names).enumerate() {
        println!(
            "Engine {}: {name} ({}) {}",
            i + 1,
            spec.command_line(),
            spec.limits.describe()
        );
    }

    let mut standings = Standings::new(pairings.len());
    let mut played_before = vec![false; jobs.len()];
    for game in &earlier {
        played_before[game.index] = true;
        standings.add(&pairings, &jobs[game.index], game.result, game.termination);
    }
    let pending: Vec<usize> = (0..jobs.len())
        .filter(|&i| !played_before[i])
        .filter(|&i| config.slice.is_none_or(|slice| slice.plays(jobs[i].round)))
        .collect();
    // A slice plays its whole share: the SPRT is decided by the report over all slices.
    let sprt = config.sprt.as_ref().filter(|_| config.slice.is_none());
    let mut verdict = sprt.and_then(|sprt| stats::sprt_verdict(&standings.tallies[0], sprt));
    if let Some(slice) = config.slice {
        let share = jobs.iter().filter(|job| slice.plays(job.round)).count();
        println!(
            "Slice {slice}: {share} of the match's {} games (its rounds r, from 0, with r mod \
             {} = {}){}",
            jobs.len(),
            slice.count,
            slice.index - 1,
            if config.sprt.is_some() {
                "; the SPRT over all slices is the report's (--report)"
            } else {
                ""
            }
        );
    }
    if let Some(path) = config.records.as_ref().filter(|_| config.resume) {
        println!(
            "Resumed from {}: {} games played, {} to play{}",
            path.display(),
            earlier.len(),
            pending.len(),
            if verdict.is_some() {
                "; the SPRT has decided"
            } else {
                ""
            }
        );
    }
    let pending: &[usize] = if verdict.is_some() { &[] } else { &pending };

    // A bar on stderr (hidden when stderr is not a terminal) with the running score.
    let progress = crate::cli::progress_bar(
        pending.len() as u64,
        "{bar:30.cyan/blue} {pos}/{len} games {msg} [{elapsed_precise} < {eta}]",
    );
    // The match's own stop: raised by the SPRT's decision, a records file that cannot be
    // written, or `cancel`; every engine of every game in flight watches it.
    let stop = CancelToken::new();
    let next = AtomicUsize::new(0);
    let started = Instant::now();
    let mut write_error = None;

    std::thread::scope(|scope| {
        let (tx, rx) = mpsc::channel::<(usize, Option<Played>)>();
        let workers = config.concurrency.min(pending.len());
        for index in 0..workers {
            let tx = tx.clone();
            let base = base.clone_box();
            let queue = Queue {
                jobs: &jobs,
                pending,
                next: &next,
            };
            let (openings, stop, game_spec) = (&openings, &stop, game_spec.as_str());
            let spawned = std::thread::Builder::new()
                .name(format!("match-worker-{index}"))
                .spawn_scoped(scope, move || {
                    work(config, base, game_spec, queue, openings, stop, tx)
                });
            if let Err(e) = spawned {
                eprintln!("sowfan match: cannot start worker thread {index}: {e}");
            }
        }
        drop(tx);
        while let Some((index, played)) = next_finished(&rx, &stop, cancel) {
            let Some(played) = played else { continue };
            let job = jobs[index];
            let record = make_record(
                identities[index].clone(),
                &job,
                &openings[job.round].source,
                &played,
            );
            if let Err(failure) = writer.write(&record) {
                let recorded = failure.recorded;
                write_error.get_or_insert(failure.error);
                stop.cancel();
                if !recorded {
                    // Not in the records: not counted (a resume would play it again).
                    continue;
                }
            }
            standings.add(&pairings, &job, played.result, played.termination);
            if config.show_games {
                progress.suspend(|| {
                    println!(
                        "Finished game {} ({} vs {}): {} {{{}}}",
                        job.number + 1,
                        names[job.p1],
                        names[job.p2],
                        record.score,
                        played.reason
                    )
                });
            }
            progress.inc(1);
            if pairings.len() == 1 {
                progress.set_message(running_score(&standings.tallies[0]));
            }
            if let Some(sprt) = sprt
                && verdict.is_none()
            {
                verdict = stats::sprt_verdict(&standings.tallies[0], sprt);
                if verdict.is_some() {
                    stop.cancel();
                }
            }
        }
    });
    progress.finish_and_clear();
    let summary = MatchSummary {
        names,
        pairings,
        tallies: standings.tallies,
        games: standings.games,
        resumed: earlier.len(),
        terminations: standings.terminations,
        sprt: verdict,
        interrupted: cancel.is_cancelled(),
        elapsed: started.elapsed(),
    };
    print_summary(config, &summary);
    if let Some(e) = write_error {
        return Err(e.into());
    }
    Ok(summary)
}

/// What a match is, before a game is played: its game, pairings, openings, engines' names,
/// schedule and the identity of every game's record.
struct Prepared {
    base: Box<dyn Session>,
    game_spec: String,
    pairings: Vec<(usize, usize)>,
    openings: Vec<Opening>,
    names: Vec<String>,
    jobs: Vec<Job>,
    identities: Vec<Identity>,
}

/// The match `config` describes, checked; `slices` is the number of slices it is cut in
/// (`--slice`, or the report's), which every record names.
fn prepare(
    config: &MatchConfig,
    cancel: &CancelToken,
    slices: Option<usize>,
) -> Result<Prepared, MatchError> {
    let base = registry::create_from_spec(&config.game).map_err(MatchError::Game)?;
    let game_spec = base.spec();
    let start_fen = base.start_fen();
    let engines = config.engines.len();
    if engines < 2 {
        return Err(MatchError::TooFewEngines);
    }
    if config.games == 0 {
        return Err(MatchError::NoGames);
    }
    crate::memory::check_threads("--concurrency", config.concurrency)
        .map_err(MatchError::Concurrency)?;
    if config.sprt.is_some() && engines != 2 {
        return Err(MatchError::SprtEngines);
    }
    let pairings = config::pairings(engines, config.tournament);
    let rounds = config.games.div_ceil(2);
    let openings = openings::build(
        config.openings.as_ref(),
        base.as_ref(),
        rounds,
        config.seed,
        config.concurrency,
        cancel,
    )?;
    // A report starts no engine that has a name= (the machine reading the records may not
    // have the engines).
    let names = resolve_names(config, cancel, !config.report.is_empty())?;
    if cancel.is_cancelled() {
        return Err(MatchError::InterruptedBeforeFirstGame);
    }
    let jobs = schedule(&pairings, config.games);
    // What each game's record says of where and between whom it is played.
    let identities: Vec<Identity> = jobs
        .iter()
        .map(|job| {
            let mut identity = identity(config, &game_spec, &start_fen, &names, job, &openings);
            identity.sliced = slices.map(|count| resume::Sliced {
                slice: Slice::of_round(job.round, count),
                seed: config.seed,
                games: config.games,
            });
            identity
        })
        .collect();
    Ok(Prepared {
        base,
        game_spec,
        pairings,
        openings,
        names,
        jobs,
        identities,
    })
}

/// The statistics of the finished games, as they come in.
struct Standings {
    /// One per pairing.
    tallies: Vec<Tally>,
    /// The first engine's points in the game of a (pairing, round) whose other game has not
    /// ended yet.
    half_pairs: HashMap<(usize, usize), f64>,
    terminations: BTreeMap<&'static str, u32>,
    games: usize,
}

impl Standings {
    fn new(pairings: usize) -> Standings {
        Standings {
            tallies: vec![Tally::default(); pairings],
            half_pairs: HashMap::new(),
            terminations: BTreeMap::new(),
            games: 0,
        }
    }

    fn add(
        &mut self,
        pairings: &[(usize, usize)],
        job: &Job,
        result: GameResult,
        termination: Termination,
    ) {
        self.games += 1;
        *self.terminations.entry(termination.as_str()).or_default() += 1;
        let (a, _) = pairings[job.pairing];
        let points_a = points_of(job, a, result);
        let tally = &mut self.tallies[job.pairing];
        match points_a {
            p if p > 0.75 => tally.wins += 1,
            p if p < 0.25 => tally.losses += 1,
            _ => tally.draws += 1,
        }
        if let Some(first) = self.half_pairs.remove(&(job.pairing, job.round)) {
            tally.pentanomial[((first + points_a) * 2.0).round() as usize] += 1;
        } else {
            self.half_pairs.insert((job.pairing, job.round), points_a);
        }
    }
}

/// The games still to play: `pending` holds indices into `jobs`, taken in order through
/// `next` by every worker.
#[derive(Clone, Copy)]
struct Queue<'a> {
    jobs: &'a [Job],
    pending: &'a [usize],
    next: &'a AtomicUsize,
}

impl Queue<'_> {
    fn take(&self) -> Option<(usize, Job)> {
        let index = *self
            .pending
            .get(self.next.fetch_add(1, Ordering::Relaxed))?;
        Some((index, self.jobs[index]))
    }
}

/// The next game a worker sends (`None` once every worker is done). While it waits, a
/// cancelled `cancel` (Ctrl-C) raises `stop`, which the workers, their referees and their
/// engines watch: within [`CANCEL_POLL`], as often as the engines' waits look.
fn next_finished(
    results: &mpsc::Receiver<(usize, Option<Played>)>,
    stop: &CancelToken,
    cancel: &CancelToken,
) -> Option<(usize, Option<Played>)> {
    loop {
        match results.recv_timeout(CANCEL_POLL) {
            Ok(finished) => return Some(finished),
            Err(mpsc::RecvTimeoutError::Timeout) => {
                if cancel.is_cancelled() {
                    stop.cancel();
                }
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => return None,
        }
    }
}

/// A worker: takes the next game off the schedule until there is none (or the match stops),
/// keeping one process per engine between games.
fn work(
    config: &MatchConfig,
    base: Box<dyn Session>,
    game_spec: &str,
    queue: Queue,
    openings: &[Opening],
    stop: &CancelToken,
    results: mpsc::Sender<(usize, Option<Played>)>,
) {
    let referee = Referee {
        base: base.as_ref(),
        game_spec,
        ready_timeout: config.ready_timeout,
        move_timeout: config.move_timeout,
        max_plies: config.max_plies,
        stop,
    };
    let mut processes: Vec<Option<EngineProcess>> = config.engines.iter().map(|_| None).collect();
    while !stop.is_cancelled() {
        let Some((index, job)) = queue.take() else {
            break;
        };
        let (p1_process, p2_process) = two_mut(&mut processes, job.p1, job.p2);
        let mut seats = [
            Seat {
                spec: &config.engines[job.p1],
                process: p1_process,
                needs_restart: false,
            },
            Seat {
                spec: &config.engines[job.p2],
                process: p2_process,
                needs_restart: false,
            },
        ];
        let played = referee::play(&referee, &openings[job.round], &mut seats);
        for seat in seats {
            if seat.needs_restart || seat.spec.restart {
                // Dropping the process kills it; the next game starts a fresh one.
                if let Some(process) = seat.process.take() {
                    process.quit(Duration::from_millis(100));
                }
            }
        }
        if results.send((index, played)).is_err() {
            break;
        }
    }
    // A stopped match (Ctrl-C) must end within a second: little grace for `quit` then.
    let grace = if stop.is_cancelled() {
        Duration::from_millis(100)
    } else {
        Duration::from_millis(500)
    };
    for process in processes.into_iter().flatten() {
        process.quit(grace);
    }
}

/// Two different elements of a slice, both mutable.
fn two_mut<T>(items: &mut [T], a: usize, b: usize) -> (&mut T, &mut T) {
    assert_ne!(a, b, "an engine cannot play itself in one seat pair");
    if a < b {
        let (left, right) = items.split_at_mut(b);
        (&mut left[a], &mut right[0])
    } else {
        let (left, right) = items.split_at_mut(a);
        (&mut right[0], &mut left[b])
    }
}

/// Rounds in order; within a round, each pairing plays the round's opening twice, the second
/// time with colours swapped (unless `games` is odd and this is the last round): first every
/// pairing's first game, then every pairing's second, so that the schedule of `games` is
/// the start of the schedule of more (`--resume` with `--games` raised).
fn schedule(pairings: &[(usize, usize)], games: usize) -> Vec<Job> {
    let mut jobs = Vec::new();
    for round in 0..games.div_ceil(2) {
        for k in 0..2 {
            if 2 * round + k >= games {
                continue;
            }
            for (pairing, &(a, b)) in pairings.iter().enumerate() {
                let (p1, p2) = if k == 0 { (a, b) } else { (b, a) };
                jobs.push(Job {
                    number: jobs.len(),
                    round,
                    pairing,
                    p1,
                    p2,
                });
            }
        }
    }
    jobs
}

/// Engine names: `name=`, else the engine's `id name`, else the program's file name; made
/// unique with `#<n>`. Starting each engine once here also checks its command before the
/// match begins (`cancel` ends it).
/// With `named_only`, an engine with a `name=` is not started.
fn resolve_names(
    config: &MatchConfig,
    cancel: &CancelToken,
    named_only: bool,
) -> Result<Vec<String>, MatchError> {
    let mut names: Vec<String> = Vec::new();
    for (i, spec) in config.engines.iter().enumerate() {
        if named_only && let Some(name) = &spec.name {
            let mut name = name.clone();
            if names.contains(&name) {
                name = format!("{name} #{}", i + 1);
            }
            names.push(name);
            continue;
        }
        let program_name = std::path::Path::new(&spec.program)
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_else(|| spec.program.clone());
        let id_name = match EngineProcess::start(spec, config.ready_timeout, cancel.clone()) {
            Ok(process) => {
                let id_name = process.id_name.clone();
                process.quit(Duration::from_millis(500));
                id_name
            }
            // A program that cannot run at all is a mistake in the command line.
            Err(Failure::NotStarted(message)) => {
                return Err(MatchError::NotStarted {
                    number: i + 1,
                    command: spec.command_line(),
                    message,
                });
            }
            Err(Failure::Cancelled) => return Err(Interrupted.into()),
            // One that starts but misbehaves plays, and loses its games by forfeit.
            Err(failure) => {
                eprintln!(
                    "sowfan match: warning: engine {} ({}) failed its handshake: {}; its games \
                     will show it",
                    i + 1,
                    spec.command_line(),
                    failure.message()
                );
                None
            }
        };
        let mut name = spec.name.clone().or(id_name).unwrap_or(program_name);
        if names.contains(&name) {
            name = format!("{name} #{}", i + 1);
        }
        names.push(name);
    }
    Ok(names)
}

/// Points of `engine` in a game of `job` ending in `result`.
fn points_of(job: &Job, engine: usize, result: GameResult) -> f64 {
    let seat = if job.p1 == engine {
        Player::P1
    } else {
        Player::P2
    };
    match result.winner() {
        None => 0.5,
        Some(winner) if winner == seat => 1.0,
        Some(_) => 0.0,
    }
}

/// What the record of `job` must say about where and between whom it was played.
fn identity(
    config: &MatchConfig,
    game_spec: &str,
    start_fen: &str,
    names: &[String],
    job: &Job,
    openings: &[Opening],
) -> Identity {
    let opening = &openings[job.round];
    Identity {
        game: game_spec.to_string(),
        p1: names[job.p1].clone(),
        p2: names[job.p2].clone(),
        p1_limits: config.engines[job.p1].limits.describe(),
        p2_limits: config.engines[job.p2].limits.describe(),
        fen: opening.fen.clone().unwrap_or_else(|| start_fen.to_string()),
        opening_moves: opening.moves.clone(),
        max_plies: config.max_plies,
        sliced: None,
    }
}

/// The record of `job`, which is `identity`, played from the opening of `source`.
fn make_record(identity: Identity, job: &Job, source: &str, played: &Played) -> GameRecord {
    GameRecord {
        number: job.number + 1,
        round: job.round + 1,
        slice: identity.sliced.map(|sliced| sliced.slice.to_string()),
        seed: identity.sliced.map(|sliced| sliced.seed),
        match_games: identity.sliced.map(|sliced| sliced.games),
        game: identity.game,
        p1: Some(identity.p1),
        p2: Some(identity.p2),
        p1_limits: identity.p1_limits,
        p2_limits: identity.p2_limits,
        opening: OpeningRecord {
            source: source.to_string(),
            fen: Some(identity.fen),
            moves: identity.opening_moves,
        },
        max_plies: Some(identity.max_plies),
        moves: played.moves.clone(),
        result: Some(played.result.as_str().to_string()),
        score: match played.result {
            GameResult::P1Win => "1-0",
            GameResult::P2Win => "0-1",
            GameResult::Draw => "1/2-1/2",
        }
        .to_string(),
        termination: Some(played.termination.as_str().to_string()),
        reason: Some(played.reason.clone()),
        points: played.points.map(|p| [p[0].to_string(), p[1].to_string()]),
        final_fen: played.final_fen.clone(),
        duration_ms: played.duration.as_millis() as u64,
    }
}

fn running_score(tally: &Tally) -> String {
    let mut text = format!(
        "{} - {} - {}  [{:.3}]",
        tally.wins,
        tally.losses,
        tally.draws,
        tally.score().unwrap_or(0.5)
    );
    if let Some(e) = tally.elo() {
        text.push_str(&format!(
            "  Elo {} +/- {}",
            stats::format_elo(e.elo),
            stats::format_elo(e.error)
        ));
    }
    text
}

fn print_summary(config: &MatchConfig, summary: &MatchSummary) {
    println!();
    if summary.interrupted {
        println!("Match interrupted: the games in flight were abandoned; finished games follow.");
    }
    // A slice's own games decide nothing: its summary has no SPRT line.
    print_results(
        config.sprt.as_ref().filter(|_| config.slice.is_none()),
        summary,
    );
    let minutes = summary.elapsed.as_secs_f64() / 60.0;
    let terminations: Vec<String> = summary
        .terminations
        .iter()
        .map(|(name, count)| format!("{name} {count}"))
        .collect();
    let played_now = summary.games - summary.resumed;
    let earlier = if summary.resumed > 0 {
        format!(" ({} before --resume, {played_now} now)", summary.resumed)
    } else {
        String::new()
    };
    println!(
        "Games: {}{earlier} in {:.1} s ({:.1} games/minute); ended by: {}",
        summary.games,
        summary.elapsed.as_secs_f64(),
        played_now as f64 / minutes.max(1e-9),
        if terminations.is_empty() {
            "-".to_string()
        } else {
            terminations.join(", ")
        }
    );
    if let Some(path) = &config.records {
        println!("Records: {}", path.display());
    }
}

/// The score, Elo, pentanomial and SPRT lines of every pairing, and the ranking when more
/// than two engines play: the summary a match prints at its end, and a report over its
/// slices alike.
fn print_results(sprt: Option<&config::SprtSpec>, summary: &MatchSummary) {
    for (tally, &(a, b)) in summary.tallies.iter().zip(&summary.pairings) {
        let score = tally.score().unwrap_or(0.5);
        println!(
            "Score of {} vs {}: {} - {} - {}  [{:.3}] {}",
            summary.names[a],
            summary.names[b],
            tally.wins,
            tally.losses,
            tally.draws,
            score,
            tally.games()
        );
        if let Some(e) = tally.elo() {
            let draw_ratio = tally.draws as f64 / tally.games().max(1) as f64;
            println!(
                "Elo difference: {} +/- {}, LOS: {:.1} %, DrawRatio: {:.1} %",
                stats::format_elo(e.elo),
                stats::format_elo(e.error),
                e.los * 100.0,
                draw_ratio * 100.0
            );
        }
        let p = tally.pentanomial;
        println!(
            "Ptnml(0-2): [{}, {}, {}, {}, {}]  ({} game pair{})",
            p[0],
            p[1],
            p[2],
            p[3],
            p[4],
            tally.pairs(),
            if tally.pairs() == 1 { "" } else { "s" }
        );
        if let Some(sprt) = sprt {
            let llr = tally.llr(sprt);
            let (lower, upper) = stats::sprt_bounds(sprt);
            let verdict = match summary.sprt {
                Some(SprtVerdict::H1) => " - H1 was accepted",
                Some(SprtVerdict::H0) => " - H0 was accepted",
                None => "",
            };
            println!(
                "SPRT: llr {llr:.2} ({:.1}%), lbound {lower:.2}, ubound {upper:.2}{verdict} \
                 (elo0 {}, elo1 {}, alpha {}, beta {})",
                100.0 * llr / upper,
                sprt.elo0,
                sprt.elo1,
                sprt.alpha,
                sprt.beta
            );
        }
    }
    if summary.names.len() > 2 {
        print_standings(summary);
    }
}

/// Every engine's results against the field, best first.
fn print_standings(summary: &MatchSummary) {
    let mut per_engine = vec![Tally::default(); summary.names.len()];
    for (tally, &(a, b)) in summary.tallies.iter().zip(&summary.pairings) {
        per_engine[a].wins += tally.wins;
        per_engine[a].losses += tally.losses;
        per_engine[a].draws += tally.draws;
        per_engine[b].wins += tally.losses;
        per_engine[b].losses += tally.wins;
        per_engine[b].draws += tally.draws;
    }
    let mut order: Vec<usize> = (0..per_engine.len()).collect();
    order.sort_by(|&x, &y| {
        let sx = per_engine[x].score().unwrap_or(0.0);
        let sy = per_engine[y].score().unwrap_or(0.0);
        sy.total_cmp(&sx)
    });
    let width = summary
        .names
        .iter()
        .map(|n| n.len())
        .max()
        .unwrap_or(4)
        .max(4);
    println!();
    println!("Rank {:width$}    Elo    +/-  Games  Score   Draw", "Name");
    for (rank, &i) in order.iter().enumerate() {
        let t = &per_engine[i];
        let (elo, error) = t
            .elo()
            .map(|e| (stats::format_elo(e.elo), stats::format_elo(e.error)))
            .unwrap_or(("-".to_string(), "-".to_string()));
        println!(
            "{:>4} {:width$} {:>6} {:>6} {:>6} {:>5.1}% {:>5.1}%",
            rank + 1,
            summary.names[i],
            elo,
            error,
            t.games(),
            t.score().unwrap_or(0.0) * 100.0,
            t.draws as f64 * 100.0 / t.games().max(1) as f64
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schedules_pair_each_opening_with_colours_swapped() {
        let jobs = schedule(&[(0, 1)], 5);
        let shape: Vec<(usize, usize, usize)> =
            jobs.iter().map(|j| (j.round, j.p1, j.p2)).collect();
        assert_eq!(
            shape,
            vec![(0, 0, 1), (0, 1, 0), (1, 0, 1), (1, 1, 0), (2, 0, 1)]
        );
        let jobs = schedule(&config::pairings(3, config::TournamentKind::RoundRobin), 2);
        let shape: Vec<(usize, usize, usize)> =
            jobs.iter().map(|j| (j.pairing, j.p1, j.p2)).collect();
        assert_eq!(
            shape,
            vec![
                (0, 0, 1),
                (1, 0, 2),
                (2, 1, 2),
                (0, 1, 0),
                (1, 2, 0),
                (2, 2, 1)
            ]
        );
        assert!(jobs.iter().enumerate().all(|(i, j)| j.number == i));
        // Every schedule is the start of a longer one: a match's --games may be raised.
        for pairings in [
            config::pairings(2, config::TournamentKind::RoundRobin),
            config::pairings(3, config::TournamentKind::RoundRobin),
            config::pairings(4, config::TournamentKind::Gauntlet),
        ] {
            let longest = schedule(&pairings, 9);
            for games in 1..9 {
                let shorter = schedule(&pairings, games);
                let shape = |jobs: &[Job]| -> Vec<(usize, usize, usize, usize)> {
                    jobs.iter()
                        .map(|j| (j.round, j.pairing, j.p1, j.p2))
                        .collect()
                };
                assert_eq!(shape(&shorter), shape(&longest[..shorter.len()]), "{games}");
            }
        }
    }

    #[test]
    fn points_follow_the_seat() {
        let job = Job {
            number: 0,
            round: 0,
            pairing: 0,
            p1: 3,
            p2: 5,
        };
        assert_eq!(points_of(&job, 3, GameResult::P1Win), 1.0);
        assert_eq!(points_of(&job, 5, GameResult::P1Win), 0.0);
        assert_eq!(points_of(&job, 5, GameResult::P2Win), 1.0);
        assert_eq!(points_of(&job, 3, GameResult::Draw), 0.5);
        let mut items = [1, 2, 3];
        let (x, y) = two_mut(&mut items, 2, 0);
        std::mem::swap(x, y);
        assert_eq!(items, [3, 2, 1]);
    }
}
