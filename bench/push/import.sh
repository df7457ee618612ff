#!/usr/bin/env bash
# bench/push/import.sh (issue 26): a 200,000-row import through `shelfline run` with Live Activity
# pushes on (an `apns` section, a push-to-start and an update token registered, a loopback HTTP/2
# APNs served by `shelfline-push-bench serve`) against the same import with pushes off, each in a
# fresh workspace, alternating, BENCH_PUSH_RUNS times each (default 2). Prints each wall time and
# the ratio of the medians, of wall time and of CPU time (the push worker's included: on a shared
# machine CPU is the steadier figure). Target: pushes on within 3 % of off.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BIN="${SHELFLINE_BIN:-$ROOT/.build/release}"
OUT="${BENCH_OUT:-$ROOT/bench/out/push-import}"
ROWS="${BENCH_PUSH_ROWS:-200000}"
RUNS="${BENCH_PUSH_RUNS:-2}"
mkdir -p "$OUT"
[ -x "$BIN/shelfline" ] && [ -x "$BIN/shelfline-push-bench" ] || { echo "bench/push: build first (swift build -c release)" >&2; exit 66; }

csv="$OUT/goodreads_$ROWS.csv"
[ -s "$csv" ] || python3 "$ROOT/bench/parse/generate.py" "$ROWS" "$csv"

# The loopback APNs, alive until its stdin (this fifo's writer) closes.
rm -f "$OUT/apns.in"; mkfifo "$OUT/apns.in"
"$BIN/shelfline-push-bench" serve "$OUT" < "$OUT/apns.in" > "$OUT/apns.out" &
server=$!
exec 3> "$OUT/apns.in"
for _ in $(seq 100); do grep -q ready "$OUT/apns.out" 2>/dev/null && break; sleep 0.1; done
grep -q ready "$OUT/apns.out" || { echo "bench/push: the loopback APNs did not start" >&2; exit 70; }

# The example config (catalog only, absolute paths) without and with the apns section.
python3 - "$ROOT/examples/pipeline.json" "$OUT/apns.json" "$OUT" <<'PY'
import json, os, sys
config_path, apns_path, out = sys.argv[1:4]
config = json.load(open(config_path)); config.pop("$schema", None)
base = os.path.dirname(os.path.abspath(config_path))
for stage in config["stages"]:
    p = stage.get("parameters", {})
    if "catalog" in p: p["catalog"] = [os.path.join(base, c) for c in p["catalog"]]
json.dump(config, open(os.path.join(out, "off.json"), "w"))
config["apns"] = json.load(open(apns_path))
json.dump(config, open(os.path.join(out, "on.json"), "w"))
PY

run() {  # run on|off N: prints "WALL CPU" (CPU = user + system of shelfline run and every child, the worker included)
    local ws="$OUT/ws-$1-$2"
    rm -rf "$ws"
    if [ "$1" = on ]; then
        for kind in start update; do
            "$BIN/shelfline-push" register --activity import --kind "$kind" --token "$(printf '%064x' $RANDOM$RANDOM)" \
                --workspace "$ws" --config "$OUT/on.json" --quiet
        done
    fi
    /usr/bin/time -f "%e %U %S" -o "$OUT/time-$1-$2.txt" \
        "$BIN/shelfline" run --csv "$csv" --config "$OUT/$1.json" --workspace "$ws" --quiet 2> "$OUT/run-$1-$2.err"
    awk '{ printf "%.2f %.2f\n", $1, $2 + $3 }' "$OUT/time-$1-$2.txt"
}
on=(); off=()
for n in $(seq "$RUNS"); do
    t=$(run off "$n"); off+=("$t"); echo "pushes off, run $n: wall, CPU s: $t"
    t=$(run on "$n"); on+=("$t"); echo "pushes on,  run $n: wall, CPU s: $t"
done
exec 3>&-
wait "$server"
grep -v ready "$OUT/apns.out"
python3 - "${off[*]}" "${on[*]}" <<'PY'
import statistics, sys
def pairs(text):
    v = [float(x) for x in text.split()]
    return v[0::2], v[1::2]
(off_wall, off_cpu), (on_wall, on_cpu) = pairs(sys.argv[1]), pairs(sys.argv[2])
for name, a, b in (("wall", off_wall, on_wall), ("CPU", off_cpu, on_cpu)):
    m_off, m_on = statistics.median(a), statistics.median(b)
    print(f"median {name}: off {m_off:.2f} s, on {m_on:.2f} s: on/off = {m_on / m_off:.3f} ({(m_on / m_off - 1) * 100:+.1f} %; target within 3 %)")
PY
