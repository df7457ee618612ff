#!/usr/bin/env bash
# bench/push: pushes/s of `shelfline-push send` to a loopback HTTP/2 APNs, and its peak RSS (issue 11).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$ROOT"
BIN="$ROOT/.build/release"
[ -x "$BIN/shelfline-push-bench" ] && [ -x "$BIN/shelfline-push" ] || make -s -C "$ROOT" build
"$BIN/shelfline-push-bench" "$BIN" "${PUSH_BENCH_TOKENS:-5000}" "${PUSH_BENCH_CONCURRENCY:-100}"
# Issue 26: a 200,000-row import with pushes on vs off (BENCH_PUSH_IMPORT=0 skips it).
[ "${BENCH_PUSH_IMPORT:-1}" = 0 ] || bash "$ROOT/bench/push/import.sh"
