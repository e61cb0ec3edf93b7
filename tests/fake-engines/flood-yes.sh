#!/usr/bin/env bash
# A hostile "engine" for the `sowfan match` tests: it never reads its input and writes `y`
# lines as fast as the pipe takes them, from the first moment (no handshake ever comes).
exec yes
