//! `sowfan solve --frontier D`: a proof split at the positions D plies from the root
//! ([`crate::solver::frontier`]), its size counted, a part run, its parts combined
//! ([`crate::solver::frontier_parts`]).

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use std::time::{Duration, Instant};

use thiserror::Error;

use super::{
    SolveArgs, SolveError, Solved, Ticker, bound_text, load_tables, memory_line, move_value_lines,
    print_lines, solve_threads, spinner,
};
use crate::cli::CancelToken;
use crate::memory::check_hash_mb;
use crate::session::{PositionCommandError, Session, SolveProgress, SolveRequest};
use crate::solver::frontier_parts::{
    self, AnyPart, FrontierPart, MAX_PARTS, read_any, split_indexes,
};
use crate::solver::parts::{
    CombineError, FrontierMismatch, PartFileError, parse_split_up_to, refuse_existing,
};
use crate::solver::tt::SolverTt;

/// The deepest nesting of open positions split again that `--combine` follows.
const MAX_NESTING: usize = 256;

/// Why a part split by `--frontier` cannot run, be kept or be combined.
#[derive(Debug, Error)]
pub enum FrontierSplitError {
    #[error("--part-nodes 0: give a number of nodes of at least 1")]
    NoPartNodes,
    /// A frontier position of this build that the session cannot set up.
    #[error("frontier position {index} '{text}': {error}")]
    Position {
        index: usize,
        text: String,
        error: PositionCommandError,
    },
    #[error(
        "--part-file '{}' holds a part of a proof split by first move: remove it to run the \
         part again, or give a new name",
        path.display()
    )]
    KeptSplitByMove { path: PathBuf },
    #[error("--part-file: {0}: remove it to run the part again, or give a new name")]
    KeptUnreadable(PartFileError),
    #[error(
        "--part-file '{}' {mismatch}: remove it to run the part again, or give a new name",
        path.display()
    )]
    KeptOtherProof {
        path: PathBuf,
        mismatch: FrontierMismatch,
    },
    #[error(
        "--part-file '{}' holds part {}/{} of this proof, not {}/{}: remove it to run the part \
         again, or give a new name",
        path.display(), found.0, found.1, split.0, split.1
    )]
    KeptOtherPart {
        path: PathBuf,
        found: (usize, usize),
        split: (usize, usize),
    },
    /// A part of neither the root nor a position some part left open.
    #[error(
        "part file '{}' is a part of a proof of the position '{found}', not of '{root}' (give \
         the --fen or --moves the parts were run with){}",
        path.display(),
        if *any_open { ", nor of a frontier position a part left open" } else { "" }
    )]
    OtherRoot {
        path: PathBuf,
        found: String,
        root: String,
        any_open: bool,
    },
    #[error(
        "no part file is a part of the proof of '{0}' (give the --fen or --moves the parts \
         were run with, and the parts of the root's split)"
    )]
    NoRootPart(String),
    #[error(
        "--frontier {asked}: part file '{}' is a part of a proof split at depth {depth}",
        path.display()
    )]
    OtherDepth {
        asked: u32,
        path: PathBuf,
        depth: u32,
    },
    #[error(
        "part file '{}' is a part of a proof of the position '{position}', which no part of \
         this proof left open (it was proven there): give the parts of one proof",
        path.display()
    )]
    NotLeftOpen { path: PathBuf, position: String },
    #[error("no part of the position '{0}'")]
    NoPartOf(String),
    #[error(
        "part file '{}' is a part of a proof split at frontier depth {depth}, '{}' at \
         {first_depth}: give the parts of one split",
        path.display(),
        first.display()
    )]
    MixedDepths {
        path: PathBuf,
        depth: u32,
        first: PathBuf,
        first_depth: u32,
    },
    #[error(
        "the parts nest open positions more than {MAX_NESTING} deep: split at a deeper \
         --frontier instead"
    )]
    TooDeep,
    #[error(
        "the open position '{0}' is left open by a part of its own split (a cycle): split it \
         again with a larger --part-nodes"
    )]
    Cycle(String),
    #[error(
        "frontier position {index} of '{root}' was left open (--part-nodes) and no part splits \
         it: run sowfan solve {spec} --fen '{text}' --frontier D --split I/K --part-file ... \
         and give those parts too"
    )]
    OpenUnsplit {
        index: usize,
        root: String,
        spec: String,
        text: String,
    },
    #[error("the open position '{text}': {error}")]
    OpenPosition {
        text: String,
        error: PositionCommandError,
    },
    #[error("the open position '{0}' has no moves")]
    OpenNoMoves(String),
}

/// `--frontier D --frontier-size`: `Frontier: N positions at D plies (M game ends before D)`.
pub(super) fn print_size(
    session: &dyn Session,
    depth: u32,
    stop: &CancelToken,
) -> Result<Solved, SolveError> {
    let frontier = match session.frontier(depth, stop.flag()) {
        Err(_) if stop.is_cancelled() => return Ok(Solved::Interrupted),
        walked => walked?,
    };
    print_lines(&[format!(
        "Frontier: {} positions at {depth} plies ({} game ends before {depth})",
        frontier.positions.len(),
        frontier.ended_before
    )])?;
    Ok(Solved::Complete)
}

/// `--frontier D --split I/K [--part-file FILE]`: prove the exact value of every frontier
/// position of part I of K and write them to FILE. A sound part of this proof already in
/// FILE is kept, and nothing is redone.
pub(super) fn run_part(
    args: &SolveArgs,
    mut session: Box<dyn Session>,
    depth: u32,
    split: &str,
    stop: &CancelToken,
) -> Result<Solved, SolveError> {
    check_hash_mb("--hash", args.hash_mb).map_err(|e| SolveError::Resources(e.to_string()))?;
    let threads = solve_threads(args.threads)?;
    let (i, k) = parse_split_up_to(split, MAX_PARTS)?;
    if args.part_nodes == Some(0) {
        return Err(FrontierSplitError::NoPartNodes.into());
    }
    let frontier = match session.frontier(depth, stop.flag()) {
        Err(_) if stop.is_cancelled() => {
            eprintln!("sowfan solve: stopped while walking the frontier: no part file written");
            return Ok(Solved::Interrupted);
        }
        walked => walked?,
    };
    let (game, root) = (session.spec(), session.fen());
    if let Some(path) = &args.part_file
        && std::fs::symlink_metadata(path).is_ok()
    {
        return kept_part(path, (i, k), &game, &root, depth, &frontier.positions);
    }
    load_tables(args, session.as_mut())?;
    let tt = SolverTt::for_game(args.hash_mb, session.win_draw_loss())?;
    let words = session.win_draw_loss();
    let mine: Vec<usize> = split_indexes(frontier.positions.len(), i, k).collect();
    let request = SolveRequest {
        threads,
        all_moves: false,
        pv: false,
        resume: None,
        resume_optional: false,
        save: None,
        checkpoint: Duration::from_secs(args.checkpoint),
        part: None,
        deadline: None,
        node_limit: args.part_nodes,
    };
    let started = Instant::now();
    let bar = spinner();
    let ticker = Ticker::start(&bar);
    let (mut leaves, mut nodes, mut tbhits) = (Vec::with_capacity(mine.len()), 0, 0);
    let mut stopped = None;
    for (done, &index) in mine.iter().enumerate() {
        let text = &frontier.positions[index - 1];
        let mut at = session.clone_box();
        at.set_position(Some(text), &[])
            .map_err(|error| FrontierSplitError::Position {
                index,
                text: text.clone(),
                error,
            })?;
        let progress = |p: &SolveProgress| {
            bar.set_message(format!(
                "position {} of {} (#{index}): value in [{}, {}]  nodes {}  {:.1} s",
                done + 1,
                mine.len(),
                bound_text(p.lower, words),
                bound_text(p.upper, words),
                nodes + p.nodes,
                started.elapsed().as_secs_f64()
            ));
        };
        let report = at.solve(&request, &tt, stop.flag(), &progress)?;
        nodes += report.nodes;
        tbhits += report.tbhits;
        match report.value() {
            Some(value) => leaves.push((index, Some(value), text.clone())),
            // The budget, not a stop: left open, for a deeper split.
            None if !stop.is_cancelled() && args.part_nodes.is_some() => {
                leaves.push((index, None, text.clone()));
            }
            None => {
                stopped = Some(index);
                break;
            }
        }
    }
    drop(ticker);
    bar.finish_and_clear();
    let millis = started.elapsed().as_millis() as u64;
    let open: Vec<&(usize, Option<i32>, String)> =
        leaves.iter().filter(|l| l.1.is_none()).collect();
    print_lines(&[
        format!(
            "Frontier: {} of the {} positions at {depth} plies proven (part {i}/{k} holds {})",
            leaves.len() - open.len(),
            frontier.positions.len(),
            mine.len()
        ),
        format!("Nodes: {nodes}"),
        format!("Time: {millis} ms"),
        format!("Tbhits: {tbhits}"),
        memory_line(
            &tt,
            session.tables().map(|t| (t.mapped_bytes(), t.in_memory())),
        ),
    ])?;
    if let Some(index) = stopped {
        eprintln!(
            "sowfan solve: stopped while proving frontier position {index}: no part file written"
        );
        return Ok(Solved::Interrupted);
    }
    for (index, _, text) in &open {
        eprintln!(
            "sowfan solve: frontier position {index} outgrew --part-nodes {}: left open; split \
             it with --fen '{text}' --frontier D (the same game and options) and give those \
             parts to --combine too",
            args.part_nodes.unwrap_or(0)
        );
    }
    if let Some(path) = &args.part_file {
        let part = FrontierPart {
            game,
            position: root,
            depth,
            total: frontier.positions.len(),
            split: (i, k),
            leaves,
            nodes,
            tbhits,
            millis,
        };
        if let Err(e) = part.write(path) {
            // Another run of the same part may have finished first: its file is as good.
            return match std::fs::symlink_metadata(path) {
                Ok(_) => kept_part(
                    path,
                    (i, k),
                    &part.game,
                    &part.position,
                    depth,
                    &frontier.positions,
                )
                .map_err(|_| e.into()),
                Err(_) => Err(e.into()),
            };
        }
        eprintln!(
            "sowfan solve: part {i}/{k} ({} of {} frontier positions) written to '{}'",
            mine.len(),
            frontier.positions.len(),
            path.display()
        );
    }
    Ok(Solved::Complete)
}

/// Something is at the --part-file `path` already: a whole, sound part `split` of this
/// proof is kept (nothing to redo, status 0); anything else is named and refused.
fn kept_part(
    path: &Path,
    split: (usize, usize),
    game: &str,
    root: &str,
    depth: u32,
    positions: &[String],
) -> Result<Solved, SolveError> {
    if !std::fs::symlink_metadata(path).is_ok_and(|m| m.is_file()) {
        refuse_existing("--part-file", path)?;
    }
    let part = match read_any(path) {
        Ok(AnyPart::Frontier(part)) => part,
        Ok(AnyPart::Moves(_)) => {
            return Err(FrontierSplitError::KeptSplitByMove {
                path: path.to_path_buf(),
            }
            .into());
        }
        Err(why) => return Err(FrontierSplitError::KeptUnreadable(why).into()),
    };
    part.check(game, root, depth, positions)
        .map_err(|mismatch| FrontierSplitError::KeptOtherProof {
            path: path.to_path_buf(),
            mismatch,
        })?;
    if part.split != split || !part.is_whole() {
        return Err(FrontierSplitError::KeptOtherPart {
            path: path.to_path_buf(),
            found: part.split,
            split,
        }
        .into());
    }
    eprintln!(
        "sowfan solve: part {}/{} is in '{}' already ({} frontier positions proven): \
         nothing to do",
        split.0,
        split.1,
        path.display(),
        part.leaves.len()
    );
    Ok(Solved::Complete)
}

/// `--combine` of parts split by --frontier: checked against the frontier recomputed from
/// the root, then every root move's value, `Value:` and `Best:` printed as --all-moves
/// prints them, with the parts' summed `Nodes:`, `Time:` and `Tbhits:`. A frontier
/// position left open by its part (`--part-nodes`) takes its value from the parts of its
/// own split (their `position:` is it), combined the same way.
pub(super) fn combine(
    args: &SolveArgs,
    session: &dyn Session,
    parts: &[(PathBuf, FrontierPart)],
) -> Result<Solved, SolveError> {
    let (root, spec) = (session.fen(), session.spec());
    if let Some((path, part)) = parts.iter().find(|(_, p)| p.game != spec) {
        return Err(CombineError::OtherGame {
            path: path.clone(),
            found: part.game.clone(),
            game: spec,
        }
        .into());
    }
    // Every part splits the root or a position some part left open.
    let open: HashSet<&str> = parts
        .iter()
        .flat_map(|(_, p)| p.leaves.iter().filter(|l| l.1.is_none()))
        .map(|l| l.2.as_str())
        .collect();
    if let Some((path, part)) = parts
        .iter()
        .find(|(_, p)| p.position != root && !open.contains(p.position.as_str()))
    {
        return Err(FrontierSplitError::OtherRoot {
            path: path.clone(),
            found: part.position.clone(),
            root,
            any_open: !open.is_empty(),
        }
        .into());
    }
    let mut by_root: HashMap<String, Vec<(PathBuf, FrontierPart)>> = HashMap::new();
    for (path, part) in parts {
        by_root
            .entry(part.position.clone())
            .or_default()
            .push((path.clone(), part.clone()));
    }
    let Some(top) = by_root.get(&root) else {
        return Err(FrontierSplitError::NoRootPart(root).into());
    };
    if let Some(asked) = args.frontier
        && let Some((path, part)) = top.iter().find(|(_, p)| p.depth != asked)
    {
        return Err(FrontierSplitError::OtherDepth {
            asked,
            path: path.clone(),
            depth: part.depth,
        }
        .into());
    }
    let mut used = HashSet::new();
    let moves = move_values_at(session, &root, &by_root, &mut used, &mut Vec::new())?;
    if let Some((path, part)) = parts.iter().find(|(_, p)| !used.contains(&p.position)) {
        return Err(FrontierSplitError::NotLeftOpen {
            path: path.clone(),
            position: part.position.clone(),
        }
        .into());
    }
    let mut out = move_value_lines(&moves, session.win_draw_loss());
    // A part given twice (the same file, or a copy) is counted once.
    let mut seen = HashSet::new();
    let distinct: Vec<&FrontierPart> = parts
        .iter()
        .map(|(_, p)| p)
        .filter(|p| {
            seen.insert((
                p.position.clone(),
                p.split,
                p.nodes,
                p.tbhits,
                p.millis,
                p.leaves.len(),
            ))
        })
        .collect();
    let sum = |f: fn(&FrontierPart) -> u64| distinct.iter().map(|p| f(p)).sum::<u64>();
    out.push(format!("Nodes: {}", sum(|p| p.nodes)));
    out.push(format!("Time: {} ms", sum(|p| p.millis)));
    out.push(format!("Tbhits: {}", sum(|p| p.tbhits)));
    print_lines(&out)?;
    Ok(Solved::Complete)
}

/// The value of every legal move of `session`'s position `root`, from the parts
/// `by_root[root]` (and, for the positions they leave open, the parts of those); `used`
/// gathers the roots combined, `chain` the ones being combined (a cycle is refused).
fn move_values_at(
    session: &dyn Session,
    root: &str,
    by_root: &HashMap<String, Vec<(PathBuf, FrontierPart)>>,
    used: &mut HashSet<String>,
    chain: &mut Vec<String>,
) -> Result<Vec<(String, i32)>, SolveError> {
    let no_part = || FrontierSplitError::NoPartOf(root.to_string());
    let parts = by_root.get(root).ok_or_else(no_part)?;
    let Some((first_path, first)) = parts.first() else {
        return Err(no_part().into());
    };
    let depth = first.depth;
    if let Some((path, part)) = parts.iter().find(|(_, p)| p.depth != depth) {
        return Err(FrontierSplitError::MixedDepths {
            path: path.clone(),
            depth: part.depth,
            first: first_path.clone(),
            first_depth: depth,
        }
        .into());
    }
    if chain.len() >= MAX_NESTING {
        return Err(FrontierSplitError::TooDeep.into());
    }
    used.insert(root.to_string());
    chain.push(root.to_string());
    let frontier = session.frontier(depth, CancelToken::new().flag())?;
    let values = frontier_parts::combine(
        &session.spec(),
        root,
        depth,
        &frontier.positions,
        parts,
        &|position, value| session.possible_value(position, value),
    )?;
    let mut known: HashMap<&str, i32> = HashMap::with_capacity(values.len());
    for (index, (text, value)) in frontier.positions.iter().zip(values).enumerate() {
        let value = match value {
            Some(value) => value,
            None => {
                if chain.contains(text) {
                    return Err(FrontierSplitError::Cycle(text.clone()).into());
                }
                if !by_root.contains_key(text) {
                    return Err(FrontierSplitError::OpenUnsplit {
                        index: index + 1,
                        root: root.to_string(),
                        spec: session.spec(),
                        text: text.clone(),
                    }
                    .into());
                }
                let mut at = session.clone_box();
                at.set_position(Some(text), &[]).map_err(|error| {
                    FrontierSplitError::OpenPosition {
                        text: text.clone(),
                        error,
                    }
                })?;
                let moves = move_values_at(at.as_ref(), text, by_root, used, chain)?;
                moves
                    .iter()
                    .map(|&(_, v)| v)
                    .max()
                    .ok_or_else(|| FrontierSplitError::OpenNoMoves(text.clone()))?
            }
        };
        known.insert(text, value);
    }
    chain.pop();
    session
        .frontier_move_values(depth, &|position| known.get(position).copied())
        .map_err(SolveError::FrontierWalk)
}
