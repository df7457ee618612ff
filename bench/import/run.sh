#!/usr/bin/env bash
# Whole-import benchmark against a large catalog (issue 12: a 200,000-row import end to end in <= 25 s
# against a 1,000,000-edition catalog with half the rows needing title/author search).
# bench/lookup/make_catalog.py writes the synthetic dumps and the rows; the rows become a Goodreads
# export (the 31-column header of bench/parse, ISBN cells as Goodreads writes them), imported through `shelfline run` with
# a pipeline.json whose catalog is those dumps. The index is built first, once, in the same workspace
# (its build is measured by bench/lookup part c), so the timed run is the import a user repeats.
# Run from the repository root after `make build`.
# Sizes: IMPORT_BENCH_EDITIONS (default 1000000), IMPORT_BENCH_ROWS (default 200000),
# IMPORT_BENCH_ISBN_SHARE (default 0.5). IMPORT_BENCH_KEEP=1 keeps the work directory.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BIN="${SHELFLINE_BIN:-$ROOT/.build/release}"
EDITIONS=${IMPORT_BENCH_EDITIONS:-1000000}
ROWS=${IMPORT_BENCH_ROWS:-200000}
ISBN_SHARE=${IMPORT_BENCH_ISBN_SHARE:-0.5}
[ -x "$BIN/shelfline" ] || { echo "bench/import: build first (make build)" >&2; exit 66; }
work=$(mktemp -d /tmp/shelfline-import-bench.XXXXXX)
cleanup() { [ "${IMPORT_BENCH_KEEP:-0}" = 1 ] && echo "kept $work" || rm -rf "$work"; }
trap cleanup EXIT

echo "== import: $ROWS rows through shelfline run, catalog of $EDITIONS editions ($ISBN_SHARE of rows with an ISBN in it)"
python3 "$ROOT/bench/lookup/make_catalog.py" "$work" "$EDITIONS" "$ROWS" "$ISBN_SHARE"
python3 - "$ROOT" "$work" <<'PY'
import csv, gzip, json, sys
root, work = sys.argv[1], sys.argv[2]
sys.path.insert(0, f"{root}/bench/parse")
from generate import HEADER  # the 31-column Goodreads header
column = {name: i for i, name in enumerate(HEADER)}
with gzip.open(f"{work}/rows.ndjson.gz", "rt") as rows, open(f"{work}/export.csv", "w", newline="") as out:
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(HEADER)
    for number, line in enumerate(rows, 1):
        record = json.loads(line)
        row = [""] * len(HEADER)
        row[column["Book Id"]] = str(number)
        row[column["Title"]] = record["title"]
        row[column["Author"]] = record["author"]
        row[column["ISBN"]] = '=""'
        row[column["ISBN13"]] = f'="{record["isbn13"]}"' if "isbn13" in record else '=""'
        row[column["Exclusive Shelf"]] = "read"
        row[column["Date Added"]] = "2026/01/02"
        writer.writerow(row)
config = json.load(open(f"{root}/examples/pipeline.json"))
for stage in config["stages"]:
    if stage["name"] == "lookup":
        stage["parameters"]["sources"] = ["catalog"]
        stage["parameters"]["catalog"] = [f"{work}/editions.txt.gz", f"{work}/works.txt.gz", f"{work}/authors.txt.gz"]
config["$schema"] = f"{root}/docs/pipeline.schema.json"
json.dump(config, open(f"{work}/pipeline.json", "w"), indent=2)
PY

# The index, built once (a one-row import of its own in the same workspace).
head -n 2 "$work/export.csv" > "$work/one.csv"
/usr/bin/time -f "%e %M" -o "$work/index-time" "$BIN/shelfline" run --csv "$work/one.csv" \
    --config "$work/pipeline.json" --workspace "$work/ws" --quiet
/usr/bin/time -f "%e %M" -o "$work/import-time" "$BIN/shelfline" run --csv "$work/export.csv" \
    --config "$work/pipeline.json" --workspace "$work/ws" --quiet
python3 - "$work" "$ROWS" "$EDITIONS" <<'PY'
import json, os, sys
work, rows, editions = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
index_s, _ = open(f"{work}/index-time").read().split()
wall, rss = open(f"{work}/import-time").read().split()
run = os.path.join(work, "ws", "runs", "latest")
print(f"index built beforehand in {float(index_s):.1f} s ({editions:,} editions)")
print(f"{'stage':8} {'seconds':>8}")
for stage in ["parse", "dedupe", "lookup", "merge", "render"]:
    manifest = json.load(open(os.path.join(run, ".manifests", stage + ".json")))
    print(f"{stage:8} {manifest['durationMs'] / 1000:8.2f}")
report = json.load(open(os.path.join(run, "lookup-report.json")))
print("lookup outcomes:", json.dumps(report["counts"], sort_keys=True))
print(f"import: {rows:,} rows in {float(wall):.2f} s wall through shelfline run (target <= 25 s); "
      f"orchestrator peak RSS {int(rss) / 1024:.1f} MB")
PY
