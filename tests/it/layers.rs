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
    ("file header", &[("file_header.rs", "file header")]),
    // The learned evaluation's accumulator and network file sit below the contract, which
    // names them (`NetworkFeatures`); the rest of nnue/ is placed further up.
    (
        "network",
        &[
            ("nnue/accumulator.rs", "network"),
            ("nnue/network.rs", "network"),
        ],
    ),
    ("contract", &[("lib.rs", "lib"), ("game/", "game")]),
    (
        "utilities",
        &[
            ("options.rs", "options"),
            ("compositions.rs", "compositions"),
            ("memory.rs", "memory"),
            ("cli.rs", "cli"),
            ("nnue/", "network features"),
            ("text.rs", "text"),
        ],
    ),
    ("games", &[("games/", "games")]),
    ("tables", &[("tables/", "tables")]),
    (
        "search and proof",
        &[
            ("perft/", "perft"),
            ("search/", "search"),
            ("solver/", "solver"),
        ],
    ),
    ("session", &[("session/", "session")]),
    ("registry", &[("registry.rs", "registry")]),
    ("bench", &[("bench/", "bench")]),
    (
        "protocol, engine client, records",
        &[
            ("protocol/", "protocol"),
            ("client/", "client"),
            ("records/", "records"),
            ("openings.rs", "openings"),
            ("nnue/training_data/", "training data"),
        ],
    ),
    (
        "tools",
        &[
            ("match/", "match tool"),
            ("check/", "check tool"),
            ("analyse/", "analyse tool"),
            ("accuracy/", "accuracy tool"),
            ("play/", "play tool"),
            ("tune/", "tune tool"),
            ("tablebase/", "tablebase tool"),
            ("solve/", "solve tool"),
            ("datagen/", "datagen tool"),
            ("nnue/train/", "train tool"),
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
            ("commands/match.rs", "match command"),
            ("commands/check.rs", "check command"),
            ("commands/analyse.rs", "analyse command"),
            ("commands/accuracy.rs", "accuracy command"),
            ("commands/play.rs", "play command"),
            ("commands/tune.rs", "tune command"),
            ("commands/datagen.rs", "datagen command"),
            ("commands/train.rs", "train command"),
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
        // A raw identifier (`r#match`) names the file without its `r#`.
        let stem: Vec<&str> = segments[..len]
            .iter()
            .map(|s| s.strip_prefix("r#").unwrap_or(s))
            .collect();
        let stem = stem.join("/");
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

/// The code of a file with comments, string and char literals blanked out (newlines kept),
/// so that only code is read for paths.
fn code_only(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let blank = |c: char| if c == '\n' { '\n' } else { ' ' };
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        let after_word = i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_');
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    out.push(blank(chars[i]));
                    i += 1;
                }
            }
        } else if c == 'r' && matches!(next, Some('"' | '#')) && !after_word {
            // A raw string, r"…" or r#"…"#; `r#ident` is an identifier.
            let mut j = i + 1;
            let mut hashes = 0;
            while chars.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if chars.get(j) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            j += 1;
            while j < chars.len() {
                if chars[j] == '"' && (1..=hashes).all(|k| chars.get(j + k) == Some(&'#')) {
                    j += 1 + hashes;
                    break;
                }
                out.push(blank(chars[j]));
                j += 1;
            }
            i = j;
        } else if c == '"' {
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                if chars[i] == '\\' {
                    out.push(' ');
                    i += 1;
                }
                if let Some(&ch) = chars.get(i) {
                    out.push(blank(ch));
                }
                i += 1;
            }
            i += 1;
        } else if c == '\'' {
            // A char literal ('x', '\'', '\u{…}'); a lifetime ('a) stays.
            let close = if next == Some('\\') {
                (i + 2..chars.len().min(i + 12)).find(|&k| chars[k] == '\'')
            } else if chars.get(i + 2) == Some(&'\'') {
                Some(i + 2)
            } else {
                None
            };
            match close {
                Some(k) => i = k + 1,
                None => {
                    out.push(c);
                    i += 1;
                }
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// The code of a file without comments, literals and `#[cfg(test)]` items, and the child
/// modules it declares under `#[cfg(test)]`.
fn library_text(text: &str) -> (String, Vec<String>) {
    let code = code_only(text);
    let mut out = String::new();
    let mut test_children = Vec::new();
    let mut lines = code.lines();
    while let Some(line) = lines.next() {
        if line.trim() == "#[cfg(test)]" {
            // Skip the item that follows: `mod x;`, another item ended by `;`, or a braced
            // item to its closing brace.
            let mut depth = 0i32;
            let mut opened = false;
            for next in lines.by_ref() {
                let trimmed = next.trim();
                if !opened
                    && let Some(name) = trimmed.strip_prefix("mod ")
                    && let Some(name) = name.strip_suffix(';')
                {
                    test_children.push(name.trim().to_string());
                    break;
                }
                for ch in next.chars() {
                    match ch {
                        '{' => {
                            depth += 1;
                            opened = true;
                        }
                        '}' => depth -= 1,
                        _ => {}
                    }
                }
                if (opened && depth <= 0) || (!opened && trimmed.ends_with(';')) {
                    break;
                }
            }
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    (out, test_children)
}

/// Ways around a path-reading check: none of them belongs in src/.
const FORBIDDEN: &[(&str, &str)] = &[
    (
        "crate as ",
        "an alias of the crate root hides what it reaches",
    ),
    ("crate::*", "a glob of the crate root imports every module"),
    (
        "#[path",
        "#[path] puts a module where its path does not say",
    ),
    ("include!", "include! pastes code the paths do not show"),
    (
        "extern crate",
        "extern crate (self as …) renames the crate root",
    ),
    (
        "#[macro_export]",
        "an exported macro expands where its paths are not read",
    ),
];

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
                .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':' || c == '#'))
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
        for (pattern, why) in FORBIDDEN {
            if code.contains(pattern) {
                problems.push(format!("{relative}: `{pattern}`: {why}"));
            }
        }
        for path in imports(code, module) {
            if path.first().is_some_and(|s| s == "*") {
                problems.push(format!(
                    "{relative}: a glob of the crate root (`use super::*` at the top, or \
                     `crate::*`) imports every module"
                ));
                continue;
            }
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
    assert_eq!(place("solver/tt.rs").map(|p| p.1), Some("solver"));
    assert_eq!(
        place("solve/frontier_split.rs").map(|p| p.1),
        Some("solve tool")
    );
    // Two command lines are two units of one layer: one may not import the other.
    assert_eq!(
        place("commands/tune.rs").map(|p| p.0),
        place("commands/solve.rs").map(|p| p.0)
    );
    // An upward import is caught: a game naming the registry.
    let (rank, _) = place("games/kalah/mod.rs").expect("placed");
    let (target, _) = place(&file_of(&["registry".to_string()]).expect("file")).expect("placed");
    assert!(target > rank);
    let (code, tests) = library_text(
        "use crate::game::Game;\n#[cfg(test)]\nmod tests {\n    use crate::session::X;\n}\n\
         #[cfg(test)]\nmod more;\n#[cfg(test)]\nuse crate::registry::Y;\nuse crate::tune::Z;\n",
    );
    assert!(
        !code.contains("session") && !code.contains("registry"),
        "{code}"
    );
    assert!(
        code.contains("crate::tune::Z"),
        "an item after a test-only `use` is read: {code}"
    );
    assert_eq!(tests, vec!["more".to_string()]);
    // Literals and comments hide nothing, and nothing is read from them.
    let code = code_only(
        "let a = \"http://x\"; use crate::tune::A;\nlet q = '\"'; use crate::play::B;\n\
         let r = r#\"crate::check::C\"#; // crate::check::D\n/* crate::check::E */ fn f<'a>() {}",
    );
    // (A `use` path is read both as a tree and inline; the checker counts each path once.)
    let found: BTreeSet<String> = imports(&code, &[]).iter().map(|p| p.join("::")).collect();
    let want: BTreeSet<String> = ["tune::A", "play::B"].map(String::from).into();
    assert_eq!(found, want, "{code}");
    assert!(code.contains("<'a>"), "a lifetime is code: {code}");
    // A raw identifier is a module like any other: `r#match` is the file match/mod.rs.
    let code = code_only("use crate::r#match::MatchArgs;\nlet s = crate::r#match::run(c);");
    let found = imports(&code, &["commands".to_string(), "r#match".to_string()]);
    assert_eq!(found.len(), 3, "{found:?}");
    for path in &found {
        assert_eq!(file_of(path).as_deref(), Some("match/mod.rs"), "{found:?}");
    }
    // A glob of the root, from a top-level file, is seen as one.
    let found = imports("use super::*;", &["registry".to_string()]);
    assert!(found.contains(&vec!["*".to_string()]), "{found:?}");
}

#[test]
fn lib_rs_gives_the_same_layers_and_declares_only_modules() {
    let text = std::fs::read_to_string(src().join("lib.rs")).expect("read src/lib.rs");
    // Code: module declarations only, so that nothing re-exported reaches around the layers.
    let (code, _) = library_text(&text);
    let mut declared = BTreeSet::new();
    for line in code.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let name = line
            .strip_prefix("pub mod ")
            .and_then(|l| l.strip_suffix(';'));
        let name = name.unwrap_or_else(|| panic!("src/lib.rs may only declare modules: {line}"));
        declared.insert(name.to_string());
    }
    // The numbered list of the top comment: item k names the modules of layer k.
    let mut items: Vec<String> = Vec::new();
    for line in text.lines().filter_map(|l| l.strip_prefix("//!")) {
        let line = line.trim();
        let numbered = line
            .split_once(". ")
            .filter(|(n, _)| n.parse::<usize>().is_ok());
        match (numbered, items.last_mut()) {
            (Some((_, rest)), _) => items.push(rest.to_string()),
            (None, Some(last)) if !line.is_empty() => {
                last.push(' ');
                last.push_str(line);
            }
            _ => {}
        }
    }
    assert_eq!(
        items.len(),
        LAYERS.len(),
        "src/lib.rs lists {} layers, tests/it/layers.rs {}",
        items.len(),
        LAYERS.len()
    );
    let mut named = BTreeSet::new();
    for (rank, item) in items.iter().enumerate() {
        // Modules are named as links, [`name`]; a raw identifier, which rustdoc cannot link,
        // as code, `r#name`.
        let links = item.split("[`").skip(1);
        let raw = item.split("`r#").skip(1);
        for (link, is_raw) in links.map(|l| (l, false)).chain(raw.map(|r| (r, true))) {
            let name = link.split('`').next().unwrap_or_default();
            let name = if is_raw {
                format!("r#{name}")
            } else {
                name.to_string()
            };
            // A module of a folder that spans layers is named by its path, `nnue::network`.
            let segments: Vec<String> = name.split("::").map(str::to_string).collect();
            let file = file_of(&segments).expect("a module of the crate");
            assert_eq!(
                place(&file).map(|p| p.0),
                Some(rank),
                "src/lib.rs puts `{name}` in layer {} ({}), tests/it/layers.rs does not",
                rank + 1,
                LAYERS[rank].0
            );
            named.insert(segments[0].clone());
        }
    }
    assert_eq!(
        named, declared,
        "every module of src/lib.rs named once in its layer list"
    );
}
