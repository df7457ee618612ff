#!/usr/bin/env bash
# bench/serve: `shelfline-push serve` under PUT /v1/tokens load (issue 27): requests/s, p50/p99
# latency, and the server's RSS idle and at its peak under load. Release build.
#   SERVE_BENCH_PUTS (default 2000) new tokens from SERVE_BENCH_CLIENTS (default 8) keep-alive
#   clients, then the same number again into the grown registry (each PUT rewrites and fsyncs it).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BIN="${SERVE_BENCH_BIN:-$ROOT/.build/release}"
[ -x "$BIN/shelfline-push" ] || make -s -C "$ROOT" build
PUTS="${SERVE_BENCH_PUTS:-2000}"
CLIENTS="${SERVE_BENCH_CLIENTS:-8}"
WORK="$(mktemp -d)"
SERVER=""
cleanup() { [ -z "$SERVER" ] || kill "$SERVER" 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT
cd "$WORK"
echo '{"stages": []}' > pipeline.json
SECRET="$("$BIN/shelfline-push" devices add bench --workspace "$WORK/ws" --quiet)"
"$BIN/shelfline-push" serve --listen 127.0.0.1:0 --workspace "$WORK/ws" --quiet \
    --rate-burst 1000000 --rate-per-second 1000000 > serve.out 2> serve.err &
SERVER=$!
until grep -q "serving on" serve.out 2>/dev/null; do
    kill -0 "$SERVER" 2>/dev/null || { echo "serve did not start:" >&2; cat serve.err >&2; exit 1; }
    sleep 0.1
done
PORT="$(sed -n 's/.*:\([0-9]*\)$/\1/p' serve.out | head -1)"
rss() { awk -v key="$1" '$1 == key":" { printf "%.1f MiB", $2 / 1024 }' "/proc/$SERVER/status"; }
echo "serve idle: RSS $(rss VmRSS)"
python3 "$ROOT/bench/serve/put-load.py" "$PORT" "$SECRET" "$PUTS" "$CLIENTS"
python3 "$ROOT/bench/serve/put-load.py" "$PORT" "$SECRET" "$PUTS" "$CLIENTS" "$PUTS"
echo "serve after load: RSS $(rss VmRSS), peak $(rss VmHWM); registry $(wc -c < "$WORK/ws/push/registry.json") bytes"
start=$(date +%s.%N)
python3 "$ROOT/bench/serve/connections.py" "$PORT" "$SECRET" 1000
echo "1,000 connections at once, 2,000 requests: $(python3 -c "print(f'{$(date +%s.%N) - $start:.2f}')") s; serve RSS $(rss VmRSS), peak $(rss VmHWM)"
