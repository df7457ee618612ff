#!/usr/bin/env bash
# Second metadata source (Google Books behind Open Library), measured black-box: bench/match's
# labelled rows (every real export in ../shared/corpus, half the ISBNs removed) looked up by the
# built shelfline-lookup with "sources": ["openlibrary", "googlebooks"] against loopback stand-ins
# (fake_services.py): Open Library is bench/match's catalog (a quarter of the books absent, near
# misses beside them), Google Books has most of the absent books and near misses of its own
# (make_services.py). Prints wrong matches (target 0), books either has accepted (>= 95 %), books
# only Google Books has accepted (>= 90 %), and requests, 429s and rows/s per source.
# Settings: SOURCES_ROWS (default 400; 0 = all rows), SOURCES_OL_RATE / SOURCES_GB_RATE (requests/s
# of both the client and the service; default 3 and 1, Open Library's documented rate and the
# shipped Google Books pacing), SOURCES_SEED (default 39), SOURCES_WORK=DIR keeps the files.
# --check: exit 1 when a target is missed.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BIN=${BIN:-$ROOT/.build/release}
CORPUS=${SOURCES_CORPUS:-$ROOT/../shared/corpus}
ROWS=${SOURCES_ROWS:-400}
OL_RATE=${SOURCES_OL_RATE:-3}
GB_RATE=${SOURCES_GB_RATE:-1}
SEED=${SOURCES_SEED:-39}
source "$ROOT/bench/labelled.sh"
labelled_workdir "${SOURCES_WORK:-}" sources
server_pid=
stop_server() { [ -z "$server_pid" ] || kill "$server_pid" 2>/dev/null || true; }
trap 'stop_server; [ -n "${SOURCES_WORK:-}" ] || rm -rf "$work"' EXIT
labelled_parse_corpus "$CORPUS" sources
python3 "$ROOT/bench/match/make_fixtures.py" "$work" "$SEED" "${parsed[@]}" 2>/dev/null
if [ "$ROWS" -gt 0 ]; then
    python3 -c 'import gzip, itertools, sys
rows = list(itertools.islice(gzip.open(sys.argv[1], "rt", encoding="utf-8"), int(sys.argv[2])))
gzip.open(sys.argv[1], "wt", encoding="utf-8").writelines(rows)' "$work/rows.ndjson.gz" "$ROWS"
fi
python3 "$ROOT/bench/sources/make_services.py" "$work" "$SEED"
python3 "$ROOT/bench/sources/fake_services.py" "$work" "$work/ports" --ol-rate "$OL_RATE" --gb-rate "$GB_RATE" &
server_pid=$!
for _ in $(seq 100); do [ -s "$work/ports" ] && break; sleep 0.1; done
read -r ol_port gb_port < "$work/ports"
cat > "$work/pipeline.json" <<JSON
{"stages": [{"name": "lookup", "inputs": [], "outputs": [], "parameters": {
  "sources": ["openlibrary", "googlebooks"], "catalog": [],
  "openLibrary": {"baseURL": "http://127.0.0.1:$ol_port", "requestsPerSecond": $OL_RATE},
  "googleBooks": {"baseURL": "http://127.0.0.1:$gb_port", "requestsPerSecond": $GB_RATE}}}]}
JSON
start=$(date +%s.%N)
"$BIN/shelfline-lookup" "$work/rows.ndjson.gz" -o "$work/enriched.ndjson.gz" --report "$work/report.json" \
    --config "$work/pipeline.json" --workspace "$work/ws" --quiet
seconds=$(echo "$(date +%s.%N) - $start" | bc)
curl -s "http://127.0.0.1:$ol_port/stats" > "$work/stats-ol.json"
curl -s "http://127.0.0.1:$gb_port/stats" > "$work/stats-gb.json"
stop_server
echo "corpus: $n exports from $CORPUS, rows: ${ROWS/#0/all} (seed $SEED); rates: Open Library $OL_RATE/s, Google Books $GB_RATE/s; binaries: $BIN"
python3 "$ROOT/bench/sources/score.py" "$work" "$work/enriched.ndjson.gz" "$work/report.json" "$seconds" \
    "$work/stats-ol.json" "$work/stats-gb.json" "$@"
