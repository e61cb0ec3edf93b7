#!/usr/bin/env bash
# A faulty engine for the `sowfan check` tests: a proper handshake and `readyok`, but it
# answers every `go` (even `go infinite`) at once with two `bestmove C` lines, knows no
# `query`, and ignores everything else.
while IFS= read -r command; do
  case $command in
    ugi | uci) printf 'id name double-bestmove\n%sok\n' "$command" ;;
    isready) echo readyok ;;
    go*) printf 'bestmove C\nbestmove C\n' ;;
    quit) exit 0 ;;
  esac
done
