//! `sowfan match --report R1 R2 ...`: the summary of a match cut in slices (`--slice I/K`,
//! each played on its own machine), from the records files of its slices.
//!
//! The report is given the slices' command line without `--slice` and `--records`: it
//! builds the same schedule and openings from the same seed, and checks every record
//! against it as `--resume` does (the game, the engines' names and limits, the opening,
//! `--max-plies`), and against the slice, seed and `--games` that a slice's records say.
//! The number of slices K is read from the records. Files are only read, never changed: a
//! slice still running appends to its file while the report reads it, and a last line
//! without a newline is taken as a record being written (left out, said).
//!
//! The counts are those the match played whole keeps: a game whose pair's other game is
//! not in counts in the score but not in the pentanomial counts; so when every slice is
//! complete, the report's score, Elo, pentanomial and SPRT lines are the whole match's.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::cli::CancelToken;

use super::config::{MatchConfig, Slice, SliceError};
use super::resume::{Reader, RecordLineError, RecordsReadError, Seen};
use super::stats::{self, SprtVerdict};
use super::{MatchError, MatchSummary, Prepared, Standings, prepare, print_results};

/// Why the report could not be made; the texts name the file and say what to do.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error("--report needs the records files of the slices")]
    NoFiles,
    #[error(
        "--report reads the slices' records and plays nothing: give the slices' command line \
         without --slice, --records, --resume"
    )]
    Plays,
    #[error(
        "--report: '{}' is given twice ('{}'): give each slice's file once",
        file.display(),
        earlier.display()
    )]
    Twice { file: PathBuf, earlier: PathBuf },
    #[error("--report: '{}': the first record's slice: {source}", file.display())]
    FirstSlice { file: PathBuf, source: SliceError },
    #[error(
        "--report: '{}' holds games of a match played whole (its first record, game {number}, \
         says no slice): the report reads the records of the slices of a match played with \
         --slice I/K",
        file.display()
    )]
    Unsliced { file: PathBuf, number: usize },
    /// The match the command line describes.
    #[error(transparent)]
    Match(#[from] MatchError),
    /// A records file that is not this match's slices'.
    #[error(transparent)]
    Records(#[from] RecordsReadError),
}

/// Where a match cut in slices stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReportState {
    /// The SPRT has decided over the games in: the slices still running can be cancelled.
    Decided(SprtVerdict),
    /// Every game of the schedule is in (and no SPRT decided, or none was asked).
    Complete,
    /// Games are still to come and nothing is decided.
    Running,
}

/// What the report found (it is printed too).
#[derive(Debug, Clone)]
pub struct Report {
    pub state: ReportState,
    /// Games in the records, of `scheduled`.
    pub games: usize,
    pub scheduled: usize,
    pub summary: MatchSummary,
}

/// Read every slice's records (`config.report`), check them against the match `config`
/// describes, and print the match's summary over the games in. `Err` names the file and
/// line that is wrong and what to do; nothing is written.
pub fn run(config: &MatchConfig, cancel: &CancelToken) -> Result<Report, ReportError> {
    let files: Vec<&Path> = config.report.iter().map(|p| p.as_path()).collect();
    if files.is_empty() {
        return Err(ReportError::NoFiles);
    }
    if config.slice.is_some() || config.resume || config.records.is_some() {
        return Err(ReportError::Plays);
    }
    for (i, file) in files.iter().enumerate() {
        let same =
            |other: &&&Path| match (std::fs::canonicalize(file), std::fs::canonicalize(other)) {
                (Ok(a), Ok(b)) => a == b,
                _ => *file == **other,
            };
        if let Some(earlier) = files[..i].iter().find(same) {
            return Err(ReportError::Twice {
                file: file.to_path_buf(),
                earlier: earlier.to_path_buf(),
            });
        }
    }
    // The number of slices, from the first record of the first file that has one.
    let looking = Reader {
        what: "--report",
        schedule: &[],
        only: None,
        files: &files,
    };
    let mut count = None;
    for (i, file) in files.iter().enumerate() {
        let Some(record) = looking.first_record(i)? else {
            continue;
        };
        let slice = match record.slice.as_deref() {
            Some(text) => Slice::parse(text).map_err(|source| ReportError::FirstSlice {
                file: file.to_path_buf(),
                source,
            })?,
            None => {
                return Err(ReportError::Unsliced {
                    file: file.to_path_buf(),
                    number: record.number,
                });
            }
        };
        count = Some(slice.count);
        break;
    }
    let Prepared {
        game_spec,
        pairings,
        names,
        jobs,
        identities,
        ..
    } = prepare(config, cancel, Some(count.unwrap_or(1)))?;
    let reader = Reader {
        what: "--report",
        schedule: &identities,
        only: None,
        files: &files,
    };
    let mut seen: Vec<Seen> = vec![None; identities.len()];
    let mut standings = Standings::new(pairings.len());
    // Of each slice: the file that holds it and its games in.
    let mut holder: HashMap<Slice, usize> = HashMap::new();
    let mut games_in: HashMap<Slice, usize> = HashMap::new();
    let mut notes = Vec::new();
    for file in 0..files.len() {
        let mut file_slice: Option<Slice> = None;
        let cut = reader.scan(file, &mut seen, |game, _record| {
            let job = &jobs[game.index];
            // `count` is known: this file has a record.
            let slice = Slice::of_round(job.round, count.unwrap_or(1));
            match file_slice {
                None => {
                    if let Some(&other) = holder.get(&slice) {
                        return Err(RecordLineError::SliceTwice {
                            slice,
                            other: files[other].to_path_buf(),
                        });
                    }
                    holder.insert(slice, file);
                    file_slice = Some(slice);
                }
                Some(mine) if mine != slice => {
                    return Err(RecordLineError::MixedSlices {
                        number: game.index + 1,
                        slice,
                        mine,
                    });
                }
                Some(_) => {}
            }
            *games_in.entry(slice).or_default() += 1;
            standings.add(&pairings, job, game.result, game.termination);
            Ok(())
        })?;
        if cut.is_some() {
            notes.push(format!(
                "'{}' ends in a line without a newline (a record being written, or cut off): \
                 read up to its last whole line",
                files[file].display()
            ));
        }
        if file_slice.is_none() {
            notes.push(format!("'{}' holds no game yet", files[file].display()));
        }
    }

    let scheduled = jobs.len();
    let games = standings.games;
    let verdict = config
        .sprt
        .as_ref()
        .and_then(|sprt| stats::sprt_verdict(&standings.tallies[0], sprt));
    let state = match verdict {
        Some(verdict) => ReportState::Decided(verdict),
        None if games == scheduled => ReportState::Complete,
        None => ReportState::Running,
    };

    println!(
        "Report: {game_spec}, {} games per pairing, {} pairing{}, seed {}, {}",
        config.games,
        pairings.len(),
        if pairings.len() == 1 { "" } else { "s" },
        config.seed,
        match count {
            Some(count) => format!("{count} slice{}", if count == 1 { "" } else { "s" }),
            None => "no record yet".to_string(),
        }
    );
    for note in &notes {
        println!("Note: {note}");
    }
    println!(
        "Games: {games} of {scheduled}{}",
        slices_line(count, &jobs_per_slice(&jobs, count), &games_in, &holder)
    );
    let summary = MatchSummary {
        names,
        pairings,
        tallies: standings.tallies,
        games,
        resumed: games,
        terminations: standings.terminations,
        sprt: verdict,
        interrupted: false,
        elapsed: std::time::Duration::ZERO,
    };
    println!();
    print_results(config.sprt.as_ref(), &summary);
    if let Some(sprt) = &config.sprt {
        let llr = summary.tallies[0].llr(sprt);
        let (lower, upper) = stats::sprt_bounds(sprt);
        println!(
            "{}",
            match verdict {
                Some(SprtVerdict::H1) => format!(
                    "SPRT: H1 accepted (LLR {llr:.2} ≥ {upper:.2}): the remaining slices can be \
                     cancelled"
                ),
                Some(SprtVerdict::H0) => format!(
                    "SPRT: H0 accepted (LLR {llr:.2} ≤ {lower:.2}): the remaining slices can be \
                     cancelled"
                ),
                None if games == scheduled => format!(
                    "SPRT: no decision after every game of the schedule (LLR {llr:.2} between \
                     {lower:.2} and {upper:.2})"
                ),
                None => format!(
                    "SPRT: running (LLR {llr:.2} between {lower:.2} and {upper:.2}): {} games \
                     to come",
                    scheduled - games
                ),
            }
        );
    }
    let terminations: Vec<String> = summary
        .terminations
        .iter()
        .map(|(name, count)| format!("{name} {count}"))
        .collect();
    println!(
        "Ended by: {}",
        if terminations.is_empty() {
            "-".to_string()
        } else {
            terminations.join(", ")
        }
    );
    println!(
        "Status: {}",
        match state {
            ReportState::Decided(_) => "decided (exit status 0)",
            ReportState::Complete => "complete (exit status 0)",
            ReportState::Running => "running (exit status 3)",
        }
    );
    Ok(Report {
        state,
        games,
        scheduled,
        summary,
    })
}

/// The games of each slice's share, by slice index (from 1; `count` slices, one when not
/// known).
fn jobs_per_slice(jobs: &[super::Job], count: Option<usize>) -> Vec<usize> {
    let count = count.unwrap_or(1);
    let mut share = vec![0; count + 1];
    for job in jobs {
        share[Slice::of_round(job.round, count).index] += 1;
    }
    share
}

/// ` (slices 1-3 complete; 4 running or stopped; 5 no file)`, or nothing before the first
/// record.
fn slices_line(
    count: Option<usize>,
    share: &[usize],
    games_in: &HashMap<Slice, usize>,
    holder: &HashMap<Slice, usize>,
) -> String {
    let Some(count) = count else {
        return String::new();
    };
    let (mut complete, mut running, mut missing) = (Vec::new(), Vec::new(), Vec::new());
    for (index, &share) in share.iter().enumerate().skip(1) {
        let slice = Slice { index, count };
        let have = games_in.get(&slice).copied().unwrap_or(0);
        if have == share {
            complete.push(index);
        } else if holder.contains_key(&slice) {
            running.push(index);
        } else {
            missing.push(index);
        }
    }
    let mut parts = Vec::new();
    for (list, what) in [
        (complete, "complete"),
        (running, "running or stopped"),
        (missing, "not given (or no game yet)"),
    ] {
        if !list.is_empty() {
            parts.push(format!("{} {what}", ranges(&list)));
        }
    }
    format!(" (slices {})", parts.join("; "))
}

/// `1-3,5,7-8` for [1, 2, 3, 5, 7, 8] (sorted, distinct).
fn ranges(numbers: &[usize]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < numbers.len() {
        let mut j = i;
        while j + 1 < numbers.len() && numbers[j + 1] == numbers[j] + 1 {
            j += 1;
        }
        parts.push(if j > i + 1 {
            format!("{}-{}", numbers[i], numbers[j])
        } else if j == i + 1 {
            format!("{},{}", numbers[i], numbers[j])
        } else {
            numbers[i].to_string()
        });
        i = j + 1;
    }
    parts.join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slices_are_listed_as_ranges() {
        assert_eq!(ranges(&[1, 2, 3, 5, 7, 8]), "1-3,5,7,8");
        assert_eq!(ranges(&[4]), "4");
        assert_eq!(ranges(&[]), "");
        let share = vec![0, 2, 2, 2, 1];
        let one = |index| Slice { index, count: 4 };
        let games_in: HashMap<Slice, usize> = [(one(1), 2), (one(3), 1)].into();
        let holder: HashMap<Slice, usize> = [(one(1), 0), (one(3), 1)].into();
        assert_eq!(
            slices_line(Some(4), &share, &games_in, &holder),
            " (slices 1 complete; 3 running or stopped; 2,4 not given (or no game yet))"
        );
        assert_eq!(slices_line(None, &share, &games_in, &holder), "");
    }
}
