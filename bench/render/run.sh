#!/usr/bin/env bash
# Render benchmark: how long one beer-queue page parse + snapshot and one import refresh take,
# and their peak RSS. Run from the repo root after `make build`.
# No reference baseline: the issue sets no target for render; the figures show the per-call cost
# the orchestrator (import refresh every ~2 s) and cron (a poll every 6 minutes) pay.
set -euo pipefail
BIN=${SHELFLINE_BIN:-.build/release}
RENDER="$BIN/shelfline-render"
[ -x "$RENDER" ] || { echo "bench/render: $RENDER not built (make build)" >&2; exit 1; }
WORK=$(mktemp -d /tmp/shelfline-bench-render.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

cat > "$WORK/pipeline.json" <<JSON
{"stages": [], "beerQueue": {"memberId": "123456", "storeId": "13888", "storeLocation": "Bench Saucer"}}
JSON

# Queue pages of 200 and 20,000 beers (the site caps queues far below the latter).
python3 - "$WORK" <<'PY'
import sys
work = sys.argv[1]
for n in (200, 20000):
    rows = []
    for i in range(n):
        rows.append(f'''
    <h3 class="brewName">Bench Beer &amp; Friends #{i} (2024) (CAN)
      <div class="brew_added_date">Apr 08, 2025 @ 03:10:18pm</div>
    </h3>
    <a href="deleteQueuedBrew.php?cid={4400000 + i}">Remove</a>''')
    page = ("<!DOCTYPE html><html><head><script>var x = '<h3 class=\"brewName\">';</script></head><body>"
            + "".join(rows) + "</body></html>\n")
    open(f"{work}/queue-{n}.html", "w").write(page)
PY

# A finished run directory with 200,000 rows read and 2,000 failed rows for the report page.
RUN="$WORK/ws/runs/bench"
mkdir -p "$RUN"
cat > "$RUN/parse-report.json" <<JSON
{"input": "bench.csv", "format": "goodreads", "delimiter": ",", "header": ["Book Id"], "headerByteOffset": 0,
 "headerByteLength": 7, "rowsRead": 200000, "rowsWritten": 198000, "rowsRejected": 2000, "fieldsRepaired": 0}
JSON
python3 - "$RUN" <<'PY'
import sys, json
run = sys.argv[1]
with open(f"{run}/failed-rows.csv", "w") as f:
    f.write("Book Id,Title,Author\r\n")
    for i in range(2000):
        f.write(f'{i},"Failed, Book {i}",Someone\r\n')
json.dump([{"line": i, "title": f"T{i}", "author": "A", "candidates": [{"key": f"/books/OL{i}M", "title": f"T{i}", "authors": ["A"], "score": 0.7}]} for i in range(500)], open(f"{run}/review.json", "w"))
PY

measure() {  # label, command...
    local label=$1; shift
    local start end
    start=$(date +%s.%N)
    /usr/bin/time -f %M -o "$WORK/rss" "$@" > /dev/null 2>&1 || true
    end=$(date +%s.%N)
    printf '%-44s %8.1f ms   peak RSS %6d KiB\n' "$label" "$(echo "($end - $start) * 1000" | bc -l)" "$(tail -1 "$WORK/rss")"
}

echo "render benchmark ($RENDER)"
for n in 200 20000; do
    rm -rf "$WORK/ws/activity"
    measure "beer-queue --html ($n beers)" "$RENDER" beer-queue --html "$WORK/queue-$n.html" --workspace "$WORK/ws" --config "$WORK/pipeline.json" --quiet
done
# Issue 15.5: the 8 MiB page limit holds while reading (peak RSS stays near the 200-beer figure).
truncate -s 512M "$WORK/huge.html"
measure "beer-queue --html (512 MiB page, refused)" "$RENDER" beer-queue --html "$WORK/huge.html" --workspace "$WORK/ws" --config "$WORK/pipeline.json" --quiet
python3 bench/render/oversized_server.py "$WORK/port" & SERVER=$!
trap 'kill $SERVER 2>/dev/null; rm -rf "$WORK"' EXIT
for _ in $(seq 50); do [ -s "$WORK/port" ] && break; sleep 0.1; done
printf 'PHPSESSID=bench-cookie-value\n' > "$WORK/cookie" && chmod 600 "$WORK/cookie"
for path in "" /cl; do
    cat > "$WORK/poll.json" <<JSON
{"stages": [], "beerQueue": {"host": "http://127.0.0.1:$(cat "$WORK/port")$path", "credentialsFile": "$WORK/cookie",
 "memberId": "123456", "storeId": "13888", "timeoutSeconds": 120}}
JSON
    measure "beer-queue --poll (300 MB answer${path:+, Content-Length})" "$RENDER" beer-queue --poll --workspace "$WORK/ws" --config "$WORK/poll.json" --quiet
done
rm -rf "$WORK/ws/activity"
measure "import refresh (start, 200k-row run)" "$RENDER" import --run "$RUN" --workspace "$WORK/ws" --config "$WORK/pipeline.json" --quiet
cat > "$RUN/merge-report.json" <<JSON
{"importId": "bench", "rowsRead": 200000, "outcomes": {"rejected": 2000, "added": 150000, "updated": 40000, "duplicateInFile": 8000},
 "enrichment": {"matchedByIsbn": 180000, "matchedBySearch": 9500, "needsReview": 500, "notEnriched": 8000}, "libraryBooks": 190000,
 "ledger": "ledger.ndjson.gz", "review": "review.json", "failedRows": "failed-rows.csv"}
JSON
measure "import refresh (end + report.html)" "$RENDER" import --run "$RUN" --workspace "$WORK/ws" --config "$WORK/pipeline.json" --quiet
printf 'report.html: %d bytes\n' "$(stat -c %s "$RUN/report.html")"
