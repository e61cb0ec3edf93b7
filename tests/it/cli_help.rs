//! The command line's help texts, byte for byte: `sowfan --help`, `-h`, and those of every
//! subcommand. The snapshots in fixtures/cli-help/ were taken before the tools' command
//! lines moved into their own modules; they hold the help (and so the accepted arguments,
//! defaults and conflicts each help lists) to what users and scripts already rely on.

use crate::support::run;
use std::path::Path;

const COMMANDS: &[&[&str]] = &[
    &[],
    &["perft"],
    &["bench"],
    &["match"],
    &["check"],
    &["solve"],
    &["tablebase"],
    &["tablebase", "build"],
    &["tablebase", "plan"],
    &["tablebase", "verify"],
    &["tablebase", "info"],
    &["tablebase", "merge"],
    &["tablebase", "bench"],
    &["tune"],
    &["datagen"],
    &["train"],
    &["analyse"],
    &["accuracy"],
    &["play"],
];

#[test]
fn every_help_text_matches_its_snapshot() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/cli-help");
    let mut differences = Vec::new();
    for command in COMMANDS {
        for (flag, kind) in [("--help", "long"), ("-h", "short")] {
            let mut args = command.to_vec();
            args.push(flag);
            let output = run::output(&args);
            assert!(output.status.success(), "sowfan {command:?} {flag} failed");
            let name = std::iter::once("sowfan")
                .chain(command.iter().copied())
                .collect::<Vec<_>>()
                .join("-");
            let path = dir.join(format!("{name}.{kind}.txt"));
            let expected = std::fs::read_to_string(&path).expect("read a help snapshot");
            let actual = String::from_utf8_lossy(&output.stdout);
            if actual != expected {
                differences.push(format!(
                    "{} differs from `sowfan {} {flag}`",
                    path.display(),
                    command.join(" ")
                ));
            }
        }
    }
    assert!(differences.is_empty(), "{}", differences.join("\n"));
}
