# Sourced by bench/export/run.sh and page.sh: where things are, and library_of.
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BIN="${SHELFLINE_BIN:-$ROOT/.build/release}"
OUT="${BENCH_OUT:-$ROOT/bench/out/export}"
CONFIG="$ROOT/examples/pipeline.json"  # catalog only: never asks openlibrary.org
mkdir -p "$OUT"
[ -x "$BIN/shelfline" ] || { echo "bench/export: build first (make build)" >&2; exit 66; }

library_of() {  # library_of ROWS: imports a synthetic export of ROWS rows once; prints the workspace
    local rows="$1" ws="$OUT/ws-$1" csv="$OUT/goodreads_$1.csv"
    [ -s "$csv" ] || python3 "$ROOT/bench/parse/generate.py" "$rows" "$csv" >/dev/null
    [ -s "$ws/library/library.ndjson.gz" ] || "$BIN/shelfline" run --csv "$csv" --workspace "$ws" --config "$CONFIG" --quiet
    echo "$ws"
}
