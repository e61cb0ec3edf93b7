#!/usr/bin/env bash
# A gauntlet: the first engine against each of the others, both colours, random openings,
# the games kept as JSON Lines and PGN. Here sowfan at depth 4 against itself at depths 2 and
# 3; any engine that speaks the protocol can take a place (cmd=/path/to/engine).
# Run: bash examples/gauntlet.sh (with sowfan on the PATH)
set -euo pipefail

sowfan match \
    --engine cmd=sowfan name=depth4 depth=4 \
    --engine cmd=sowfan name=depth2 depth=2 \
    --engine cmd=sowfan name=depth3 depth=3 \
    --tournament gauntlet --game afrika --games 4 --openings plies=2 --seed 1 \
    --records gauntlet.jsonl --pgn gauntlet.pgn --quiet
echo "records: $(wc -l < gauntlet.jsonl) games"
