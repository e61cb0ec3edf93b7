#!/usr/bin/env bash
# A one-node Slurm on this machine, for tests and for trying the job scripts:
#
#   integrations/slurm/one-node.sh start DIR   # prints: export SLURM_CONF=DIR/slurm.conf
#   integrations/slurm/one-node.sh stop DIR
#
# Needs root and Debian's packages (slurmctld, slurmd, slurm-client, munge); `start` installs
# them when missing (apt-get). Everything the daemons keep (state, spool, logs, pid files)
# is under DIR, so a second one-node Slurm (another DIR) only needs other ports:
# SOWFAN_SLURM_PORT (default 6817) is slurmctld's, the next one slurmd's.
set -euo pipefail

usage() { echo "usage: $0 start|stop DIR" >&2; exit 2; }
[ $# -eq 2 ] || usage
action=$1
dir=$(mkdir -p "$2" && cd "$2" && pwd)
conf=$dir/slurm.conf

stop() {
    for daemon in slurmd slurmctld; do
        if [ -s "$dir/$daemon.pid" ]; then
            pid=$(cat "$dir/$daemon.pid")
            kill "$pid" 2>/dev/null || true
            for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
            kill -9 "$pid" 2>/dev/null || true
            rm -f "$dir/$daemon.pid"
        fi
    done
}

case $action in
stop) stop; exit 0 ;;
start) ;;
*) usage ;;
esac

if [ "$(id -u)" -ne 0 ]; then
    echo "$0: a one-node Slurm is started as root (its daemons run as root)" >&2
    exit 1
fi
if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null \
    || ! command -v sbatch >/dev/null || ! command -v munged >/dev/null; then
    echo "$0: installing Debian's Slurm packages" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq slurmctld slurmd slurm-client munge >/dev/null
fi

# munge authenticates every Slurm message; the package made its key.
if ! pgrep -x munged >/dev/null; then
    mkdir -p /run/munge
    chown munge:munge /run/munge 2>/dev/null || true
    if id munge >/dev/null 2>&1; then
        su -s /bin/sh munge -c /usr/sbin/munged
    else
        /usr/sbin/munged --force
    fi
fi

port=${SOWFAN_SLURM_PORT:-6817}
node=$(hostname -s)
mkdir -p "$dir/state" "$dir/spool"
stop
cat >"$conf.tmp" <<CONF
# A one-node Slurm written by $0.
ClusterName=sowfan
SlurmctldHost=$node
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
# No cgroups in a container: processes tracked by their parent, tasks not bound.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
MpiDefault=none
SchedulerType=sched/backfill
# A dependent job starts within a second of the job it waits for (the default main
# scheduling interval is 60 s).
SchedulerParameters=sched_interval=1,sched_min_interval=0
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MinJobAge=3600
NodeName=$node CPUs=$(nproc) State=UNKNOWN
PartitionName=main Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
mv "$conf.tmp" "$conf"
export SLURM_CONF=$conf
slurmctld -i
slurmd
for _ in $(seq 1 100); do
    if sinfo -h -o %T 2>/dev/null | grep -qx idle; then
        echo "export SLURM_CONF=$conf"
        exit 0
    fi
    sleep 0.2
done
echo "$0: the node did not come up within 20 s; see $dir/slurmctld.log and $dir/slurmd.log" >&2
tail -5 "$dir/slurmctld.log" "$dir/slurmd.log" >&2 || true
exit 1
