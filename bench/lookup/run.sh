#!/usr/bin/env bash
# Lookup benchmark (run from the repository root after `make build`):
#  (a) Open Library stand-in on loopback, 100 ms latency, 429 above 3 requests/s:
#      books/min achieved vs the ceiling rate × batch size, and 429s provoked (target: ≥ 90 %, 0).
#  (b) synthetic catalog (default 1,000,000 editions) and 200,000 import rows, half with an ISBN in
#      the catalog, half needing title/author search: index build rate, index size, lookups/s, peak RSS.
#  (c) index build alone on a synthetic 5,000,000-edition dump (issue 12: >= 100,000 editions/s,
#      <= 150 MB per million editions, <= 256 MB RSS), extrapolated to the real dump (~50M editions).
# Sizes: LOOKUP_BENCH_EDITIONS (0: part (a) only), LOOKUP_BENCH_ROWS, LOOKUP_BENCH_HTTP_ROWS, LOOKUP_BENCH_ISBN_SHARE
# (default 0.5; 0.7 is the mix measured before issue 12), LOOKUP_BENCH_BUILD_EDITIONS (default
# 5000000; 0 skips part c).
set -euo pipefail
CONFIGURATION=${CONFIGURATION:-release}
BIN=${BIN:-.build/$CONFIGURATION}
EDITIONS=${LOOKUP_BENCH_EDITIONS:-1000000}
ROWS=${LOOKUP_BENCH_ROWS:-200000}
HTTP_ROWS=${LOOKUP_BENCH_HTTP_ROWS:-3000}
ISBN_SHARE=${LOOKUP_BENCH_ISBN_SHARE:-0.5}
BUILD_EDITIONS=${LOOKUP_BENCH_BUILD_EDITIONS:-5000000}
RATE=3
BATCH=50
work=$(mktemp -d /tmp/shelfline-lookup-bench.XXXXXX)
server_pid=
cleanup() { [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

echo "== lookup (a): HTTP source against a rate-limited loopback server (latency 100 ms, 429 above $RATE req/s)"
# The same Swift fake the tests use (Tests/TestSupport/FakeOpenLibraryServer.swift).
"${SWIFT:-swift}" build -c "$CONFIGURATION" --product fake-openlibrary >/dev/null
"$BIN/fake-openlibrary" "$work/port" --latency 0.1 --rate $RATE &
server_pid=$!
for _ in $(seq 50); do [ -s "$work/port" ] && break; sleep 0.1; done
port=$(cat "$work/port")
python3 - "$work/http-rows.ndjson.gz" "$HTTP_ROWS" <<'PY'
import gzip, json, sys
def isbn13(n):
    body = "979" + str(n).zfill(9)
    total = sum(int(d) * (1 if i % 2 == 0 else 3) for i, d in enumerate(body))
    return body + str((10 - total % 10) % 10)
with gzip.open(sys.argv[1], "wt") as f:
    for i in range(int(sys.argv[2])):
        f.write(json.dumps({"format": "goodreads", "line": i + 2, "byteOffset": 0, "byteLength": 0,
                            "title": f"Bench Book {i}", "author": "Bench Author", "isbn13": isbn13(i)}) + "\n")
PY
cat > "$work/http-pipeline.json" <<JSON
{"stages": [{"name": "lookup", "inputs": [], "outputs": [], "parameters": {"sources": ["openlibrary"],
  "openLibrary": {"baseURL": "http://127.0.0.1:$port", "requestsPerSecond": $RATE, "batchSize": $BATCH, "concurrency": 5}}}]}
JSON
start=$(date +%s.%N)
/usr/bin/time -f "%e %M" -o "$work/http-time" "$BIN/shelfline-lookup" "$work/http-rows.ndjson.gz" -o "$work/http-out.ndjson.gz" \
  --report "$work/http-report.json" --config "$work/http-pipeline.json" --workspace "$work/http-ws" --quiet
end=$(date +%s.%N)
curl -s "http://127.0.0.1:$port/stats" > "$work/http-stats.json"
python3 - "$work" "$start" "$end" "$HTTP_ROWS" $RATE $BATCH <<'PY'
import json, sys
work, start, end, rows, rate, batch = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]), int(sys.argv[6])
report = json.load(open(f"{work}/http-report.json"))
stats = json.load(open(f"{work}/http-stats.json"))
rss = open(f"{work}/http-time").read().split()[1]
elapsed = end - start
achieved = report["counts"]["matchedByIsbn"] / elapsed * 60
ceiling = rate * batch * 60
print(f"rows {rows}, matched {report['counts']['matchedByIsbn']}, requests {report['requests']}, elapsed {elapsed:.1f} s, peak RSS {int(rss)/1024:.1f} MB")
print(f"books/min {achieved:.0f} vs ceiling {ceiling:.0f} (rate {rate:g}/s × batch {batch}) = {achieved / ceiling:.1%} (target >= 90%)")
print(f"429s provoked: {stats['rateLimited']} (server saw at most {stats['maxPerSecond']} requests in any 1 s; target 0)")
print(f"seed design (1 ISBN per request, 50 books/min): {achieved / 50:.0f}x")
PY
kill "$server_pid"; server_pid=

[ "$EDITIONS" -gt 0 ] || exit 0  # LOOKUP_BENCH_EDITIONS=0: part (a) only
echo "== lookup (b): synthetic catalog, $EDITIONS editions, $ROWS rows ($ISBN_SHARE with an ISBN in the catalog)"
t0=$(date +%s.%N)
python3 bench/lookup/make_catalog.py "$work" "$EDITIONS" "$ROWS" "$ISBN_SHARE"
t1=$(date +%s.%N)
printf 'generated dumps + rows in %.1f s (%s)\n' "$(echo "$t1 - $t0" | bc)" "$(du -ch "$work"/editions.txt.gz "$work"/works.txt.gz "$work"/authors.txt.gz | tail -1 | cut -f1) of gzip dumps"
catalog=(--source catalog --catalog "$work/editions.txt.gz" --catalog "$work/works.txt.gz" --catalog "$work/authors.txt.gz")
python3 -c "
import gzip,sys
src=gzip.open('$work/rows.ndjson.gz','rt'); out=gzip.open('$work/one.ndjson.gz','wt'); out.write(src.readline())"
/usr/bin/time -f "%e %M" -o "$work/build-time" "$BIN/shelfline-lookup" "$work/one.ndjson.gz" -o "$work/one-out.ndjson.gz" \
  "${catalog[@]}" --workspace "$work/ws" --report "$work/build-report.json" --quiet
/usr/bin/time -f "%e %M" -o "$work/lookup-time" "$BIN/shelfline-lookup" "$work/rows.ndjson.gz" -o "$work/out.ndjson.gz" \
  "${catalog[@]}" --workspace "$work/ws" --report "$work/report.json" --quiet
python3 - "$work" "$EDITIONS" "$ROWS" <<'PY'
import glob, json, os, sys
work, editions, rows = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
build_s, build_rss = open(f"{work}/build-time").read().split()
look_s, look_rss = open(f"{work}/lookup-time").read().split()
index = glob.glob(f"{work}/ws/cache/catalog-*.sqlite")[0]
size = os.path.getsize(index)
report = json.load(open(f"{work}/report.json"))
print(f"index build: {float(build_s):.1f} s = {editions / float(build_s):,.0f} editions/s (incl. works+authors), peak RSS {int(build_rss)/1024:.1f} MB")
catalog = json.load(open(f"{work}/build-report.json")).get("catalog", {})
print(f"dump lines skipped: {catalog.get('skippedLines')} (duplicate keys: {catalog.get('duplicateKeys')})")
print(f"index size: {size / 1e6:.0f} MB = {size / 1e6 / (editions / 1e6):.0f} MB per million editions")
print(f"lookup: {rows} rows in {float(look_s):.1f} s = {rows / float(look_s):,.0f} lookups/s, peak RSS {int(look_rss)/1024:.1f} MB")
print("statuses:", json.dumps(report["counts"], sort_keys=True), "sum", sum(report["counts"].values()), "of", report["recordsRead"])
PY

[ "$BUILD_EDITIONS" -gt 0 ] || exit 0
echo "== lookup (c): index build alone, synthetic dump of $BUILD_EDITIONS editions"
rm -rf "${work:?}"/*
t0=$(date +%s.%N)
python3 bench/lookup/make_catalog.py "$work" "$BUILD_EDITIONS" 1
t1=$(date +%s.%N)
printf 'generated dumps in %.1f s (%s of gzip dumps)\n' "$(echo "$t1 - $t0" | bc)" "$(du -ch "$work"/editions.txt.gz "$work"/works.txt.gz "$work"/authors.txt.gz | tail -1 | cut -f1)"
/usr/bin/time -f "%e %M %U %S" -o "$work/build-time" "$BIN/shelfline-lookup" "$work/rows.ndjson.gz" -o "$work/one-out.ndjson.gz" \
  "${catalog[@]}" --workspace "$work/ws" --report "$work/build-report.json" > "$work/build-log" 2>&1
python3 - "$work" "$BUILD_EDITIONS" <<'PY'
import glob, json, os, re, sys
work, editions = sys.argv[1], int(sys.argv[2])
build_s, build_rss, user_s, sys_s = open(f"{work}/build-time").read().split()
# Where the time goes: the load (parse thread + inserts), then finishIndex's phases.
phases = re.findall(r"event=catalog-(?:loaded|indexed)(?: lines=\d+)?(?: phase=(\w+))? seconds=([\d.]+)", open(f"{work}/build-log").read())
print("phases (s since start): " + ", ".join(f"{name or 'load'} {seconds}" for name, seconds in phases)
      + f"; CPU {float(user_s) + float(sys_s):.1f} s (user {user_s} + sys {sys_s})")
seconds, rss_mb = float(build_s), int(build_rss) / 1024
size = os.path.getsize(glob.glob(f"{work}/ws/cache/catalog-*.sqlite")[0])
rate, per_million = editions / seconds, size / 1e6 / (editions / 1e6)
print(f"index build: {editions:,} editions (+ {editions // 2:,} works, {editions // 8:,} authors) in {seconds:.1f} s = {rate:,.0f} editions/s (target >= 100,000)")
print(f"index size: {size / 1e6:.0f} MB = {per_million:.0f} MB per million editions (target <= 150); peak RSS {rss_mb:.1f} MB (target <= 256)")
print(f"extrapolated to the real dump (~50M editions): {50e6 / rate / 60:.1f} min, {per_million * 50 / 1000:.1f} GB")
PY
