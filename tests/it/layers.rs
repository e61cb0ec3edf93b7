//! The crate's layers, kept one-way: every `crate::…` and `super::…` path in src/ (in `use`
//! trees and inline) must lead to a module of a lower layer, or stay inside its own unit. No
//! circle, no import that points up, none sideways between two units of one layer (two tools,
//! say). Unit tests inside src/ (`#[cfg(test)]` modules and files) are left out: they are not
//! part of the library's build and may use whatever makes a rule easy to state.
//!
//! The order is the one src/lib.rs's top comment gives. A new file must be given its place
//! here, which is the point: where a module sits is decided, not drifted into.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Bottom to top: (layer, [(path under src/, unit)]). A path ending in `/` covers its folder;
/// the longest matching path decides.
const LAYERS: &[(&str, &[(&str, &str)])] = &[
    ("contract", &[("lib.rs", "lib"), ("game.rs", "game")]),
    (
        "utilities",
        &[
            ("options.rs", "options"),
            ("compositions.rs", "compositions"),
            ("memory.rs", "memory"),
            ("cli.rs", "cli"),
        ],
    ),
    ("games", &[("games/", "games")]),
    ("tables", &[("tablebase/", "tablebase")]),
    (
        "search and proof",
        &[
            ("perft/", "perft"),
            ("search/", "search"),
            ("solve/", "solve"),
        ],
    ),
    (
        "session",
        &[("session.rs", "session"), ("session/", "session")],
    ),
    ("registry", &[("registry.rs", "registry")]),
    ("bench", &[("bench/", "bench")]),
    (
        "protocol, engine client, records",
        &[
            ("protocol/", "protocol"),
            ("client/", "client"),
            ("records/", "records"),
            ("openings.rs", "openings"),
        ],
    ),
    (
        "tools",
        &[
            ("tournament/", "match tool"),
            ("check/", "check tool"),
            ("analysis/", "analyse tool"),
            ("play/", "play tool"),
            ("tune/", "tune tool"),
        ],
    ),
    (
        "command lines",
        &[
            ("commands/mod.rs", "commands"),
            ("commands/perft.rs", "perft command"),
            ("commands/bench.rs", "bench command"),
            ("commands/solve.rs", "solve command"),
            ("commands/tablebase.rs", "tablebase command"),
            ("commands/tournament.rs", "match command"),
            ("commands/check.rs", "check command"),
            ("commands/analyse.rs", "analyse command"),
            ("commands/play.rs", "play command"),
            ("commands/tune.rs", "tune command"),
        ],
    ),
    ("main", &[("main.rs", "main")]),
];

/// A file's layer (index into LAYERS) and unit, by the longest matching path.
fn place(relative: &str) -> Option<(usize, &'static str)> {
    let mut best: Option<(usize, usize, &'static str)> = None;
    for (rank, (_, entries)) in LAYERS.iter().enumerate() {
        for &(path, unit) in *entries {
            let matches = if path.ends_with('/') {
                relative.starts_with(path)
            } else {
                relative == path
            };
            if matches && best.is_none_or(|(len, _, _)| path.len() > len) {
                best = Some((path.len(), rank, unit));
            }
        }
    }
    best.map(|(_, rank, unit)| (rank, unit))
}

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .expect("read src")
        .map(|e| e.expect("entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The module path of a file: `search/tt.rs` → [search, tt]; `search/mod.rs` → [search].
fn module_of(relative: &str) -> Vec<String> {
    let trimmed = relative.trim_end_matches(".rs");
    let mut parts: Vec<String> = trimmed.split('/').map(str::to_string).collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts
}

/// The file under src/ that holds module path `segments` (or the longest prefix of it that
/// is a module: the rest are items).
fn file_of(segments: &[String]) -> Option<String> {
    for len in (0..=segments.len()).rev() {
        let stem = segments[..len].join("/");
        let candidates = if len == 0 {
            vec!["lib.rs".to_string()]
        } else {
            vec![format!("{stem}.rs"), format!("{stem}/mod.rs")]
        };
        for candidate in candidates {
            if src().join(&candidate).is_file() {
                return Some(candidate);
            }
        }
    }
    None
}

/// The text of a file without comments, string literals and `#[cfg(test)]` items, and the
/// child modules it declares under `#[cfg(test)]`.
fn library_text(text: &str) -> (String, Vec<String>) {
    let mut out = String::new();
    let mut test_children = Vec::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let trimmed = line.trim();
        if trimmed == "#[cfg(test)]" {
            // Skip the item that follows: `mod x;` or a braced item.
            let mut depth = 0i32;
            let mut opened = false;
            for next in lines.by_ref() {
                let code = strip_comment(next);
                if !opened
                    && let Some(name) = code.trim().strip_prefix("mod ")
                    && let Some(name) = name.strip_suffix(';')
                {
                    test_children.push(name.trim().to_string());
                    break;
                }
                depth += code.matches('{').count() as i32 - code.matches('}').count() as i32;
                opened |= code.contains('{');
                if opened && depth <= 0 {
                    break;
                }
            }
            continue;
        }
        out.push_str(&strip_strings(strip_comment(line)));
        out.push('\n');
    }
    (out, test_children)
}

fn strip_comment(line: &str) -> &str {
    match line.find("//") {
        Some(i) => &line[..i],
        None => line,
    }
}

fn strip_strings(line: &str) -> String {
    let mut out = String::new();
    let mut in_string = false;
    let mut escaped = false;
    for c in line.chars() {
        if in_string {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
        } else if c == '"' {
            in_string = true;
        } else {
            out.push(c);
        }
    }
    out
}

/// Expand a `use` tree (`crate::{a::b, c::{d, e}}`) into its paths.
fn expand(tree: &str) -> Vec<String> {
    // `path as alias`: the alias is not part of the path.
    let tree: String = tree
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .replace(" as ", " as#");
    let tree: String = tree.chars().filter(|c| !c.is_whitespace()).collect();
    let Some(open) = tree.find('{') else {
        let end = tree.find("as#").unwrap_or(tree.len());
        return vec![tree[..end].to_string()];
    };
    let prefix = &tree[..open];
    let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
    let mut parts = Vec::new();
    let mut depth = 0;
    let mut start = 0;
    for (i, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&inner[start..]);
    parts
        .into_iter()
        .filter(|p| !p.is_empty())
        .flat_map(|p| expand(&format!("{prefix}{p}")))
        .collect()
}

/// Every `crate::…` / `super::…` path the code names, as module segments from the root.
fn imports(code: &str, module: &[String]) -> Vec<Vec<String>> {
    let mut paths = Vec::new();
    // `use` trees (possibly over several lines).
    let mut rest = code;
    while let Some(i) = rest.find("use ") {
        let before = rest[..i].chars().last();
        rest = &rest[i + 4..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let end = rest.find(';').unwrap_or(rest.len());
        paths.extend(expand(&rest[..end]));
    }
    // Inline paths.
    for start in ["crate::", "super::"] {
        let mut rest = code;
        while let Some(i) = rest.find(start) {
            let before = rest[..i].chars().last();
            let tail = &rest[i..];
            let len = tail
                .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                .unwrap_or(tail.len());
            if !before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                paths.push(tail[..len].to_string());
            }
            rest = &tail[start.len()..];
        }
    }
    paths
        .into_iter()
        .filter_map(|path| {
            let segments: Vec<&str> = path.split("::").filter(|s| !s.is_empty()).collect();
            let (base, tail): (Vec<String>, &[&str]) = match *segments.first()? {
                "crate" => (Vec::new(), &segments[1..]),
                "super" => {
                    let mut base = module.to_vec();
                    let mut tail = &segments[..];
                    while tail.first() == Some(&"super") {
                        base.pop()?;
                        tail = &tail[1..];
                    }
                    (base, tail)
                }
                _ => return None,
            };
            let mut full = base;
            full.extend(tail.iter().map(|s| s.to_string()));
            Some(full)
        })
        .collect()
}

#[test]
fn every_import_points_down_or_stays_in_its_unit() {
    let root = src();
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    let mut test_files = BTreeSet::new();
    let mut sources = Vec::new();
    for path in &files {
        let relative = path
            .strip_prefix(&root)
            .expect("under src")
            .to_string_lossy()
            .replace('\\', "/");
        let text = std::fs::read_to_string(path).expect("read a source file");
        let (code, test_children) = library_text(&text);
        let module = module_of(&relative);
        for child in test_children {
            let mut segments = module.clone();
            segments.push(child);
            let stem = segments.join("/");
            test_files.insert(format!("{stem}.rs"));
            test_files.insert(format!("{stem}/mod.rs"));
        }
        sources.push((relative, module, code));
    }
    let mut problems = Vec::new();
    let mut unplaced = Vec::new();
    for (relative, module, code) in &sources {
        if test_files.contains(relative) {
            continue;
        }
        let Some((rank, unit)) = place(relative) else {
            unplaced.push(relative.clone());
            continue;
        };
        let mut seen = BTreeSet::new();
        for path in imports(code, module) {
            let Some(target) = file_of(&path) else {
                problems.push(format!(
                    "{relative}: cannot resolve crate path {}",
                    path.join("::")
                ));
                continue;
            };
            if !seen.insert(target.clone()) || target == *relative {
                continue;
            }
            let Some((target_rank, target_unit)) = place(&target) else {
                unplaced.push(target.clone());
                continue;
            };
            let up = target_rank > rank;
            let sideways = target_rank == rank && target_unit != unit;
            if up || sideways {
                problems.push(format!(
                    "{relative} ({}: {unit}) imports {target} ({}: {target_unit}) via {}: {}",
                    LAYERS[rank].0,
                    LAYERS[target_rank].0,
                    path.join("::"),
                    if up { "points up" } else { "sideways" }
                ));
            }
        }
    }
    unplaced.sort();
    unplaced.dedup();
    assert!(
        unplaced.is_empty(),
        "files without a layer (give them one in tests/it/layers.rs and src/lib.rs): {unplaced:?}"
    );
    assert!(
        problems.is_empty(),
        "imports against the layers:\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_checker_sees_what_it_must() {
    let module = vec!["commands".to_string(), "solve".to_string()];
    let found = imports(
        "use crate::{game::value_text, session::{SolveProgress, SolveRequest}};\n\
         use super::tune::TuneArgs;\nuse crate::search::{self as s, tt::X as Y};\nlet x = crate::registry::create(a);",
        &module,
    );
    let found: Vec<String> = found.iter().map(|p| p.join("::")).collect();
    for expected in [
        "game::value_text",
        "session::SolveProgress",
        "session::SolveRequest",
        "commands::tune::TuneArgs",
        "search::self",
        "search::tt::X",
        "registry::create",
    ] {
        assert!(
            found.iter().any(|f| f == expected),
            "{expected} not in {found:?}"
        );
    }
    assert_eq!(
        place("commands/solve.rs").map(|p| p.1),
        Some("solve command")
    );
    assert_eq!(place("solve/table.rs").map(|p| p.1), Some("solve"));
    // Two command lines are two units of one layer: one may not import the other.
    assert_eq!(
        place("commands/tune.rs").map(|p| p.0),
        place("commands/solve.rs").map(|p| p.0)
    );
    // An upward import is caught: a game naming the registry.
    let (rank, _) = place("games/kalah.rs").expect("placed");
    let (target, _) = place(&file_of(&["registry".to_string()]).expect("file")).expect("placed");
    assert!(target > rank);
    let (code, tests) = library_text(
        "use crate::game::Game;\n#[cfg(test)]\nmod tests {\n    use crate::session::X;\n}\n#[cfg(test)]\nmod more;\n",
    );
    assert!(!code.contains("session"), "{code}");
    assert_eq!(tests, vec!["more".to_string()]);
}
