#!/usr/bin/env bash
# Imports the example and a few ../shared/corpus exports with the executables in BIN_DIR and keeps
# every output (gunzipped; timestamps, durations and the scratch directory normalised) under OUT_DIR, so two builds'
# outputs can be compared byte for byte:
#   bash bench/outputs/snapshot.sh BEFORE_BIN /tmp/stages-before
#   bash bench/outputs/snapshot.sh .build/debug /tmp/stages-after
#   diff -r /tmp/stages-before /tmp/stages-after && echo identical
# Lookup asks only examples/catalog (examples/pipeline.json), so nothing reaches the network.
set -euo pipefail
bin=$(cd "$1" && pwd)
out=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
corpus=${CORPUS:-$root/../shared/corpus}
inputs=("$root/examples/goodreads_library_export.csv")
for name in gr_24col_2025_bsanser.csv sg_crlf_quarter-stars_bsanser.csv lt_tsv_mixed-encoding_turtleengr.tsv \
    small/goodreads.csv small/storygraph.csv small/librarything.tsv small/generic.csv; do
    [ -f "$corpus/$name" ] && inputs+=("$corpus/$name")
done
rm -rf "$out"; mkdir -p "$out"
scratch=$(mktemp -d); trap 'rm -rf "$scratch"' EXIT
# One shared library across the imports, in this order, as a user importing them one by one.
workspace=$scratch/ws
normalise() {
    sed -E -e "s#$scratch#SCRATCH#g" -e 's/[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?(Z|[+-][0-9]{2}:?[0-9]{2})?/TIMESTAMP/g' \
        -e 's/"([A-Za-z]*([Ss]econds|[Dd]uration|[Ee]lapsed|Ms|At|[Tt]ime)[A-Za-z]*)" *: *[0-9.e+-]+/"\1":N/g'
}
for input in "${inputs[@]}"; do
    name=$(basename "$input")
    status=0
    (cd "$scratch" && "$bin/shelfline" run --quiet --config "$root/examples/pipeline.json" --workspace "$workspace" \
        --csv "$input") > "$out/$name.stdout" 2> "$out/$name.stderr" || status=$?
    echo "$status" > "$out/$name.status"
    run=$(readlink -f "$workspace/runs/latest")
    mkdir -p "$out/$name"
    for file in "$run"/* "$workspace/library/library.ndjson.gz"; do
        [ -f "$file" ] || continue
        base=$(basename "$file")
        case "$base" in
            manifest*|*.lock|*.log) continue ;;
            *.gz) zcat "$file" | normalise > "$out/$name/${base%.gz}" ;;
            *) normalise < "$file" > "$out/$name/$base" ;;
        esac
    done
    normalise < "$out/$name.stderr" > "$out/$name.stderr.n" && mv "$out/$name.stderr.n" "$out/$name.stderr"
done
