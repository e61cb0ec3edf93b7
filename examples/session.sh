#!/usr/bin/env bash
# A protocol session through a pipe: set up a Fanorona position, look at it, search it.
# Run: bash examples/session.sh (with sowfan on the PATH)
set -euo pipefail

sowfan <<'END' | grep -E '^(Fen|legal|bestmove|response)'
newgame fanorona-dimy
position startpos moves b3-c3A
d
legal
go depth 6
query result
END
