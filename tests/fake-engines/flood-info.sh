#!/usr/bin/env bash
# A hostile engine for the `sowfan match` tests: a proper handshake and `readyok`, then it
# answers `go` with an endless stream of `info depth 1 score cp 0` lines (never a bestmove)
# and stops reading its input.
while IFS= read -r command; do
  case $command in
    ugi | uci) printf 'id name flood-info\n%sok\n' "$command" ;;
    isready) echo readyok ;;
    go*) exec yes 'info depth 1 score cp 0' ;;
    quit) exit 0 ;;
  esac
done
