#!/usr/bin/env bash
# Submit a match cut into K slices as Slurm jobs: an array of K slices
# `sowfan match … --slice I/K --records WORK/slice-I.jsonl --resume`, then a job that writes
# the report over all slices to WORK/report.txt.
#
#   integrations/slurm/match.sh --work WORK --slices K [--follow SECS] [--sowfan BIN]
#       [--sbatch-arg ARG]... -- MATCH ARGUMENTS (with --seed; without --slice, --records)
#
# The engines' commands must run on every node (absolute paths on a shared file system).
# Give `--sbatch-arg --cpus-per-task=C` with `--concurrency C` among the match's arguments.
# A slice that fails or is cancelled is submitted again by the report job (up to 3 rounds)
# and goes on from its records (`--resume`): its finished games are kept.
#
# `--follow SECS` stays in the foreground: every SECS it prints the report over the records
# so far and, once the SPRT has decided (the report's exit status 0), cancels the jobs still
# queued or running and keeps that report in WORK/report.txt. The report can also be run
# by hand at any time:
#   sowfan match MATCH ARGUMENTS --report WORK/slice-*.jsonl
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/common.sh"

SOWFAN=sowfan WORK="" SLICES="" FOLLOW=""
SBATCH_ARGS=()
while [ $# -gt 0 ]; do
    case $1 in
    --work) WORK=$2; shift 2 ;;
    --slices) SLICES=$2; shift 2 ;;
    --follow) FOLLOW=$2; shift 2 ;;
    --sowfan) SOWFAN=$2; shift 2 ;;
    --sbatch-arg) SBATCH_ARGS+=("$2"); shift 2 ;;
    --) shift; break ;;
    *) echo "$0: unknown option '$1' (see the top of $0)" >&2; exit 2 ;;
    esac
done
MATCH=("$@")
if [ -z "$WORK" ] || [ -z "$SLICES" ] || [ ${#MATCH[@]} -eq 0 ]; then
    echo "usage: $0 --work WORK --slices K [--follow SECS] [--sowfan BIN] [--sbatch-arg ARG]... -- MATCH ARGUMENTS" >&2
    exit 2
fi
case " ${MATCH[*]} " in
*" --seed "*) ;;
*) echo "$0: give the match a --seed: every slice must draw the same openings" >&2; exit 2 ;;
esac
SOWFAN=$(command -v "$SOWFAN") || { echo "$0: no sowfan binary '$SOWFAN'" >&2; exit 1; }
mkdir -p "$WORK/log"
WORK=$(cd "$WORK" && pwd)
rm -f "$WORK/report.txt" "$WORK/jobs"
declare -p HERE SOWFAN WORK SLICES SBATCH_ARGS MATCH >"$WORK/job.env"

slices=$(submit --array="1-$SLICES" --job-name=sowfan-match \
    --output="$WORK/log/slice-%a.round-1.out" "$HERE/match-slice.sbatch" "$WORK")
report=$(submit --dependency="afterany:$slices" --job-name=sowfan-report \
    --output="$WORK/log/report.round-1.out" "$HERE/match-report.sbatch" "$WORK" 1)
echo "$slices $report" >>"$WORK/jobs"
echo "slices: $slices, report: $report (writes $WORK/report.txt)"
[ -n "$FOLLOW" ] || exit 0

files() { for i in $(seq 1 "$SLICES"); do [ -e "$WORK/slice-$i.jsonl" ] && echo "$WORK/slice-$i.jsonl"; done; }
while [ ! -e "$WORK/report.txt" ]; do
    sleep "$FOLLOW"
    mapfile -t given < <(files)
    [ ${#given[@]} -gt 0 ] || continue
    status=0
    "$SOWFAN" match "${MATCH[@]}" --report "${given[@]}" >"$WORK/follow.tmp" || status=$?
    cat "$WORK/follow.tmp"
    if [ "$status" -eq 0 ]; then
        # Decided: what is still queued or running is cancelled (its finished games stay).
        scancel $(cat "$WORK/jobs") 2>/dev/null || true
        mv "$WORK/follow.tmp" "$WORK/report.txt"
        exit 0
    fi
done
cat "$WORK/report.txt"
