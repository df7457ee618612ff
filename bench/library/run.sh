#!/usr/bin/env bash
# Library benchmark (issue 3): dedupe + merge of 200,000 records into a library of 200,000 books.
# Run from the repository root after `make build`. ROWS=… overrides the size.
set -euo pipefail
ROWS=${ROWS:-200000}
BIN=${BIN:-.build/release}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/shelfline-bench-library.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
GEN="$(cd "$(dirname "$0")" && pwd)/generate.py"
WS="$WORK/ws"

echo "library bench: generating two imports of $ROWS records (the second overlaps half the first)"
python3 "$GEN" "$WORK/first" --rows "$ROWS" --first-book 0 --seed 1
python3 "$GEN" "$WORK/second" --rows "$ROWS" --first-book $((ROWS / 2)) --seed 2

run_merge() {
  (cd "$1" && /usr/bin/time -f "%e %M %U %S" -o time.txt "$OLDPWD/$BIN/shelfline-merge" "$2" --parse-report parse-report.json \
     --import-id "$(basename "$1")" --workspace "$WS" --quiet)
}

echo "library bench: building the library from the first import"
run_merge "$WORK/first" records.ndjson.gz
read -r t0 m0 u0 s0 < "$WORK/first/time.txt"
books=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['libraryBooks'])" "$WORK/first/merge-report.json")

(cd "$WORK/second" && /usr/bin/time -f "%e %M %U %S" -o dedupe-time.txt "$OLDPWD/$BIN/shelfline-dedupe" records.ndjson.gz \
   -o deduped.ndjson.gz --report dedupe-report.json --workspace "$WS" --quiet)
read -r t1 m1 u1 s1 < "$WORK/second/dedupe-time.txt"
run_merge "$WORK/second" deduped.ndjson.gz
read -r t2 m2 u2 s2 < "$WORK/second/time.txt"
after=$(python3 -c "import json,sys; r=json.load(open(sys.argv[1])); o=r['outcomes']; print(r['libraryBooks'], o['added'], o['updated'], o['duplicateInFile'])" "$WORK/second/merge-report.json")

python3 - "$ROWS" "$books" "$t0" "$m0" "$t1" "$m1" "$t2" "$m2" "$after" "$u0" "$s0" "$u1" "$s1" "$u2" "$s2" <<'PY'
import sys
rows, books = int(sys.argv[1]), int(sys.argv[2])
t0, m0, t1, m1, t2, m2 = (float(x) for x in sys.argv[3:9])
after, added, updated, dups = sys.argv[9].split()
c0, c1, c2 = (float(sys.argv[i]) + float(sys.argv[i + 1]) for i in (10, 12, 14))
print(f"library bench: first import into an empty library: {rows} rows in {t0:.2f} s ({rows / t0:,.0f} rows/s, CPU {c0:.1f} s), peak RSS {m0 / 1024:.1f} MB -> {books} books")
print(f"library bench: dedupe {rows} rows against {books} books: {t1:.2f} s ({rows / t1:,.0f} rows/s, CPU {c1:.1f} s), peak RSS {m1 / 1024:.1f} MB")
print(f"library bench: merge  {rows} rows into {books} books: {t2:.2f} s ({rows / t2:,.0f} rows/s, CPU {c2:.1f} s), peak RSS {m2 / 1024:.1f} MB")
print(f"library bench: dedupe + merge: {t1 + t2:.2f} s ({rows / (t1 + t2):,.0f} rows/s); library now {after} books "
      f"(added {added}, updated {updated}, duplicateInFile {dups})")
PY
