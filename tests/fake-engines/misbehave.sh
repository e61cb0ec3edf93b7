#!/usr/bin/env bash
# A misbehaving engine for the `sowfan match` tests.
#
# Usage: misbehave.sh SOWFAN MODE N [SECONDS]
#
# Relays the protocol to a real sowfan (the binary SOWFAN) so that it plays legal moves,
# and misbehaves at its N-th `go` of every game (the count restarts at each `newgame`):
#   illegal    answers with the best move's pit letter in the other case (the opponent's pit)
#   malformed  answers with a `bestmove` line that has no move
#   garbage    prints junk lines (and bytes that are not UTF-8) before its bestmove, then
#              plays on normally: junk must be ignored
#   crash      exits with code 3 instead of answering
#   hang       stops answering anything (until it is killed)
#   noready    stops answering from the `isready` sent before that `go`
#   slow       answers SECONDS late
# The runner talks strictly in turn, so relaying command by command is enough.
set -u
sowfan=$1 mode=$2 at=$3 delay=${4:-0}

coproc ENGINE { exec "$sowfan" 2>/dev/null; }
from_engine=${ENGINE[0]}
to_engine=${ENGINE[1]}

# Copy the engine's lines to stdout up to one starting with $1, which is left in $reply.
relay_until() {
  local line
  while IFS= read -r line <&"$from_engine"; do
    if [[ $line == "$1"* ]]; then
      reply=$line
      return 0
    fi
    printf '%s\n' "$line"
  done
  exit 1
}

# Read (and ignore) everything until the runner gives up on us.
play_dead() {
  while IFS= read -r _; do :; done
  exit 0
}

gos=0
pings=0
while IFS= read -r command; do
  case $command in
    newgame* | uginewgame | ucinewgame) gos=0 pings=0 ;;
  esac
  case $command in
    go*) gos=$((gos + 1)) ;;
    isready) pings=$((pings + 1)) ;;
  esac
  # The ping before the N-th move is the (N+1)-th of the game (the first follows newgame).
  if [[ $mode == noready && $command == isready && $pings -gt $at ]]; then play_dead; fi
  if [[ $command == go* && $gos -eq $at ]]; then
    case $mode in
      crash) kill "$ENGINE_PID" 2>/dev/null; exit 3 ;;
      hang) play_dead ;;
    esac
  fi
  printf '%s\n' "$command" >&"$to_engine"
  case $command in
    ugi | uci)
      relay_until "${command}ok"
      printf '%s\n' "$reply"
      ;;
    isready)
      relay_until readyok
      printf '%s\n' "$reply"
      ;;
    go*)
      relay_until bestmove
      if ((gos == at)); then
        case $mode in
          illegal)
            move=${reply#bestmove }
            move=${move%% *}
            if [[ $move == [[:upper:]] ]]; then move=${move,,}; else move=${move^^}; fi
            reply="bestmove $move"
            ;;
          malformed) reply="bestmove" ;;
          garbage) printf 'hello there\nbestmovex A\ninfo depth x score cp\n\xff\xfe\x80\n\n' ;;
          slow) sleep "$delay" ;;
        esac
      fi
      printf '%s\n' "$reply"
      ;;
    quit) exit 0 ;;
  esac
done
