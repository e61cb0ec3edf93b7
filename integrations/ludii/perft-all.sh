#!/usr/bin/env bash
# Every perft.sh run kept in perft-output-<Ludii version>.txt: the start positions to depth 5,
# five games followed to their end (depth 3 every 4 plies), Anywoli.lud's variants, and
# Anywoli's special cases (the rule-6 position of sowfan's tests, laps that sow into their own
# house). Each command is printed before its output; exits 1 if any run finds a difference.
#
#   integrations/ludii/perft-all.sh LUDII_JAR_OR_CLASSES > integrations/ludii/perft-output-X.txt
#
# The environment is perft.sh's (SOWFAN_PATH, LUDII_CLASSPATH, LUDII_JAVA_OPTS).
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
if [ $# -ne 1 ]; then
    sed -n '2,/^set -uo/p' "$0" | sed '$d' >&2
    exit 2
fi
ludii=$1
status=0
run() {
    echo "\$ integrations/ludii/perft.sh LUDII $(printf "%q " "$@")"
    # The build's and harness's own lines are not the comparison: from Ludii's version on.
    "$here/perft.sh" "$ludii" "$@" 2>&1 | sed -n '/^Ludii version/,$p' || status=1
    echo
}
run --depth 5 --positions 3 --every 10
for seed in 1 2 3 4 5; do
    run --depth 3 --positions 200 --every 4 --seed "$seed"
done
for variant in 'Yit Nuri' 'Yit Jani'; do
    for seed in 1 2; do
        run --only anywoli --options "Variant/$variant" --depth 4 --positions 200 --every 4 --seed "$seed"
    done
done
for start in '2,0,2,1,0,1,0,1,0,1,0,1,0/0,1,0,1,0,1,0,1,0,1,0,1,0 S 0 - -' \
    '24,0,0,0,0,0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0,0,0,0,0,0 S 0 - -' \
    '25,0,0,0,0,0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0,0,0,0,0,0 S 0 - -' \
    '30,3,0,2,0,0,1,0,3,0,0,50,0/3,0,0,0,0,0,3,0,0,0,0,0,0 S 0 - -'; do
    run --only anywoli --depth 4 --positions 3 --every 1 --start "$start"
done
run --only anywoli --options 'Variant/Yit Nuri' --depth 4 --positions 3 --every 1 \
    --start '14,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0 S 0 - -'
exit $status
