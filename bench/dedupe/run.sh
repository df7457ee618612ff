#!/usr/bin/env bash
# Dedupe evaluation (issue 21): labelled Goodreads exports from every real export in
# ../shared/corpus (or $DEDUPE_CORPUS) and generated near-miss families, imported through the real
# shelfline-parse, shelfline-dedupe and shelfline-merge (in one export; then as two exports, the
# second against the library the first made), and through `shelfline run` with enrichment on
# (examples/catalog, offline). Prints different-book folds (target 0) and the share of same-book
# rows folded (target >= 95 %) per mode. `--check`: exit 1 when a target is missed.
# Sizes: DEDUPE_SYNTHETIC_FAMILIES (default 700), DEDUPE_SEED (default 21).
# DEDUPE_WORK=DIR keeps the fixtures, workspaces and ledgers there for inspection.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BIN=${BIN:-$ROOT/.build/release}
CONFIG=${DEDUPE_CONFIG:-$ROOT/examples/pipeline.json}
CORPUS=${DEDUPE_CORPUS:-$ROOT/../shared/corpus}
FAMILIES=${DEDUPE_SYNTHETIC_FAMILIES:-700}
SEED=${DEDUPE_SEED:-21}
CHECK=()
for arg in "$@"; do
    case "$arg" in
        --check) CHECK=(--check) ;;
        *) echo "usage: bench/dedupe/run.sh [--check]" >&2; exit 64 ;;
    esac
done
source "$ROOT/bench/labelled.sh"
labelled_workdir "${DEDUPE_WORK:-}" dedupe
labelled_parse_corpus "$CORPUS" dedupe --config "$CONFIG"
python3 "$ROOT/bench/dedupe/make_fixtures.py" "$work" "$SEED" "$FAMILIES" "${parsed[@]}"

# One export through parse, dedupe and merge by hand into workspace $1; the stage files in $1/<name>.
stages() {
    local ws=$1 name=$2 dir=$1/$2
    mkdir -p "$dir"
    "$BIN/shelfline-parse" "$work/$name" -o "$dir/parsed.ndjson.gz" --rejects "$dir/rejects.ndjson.gz" \
        --report "$dir/parse-report.json" --workspace "$ws" --config "$CONFIG" --quiet
    "$BIN/shelfline-dedupe" "$dir/parsed.ndjson.gz" -o "$dir/deduped.ndjson.gz" --report "$dir/dedupe-report.json" \
        --workspace "$ws" --config "$CONFIG" --quiet
    "$BIN/shelfline-merge" "$dir/deduped.ndjson.gz" --parse-report "$dir/parse-report.json" \
        --rejects "$dir/rejects.ndjson.gz" --report "$dir/merge-report.json" --ledger "$dir/ledger.ndjson.gz" \
        --review "$dir/review.json" --failed-rows "$dir/failed-rows.csv" --import-id "bench-${name%.csv}" \
        --workspace "$ws" --config "$CONFIG" --quiet
}

# One export through `shelfline run` (lookup on) into workspace $1 with config $3 (default $CONFIG);
# copies the run's files to $1/<name>.
pipeline() {
    local ws=$1 name=$2 dir=$1/$2
    "$BIN/shelfline" run --csv "$work/$name" --workspace "$ws" --config "${3:-$CONFIG}" --quiet
    mkdir -p "$dir"
    cp "$ws/runs/latest/ledger.ndjson.gz" "$ws/runs/latest/deduped.ndjson.gz" "$ws/runs/latest/merge-report.json" "$dir/"
}

mode_json() {  # mode_json NAME WS FILE... → one MODES.json entry
    local name=$1 ws=$2 sep="" library=""; shift 2
    # The books' works are known only in the fixture catalog: there, score the work each got.
    case "$name" in catalog*) library=$(printf ', "library": "%s/library/library.ndjson.gz"' "$ws") ;; esac
    printf '{"name": "%s", "files": [' "$name"
    for file in "$@"; do
        printf '%s{"csv": "%s", "ledger": "%s/%s/ledger.ndjson.gz", "deduped": "%s/%s/deduped.ndjson.gz", "report": "%s/%s/merge-report.json"}' \
            "$sep" "$file" "$ws" "$file" "$ws" "$file" "$ws" "$file"
        sep=", "
    done
    printf ']%s}' "$library"
}

timed() {  # timed LABEL COMMAND...: runs it, prints its wall time
    local start end
    start=$(date +%s.%N)
    "${@:2}"
    end=$(date +%s.%N)
    echo "$1: $(python3 -c "print(f'{$end - $start:.1f}')") s" >&2
}

# The config with lookup on the fixtures' own catalog (about 70 % of the books, siblings included).
python3 - "$CONFIG" "$work" > "$work/pipeline-catalog.json" <<'PY'
import json, sys
config = json.load(open(sys.argv[1]))
for stage in config["stages"]:
    if stage["name"] == "lookup":
        stage.setdefault("parameters", {}).update(sources=["catalog"], catalog=[
            f"{sys.argv[2]}/{name}.txt.gz" for name in ("editions", "works", "authors")])
print(json.dumps(config, indent=1))
PY

infile() { stages "$work/infile" infile.csv; }
library() { stages "$work/library" a.csv && stages "$work/library" b.csv; }
enriched_infile() { pipeline "$work/enriched-infile" infile.csv; }
enriched_library() { pipeline "$work/enriched-library" a.csv && pipeline "$work/enriched-library" b.csv; }
catalog_infile() { pipeline "$work/catalog-infile" infile.csv "$work/pipeline-catalog.json"; }
catalog_library() {
    pipeline "$work/catalog-library" a.csv "$work/pipeline-catalog.json" &&
        pipeline "$work/catalog-library" b.csv "$work/pipeline-catalog.json"
}
timed "in-file (parse, dedupe, merge)" infile
timed "library (A then B)" library
timed "enriched in-file (shelfline run)" enriched_infile
timed "enriched library (shelfline run A, B)" enriched_library
timed "catalog in-file (shelfline run, fixture catalog)" catalog_infile
timed "catalog library (shelfline run A, B, fixture catalog)" catalog_library

{
    printf '['
    mode_json "in-file" "$work/infile" infile.csv; printf ', '
    mode_json "library" "$work/library" a.csv b.csv; printf ', '
    mode_json "enriched in-file" "$work/enriched-infile" infile.csv; printf ', '
    mode_json "enriched library" "$work/enriched-library" a.csv b.csv; printf ', '
    mode_json "catalog in-file" "$work/catalog-infile" infile.csv; printf ', '
    mode_json "catalog library" "$work/catalog-library" a.csv b.csv
    printf ']\n'
} > "$work/modes.json"
echo "corpus: $n exports from $CORPUS + $FAMILIES generated families (seed $SEED); binaries: $BIN; config: $CONFIG"
python3 "$ROOT/bench/dedupe/score.py" "${CHECK[@]}" "$work/labels.json" "$work/modes.json"
