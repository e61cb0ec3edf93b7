#!/usr/bin/env bash
# Builds sowfan-ludii.jar, the sowfan AI for Ludii, against the Ludii you give it.
#
#   integrations/ludii/build.sh LUDII_JAR_OR_CLASSES [OUTPUT_JAR]
#
# LUDII_JAR_OR_CLASSES: Ludii's jar (e.g. Ludii-1.3.14.jar, as downloaded from Ludii's site) or
# a folder of compiled Ludii classes. Extra jars Ludii's classes need (a class folder does
# not bundle them, the released jar does) go in LUDII_CLASSPATH (':'-separated).
# OUTPUT_JAR defaults to integrations/ludii/sowfan-ludii.jar.
#
# The AI's source is written for current Ludii (other.AI, other.context.Context, ...). When the
# given Ludii has util/AI.class instead of other/AI.class (Ludii 1.0.x), the build rewrites
# those imports to Ludii 1.0's packages; nothing else differs. Needs a JDK (javac, jar), 8 or
# newer; the classes are compiled for Java 8, which every Ludii release runs on.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
if [ $# -lt 1 ] || [ $# -gt 2 ]; then
    echo "usage: $0 LUDII_JAR_OR_CLASSES [OUTPUT_JAR]" >&2
    exit 2
fi
ludii=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
out=${2:-$here/sowfan-ludii.jar}
case "$out" in /*) ;; *) out=$PWD/$out ;; esac

if [ ! -e "$ludii" ]; then
    echo "build.sh: no Ludii at '$1'" >&2
    exit 2
fi

api=$("$here/ludii-api.sh" detect "$ludii")

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/src" "$work/classes"
cp -r "$here/src/." "$work/src/"
if [ "$api" = 1.0 ]; then
    "$here/ludii-api.sh" rewrite 1.0 "$work/src"
fi

classpath=$ludii${LUDII_CLASSPATH:+:$LUDII_CLASSPATH}
release=(--release 8)
if ! javac --release 8 -version >/dev/null 2>&1; then
    release=()
fi
find "$work/src" -name '*.java' > "$work/sources.txt"
javac "${release[@]}" -Xlint:-options -encoding UTF-8 -cp "$classpath" -d "$work/classes" @"$work/sources.txt"
mkdir -p "$(dirname "$out")"
jar cf "$out.tmp" -C "$work/classes" .
mv "$out.tmp" "$out"
echo "built $out for the Ludii API of $([ "$api" = 1.0 ] && echo '1.0.x (util.AI)' || echo '1.1+ (other.AI)'); AI class: sowfan.ludii.SowfanAI"
