//! The Ludii plug-in's classes that need no Ludii (integrations/ludii: Engine, EngineSupply,
//! Chain, KalahRules, FanoronaRules), compiled and tested with the machine's JDK against this
//! sowfan: an engine that never answers is ended and started once, a missing program is
//! named, Kalah's rules are told apart from random games, Fanorona's chain rule from the
//! steps Ludii offers. The parts that need Ludii run on demand
//! (integrations/ludii/test.sh and perft.sh).

use std::path::Path;
use std::process::Command;

use super::support::BIN;

#[test]
fn plugin_classes_without_ludii() {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("integrations/ludii/unit-test.sh");
    let javac = Command::new("javac").arg("-version").output();
    assert!(
        javac.is_ok_and(|o| o.status.success()),
        "this test compiles Java: install a JDK (javac 11 or newer), as .ci/run does"
    );
    // coreutils' timeout bounds the whole run; the checks' own waits are a few seconds each.
    let out = Command::new("timeout")
        .arg("300")
        .arg("bash")
        .arg(&script)
        .env("SOWFAN_PATH", BIN)
        .output()
        .expect("run integrations/ludii/unit-test.sh");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "unit-test.sh failed ({}):\n{stdout}\n{stderr}",
        out.status
    );
    let last = stdout.lines().last().unwrap_or("");
    let passed: usize = last
        .strip_suffix(" passed, 0 failed")
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no 'N passed, 0 failed' line at the end:\n{stdout}"));
    assert!(passed >= 40, "only {passed} checks ran:\n{stdout}");
    assert!(!stdout.contains("FAIL "), "{stdout}");
}
