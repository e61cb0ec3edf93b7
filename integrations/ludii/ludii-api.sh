#!/usr/bin/env bash
# Which Ludii API a Ludii jar or class folder has, and the rewrite of the Java sources for it.
# Used by build.sh and harness.sh (test.sh, perft.sh).
#
#   integrations/ludii/ludii-api.sh detect LUDII_JAR_OR_CLASSES   prints "current" or "1.0"
#   integrations/ludii/ludii-api.sh rewrite 1.0 DIR                rewrites DIR's sources in place
#   integrations/ludii/ludii-api.sh rewrite-lud 1.0 DIR            rewrites DIR's .lud files in place
#
# The sources are written for current Ludii (1.1 and later, where AIs extend other.AI). Ludii
# 1.0.x has the same classes in other packages:
#   current Ludii                     Ludii 1.0.x
#   other.AI                          util.AI
#   other.context.Context             util.Context
#   other.move.Move                   util.Move
#   other.trial.Trial                 util.Trial
#   other.GameLoader                  util.GameLoader
# game.Game, game.types.board.SiteType and utils.AIFactory are the same in both, and so is
# every method the sources call.
#
# Afrika.lud and Anywoli.lud are written in current Ludii's game description language. The one
# term they use that Ludii 1.0.x spells differently is the repetition type of Anywoli's rule 6:
# (is Repeat PositionalInTurn) is (is Repeat InTurn) in 1.0.x (same meaning: the state hash
# of the board and hands, compared with the states reached earlier in the turn).
set -euo pipefail

usage() {
    echo "usage: $0 detect LUDII_JAR_OR_CLASSES | $0 rewrite 1.0 DIR | $0 rewrite-lud 1.0 DIR" >&2
    exit 2
}

has_class() {
    if [ -d "$1" ]; then
        [ -f "$1/$2" ]
    else
        jar tf "$1" | grep -qx "$2"
    fi
}

case "${1:-}" in
detect)
    [ $# -eq 2 ] || usage
    if [ ! -e "$2" ]; then
        echo "ludii-api.sh: no Ludii at '$2'" >&2
        exit 1
    elif has_class "$2" other/AI.class; then
        echo current
    elif has_class "$2" util/AI.class; then
        echo 1.0
    else
        echo "ludii-api.sh: '$2' holds neither other/AI.class (Ludii 1.1+) nor util/AI.class (Ludii 1.0.x)" >&2
        exit 1
    fi
    ;;
rewrite)
    [ $# -eq 3 ] && [ "$2" = 1.0 ] || usage
    find "$3" -name '*.java' -print0 | xargs -0 sed -i \
        -e 's/^import other\.AI;/import util.AI;/' \
        -e 's/^import other\.context\.Context;/import util.Context;/' \
        -e 's/^import other\.move\.Move;/import util.Move;/' \
        -e 's/^import other\.trial\.Trial;/import util.Trial;/' \
        -e 's/^import other\.GameLoader;/import util.GameLoader;/'
    ;;
rewrite-lud)
    [ $# -eq 3 ] && [ "$2" = 1.0 ] || usage
    find "$3" -name '*.lud' -print0 | xargs -0 sed -i -e 's/(is Repeat PositionalInTurn)/(is Repeat InTurn)/'
    ;;
*)
    usage
    ;;
esac
