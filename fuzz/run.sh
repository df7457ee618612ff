#!/usr/bin/env bash
# Builds the libFuzzer targets and runs each for FUZZ_SECONDS seconds (default 60).
#   fuzz/run.sh [csv|ndjson|config|html|dump ...]        (make fuzz FUZZ_SECONDS=N [FUZZ_SEED=N])
# Without FUZZ_SEED every run explores new inputs (libFuzzer picks a random seed): that is how bugs
# are found. With FUZZ_SEED (CI) the run is reproducible: libFuzzer's seed is fixed and Swift's hashing
# is made deterministic, so the same build and seeds replay the same inputs and a green check stays
# green; a bug the exploration finds becomes a test and is fixed, not a red CI on someone else's change.
# The library modules are built with -sanitize=fuzzer (coverage-guided) in .build/fuzz; each target
# is one file with LLVMFuzzerTestOneInput linked against them. Seeds are copied at run time from the
# examples, the test inputs below and ../shared/corpus (never committed). A crash or broken invariant
# stops the run with the input saved under .build/fuzz/artifacts/ and a non-zero exit.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${FUZZ_SECONDS:-60}
reproducible=()
if [ -n "${FUZZ_SEED:-}" ]; then
    reproducible=(-seed="$FUZZ_SEED")
    export SWIFT_DETERMINISTIC_HASHING=1
fi
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(csv ndjson config html dump)
scratch=.build/fuzz
bin=$scratch/release

for module in ShelflineParse ShelflineBeerQueue ShelflineLookup; do
    swift build -c release --scratch-path "$scratch" -Xswiftc -sanitize=fuzzer -Xswiftc -enable-testing \
        --target "$module" >&2
done
# Every module's objects (C and Swift) and module maps, as SwiftPM would pass them.
mapfile -t objects < <(find "$bin/" -path '*.build/*.o' -not -path '*/fuzz-*')
module_maps=()
while IFS= read -r map; do module_maps+=(-Xcc "-fmodule-map-file=$map"); done \
    < <(find "$bin/" Sources -name module.modulemap -not -path '*/include/*' -not -path '*-tool.build/*'
        # C modules of the packages that ship their own map (NIO's BoringSSL, swift-numerics' and
        # swift-atomics' shims…: AsyncHTTPClient's, under the beer queue's and lookup's HTTP client).
        find "$scratch/checkouts" -path '*/Sources/*' -name module.modulemap -not -path '*/Benchmarks/*')

corpus_dir=${SHELFLINE_CORPUS:-../shared/corpus}
[ -d "$corpus_dir" ] || corpus_dir=../../shared/corpus

seed() {  # seed TARGET NAME [OPTION-BYTE-HEX] < contents
    local dir=$scratch/seeds/$1
    mkdir -p "$dir"
    { [ -z "${3:-}" ] || printf "\\x$3"; cat; } > "$dir/$2"
}

make_seeds() {
    set +o pipefail  # `head -c` closes the pipe early on purpose
    rm -rf "$scratch/seeds/$1"
    mkdir -p "$scratch/seeds/$1"
    case $1 in
    csv)
        for file in examples/*.csv "$corpus_dir"/*.csv "$corpus_dir"/*.tsv "$corpus_dir"/small/*; do
            [ -f "$file" ] || continue
            name=$(basename "$file")
            head -c 8000 "$file" | seed csv "$name" 00
            head -c 8000 "$file" | tr '\n' '\r' | seed csv "cr-$name" 00
            tail -n +2 "$file" | head -c 8000 | seed csv "headerless-$name" 09
        done
        # Shapes from the reader's tests: CR-only, mixed ends, quoted breaks, stray quotes, long rows.
        printf 'a,b\r1,2\r3,4\r' | seed csv cr-only 04
        printf 'Title,Authors,ISBN/UID,Read Status\r\n"x\ry",A,,read\r3,4\n"open,1\nz,w\n' | seed csv mixed 00
        printf 'title,author\n"%0200d",B\n,C\nD,E,,\n' 0 | seed csv long-row 90
        ;;
    ndjson)
        for file in examples/*.csv "$corpus_dir"/small/goodreads.csv "$corpus_dir"/small/storygraph.csv; do
            [ -f "$file" ] || continue
            for parse in .build/debug/shelfline-parse .build/release/shelfline-parse; do
                [ -x "$parse" ] || continue
                "$parse" "$file" -o "$scratch/seed.ndjson.gz" --quiet 2>/dev/null || break
                seed ndjson "gz-$(basename "$file")" 00 < "$scratch/seed.ndjson.gz"
                gzip -dc "$scratch/seed.ndjson.gz" | seed ndjson "text-$(basename "$file")" 01
                break
            done
        done
        printf '{"format":"goodreads","line":2,"byteOffset":10,"byteLength":20,"title":"Dune"}\n\n' | seed ndjson minimal 01
        printf '{"format":"goodreads","line":2,"byteOffset":10,"byteLength":20,"title":"Dune"}\n' | gzip -n | seed ndjson gz 00
        ;;
    html)
        for file in examples/beer-queue/*.html; do
            seed html "$(basename "$file")" < "$file"
        done
        ;;
    config)
        for file in pipeline.json examples/beer-queue/pipeline.json; do
            [ -f "$file" ] && seed config "$(echo "$file" | tr / -)" < "$file"
        done
        printf '{"stages":[{"name":"parse","inputs":[],"outputs":[],"parameters":{"format":"goodreads","noHeader":true,"minRejectedRows":3,"maxRejectedShare":0.5,"generic":{"columns":{"title":"T"},"listSeparator":";"}}}]}' \
            | seed config parse-parameters
        ;;
    dump)
        # The sample catalog's lines, one file per kind and all together, and shapes the tests pin.
        for file in examples/catalog/*.txt examples/catalog/*.txt.gz; do
            name=$(basename "$file" .gz)
            if [[ $file == *.gz ]]; then gzip -dc "$file"; else cat "$file"; fi | head -c 12000 | seed dump "$name"
        done
        { gzip -dc examples/catalog/editions.txt.gz | head -n 5; gzip -dc examples/catalog/works.txt.gz | head -n 3
          head -n 3 examples/catalog/authors.txt; } | seed dump mixed
        printf '/type/edition\t/books/OL1M\t1\t2020-01-01\t{"title": "A", "isbn_13": ["9780441478125"]}\n/type/edition\t/books/OL1M\t2\t2020-01-01\t{"title": "B"}\n/type/edition\t/books/X\t1\tx\t{"title": "C", "isbn_10": ["044147812X"]}\nbad line\n\n/type/redirect\t/authors/OL1A\t1\tx\t{"location": "/authors/OL2A"}\n' \
            | seed dump duplicates-and-odd-keys
        ;;
    esac
    set -o pipefail
}

mkdir -p "$scratch/artifacts"
status=0
for target in "${targets[@]}"; do
    case $target in
    csv) source=fuzz/CSVTarget.swift ;;
    ndjson) source=fuzz/NDJSONTarget.swift ;;
    config) source=fuzz/ConfigTarget.swift ;;
    html) source=fuzz/HTMLTarget.swift ;;
    dump) source=fuzz/DumpTarget.swift ;;
    *) echo "unknown fuzz target '$target' (csv, ndjson, config, html, dump)" >&2; exit 64 ;;
    esac
    binary=$bin/fuzz-$target
    swiftc -O -sanitize=fuzzer -parse-as-library -I "$bin/Modules" "${module_maps[@]}" \
        fuzz/FuzzSupport.swift "$source" "${objects[@]}" -lz -ldeflate -lsqlite3 -lstdc++ -o "$binary"
    make_seeds "$target"
    corpus=$scratch/corpus/$target
    # A reproducible run starts from the seeds alone, not from what earlier local runs found.
    if [ -n "${FUZZ_SEED:-}" ]; then corpus=$scratch/corpus-seeded/$target; rm -rf "$corpus"; fi
    mkdir -p "$corpus"
    echo "fuzz $target: ${seconds}s${FUZZ_SEED:+, seed $FUZZ_SEED}" >&2
    log=$scratch/fuzz-$target.log
    if "$binary" "${reproducible[@]}" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=4096 -max_len=16384 -print_final_stats=1 \
        -artifact_prefix="$scratch/artifacts/$target-" "$corpus" "$scratch/seeds/$target" > "$log" 2>&1; then
        runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
        echo "fuzz $target: ok, $runs executions in ${seconds}s" >&2
    else
        echo "fuzz $target: FAILED (see $log and $scratch/artifacts/)" >&2
        tail -30 "$log" >&2
        status=1
    fi
done
exit $status
