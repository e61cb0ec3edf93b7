#!/usr/bin/env bash
# The headless test of the sowfan AI in Ludii (run on demand; CI has no Ludii).
#
#   integrations/ludii/test.sh LUDII_JAR_OR_CLASSES [--games N] [--sowfan-seconds S]
#       [--ludii-seconds S] [--game-limit SECONDS] [--only kalah-4,...] [--opponents Alpha-Beta,UCT]
#
# Builds the AI against the given Ludii (build.sh), then plays complete games through Ludii's
# own trial loop: sowfan against Ludii's built-in AIs (Alpha-Beta and UCT in turn), both
# colours, 10 games each by default, for Kalah with 4, 5 and 6 seeds, Fanorona on the
# Telo, Dimy and Tsivy boards, and this folder's Afrika.lud and Anywoli.lud. Every move either side returns is checked by Ludii's legality
# check, every game must end by Ludii's rules within --game-limit seconds (default 900), and a
# second sowfan process referees every turn and prints where its rules and Ludii's disagree.
# Prints one line a game and the scores; exits non-zero on an illegal move, a hang, an engine
# failure or a game not played. Before the games: the AI loaded "From JAR" as Ludii's GUI
# does (LudiiFromJar: whole games, a missing program, an engine that never answers) and the
# Kalah rules recognised from several spellings of Kalah.lud.
#
# The engine: $SOWFAN_PATH, else this checkout's target/release/sowfan (build it first with
# `cargo build --release`), else sowfan on the PATH. Extra jars a Ludii class folder needs go
# in LUDII_CLASSPATH, JVM options in LUDII_JAVA_OPTS. Needs a JDK (javac, java, jar).
set -euo pipefail

if [ $# -lt 1 ]; then
    sed -n '2,/^set -euo/p' "$0" | sed '$d' >&2
    exit 2
fi
exec "$(dirname "$0")/harness.sh" LudiiFromJar,LudiiMatch "$@"
