#!/usr/bin/env bash
# Parse benchmark: shelfline-parse against a Python csv+json+gzip baseline on synthetic Goodreads
# exports of 20,000 and 200,000 rows (same compression level, 1). Run from the repository root
# after `make build`. Prints seconds, ratio, rows/s and peak RSS (KiB, /usr/bin/time).
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BIN="${SHELFLINE_BIN:-$ROOT/.build/release}"
OUT="${BENCH_OUT:-$ROOT/bench/out/parse}"
SIZES="${BENCH_PARSE_SIZES:-20000 200000}"
PYTHON="${PYTHON:-python3}"
mkdir -p "$OUT"

if [ ! -x "$BIN/shelfline-parse" ]; then
    echo "bench/parse: $BIN/shelfline-parse not found; run 'make build' first" >&2
    exit 66
fi

# measure CMD...: runs once, prints "seconds peak_kib" (wall clock, max RSS).
measure() {
    local timefile="$OUT/time.txt"
    /usr/bin/time -f "%e %M" -o "$timefile" "$@" >/dev/null 2>"$OUT/stderr.txt" || {
        echo "bench/parse: command failed: $*" >&2
        cat "$OUT/stderr.txt" >&2
        exit 1
    }
    tail -n 1 "$timefile"
}

printf '%-8s %10s %10s %8s %12s %12s %12s\n' rows baseline_s ours_s ratio ours_rows/s base_rss_KiB ours_rss_KiB
for rows in $SIZES; do
    csv="$OUT/goodreads_$rows.csv"
    [ -s "$csv" ] || "$PYTHON" "$ROOT/bench/parse/generate.py" "$rows" "$csv"
    # Best of three for both sides (the machine is shared); RSS is the max of the runs.
    base_s=""; base_kib=0
    for _ in 1 2 3; do
        read -r s kib < <(measure "$PYTHON" "$ROOT/bench/parse/baseline.py" "$csv" "$OUT/baseline_$rows.ndjson.gz" 1)
        if [ -z "$base_s" ] || awk "BEGIN{exit !($s < $base_s)}"; then base_s=$s; fi
        [ "$kib" -gt "$base_kib" ] && base_kib=$kib
    done
    best=""; ours_kib=0
    for _ in 1 2 3; do
        read -r s kib < <(measure "$BIN/shelfline-parse" "$csv" -o "$OUT/parsed_$rows.ndjson.gz" \
            --rejects "$OUT/rejects_$rows.ndjson.gz" --report "$OUT/report_$rows.json" --quiet)
        if [ -z "$best" ] || awk "BEGIN{exit !($s < $best)}"; then best=$s; fi
        [ "$kib" -gt "$ours_kib" ] && ours_kib=$kib
    done
    ratio=$(awk "BEGIN{printf \"%.1f\", $base_s / ($best > 0 ? $best : 0.01)}")
    rate=$(awk "BEGIN{printf \"%.0f\", $rows / ($best > 0 ? $best : 0.01)}")
    printf '%-8s %10s %10s %7sx %12s %12s %12s\n' "$rows" "$base_s" "$best" "$ratio" "$rate" "$base_kib" "$ours_kib"
done
echo "output sizes (gzip bytes): $(ls -l "$OUT"/parsed_*.ndjson.gz "$OUT"/baseline_*.ndjson.gz | awk '{print $NF": "$5}' | xargs)"
