#!/usr/bin/env bash
# bench/push/import.sh (issue 26): a 200,000-row import through `shelfline run` with Live Activity
# pushes on (an `apns` section, a push-to-start and an update token registered, a loopback HTTP/2
# APNs served by `shelfline-push-bench serve`) against the same import with pushes off, each in a
# fresh workspace, alternating, BENCH_PUSH_RUNS times each (default 2). Prints each wall time and
# the ratio of the medians. Target: pushes on within 3 % of off.
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

seconds() { python3 -c 'import time; print(f"{time.time():.3f}")'; }
run() {  # run on|off N
    local ws="$OUT/ws-$1-$2"
    rm -rf "$ws"
    if [ "$1" = on ]; then
        for kind in start update; do
            "$BIN/shelfline-push" register --activity import --kind "$kind" --token "$(printf '%064x' $RANDOM$RANDOM)" \
                --workspace "$ws" --config "$OUT/on.json" --quiet
        done
    fi
    local start end
    start=$(seconds)
    "$BIN/shelfline" run --csv "$csv" --config "$OUT/$1.json" --workspace "$ws" --quiet 2> "$OUT/run-$1-$2.err"
    end=$(seconds)
    python3 -c "print(f'{$end - $start:.2f}')"
}
on=(); off=()
for n in $(seq "$RUNS"); do
    t=$(run off "$n"); off+=("$t"); echo "pushes off, run $n: $t s"
    t=$(run on "$n"); on+=("$t"); echo "pushes on,  run $n: $t s ($(grep -c . "$OUT/ws-on-$n/push/watch.log" 2>/dev/null || echo 0) worker log lines)"
done
exec 3>&-
wait "$server"
cat "$OUT/apns.out" | grep -v ready
python3 - "${off[*]}" "${on[*]}" <<'PY'
import statistics, sys
off = [float(x) for x in sys.argv[1].split()]; on = [float(x) for x in sys.argv[2].split()]
m_off, m_on = statistics.median(off), statistics.median(on)
print(f"median off {m_off:.2f} s, on {m_on:.2f} s: on/off = {m_on / m_off:.3f} ({(m_on / m_off - 1) * 100:+.1f} %; target within 3 %)")
PY
