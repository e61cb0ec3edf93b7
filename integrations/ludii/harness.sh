#!/usr/bin/env bash
# What test.sh and perft.sh share: builds the AI against a Ludii (build.sh), compiles the test
# classes (for Ludii 1.0.x with the Java imports and the .lud files rewritten, ludii-api.sh),
# and runs one of them with this folder's .lud files at hand.
#
#   integrations/ludii/harness.sh MAIN_CLASS[,MAIN_CLASS...] LUDII_JAR_OR_CLASSES [ARGS...]
#
# MAIN_CLASS is LudiiFromJar, LudiiMatch or LudiiPerft (package sowfan.ludii), run in turn until
# one fails; ARGS go to each but LudiiFromJar after `--lud-dir DIR`. LudiiFromJar runs without
# the AI's jar on its class path and gets `--jar JAR`, to load it as Ludii's GUI does. The engine: $SOWFAN_PATH, else this checkout's target/release/sowfan, else
# sowfan on the PATH. LUDII_CLASSPATH adds jars a Ludii class folder needs, LUDII_JAVA_OPTS
# JVM options. Needs a JDK (javac, java, jar).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
if [ $# -lt 2 ]; then
    sed -n '2,/^set -euo/p' "$0" | sed '$d' >&2
    exit 2
fi
main=$1
ludii=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
shift 2
api=$("$here/ludii-api.sh" detect "$ludii")

if [ -z "${SOWFAN_PATH:-}" ] && [ -x "$here/../../target/release/sowfan" ]; then
    SOWFAN_PATH=$(cd "$here/../../target/release" && pwd)/sowfan
fi
export SOWFAN_PATH=${SOWFAN_PATH:-sowfan}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$here/build.sh" "$ludii" "$work/sowfan-ludii.jar"
mkdir -p "$work/test" "$work/classes" "$work/lud"
cp -r "$here/test/." "$work/test/"
cp "$here"/*.lud "$work/lud/"
if [ "$api" = 1.0 ]; then
    "$here/ludii-api.sh" rewrite 1.0 "$work/test"
    "$here/ludii-api.sh" rewrite-lud 1.0 "$work/lud"
fi
classpath=$ludii${LUDII_CLASSPATH:+:$LUDII_CLASSPATH}
find "$work/test" -name '*.java' > "$work/sources.txt"
javac -encoding UTF-8 -cp "$classpath:$work/sowfan-ludii.jar" -d "$work/classes" @"$work/sources.txt"

echo "Ludii: $ludii (API $api); sowfan: $SOWFAN_PATH ($("$SOWFAN_PATH" --version 2>/dev/null || echo 'version unknown'))"
echo "java: $(java -version 2>&1 | head -1)"
status=0
IFS=, read -r -a mains <<< "$main"
for class in "${mains[@]}"; do
    if [ "$class" = LudiiFromJar ]; then
        # As Ludii's GUI: the AI's jar is not on the class path, AIFactory loads it from the file.
        # shellcheck disable=SC2086 # LUDII_JAVA_OPTS is a list of JVM options
        java ${LUDII_JAVA_OPTS:-} -cp "$classpath:$work/classes" \
            "sowfan.ludii.$class" --lud-dir "$work/lud" --jar "$work/sowfan-ludii.jar" || status=$?
    else
        # shellcheck disable=SC2086
        java ${LUDII_JAVA_OPTS:-} -cp "$classpath:$work/sowfan-ludii.jar:$work/classes" \
            "sowfan.ludii.$class" --lud-dir "$work/lud" "$@" || status=$?
    fi
    [ "$status" -eq 0 ] || break
done
exit $status
