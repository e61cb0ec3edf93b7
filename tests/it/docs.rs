//! The documentation cannot go stale: every relative link in the Markdown files resolves (the
//! file, and the heading an anchor names), and README.md's examples run. Each ```sh block
//! of the README runs in turn in one empty folder, with this build's `sowfan` first on the
//! PATH; the ```text block after it (before the next ```sh) is what it must print, line by
//! line in order, where `...` stands for any lines and a line ending in `...` for any line
//! that begins so. `examples/` scripts are run by `examples_run`.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::BIN;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The Markdown files of the project (not of fetched or built things).
fn markdown_files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for dir in ["", "docs", "docs/results", "integrations/ludii", "examples"] {
        let Ok(entries) = std::fs::read_dir(root().join(dir)) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.extension().is_some_and(|e| e == "md") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

fn anchors(text: &str) -> Vec<String> {
    let mut fenced = false;
    let mut out = Vec::new();
    for line in text.lines() {
        if line.starts_with("```") {
            fenced = !fenced;
        } else if !fenced && line.starts_with('#') {
            out.push(slug(line.trim_start_matches('#')));
        }
    }
    out
}

/// `[text](target)` links outside code, with their line numbers.
fn links(text: &str) -> Vec<(usize, String)> {
    let mut fenced = false;
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        let mut rest = line;
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let Some(end) = after.find(')') else { break };
            out.push((n + 1, after[..end].to_string()));
            rest = &after[end..];
        }
    }
    out
}

#[test]
fn every_relative_link_in_the_docs_resolves() {
    let files = markdown_files();
    assert!(files.len() >= 10, "{files:?}");
    let mut broken = Vec::new();
    let mut checked = 0;
    for file in &files {
        let text = std::fs::read_to_string(file).expect("read");
        for (line, target) in links(&text) {
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            checked += 1;
            let (path, anchor) = target.split_once('#').unwrap_or((&target, ""));
            let resolved = if path.is_empty() {
                file.clone()
            } else {
                file.parent().expect("a folder").join(path)
            };
            let at = format!("{}:{line}: ({target})", file.display());
            if !resolved.exists() {
                broken.push(format!("{at}: no {}", resolved.display()));
                continue;
            }
            if !anchor.is_empty() {
                let headings = std::fs::read_to_string(&resolved)
                    .map(|t| anchors(&t))
                    .unwrap_or_default();
                if !headings.iter().any(|h| h == anchor) {
                    broken.push(format!(
                        "{at}: no heading '#{anchor}' in {}",
                        resolved.display()
                    ));
                }
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
    assert!(checked >= 30, "only {checked} links checked");
}

/// The README's ```sh blocks, each with the ```text block that follows it (if any).
fn examples(text: &str) -> Vec<(String, Option<String>)> {
    let mut blocks: Vec<(String, String)> = Vec::new();
    let mut current: Option<(String, String)> = None;
    for line in text.lines() {
        match &mut current {
            Some((kind, body)) => {
                if line.starts_with("```") {
                    blocks.push((kind.clone(), body.clone()));
                    current = None;
                } else {
                    body.push_str(line);
                    body.push('\n');
                }
            }
            None => {
                if let Some(kind) = line.strip_prefix("```") {
                    current = Some((kind.trim().to_string(), String::new()));
                }
            }
        }
    }
    let mut out: Vec<(String, Option<String>)> = Vec::new();
    for (kind, body) in blocks {
        match kind.as_str() {
            "sh" => out.push((body, None)),
            "text" => {
                if let Some(last) = out.last_mut()
                    && last.1.is_none()
                {
                    last.1 = Some(body);
                }
            }
            _ => {}
        }
    }
    out
}

/// Whether `output` shows `expected`'s lines in order (`...` any lines; `x...` a line
/// beginning with `x`).
fn shows(output: &str, expected: &str) -> Result<(), String> {
    let lines: Vec<&str> = output.lines().collect();
    let mut at = 0;
    let mut skipping = false;
    for want in expected.lines() {
        if want == "..." {
            skipping = true;
            continue;
        }
        let matches = |line: &str| match want.strip_suffix("...") {
            Some(prefix) => line.starts_with(prefix),
            None => line == want,
        };
        loop {
            let Some(line) = lines.get(at) else {
                return Err(format!("'{want}' not found"));
            };
            at += 1;
            if matches(line) {
                break;
            }
            if !skipping {
                return Err(format!("'{want}' expected, '{line}' found"));
            }
        }
        skipping = false;
    }
    if !skipping && at < lines.len() {
        return Err(format!("more output than shown: '{}'", lines[at]));
    }
    Ok(())
}

fn path_with_sowfan() -> String {
    let bin = Path::new(BIN).parent().expect("the binary's folder");
    format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

#[test]
fn readme_examples_run_and_print_what_they_show() {
    let readme = std::fs::read_to_string(root().join("README.md")).expect("README");
    let examples = examples(&readme);
    assert!(examples.len() >= 4, "{examples:?}");
    let dir = crate::support::fresh_dir("readme-examples");
    for (script, expected) in examples {
        let out = Command::new("timeout")
            .args(["300", "bash", "-euo", "pipefail", "-c", &script])
            .current_dir(&dir)
            .env("PATH", path_with_sowfan())
            .output()
            .expect("bash");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{script}failed ({}):\n{stdout}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        if let Some(expected) = expected
            && let Err(e) = shows(&stdout, &expected)
        {
            panic!("{script}printed:\n{stdout}\nnot what the README shows:\n{expected}({e})");
        }
    }
}

#[test]
fn examples_run() {
    let dir = root().join("examples");
    let mut scripts: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("examples/")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "sh" || e == "py"))
        .collect();
    scripts.sort();
    assert!(scripts.len() >= 4, "{scripts:?}");
    let work = crate::support::fresh_dir("examples");
    for script in scripts {
        let runner = if script.extension().is_some_and(|e| e == "py") {
            "python3"
        } else {
            "bash"
        };
        let out = Command::new("timeout")
            .arg("300")
            .arg(runner)
            .arg(&script)
            .current_dir(&work)
            .env("PATH", path_with_sowfan())
            .output()
            .expect("run an example");
        assert!(
            out.status.success(),
            "{} failed ({}):\n{}\n{}",
            script.display(),
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            !out.stdout.is_empty(),
            "{} printed nothing",
            script.display()
        );
    }
}

/// The project's paths named in a text (`tests/it/kalah.rs`, `fixtures/perft/kalah.txt`):
/// words that begin with one of its top folders and end in the name of a file the project
/// writes by hand (not a built one, such as a `.jar`). A path inside another
/// (`../shared/rules/kalah.md`) is another project's and not taken.
fn named_paths(text: &str) -> Vec<String> {
    const FOLDERS: [&str; 7] = [
        "src/",
        "tests/",
        "fixtures/",
        "docs/",
        "integrations/",
        "examples/",
        "benches/",
    ];
    const SOURCES: [&str; 11] = [
        "rs", "md", "txt", "java", "json", "jsonl", "toml", "sh", "py", "lud", "pgn",
    ];
    text.split(|c: char| !(c.is_ascii_alphanumeric() || "_./-".contains(c)))
        .map(|word| word.trim_end_matches('.'))
        .filter(|word| FOLDERS.iter().any(|f| word.starts_with(f)))
        .filter(|word| {
            let name = word.rsplit('/').next().unwrap_or("");
            name.rsplit_once('.')
                .is_some_and(|(_, extension)| SOURCES.contains(&extension))
        })
        .map(str::to_string)
        .collect()
}

/// Comments name the tests behind a fixture's numbers, and the docs name files: each of
/// those files exists (a renamed test file left the perft fixtures naming files that were
/// gone).
#[test]
fn every_file_the_docs_and_fixtures_name_exists() {
    let mut texts = markdown_files();
    for dir in ["fixtures/perft", "fixtures/solved", "fixtures/games/afrika"] {
        for entry in std::fs::read_dir(root().join(dir))
            .expect("a fixtures folder")
            .flatten()
        {
            texts.push(entry.path());
        }
    }
    let mut missing = Vec::new();
    let mut checked = 0;
    for file in &texts {
        let Ok(text) = std::fs::read_to_string(file) else {
            continue;
        };
        for path in named_paths(&text) {
            checked += 1;
            // From the project's root, or from the naming file's folder (a plug-in's README).
            let beside = file.parent().expect("a folder").join(&path);
            if !root().join(&path).exists() && !beside.exists() {
                missing.push(format!("{}: names {path}", file.display()));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "files named but not there:\n{}",
        missing.join("\n")
    );
    assert!(checked >= 50, "only {checked} paths checked");
}

#[test]
fn named_paths_are_the_projects_own() {
    let text = "see tests/it/kalah.rs, (fixtures/perft/kalah.txt) and src/games/ but not \
                ../shared/rules/kalah.md nor shared/fixtures/x.txt nor src/x.jar; docs/a.md.";
    assert_eq!(
        named_paths(text),
        ["tests/it/kalah.rs", "fixtures/perft/kalah.txt", "docs/a.md"]
    );
}

/// protocol.md's `setoption` table lists exactly the engine's options, in the order `uci`
/// gives them, each with the type, default and range it is declared with
/// (`sowfan::protocol::engine_options::ENGINE_OPTIONS`): the docs cannot drift from the
/// engine.
#[test]
fn protocol_md_option_table_is_the_declared_options() {
    use sowfan::protocol::engine_options::{ENGINE_OPTIONS, Kind};

    let text = std::fs::read_to_string(root().join("protocol.md")).expect("read protocol.md");
    let section = text
        .split("### `setoption name <name> [value <value>]`")
        .nth(1)
        .expect("protocol.md has a setoption section");
    let documented: Vec<Vec<String>> = section
        .lines()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .skip(2) // the header and its rule
        .map(|row| {
            row.split('|')
                .skip(1)
                .take(4)
                .map(|cell| cell.trim().to_string())
                .collect()
        })
        .collect();
    let code = |text: &str| format!("`{text}`");
    let list = |values: &[&str]| {
        values
            .iter()
            .map(|v| code(v))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let declared: Vec<Vec<String>> = ENGINE_OPTIONS
        .iter()
        .map(|option| {
            let default = option.default_text();
            let range = match option.kind {
                Kind::Spin(spin) => code(&format!("{}..{}", spin.min, spin.max)),
                Kind::Check { .. } => list(&["true", "false"]),
                Kind::Combo { vars, .. } => list(&vars.names()),
                Kind::Text { .. } | Kind::Button { .. } => String::new(),
            };
            vec![
                code(option.name),
                option.type_name().to_string(),
                if default.is_empty() {
                    default
                } else {
                    code(&default)
                },
                range,
            ]
        })
        .collect();
    assert_eq!(
        documented, declared,
        "protocol.md's setoption table (name, type, default, range)"
    );
}
