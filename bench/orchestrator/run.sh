#!/usr/bin/env bash
# Orchestrator benchmark (issue 5): (1) the five stages run by hand on a synthetic export versus the
# same import through `shelfline run` (orchestration overhead), each in a fresh workspace; (2) the
# no-op rerun of the completed import. Run from the repository root after `swift build -c release`.
# BENCH_ORCH_ROWS (default 200000) sets the export size.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BIN="${SHELFLINE_BIN:-$ROOT/.build/release}"
OUT="${BENCH_OUT:-$ROOT/bench/out/orchestrator}"
ROWS="${BENCH_ORCH_ROWS:-200000}"
CONFIG="$ROOT/examples/pipeline.json"  # catalog only: the bench must not ask openlibrary.org
mkdir -p "$OUT"
[ -x "$BIN/shelfline" ] || { echo "bench/orchestrator: build first (swift build -c release)" >&2; exit 66; }

csv="$OUT/goodreads_$ROWS.csv"
[ -s "$csv" ] || python3 "$ROOT/bench/parse/generate.py" "$ROWS" "$csv"

seconds() { python3 -c 'import sys,time; print(f"{time.time():.3f}")'; }

# By hand: the stage contract, one process after another, in a run directory of our own.
hand_ws="$OUT/hand-ws"; rm -rf "$hand_ws"; mkdir -p "$hand_ws/run"
start=$(seconds)
(
    cd "$hand_ws/run"
    common=(--config "$CONFIG" --workspace "$hand_ws" --quiet)
    stamp() { python3 -c 'import time; print(f"{time.time():.3f}")' >> "$OUT/hand-stamps.txt"; }
    : > "$OUT/hand-stamps.txt"; stamp
    "$BIN/shelfline-parse" "$csv" -o parsed.ndjson.gz --rejects rejects.ndjson.gz --report parse-report.json "${common[@]}"; stamp
    "$BIN/shelfline-dedupe" parsed.ndjson.gz -o deduped.ndjson.gz --report dedupe-report.json "${common[@]}"; stamp
    "$BIN/shelfline-lookup" deduped.ndjson.gz -o enriched.ndjson.gz --report lookup-report.json \
        --progress lookup-progress.json "${common[@]}"; stamp
    "$BIN/shelfline-merge" enriched.ndjson.gz --parse-report parse-report.json --rejects rejects.ndjson.gz \
        --report merge-report.json --ledger ledger.ndjson.gz --review review.json --failed-rows failed-rows.csv \
        --import-id bench "${common[@]}"; stamp
    "$BIN/shelfline-render" import --run "$hand_ws/run" "${common[@]}"; stamp
)
hand=$(python3 -c "print(f'{$(seconds) - $start:.2f}')")

# Orchestrated: the same import through `shelfline run` in a fresh workspace.
orch_ws="$OUT/orch-ws"; rm -rf "$orch_ws"
start=$(seconds)
"$BIN/shelfline" run --csv "$csv" --config "$CONFIG" --workspace "$orch_ws" --quiet
orchestrated=$(python3 -c "print(f'{$(seconds) - $start:.2f}')")

# No-op rerun of the completed import (best of 5; it hashes the export to find its run).
best=""
for _ in 1 2 3 4 5; do
    start=$(seconds)
    "$BIN/shelfline" run --csv "$csv" --config "$CONFIG" --workspace "$orch_ws" --quiet
    t=$(python3 -c "print(f'{$(seconds) - $start:.3f}')")
    if [ -z "$best" ] || awk "BEGIN{exit !($t < $best)}"; then best=$t; fi
done
rss=$(/usr/bin/time -f %M "$BIN/shelfline" run --csv "$csv" --config "$CONFIG" --workspace "$orch_ws" --quiet 2>&1 | tail -n 1)

overhead=$(python3 -c "print(f'{($orchestrated / $hand - 1) * 100:+.1f}')")
# Per-stage seconds: by hand from the stamps, orchestrated from the stage manifests. The
# orchestrator's own time is its wall time minus its stages' (hashing, copying, manifests, activity).
python3 - "$OUT/hand-stamps.txt" "$orch_ws" "$orchestrated" <<'PY'
import json, os, sys
stamps = [float(x) for x in open(sys.argv[1]).read().split()]
stages = ["parse", "dedupe", "lookup", "merge", "render"]
run = os.path.join(sys.argv[2], "runs", "latest", ".manifests")
orch = [json.load(open(os.path.join(run, s + ".json")))["durationMs"] / 1000 for s in stages]
print(f"{'stage':8} {'by_hand_s':>10} {'orchestrated_s':>15}")
for i, s in enumerate(stages):
    print(f"{s:8} {stamps[i + 1] - stamps[i]:10.2f} {orch[i]:15.2f}")
own = float(sys.argv[3]) - sum(orch)
print(f"orchestrator's own time: {own:.2f} s ({own / float(sys.argv[3]) * 100:.1f} % of the orchestrated run)")
PY
printf '%-8s %12s %14s %10s %14s %14s\n' rows by_hand_s orchestrated_s overhead noop_rerun_s noop_rss_KiB
printf '%-8s %12s %14s %9s%% %14s %14s\n' "$ROWS" "$hand" "$orchestrated" "$overhead" "$best" "$rss"
echo "targets: no-op rerun <= 0.5 s; overhead <= 5 %"
