#!/usr/bin/env bash
# Submit a whole table build as one chain of Slurm jobs: for each stage of layers (a layer,
# or in Fanorona every material of one total: `sowfan tablebase plan`), an array of slices
# `sowfan tablebase build … --layer L --shard I/K`, then a merge that waits for them, then
# the next stage; a last job verifies the folder and writes WORK/done.
#
#   integrations/slurm/tables.sh --dir TABLES --work WORK --slices K [--threads T]
#       [--memory MB] [--sowfan BIN] [--sbatch-arg ARG]... -- GAME [KEY=VALUE...] --seeds N
#
# TABLES and WORK must be on a file system every node sees. A slice that fails or is
# cancelled is re-submitted by its stage's merge job (up to 3 rounds): finished slices and
# layers are never redone (a build of a slice or layer already there exits at once). Running
# this again after a chain stopped submits only what is left.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/common.sh"

SOWFAN=sowfan THREADS=1 MEMORY="" DIR="" WORK="" SLICES=""
SBATCH_ARGS=()
while [ $# -gt 0 ]; do
    case $1 in
    --dir) DIR=$2; shift 2 ;;
    --work) WORK=$2; shift 2 ;;
    --slices) SLICES=$2; shift 2 ;;
    --threads) THREADS=$2; shift 2 ;;
    --memory) MEMORY=$2; shift 2 ;;
    --sowfan) SOWFAN=$2; shift 2 ;;
    --sbatch-arg) SBATCH_ARGS+=("$2"); shift 2 ;;
    --) shift; break ;;
    *) echo "$0: unknown option '$1' (see the top of $0)" >&2; exit 2 ;;
    esac
done
BUILD=("$@")
if [ -z "$DIR" ] || [ -z "$WORK" ] || [ -z "$SLICES" ] || [ ${#BUILD[@]} -eq 0 ]; then
    echo "usage: $0 --dir TABLES --work WORK --slices K [--threads T] [--memory MB] [--sowfan BIN] [--sbatch-arg ARG]... -- GAME [KEY=VALUE...] --seeds N" >&2
    exit 2
fi
SOWFAN=$(command -v "$SOWFAN") || { echo "$0: no sowfan binary '$SOWFAN'" >&2; exit 1; }
mkdir -p "$DIR" "$WORK/log"
DIR=$(cd "$DIR" && pwd) WORK=$(cd "$WORK" && pwd)
rm -f "$WORK/done" "$WORK/jobs"
declare -p HERE SOWFAN THREADS MEMORY DIR WORK SLICES SBATCH_ARGS BUILD >"$WORK/job.env"

# The plan: what is left, stage by stage (a plan error, e.g. a layer that cannot fit the
# memory, is said now, before anything is submitted).
"$SOWFAN" tablebase plan "${BUILD[@]}" --dir "$DIR" --slices "$SLICES" >"$WORK/plan.txt"
stages=$(sed -n 's/^stage=\([0-9]*\) .*/\1/p' "$WORK/plan.txt" | sort -n -u)
if [ -z "$stages" ]; then
    echo "nothing to build: every layer is in '$DIR'"
    exit 0
fi

previous=""
for stage in $stages; do
    tasks=$WORK/stage-$stage.round-1.tasks
    tasks_of_stage "$WORK/plan.txt" "$stage" >"$tasks"
    n=$(wc -l <"$tasks")
    slices=$(submit --array="1-$n" --job-name="sowfan-tables-$stage" \
        ${previous:+--dependency=afterok:$previous} \
        --output="$WORK/log/stage-$stage.round-1.%a.out" \
        "$HERE/table-slice.sbatch" "$WORK" "$stage" 1)
    merge=$(submit --dependency="afterany:$slices" --job-name="sowfan-merge-$stage" \
        --output="$WORK/log/stage-$stage.round-1.merge.out" \
        "$HERE/table-merge.sbatch" "$WORK" "$stage" 1)
    echo "$slices $merge" >>"$WORK/jobs"
    echo "stage $stage: $n slice job(s) $slices, merge $merge"
    previous=$merge
done
verify=$(submit --dependency="afterok:$previous" --job-name=sowfan-verify \
    --output="$WORK/log/verify.out" "$HERE/table-verify.sbatch" "$WORK")
echo "$verify" >>"$WORK/jobs"
echo "verify: $verify (writes $WORK/done when the tables are whole and sound)"
