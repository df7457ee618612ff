#!/usr/bin/env bash
# Orchestrator benchmark (issue 5): (1) the five stages run by hand on a synthetic export versus the
# same import through `shelfline run` (orchestration overhead), each in a fresh workspace; (2) the
# no-op rerun of the completed import; (3, issue 12) per stage: wall time, peak RSS, a floor (gunzip of
# its inputs + gzip of its outputs at the same levels) and the stage as a multiple of it, and a
# scaling run (BENCH_SCALE_ROWS, default 2,000,000; 0 skips) showing memory bounded.
# Run from the repository root after `make build`. BENCH_ORCH_ROWS (default 200000) sets the export size.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BIN="${SHELFLINE_BIN:-$ROOT/.build/release}"
OUT="${BENCH_OUT:-$ROOT/bench/out/orchestrator}"
ROWS="${BENCH_ORCH_ROWS:-200000}"
CONFIG="$ROOT/examples/pipeline.json"  # catalog only: the bench must not ask openlibrary.org
mkdir -p "$OUT"
[ -x "$BIN/shelfline" ] || { echo "bench/orchestrator: build first (make build)" >&2; exit 66; }

csv="$OUT/goodreads_$ROWS.csv"
[ -s "$csv" ] || python3 "$ROOT/bench/parse/generate.py" "$ROWS" "$csv"

seconds() { python3 -c 'import sys,time; print(f"{time.time():.3f}")'; }

# By hand: the stage contract, one process after another, in a run directory of our own, each
# stage under /usr/bin/time (wall seconds, peak RSS), then its floor (see floors below).
by_hand() {  # by_hand CSV WORKSPACE TAG
    local csv="$1" ws="$2" tag="$3"
    rm -rf "$ws"; mkdir -p "$ws/run"
    (
        cd "$ws/run"
        common=(--config "$CONFIG" --workspace "$ws" --quiet)
        timed() { local stage="$1"; shift; /usr/bin/time -f "%e %M %U %S" -o "$OUT/$tag-time-$stage.txt" "$@"; }
        timed parse "$BIN/shelfline-parse" "$csv" -o parsed.ndjson.gz --rejects rejects.ndjson.gz --report parse-report.json "${common[@]}"
        timed dedupe "$BIN/shelfline-dedupe" parsed.ndjson.gz -o deduped.ndjson.gz --report dedupe-report.json "${common[@]}"
        timed lookup "$BIN/shelfline-lookup" deduped.ndjson.gz -o enriched.ndjson.gz --report lookup-report.json \
            --progress lookup-progress.json "${common[@]}"
        timed merge "$BIN/shelfline-merge" enriched.ndjson.gz --parse-report parse-report.json --rejects rejects.ndjson.gz \
            --report merge-report.json --ledger ledger.ndjson.gz --review review.json --failed-rows failed-rows.csv \
            --import-id bench --progress merge-progress.json "${common[@]}"
        timed render "$BIN/shelfline-render" import --run "$ws/run" "${common[@]}"
    )
}

# Per stage: wall time and peak RSS, the floor (zlib: gunzip of the stage's gzip inputs + gzip of its
# gzip outputs at the stage's levels, timed here on the same files) and the stage as a multiple of it.
stage_table() {  # stage_table WORKSPACE TAG
    python3 - "$1/run" "$1/library/library.ndjson.gz" "$OUT" "$2" <<'PY'
import os, sys, time, zlib
run, library, out, tag = sys.argv[1:5]
def decode(path):  # every gzip member (the stages write one member per chunk), 64 KiB at a time
    data = []; d = zlib.decompressobj(31)
    with open(path, "rb") as f:
        while chunk := f.read(1 << 16):
            while chunk:
                data.append(d.decompress(chunk))
                chunk, d = (d.unused_data, zlib.decompressobj(31)) if d.eof else (b"", d)
    return b"".join(data)
def floor(inputs, outputs):
    seconds = 0.0
    for path in inputs:
        start = time.perf_counter(); decode(path); seconds += time.perf_counter() - start
    for path, level in outputs:
        data = decode(path)
        start = time.perf_counter()
        c = zlib.compressobj(level, zlib.DEFLATED, 31); c.compress(data); c.flush()
        seconds += time.perf_counter() - start
    return seconds
f = lambda name: os.path.join(run, name)
stages = {
    "parse": ([], [(f("parsed.ndjson.gz"), 1), (f("rejects.ndjson.gz"), 1)]),
    "dedupe": ([f("parsed.ndjson.gz")], [(f("deduped.ndjson.gz"), 1)]),
    "lookup": ([f("deduped.ndjson.gz")], [(f("enriched.ndjson.gz"), 1)]),
    "merge": ([f("enriched.ndjson.gz")], [(f("ledger.ndjson.gz"), 1), (library, 6)]),
    "render": ([], []),
}
print(f"{'stage':8} {'wall_s':>8} {'cpu_s':>7} {'peak_MB':>8} {'floor_s':>8} {'x_floor':>8}")
total = 0.0
for stage, (inputs, outputs) in stages.items():
    wall, rss, user, system = open(os.path.join(out, f"{tag}-time-{stage}.txt")).read().split()[-4:]
    wall = float(wall); total += wall
    cpu = float(user) + float(system)
    fl = floor(inputs, outputs) if inputs or outputs else 0.0
    ratio = f"{wall / fl:8.1f}" if fl > 0.01 else f"{'-':>8}"
    print(f"{stage:8} {wall:8.2f} {cpu:7.2f} {int(rss) / 1024:8.1f} {fl:8.2f} {ratio}")
    open(os.path.join(out, f"{tag}-rss-{stage}.txt"), "w").write(rss)
print(f"{'total':8} {total:8.2f}")
PY
}

echo "stages by hand, $ROWS rows (wall, peak RSS, floor = zlib gunzip inputs + gzip outputs at the same levels):"
start=$(seconds)
by_hand "$csv" "$OUT/hand-ws" hand
hand=$(python3 -c "print(f'{$(seconds) - $start:.2f}')")
stage_table "$OUT/hand-ws" hand
echo "targets: 200k-row import <= 10 s; peak RSS <= 64 MB parse/lookup/render, <= 128 MB dedupe/merge; <= 3x floor"

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
python3 - "$OUT" "$orch_ws" "$orchestrated" <<'PY'
import json, os, sys
out = sys.argv[1]
stages = ["parse", "dedupe", "lookup", "merge", "render"]
run = os.path.join(sys.argv[2], "runs", "latest", ".manifests")
orch = [json.load(open(os.path.join(run, s + ".json")))["durationMs"] / 1000 for s in stages]
hand = [float(open(os.path.join(out, f"hand-time-{s}.txt")).read().split()[-4]) for s in stages]
print(f"{'stage':8} {'by_hand_s':>10} {'orchestrated_s':>15}")
for i, s in enumerate(stages):
    print(f"{s:8} {hand[i]:10.2f} {orch[i]:15.2f}")
own = float(sys.argv[3]) - sum(orch)
print(f"orchestrator's own time: {own:.2f} s ({own / float(sys.argv[3]) * 100:.1f} % of the orchestrated run)")
PY
printf '%-8s %12s %14s %10s %14s %14s\n' rows by_hand_s orchestrated_s overhead noop_rerun_s noop_rss_KiB
printf '%-8s %12s %14s %9s%% %14s %14s\n' "$ROWS" "$hand" "$orchestrated" "$overhead" "$best" "$rss"
echo "targets: no-op rerun <= 0.5 s; overhead <= 5 %"

# Scaling: the same stages at BENCH_SCALE_ROWS (default 2,000,000; 0 skips it). Memory is bounded
# when no stage's peak RSS exceeds 2x its figure above.
SCALE="${BENCH_SCALE_ROWS:-2000000}"
if [ "$SCALE" != 0 ]; then
    big="$OUT/goodreads_$SCALE.csv"
    [ -s "$big" ] || python3 "$ROOT/bench/parse/generate.py" "$SCALE" "$big"
    echo
    echo "scaling run, $SCALE rows:"
    by_hand "$big" "$OUT/scale-ws" scale
    stage_table "$OUT/scale-ws" scale
    python3 - "$OUT" "$ROWS" "$SCALE" <<'PY'
import os, sys
out, small, big = sys.argv[1], sys.argv[2], sys.argv[3]
print(f"{'stage':8} {'rss_' + small:>12} {'rss_' + big:>12} {'ratio':>6}")
for s in ["parse", "dedupe", "lookup", "merge", "render"]:
    a = int(open(os.path.join(out, f"hand-rss-{s}.txt")).read()); b = int(open(os.path.join(out, f"scale-rss-{s}.txt")).read())
    print(f"{s:8} {a / 1024:11.1f}M {b / 1024:11.1f}M {b / a:6.2f}")
print("target: ratio <= 2 for every stage (memory bounded, not proportional)")
PY
    rm -rf "$OUT/scale-ws"
fi
