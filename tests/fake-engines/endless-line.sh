#!/usr/bin/env bash
# A hostile engine for the `sowfan match` tests: a proper handshake and `readyok`, then it
# answers `go` with one line that never ends (`bestmovebestmove…` without a newline) and
# stops reading its input.
while IFS= read -r command; do
  case $command in
    ugi | uci) printf 'id name endless-line\n%sok\n' "$command" ;;
    isready) echo readyok ;;
    go*) yes bestmove | tr -d '\n'; exit 0 ;;
    quit) exit 0 ;;
  esac
done
