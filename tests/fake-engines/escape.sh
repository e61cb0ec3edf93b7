#!/usr/bin/env bash
# A hostile engine for the `sowfan check`/`match` tests: it starts a process that leaves its
# process group and session (`setsid`), so that killing the engine's group misses it, writes
# that process's pid to PIDFILE, and then becomes a real sowfan.
#
# Usage: escape.sh PIDFILE SOWFAN
set -u
setsid sh -c 'echo $$ > "$0"; exec sleep 1000' "$1" </dev/null >/dev/null 2>&1 &
exec "$2"
