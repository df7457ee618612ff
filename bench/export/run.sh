#!/usr/bin/env bash
# Export benchmark (issue 22): a BENCH_EXPORT_ROWS-book library (default 200,000, imported from the
# parse benchmark's synthetic Goodreads export against the example catalog), exported in each format
# by `shelfline export` under /usr/bin/time (wall seconds, peak RSS), beside Python's csv writer over
# the same library (bench/export/baseline.py). Then the library page of a BENCH_PAGE_ROWS-book library
# (default 20,000): its size, and the time to DOMContentLoaded in headless Chromium (images not counted).
# Run from the repository root after `make build`.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BIN="${SHELFLINE_BIN:-$ROOT/.build/release}"
OUT="${BENCH_OUT:-$ROOT/bench/out/export}"
ROWS="${BENCH_EXPORT_ROWS:-200000}"
PAGE_ROWS="${BENCH_PAGE_ROWS:-20000}"
CONFIG="$ROOT/examples/pipeline.json"  # catalog only: never asks openlibrary.org
mkdir -p "$OUT"
[ -x "$BIN/shelfline" ] || { echo "bench/export: build first (make build)" >&2; exit 66; }

library_of() {  # library_of ROWS: imports a synthetic export of ROWS rows once; prints the workspace
    local rows="$1" ws="$OUT/ws-$1" csv="$OUT/goodreads_$1.csv"
    [ -s "$csv" ] || python3 "$ROOT/bench/parse/generate.py" "$rows" "$csv" >/dev/null
    [ -s "$ws/library/library.ndjson.gz" ] || "$BIN/shelfline" run --csv "$csv" --workspace "$ws" --config "$CONFIG" --quiet
    echo "$ws"
}

ws="$(library_of "$ROWS")"
books=$(zcat "$ws/library/library.ndjson.gz" | wc -l)
printf '%-34s %9s %10s %12s\n' "export of $books books" "wall s" "peak MiB" "output MiB"
for format in goodreads storygraph ndjson; do
    /usr/bin/time -f "%e %M" -o "$OUT/time-$format.txt" \
        "$BIN/shelfline" export --format "$format" -o "$OUT/export.$format" --workspace "$ws" --config "$CONFIG" --quiet
    read -r wall rss < "$OUT/time-$format.txt"
    printf '%-34s %9s %10.1f %12.1f\n' "shelfline export --format $format" "$wall" "$(echo "$rss/1024" | bc -l)" \
        "$(echo "$(stat -c %s "$OUT/export.$format")/1048576" | bc -l)"
done
/usr/bin/time -f "%e %M" -o "$OUT/time-python.txt" python3 "$ROOT/bench/export/baseline.py" "$ws/library/library.ndjson.gz" "$OUT/python.csv"
read -r wall rss < "$OUT/time-python.txt"
printf '%-34s %9s %10.1f %12.1f\n' "python csv writer (goodreads)" "$wall" "$(echo "$rss/1024" | bc -l)" \
    "$(echo "$(stat -c %s "$OUT/python.csv")/1048576" | bc -l)"

# The library page at PAGE_ROWS books: DOMContentLoaded measured by the page itself in Chromium.
browser=""
for candidate in /usr/bin/chromium-headless-shell /usr/bin/chromium /usr/bin/chromium-browser; do
    [ -x "$candidate" ] && { browser="$candidate"; break; }
done
page_ws="$(library_of "$PAGE_ROWS")"
"$BIN/shelfline" library html --workspace "$page_ws" --config "$CONFIG" --quiet
page="$page_ws/library.html"
if [ -z "$browser" ]; then
    echo "library page: no headless Chromium (apt-get install chromium-headless-shell); page $(stat -c %s "$page") bytes"
    exit 0
fi
timed="$OUT/library-timed.html"
# Covers are not counted: the copy points them nowhere (the measure is the document, not the network).
sed -e 's#https://covers.openlibrary.org/[^"]*#data:,#g' "$page" > "$timed"
cat >> "$timed" <<'HTML'
<script>document.addEventListener('DOMContentLoaded', function () {
  document.body.setAttribute('data-dcl', Math.round(performance.now()));
});</script>
HTML
for run in 1 2 3; do
    dcl=$("$browser" --headless --no-sandbox --disable-gpu --user-data-dir="$OUT/profile" --dump-dom "file://$timed" 2>/dev/null \
        | grep -o 'data-dcl="[0-9]*"' | grep -o '[0-9]*')
    echo "library page, $PAGE_ROWS books ($(( $(stat -c %s "$page") / 1024 )) KiB): DOMContentLoaded ${dcl:-?} ms (run $run)"
done
