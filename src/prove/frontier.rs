//! `sowfan solve --frontier D`: a proof split at the positions D plies from the root
//! ([`crate::solve::frontier`]), its size counted, a part run, its parts combined
//! ([`crate::solve::frontier_parts`]).

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use super::{
    SolveArgs, Solved, Ticker, bound_text, load_tables, memory_line, print_lines, solve_threads,
    spinner,
};
use crate::memory::check_hash_mb;
use crate::session::{Session, SolveProgress, SolveRequest};
use crate::solve::frontier_parts::{
    self, AnyPart, FrontierPart, MAX_PARTS, read_any, split_indexes,
};
use crate::solve::parts::{parse_split_up_to, refuse_existing};
use crate::solve::table::SolveTable;

/// `--frontier D --frontier-size`: `Frontier: N positions at D plies (M game ends before D)`.
pub(super) fn print_size(
    session: &dyn Session,
    depth: u32,
    stop: &AtomicBool,
) -> Result<Solved, String> {
    let frontier = session.frontier(depth, stop)?;
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
    stop: &AtomicBool,
) -> Result<Solved, String> {
    check_hash_mb("--hash", args.hash_mb)?;
    let threads = solve_threads(args.threads)?;
    let (i, k) = parse_split_up_to(split, MAX_PARTS)?;
    let frontier = session.frontier(depth, stop)?;
    let (game, root) = (session.spec(), session.fen());
    if let Some(path) = &args.part_file
        && std::fs::symlink_metadata(path).is_ok()
    {
        return kept_part(path, (i, k), &game, &root, depth, &frontier.positions);
    }
    load_tables(args, session.as_mut())?;
    let tt = SolveTable::for_game(args.hash_mb, session.win_draw_loss())?;
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
            .map_err(|e| format!("frontier position {index} '{text}': {e}"))?;
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
        let report = at.solve(&request, &tt, stop, &progress)?;
        nodes += report.nodes;
        tbhits += report.tbhits;
        match report.value() {
            Some(value) => leaves.push((index, value, text.clone())),
            None => {
                stopped = Some(index);
                break;
            }
        }
    }
    drop(ticker);
    bar.finish_and_clear();
    let millis = started.elapsed().as_millis() as u64;
    print_lines(&[
        format!(
            "Frontier: {} of the {} positions at {depth} plies proven (part {i}/{k} holds {})",
            leaves.len(),
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
        part.write(path)?;
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
    path: &std::path::Path,
    split: (usize, usize),
    game: &str,
    root: &str,
    depth: u32,
    positions: &[String],
) -> Result<Solved, String> {
    let shown = path.display();
    if !std::fs::symlink_metadata(path).is_ok_and(|m| m.is_file()) {
        refuse_existing("--part-file", path)?;
    }
    let remedy = "remove it to run the part again, or give a new name";
    let part = match read_any(path) {
        Ok(AnyPart::Frontier(part)) => part,
        Ok(AnyPart::Moves(_)) => {
            return Err(format!(
                "--part-file '{shown}' holds a part of a proof split by first move: {remedy}"
            ));
        }
        Err(why) => return Err(format!("--part-file: {why}: {remedy}")),
    };
    part.check(game, root, depth, positions)
        .map_err(|why| format!("--part-file '{shown}' {why}: {remedy}"))?;
    if part.split != split || !part.is_whole() {
        return Err(format!(
            "--part-file '{shown}' holds part {}/{} of this proof, not {}/{}: {remedy}",
            part.split.0, part.split.1, split.0, split.1
        ));
    }
    eprintln!(
        "sowfan solve: part {}/{} is in '{shown}' already ({} frontier positions proven): \
         nothing to do",
        split.0,
        split.1,
        part.leaves.len()
    );
    Ok(Solved::Complete)
}

/// `--combine` of parts split by --frontier: checked against the frontier recomputed from
/// the root, then every root move's value, `Value:` and `Best:` printed as --all-moves
/// prints them, with the parts' summed `Nodes:`, `Time:` and `Tbhits:`.
pub(super) fn combine(
    args: &SolveArgs,
    session: &dyn Session,
    parts: &[(PathBuf, FrontierPart)],
) -> Result<Solved, String> {
    let Some((first_path, first)) = parts.first() else {
        return Err("--combine: give the part files".to_string());
    };
    let depth = first.depth;
    if let Some(asked) = args.frontier
        && asked != depth
    {
        return Err(format!(
            "--frontier {asked}: part file '{}' is a part of a proof split at depth {depth}",
            first_path.display()
        ));
    }
    let frontier = session.frontier(depth, &AtomicBool::new(false))?;
    let values = frontier_parts::combine(
        &session.spec(),
        &session.fen(),
        depth,
        &frontier.positions,
        parts,
        &|position, value| session.possible_value(position, value),
    )?;
    let by_position: HashMap<&str, i32> = frontier
        .positions
        .iter()
        .map(String::as_str)
        .zip(values)
        .collect();
    let moves =
        session.frontier_move_values(depth, &|position| by_position.get(position).copied())?;
    let words = session.win_draw_loss();
    let mut out: Vec<String> = moves
        .iter()
        .map(|(mv, v)| format!("{mv}: {}", bound_text(*v, words)))
        .collect();
    let value = moves.iter().map(|&(_, v)| v).max().unwrap_or(0);
    out.push(format!("Value: {}", bound_text(value, words)));
    if let Some((best, _)) = moves.iter().find(|&&(_, v)| v == value) {
        out.push(format!("Best: {best}"));
    }
    // A part given twice (the same file, or a copy) is counted once.
    let mut seen = HashSet::new();
    let distinct: Vec<&FrontierPart> = parts
        .iter()
        .map(|(_, p)| p)
        .filter(|p| seen.insert((p.split, p.nodes, p.tbhits, p.millis, p.leaves.len())))
        .collect();
    let sum = |f: fn(&FrontierPart) -> u64| distinct.iter().map(|p| f(p)).sum::<u64>();
    out.push(format!("Nodes: {}", sum(|p| p.nodes)));
    out.push(format!("Time: {} ms", sum(|p| p.millis)));
    out.push(format!("Tbhits: {}", sum(|p| p.tbhits)));
    print_lines(&out)?;
    Ok(Solved::Complete)
}
