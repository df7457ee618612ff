#!/usr/bin/env bash
# Export benchmark (issue 22): a BENCH_EXPORT_ROWS-book library (default 200,000, imported from the
# parse benchmark's synthetic Goodreads export against the example catalog), exported in each format
# by `shelfline export` under /usr/bin/time (wall seconds, peak RSS), beside Python's csv writer over
# the same library (bench/export/baseline.py). Then the library page: bench/export/page.sh
# (BENCH_PAGE_ROWS, default 20,000 and 200,000 books: open and search times in headless Chromium).
# Run from the repository root after `make build`.
set -euo pipefail

source "$(dirname "$0")/common.sh"
ROWS="${BENCH_EXPORT_ROWS:-200000}"

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

bash "$ROOT/bench/export/page.sh"
