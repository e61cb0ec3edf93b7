# What the launchers and job scripts share; sourced, never run.
#
# A launcher writes WORK/job.env (the sowfan binary, the game, the sbatch options, this
# folder) with `declare -p`, and every job script sources it: jobs run the same command
# lines whichever node they land on, and a re-submitted job is the same job.

# The job id `sbatch --parsable` printed (without a cluster name).
submit() {
    local id
    id=$(sbatch --parsable "${SBATCH_ARGS[@]}" "$@") || return 1
    echo "${id%%;*}"
}

# Hand the jobs waiting for job $1 to job $2 instead: a job that re-submitted failed work
# passes its place in the chain to the job that now ends that work. `scontrol update` of a
# pending job's dependency is what Slurm offers for this (a requeued job does not satisfy an
# `afterok` that already failed).
rewire_dependents() {
    local old=$1 new=$2 job deps
    squeue -h -o '%F %E' | while read -r job deps; do
        case $deps in
        *":$old("* | *":${old}_"*)
            scontrol update "jobid=$job" "dependency=afterok:$new"
            echo "job $job now waits for job $new"
            ;;
        esac
    done
}

# The most rounds of re-submission of failed work before a job gives up (a slice that fails
# three times has a cause a re-run does not cure: its log says what).
MAX_ROUNDS=${SOWFAN_SLURM_ROUNDS:-3}

say() { echo "[$(date -u +%FT%TZ)] $*"; }

# The tasks (`LAYER SLICE SLICES` lines, one per array task) of stage $2 of plan file $1.
tasks_of_stage() {
    local plan=$1 stage=$2
    awk -v stage="$stage" '
        { s = ""; l = ""; k = "" 
          for (i = 1; i <= NF; i++) {
              split($i, kv, "=")
              if (kv[1] == "stage") s = kv[2]
              if (kv[1] == "layer") l = kv[2]
              if (kv[1] == "slices") k = kv[2]
          }
          if (s == stage) for (j = 1; j <= k; j++) print l, j, k }' "$plan"
}
