#!/usr/bin/env bash
# Lookup with the Open Library API configured but out of reach (issue 25), beside the catalog alone,
# on an export shaped like ../shared/corpus (bench/offline/generate.py: long HTML reviews, many
# shelves, half the rows without ISBN), OFFLINE_BENCH_ROWS rows (default 200,000):
#  (1) shelfline-lookup on the deduped rows, each configuration OFFLINE_BENCH_REPEAT times, round-robin (default 3,
#      best wall, least CPU seconds (user + sys: the figure a loaded machine does not skew), highest peak RSS): the shipped catalog-only examples/pipeline.json; the default
#      pipeline.json (catalog, then the API) with its baseURL a loopback port that refuses
#      connections; and with a host name that does not resolve. Ratio to the catalog-only run.
#      Targets: within 10 % of the catalog-only wall time, peak RSS <= 64 MB.
#  (2) the whole import through `shelfline run` with the default pipeline.json as shipped
#      (https://openlibrary.org; run it without a network), fresh workspace. Target: <= 10 s.
#      OFFLINE_BENCH_IMPORT=0 skips it.
# Run from the repository root after `make build`.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BIN="${SHELFLINE_BIN:-$ROOT/.build/release}"
OUT="${BENCH_OUT:-$ROOT/bench/out/offline}"
ROWS="${OFFLINE_BENCH_ROWS:-200000}"
REPEAT="${OFFLINE_BENCH_REPEAT:-3}"
CORPUS="${OFFLINE_BENCH_CORPUS:-$ROOT/../shared/corpus/gr_31col_html-reviews_genekaufman.csv}"
[ -x "$BIN/shelfline-lookup" ] || { echo "bench/offline: build first (make build)" >&2; exit 66; }
[ -s "$CORPUS" ] || { echo "bench/offline: needs the real export $CORPUS (OFFLINE_BENCH_CORPUS)" >&2; exit 66; }
mkdir -p "$OUT"
holder=
cleanup() { [ -n "$holder" ] && kill "$holder" 2>/dev/null || true; }
trap cleanup EXIT

csv="$OUT/corpuslike_$ROWS.csv"
[ -s "$csv" ] || python3 "$ROOT/bench/offline/generate.py" "$ROWS" "$csv" "$CORPUS"
rows="$OUT/rows"
# Made again by these binaries every time (a few seconds): lookup's input is what this build's parse
# and dedupe write (issue 25: a cached file from an earlier build still held the reviews).
rm -rf "$rows"; mkdir -p "$rows"
"$BIN/shelfline-parse" "$csv" -o "$rows/parsed.ndjson.gz" --rejects "$rows/rejects.ndjson.gz" \
    --report "$rows/parse-report.json" --config "$ROOT/examples/pipeline.json" --workspace "$OUT/ws" --quiet
"$BIN/shelfline-dedupe" "$rows/parsed.ndjson.gz" -o "$rows/deduped.ndjson.gz" --report "$rows/dedupe-report.json" \
    --config "$ROOT/examples/pipeline.json" --workspace "$OUT/ws" --quiet

# A loopback port bound but not listening: every connection is refused.
python3 -c 'import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1], flush=True); time.sleep(86400)' > "$OUT/port" &
holder=$!
for _ in $(seq 50); do [ -s "$OUT/port" ] && break; sleep 0.1; done
port=$(cat "$OUT/port")

# The default pipeline.json with only the API's address changed (catalog paths made absolute).
config() {  # config BASEURL OUT.json
    python3 - "$ROOT/pipeline.json" "$1" "$2" "$ROOT" <<'PY'
import json, os, sys
source, base, out, root = sys.argv[1:5]
config = json.load(open(source))
config.pop("$schema", None)
for stage in config["stages"]:
    if stage["name"] == "lookup":
        p = stage["parameters"]
        p["catalog"] = [os.path.join(root, c) for c in p["catalog"]]
        if base:
            p["openLibrary"]["baseURL"] = base
json.dump(config, open(out, "w"), indent=1)
PY
}
config "http://127.0.0.1:$port" "$OUT/refused.json"
config "https://shelfline-bench.invalid" "$OUT/unresolved.json"
config "" "$OUT/default.json"

# The catalog index is built once, outside the timings.
"$BIN/shelfline-lookup" "$rows/deduped.ndjson.gz" -o "$OUT/warm.ndjson.gz" --config "$ROOT/examples/pipeline.json" \
    --workspace "$OUT/ws" --quiet
# Round-robin (each configuration once per round), so that a load change on a shared machine hits
# every configuration alike: best wall, least CPU (user + sys) and highest peak RSS of REPEAT rounds.
names=(catalog-only refused-port unresolved-name)
configs=("$ROOT/examples/pipeline.json" "$OUT/refused.json" "$OUT/unresolved.json")
declare -A best cpu_best rss
for _ in $(seq "$REPEAT"); do
    for i in "${!names[@]}"; do
        name=${names[$i]}
        /usr/bin/time -f "%e %M %U %S" -o "$OUT/time-$name" "$BIN/shelfline-lookup" "$rows/deduped.ndjson.gz" \
            -o "$OUT/$name.ndjson.gz" --report "$OUT/$name-report.json" --config "${configs[$i]}" --workspace "$OUT/ws" \
            --quiet 2> "$OUT/$name-stderr" || { cat "$OUT/$name-stderr" >&2; exit 1; }
        read -r wall kb user sys < "$OUT/time-$name"
        cpu=$(awk "BEGIN{print $user + $sys}")
        if [ -z "${best[$name]:-}" ] || awk "BEGIN{exit !($wall < ${best[$name]})}"; then best[$name]=$wall; fi
        if [ -z "${cpu_best[$name]:-}" ] || awk "BEGIN{exit !($cpu < ${cpu_best[$name]})}"; then cpu_best[$name]=$cpu; fi
        [ "$kb" -gt "${rss[$name]:-0}" ] && rss[$name]=$kb
    done
done
rm -f "$OUT/results"
for name in "${names[@]}"; do echo "$name ${best[$name]} ${rss[$name]} ${cpu_best[$name]}" >> "$OUT/results"; done
echo "shelfline-lookup, $ROWS-row export shaped like ../shared/corpus, best of $REPEAT (index prebuilt):"
python3 - "$OUT" <<'PY'
import json, sys
out = sys.argv[1]
results = [line.split() for line in open(f"{out}/results")]
base, cpu_base = float(results[0][1]), float(results[0][3])
print(f"{'configuration':16} {'wall_s':>7} {'peak_MiB':>8} {'x_catalog':>9} {'cpu_s':>6} {'x_cpu':>6} {'requests':>8} {'offline':>8}  not enriched reasons")
for name, wall, kb, cpu in results:
    report = json.load(open(f"{out}/{name}-report.json"))
    print(f"{name:16} {float(wall):7.2f} {int(kb) / 1024:8.1f} {float(wall) / base:9.3f} {float(cpu):6.2f} {float(cpu) / cpu_base:6.3f} {report['requests']:8} "
          f"{report['notEnrichedReasons'].get('offline', 0):8}  {json.dumps(report['notEnrichedReasons'], sort_keys=True)}")
PY
echo "targets: offline within 1.10x of catalog-only wall time; peak RSS <= 64 MB (MiB shown)"

[ "${OFFLINE_BENCH_IMPORT:-1}" = 1 ] || exit 0  # OFFLINE_BENCH_IMPORT=0: part (1) only
# The whole import, default pipeline.json as shipped (the API at https://openlibrary.org), fresh workspace.
rm -rf "$OUT/import-ws"
start=$(date +%s.%N)
/usr/bin/time -f "%e %M" -o "$OUT/time-import" "$BIN/shelfline" run --csv "$csv" --config "$OUT/default.json" \
    --workspace "$OUT/import-ws" --quiet 2> "$OUT/import-stderr" || { cat "$OUT/import-stderr" >&2; exit 1; }
read -r wall kb < "$OUT/time-import"
echo "shelfline run, default pipeline.json, $ROWS rows, fresh workspace (index built in the run): ${wall} s, peak RSS $((kb / 1024)) MiB"
python3 - "$OUT/import-ws" <<'PY'
import json, os, sys
run = os.path.join(sys.argv[1], "runs", "latest", ".manifests")
print("  stages: " + ", ".join(f"{s} {json.load(open(os.path.join(run, s + '.json')))['durationMs'] / 1000:.2f} s"
                             for s in ["parse", "dedupe", "lookup", "merge", "render"]))
PY
echo "target: <= 10 s (no network: the API's rows end notEnriched, reason offline)"
