#!/usr/bin/env bash
# sowfan's perft replayed through Ludii for Afrika.lud and Anywoli.lud (run on demand; CI has
# no Ludii).
#
#   integrations/ludii/perft.sh LUDII_JAR_OR_CLASSES [--only afrika,anywoli] [--depth N]
#       [--positions N] [--every PLIES] [--seed N]
#
# Loads this folder's Afrika.lud and Anywoli.lud in the given Ludii and follows a game sowfan
# plays (its depth-3 moves, one in four random, from --seed); at the start and every --every
# plies (default 7), until --positions positions (default 6), it counts the move sequences
# of each length up to --depth (default 3) with Ludii's legal-move generation and with
# `sowfan perft`, split by first move, and compares. Every move of the game must also have
# a Ludii counterpart reaching sowfan's position. Exits 1 on any difference.
#
# The engine: $SOWFAN_PATH, else this checkout's target/release/sowfan, else sowfan on the
# PATH. LUDII_CLASSPATH adds jars a Ludii class folder needs, LUDII_JAVA_OPTS JVM options.
set -euo pipefail

if [ $# -lt 1 ]; then
    sed -n '2,/^set -euo/p' "$0" | sed '$d' >&2
    exit 2
fi
exec "$(dirname "$0")/harness.sh" LudiiPerft "$@"
