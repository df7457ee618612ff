#!/usr/bin/env bash
# The library page benchmark (issues 22, 38): for each size in BENCH_PAGE_ROWS (default "20000 200000"),
# a library of that many books (the parse benchmark's synthetic Goodreads export imported against the
# example catalog), its page written by `shelfline library html`, then in headless Chromium:
# - open: the wall time of `--dump-dom` on the page (it returns once the page has loaded) minus the
#   same on a blank page, and DOMContentLoaded as the page measures it (the page's own script has
#   built the first rows by then: it runs inline before DOMContentLoaded);
# - search and sort: a script appended after the page's own types a word in the search box and
#   changes the sort through real events, timing each until the event's handler returns (the page
#   updates the rows shown synchronously), and reads the "shown" count.
# Covers are not counted: the timed copies point them at `data:,` (the measure is the document).
# Usage: bash bench/export/page.sh (from the repository root, after `make build`).
set -euo pipefail

source "$(dirname "$0")/common.sh"
SIZES="${BENCH_PAGE_ROWS:-20000 200000}"
RUNS="${BENCH_PAGE_RUNS:-3}"

browser=""
for candidate in /usr/bin/chromium-headless-shell /usr/bin/chromium /usr/bin/chromium-browser; do
    [ -x "$candidate" ] && { browser="$candidate"; break; }
done

dump() {  # dump FILE: the DOM Chromium built from FILE; its wall seconds in $OUT/dump-time.txt
    /usr/bin/time -f "%e" -o "$OUT/dump-time.txt" \
        "$browser" --headless --no-sandbox --disable-gpu --user-data-dir="$OUT/profile" --dump-dom "file://$1" 2>/dev/null
}

attribute() { sed -n "s/.*[ <]$1=\"\([0-9.]*\)\".*/\1/p" | head -1; }

printf '<!DOCTYPE html><html><head><meta charset="utf-8"><title>blank</title></head><body></body></html>\n' > "$OUT/blank.html"
for rows in $SIZES; do
    ws="$(library_of "$rows")"
    books=$(zcat "$ws/library/library.ndjson.gz" | wc -l)
    /usr/bin/time -f "%e %M" -o "$OUT/page-write.txt" \
        "$BIN/shelfline" library html --workspace "$ws" --config "$CONFIG" --quiet
    read -r wall rss < "$OUT/page-write.txt"
    page="$ws/library.html"
    echo "library page, $books books: $(( $(stat -c %s "$page") / 1024 )) KiB, written in $wall s (peak $(( rss / 1024 )) MiB)"
    [ -n "$browser" ] || { echo "  no headless Chromium (apt-get install chromium-headless-shell)"; continue; }
    opened="$OUT/library-open-$rows.html" driven="$OUT/library-search-$rows.html"
    sed -e 's#https://covers.openlibrary.org/#data:,#g' "$page" > "$opened"
    cp "$opened" "$driven"
    cat >> "$opened" <<'HTML'
<script>document.addEventListener('DOMContentLoaded', function () {
  document.body.setAttribute('data-dcl', Math.round(performance.now()));
});</script>
HTML
    cat >> "$driven" <<'HTML'
<script>document.addEventListener('DOMContentLoaded', function () {
  var search = document.getElementById('search'), sort = document.getElementById('sort');
  function timed(name, change) {
    var start = performance.now();
    change();
    document.body.setAttribute('data-' + name, (performance.now() - start).toFixed(0));
    document.body.setAttribute('data-' + name + '-shown', document.getElementById('shown').textContent);
  }
  timed('search', function () { search.value = 'dragon'; search.dispatchEvent(new Event('input')); });
  timed('search2', function () { search.value = 'dragon winter'; search.dispatchEvent(new Event('input')); });
  timed('sort', function () { sort.value = 'title-asc'; sort.dispatchEvent(new Event('change')); });
  timed('clear', function () { search.value = ''; search.dispatchEvent(new Event('input')); });
});</script>
HTML
    for run in $(seq "$RUNS"); do
        dump "$OUT/blank.html" > /dev/null
        blank=$(cat "$OUT/dump-time.txt")
        dcl=$(dump "$opened" | attribute data-dcl)
        open=$(cat "$OUT/dump-time.txt")
        dom=$(dump "$driven")
        printf '  run %s: open %s s over blank (%s s, blank %s s), DOMContentLoaded %s ms; ' "$run" \
            "$(echo "$open - $blank" | bc -l | sed 's/^\./0./;s/^-\./-0./')" "$open" "$blank" "${dcl:-?}"
        printf 'search "dragon" %s ms (%s shown), "dragon winter" %s ms (%s), sort by title %s ms, cleared %s ms (%s)\n' \
            "$(attribute data-search <<< "$dom")" "$(attribute data-search-shown <<< "$dom")" \
            "$(attribute data-search2 <<< "$dom")" "$(attribute data-search2-shown <<< "$dom")" \
            "$(attribute data-sort <<< "$dom")" "$(attribute data-clear <<< "$dom")" "$(attribute data-clear-shown <<< "$dom")"
    done
done
