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
# exactly one Ludii counterpart reaching sowfan's position. Exits 1 on any difference.
#
# The engine: $SOWFAN_PATH, else this checkout's target/release/sowfan, else sowfan on the
# PATH. LUDII_CLASSPATH adds jars a Ludii class folder needs, LUDII_JAVA_OPTS JVM options.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
if [ $# -lt 1 ]; then
    sed -n '2,/^set -euo/p' "$0" | sed '$d' >&2
    exit 2
fi
ludii=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
shift
api=$("$here/ludii-api.sh" detect "$ludii")

if [ -z "${SOWFAN_PATH:-}" ] && [ -x "$here/../../target/release/sowfan" ]; then
    SOWFAN_PATH=$(cd "$here/../../target/release" && pwd)/sowfan
fi
export SOWFAN_PATH=${SOWFAN_PATH:-sowfan}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$here/build.sh" "$ludii" "$work/sowfan-ludii.jar" >/dev/null
mkdir -p "$work/test" "$work/classes"
cp -r "$here/test/." "$work/test/"
mkdir -p "$work/lud"
cp "$here"/*.lud "$work/lud/"
if [ "$api" = 1.0 ]; then
    "$here/ludii-api.sh" rewrite 1.0 "$work/test"
    "$here/ludii-api.sh" rewrite-lud 1.0 "$work/lud"
fi
classpath=$ludii${LUDII_CLASSPATH:+:$LUDII_CLASSPATH}
find "$work/test" -name '*.java' > "$work/sources.txt"
javac -encoding UTF-8 -cp "$classpath:$work/sowfan-ludii.jar" -d "$work/classes" @"$work/sources.txt"

echo "Ludii: $ludii (API $api); sowfan: $SOWFAN_PATH ($("$SOWFAN_PATH" --version 2>/dev/null || echo 'version unknown'))"
status=0
# shellcheck disable=SC2086 # LUDII_JAVA_OPTS is a list of JVM options
java ${LUDII_JAVA_OPTS:-} -cp "$classpath:$work/sowfan-ludii.jar:$work/classes" \
    sowfan.ludii.LudiiPerft --lud-dir "$work/lud" "$@" || status=$?
exit $status
