//! Names the commit a binary was built from, for `sowfan --version`: `0.1.0 (1cbaa45
//! 2026-12-04)`, or the version alone outside a git checkout (a crate package, a tarball).

use std::process::Command;

fn main() {
    let version = env!("CARGO_PKG_VERSION");
    let commit = Command::new("git")
        .args(["log", "-1", "--format=%h %cs"])
        .output()
        .ok()
        .filter(|out| out.status.success())
        .map(|out| String::from_utf8_lossy(&out.stdout).trim().to_string())
        .filter(|commit| !commit.is_empty());
    let full = match commit {
        Some(commit) => format!("{version} ({commit})"),
        None => version.to_string(),
    };
    println!("cargo:rustc-env=SOWFAN_VERSION={full}");
    // Again when the checkout moves to another commit (the branch's ref, loose or packed).
    for path in [".git/HEAD", ".git/refs/heads", ".git/packed-refs"] {
        if std::path::Path::new(path).exists() {
            println!("cargo:rerun-if-changed={path}");
        }
    }
}
