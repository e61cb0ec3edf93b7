//! Names the commit a binary was built from, for `sowfan --version`: `0.1.0 (1cbaa45
//! 2026-12-04)`, or the version alone outside a git checkout (a crate package, a tarball).

use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
        .filter(|s| !s.is_empty())
}

fn main() {
    let version = env!("CARGO_PKG_VERSION");
    let full = match git(&["log", "-1", "--format=%h %cs"]) {
        Some(commit) => {
            let dirty = git(&["status", "--porcelain", "--untracked-files=no"])
                .is_some_and(|s| !s.is_empty());
            format!(
                "{version} ({commit}{})",
                if dirty { ", modified" } else { "" }
            )
        }
        None => version.to_string(),
    };
    println!("cargo:rustc-env=SOWFAN_VERSION={full}");
    // Again when the checkout moves to another commit or its index changes.
    for path in [".git/HEAD", ".git/index", ".git/refs/heads"] {
        if std::path::Path::new(path).exists() {
            println!("cargo:rerun-if-changed={path}");
        }
    }
}
