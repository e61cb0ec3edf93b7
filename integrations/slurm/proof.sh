#!/usr/bin/env bash
# Submit a proof split over a frontier as Slurm jobs: an array of K parts
# `sowfan solve … --frontier D --split I/K --part-file WORK/part-I.txt`, then a job that
# combines them into WORK/result.txt (every root move's value, Value, Best).
#
#   integrations/slurm/proof.sh --work WORK --parts K --frontier D [--part-nodes N]
#       [--nested-parts K2] [--sowfan BIN] [--sbatch-arg ARG]...
#       -- GAME [KEY=VALUE...] [--fen F] [--moves M] [--hash MB] [--tablebases DIR] [--threads T]
#
# `sowfan solve GAME --frontier D --frontier-size` says how many positions the frontier
# has: K up to that many parts. WORK must be on a file system every node sees.
#
# As deep as needed: with --part-nodes N a frontier position whose proof outgrows N nodes is
# left open by its part; the combining job then splits each such position again at D plies
# from it, in K2 parts (default 8) under WORK/open/KEY/, with the same budget, and combines
# once every open position has its parts (level after level, as deep as the positions need).
#
# A part that fails or is cancelled is submitted again by the combining job (up to 3
# rounds); parts already written are kept (a part whose file is there exits at once).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/common.sh"

SOWFAN=sowfan WORK="" PARTS="" FRONTIER="" PART_NODES="" NESTED_PARTS=8
SBATCH_ARGS=()
while [ $# -gt 0 ]; do
    case $1 in
    --work) WORK=$2; shift 2 ;;
    --parts) PARTS=$2; shift 2 ;;
    --frontier) FRONTIER=$2; shift 2 ;;
    --part-nodes) PART_NODES=$2; shift 2 ;;
    --nested-parts) NESTED_PARTS=$2; shift 2 ;;
    --sowfan) SOWFAN=$2; shift 2 ;;
    --sbatch-arg) SBATCH_ARGS+=("$2"); shift 2 ;;
    --) shift; break ;;
    *) echo "$0: unknown option '$1' (see the top of $0)" >&2; exit 2 ;;
    esac
done
SOLVE=("$@")
if [ -z "$WORK" ] || [ -z "$PARTS" ] || [ -z "$FRONTIER" ] || [ ${#SOLVE[@]} -eq 0 ]; then
    echo "usage: $0 --work WORK --parts K --frontier D [--part-nodes N] [--nested-parts K2] [--sowfan BIN] [--sbatch-arg ARG]... -- GAME [KEY=VALUE...] [solve options]" >&2
    exit 2
fi
# A nested split starts from its open position: the root's --fen and --moves are left out.
NESTED=()
skip=""
for word in "${SOLVE[@]}"; do
    if [ -n "$skip" ]; then skip=""; continue; fi
    case $word in
    --fen | --moves) skip=1 ;;
    --fen=* | --moves=*) ;;
    *) NESTED+=("$word") ;;
    esac
done
SOWFAN=$(command -v "$SOWFAN") || { echo "$0: no sowfan binary '$SOWFAN'" >&2; exit 1; }
mkdir -p "$WORK/log"
WORK=$(cd "$WORK" && pwd)
rm -f "$WORK/result.txt" "$WORK/jobs"
declare -p HERE SOWFAN WORK PARTS FRONTIER PART_NODES NESTED_PARTS SBATCH_ARGS SOLVE NESTED \
    >"$WORK/job.env"
# The frontier is computed now, once, so that a game or position the solver refuses is said
# before anything is submitted.
"$SOWFAN" solve "${SOLVE[@]}" --frontier "$FRONTIER" --frontier-size | tee "$WORK/frontier.txt"

parts=$(submit --array="1-$PARTS" --job-name=sowfan-part \
    --output="$WORK/log/part-%a.round-1.out" "$HERE/proof-part.sbatch" "$WORK" root)
combine=$(submit --dependency="afterany:$parts" --job-name=sowfan-combine \
    --output="$WORK/log/combine.round-1.out" "$HERE/proof-combine.sbatch" "$WORK" 1 0)
echo "$parts $combine" >>"$WORK/jobs"
echo "parts: $parts, combine: $combine (writes $WORK/result.txt)"
