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
# copies the run's files to $1/<name>, and its run id to $1/<name>/run-id.
pipeline() {
    local ws=$1 name=$2 dir=$1/$2
    "$BIN/shelfline" run --csv "$work/$name" --workspace "$ws" --config "${3:-$CONFIG}" --quiet
    mkdir -p "$dir"
    cp "$ws/runs/latest/ledger.ndjson.gz" "$ws/runs/latest/deduped.ndjson.gz" "$ws/runs/latest/merge-report.json" "$dir/"
    basename "$(readlink -f "$ws/runs/latest")" > "$dir/run-id"
}

# After the imports into workspace $1 (config $2): `shelfline rebuild --ledgers`, whose ledgers say
# where each row is in the library as rebuilt from the stored imports. `shelfline run` rebuilds by
# itself after an import that needs it, so this must find the library unchanged ($1/rebuild.txt).
rebuilt_ledgers() {
    "$BIN/shelfline" rebuild --workspace "$1" --config "$2" --ledgers "$1/rebuilt" | tail -1 > "$1/rebuild.txt"
}

mode_json() {  # mode_json NAME WS FILE... → one MODES.json entry
    local name=$1 ws=$2 sep="" library="" rebuilt=""; shift 2
    # The books' works are known only in the fixture catalog: there, score the work each got.
    case "$name" in catalog*) library=$(printf ', "library": "%s/library/library.ndjson.gz"' "$ws") ;; esac
    [ -f "$ws/rebuild.txt" ] && rebuilt=$(printf ', "rebuild": "%s/rebuild.txt"' "$ws")
    printf '{"name": "%s", "files": [' "$name"
    for file in "$@"; do
        printf '%s{"csv": "%s", "ledger": "%s/%s/ledger.ndjson.gz", "deduped": "%s/%s/deduped.ndjson.gz", "report": "%s/%s/merge-report.json"' \
            "$sep" "$file" "$ws" "$file" "$ws" "$file" "$ws" "$file"
        [ -f "$ws/rebuild.txt" ] && printf ', "rebuilt": "%s/rebuilt/%s/ledger.ndjson.gz"' "$ws" "$(cat "$ws/$file/run-id")"
        printf '}'
        sep=", "
    done
    printf ']%s%s}' "$library" "$rebuilt"
}

timed() {  # timed LABEL COMMAND...: runs it, prints its wall time
    local start end
    start=$(date +%s.%N)
    "${@:2}"
    end=$(date +%s.%N)
    echo "$1: $(python3 -c "print(f'{$end - $start:.1f}')") s" >&2
}

# catalog_config PREFIX: the config with lookup on the catalog $work/PREFIX{editions,works,authors}.txt.gz.
catalog_config() {
    python3 - "$CONFIG" "$work/$1" <<'PY'
import json, sys
config = json.load(open(sys.argv[1]))
for stage in config["stages"]:
    if stage["name"] == "lookup":
        stage.setdefault("parameters", {}).update(sources=["catalog"], catalog=[
            f"{sys.argv[2]}{name}.txt.gz" for name in ("editions", "works", "authors")])
print(json.dumps(config, indent=1))
PY
}
# The fixtures' own catalog (about 70 % of the books, siblings included); an empty one, with which
# `shelfline run` enriches nothing (the library mode).
catalog_config "" > "$work/pipeline-catalog.json"
for name in editions works authors; do printf '' | gzip -n > "$work/empty-$name.txt.gz"; done
catalog_config empty- > "$work/pipeline-empty.json"

# Two exports into one library go through `shelfline run`, the path a user takes: it rebuilds the
# library from the stored imports when merge alone cannot part what the second export shows.
two_exports() {  # two_exports WS CONFIG
    pipeline "$1" a.csv "$2" && pipeline "$1" b.csv "$2" && rebuilt_ledgers "$1" "$2"
}
infile() { stages "$work/infile" infile.csv; }
library() { two_exports "$work/library" "$work/pipeline-empty.json"; }
enriched_infile() { pipeline "$work/enriched-infile" infile.csv; }
enriched_library() { two_exports "$work/enriched-library" "$CONFIG"; }
catalog_infile() { pipeline "$work/catalog-infile" infile.csv "$work/pipeline-catalog.json"; }
catalog_library() { two_exports "$work/catalog-library" "$work/pipeline-catalog.json"; }
timed "in-file (parse, dedupe, merge)" infile
timed "library (shelfline run A, B, no enrichment)" library
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
