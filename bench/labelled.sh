# Shared by the labelled benches (bench/match, bench/dedupe); sourced, not run.

# labelled_workdir KEEP_DIR NAME: sets $work to KEEP_DIR (emptied, kept for inspection) when given,
# else to a temporary /tmp/shelfline-NAME-bench.* removed when the script exits.
labelled_workdir() {
    if [ -n "$1" ]; then
        work=$1; rm -rf "$work"; mkdir -p "$work"
    else
        work=$(mktemp -d "/tmp/shelfline-$2-bench.XXXXXX")
        trap 'rm -rf "$work"' EXIT
    fi
}

# labelled_parse_corpus CORPUS BENCH [PARSE OPTION...]: every real export in CORPUS through
# shelfline-parse into $work/p<n>.ndjson.gz; sets parsed=(those files) and n; exit 66 without any.
labelled_parse_corpus() {
    local corpus=$1 bench=$2 export
    shift 2
    parsed=()
    n=0
    for export in "$corpus"/*.csv "$corpus"/*.tsv; do
        [ -f "$export" ] || continue
        n=$((n + 1))
        "$BIN/shelfline-parse" "$export" -o "$work/p$n.ndjson.gz" --workspace "$work/ws" --quiet "$@"
        parsed+=("$work/p$n.ndjson.gz")
    done
    if [ "$n" -eq 0 ]; then echo "bench/$bench: no exports in $corpus" >&2; exit 66; fi
}
