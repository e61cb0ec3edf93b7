#!/usr/bin/env bash
# The plug-in's classes that need no Ludii (Engine, EngineSupply, Chain, KalahRules,
# FanoronaRules), compiled and tested with a plain JDK (javac, java 11 or newer). `cargo test` runs it
# (tests/it/ludii_plugin.rs) with the sowfan it built.
#
#   SOWFAN_PATH=target/release/sowfan integrations/ludii/unit-test.sh
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
src=$here/src/sowfan/ludii
javac -encoding UTF-8 -Xlint:all -Werror -d "$work" \
    "$src/Engine.java" "$src/EngineSupply.java" "$src/Chain.java" "$src/KalahRules.java" "$src/FanoronaRules.java" \
    "$here/unit/sowfan/ludii/PluginTests.java"
java -cp "$work" sowfan.ludii.PluginTests
