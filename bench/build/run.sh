#!/usr/bin/env bash
# A newcomer's two builds from scratch (issue 41): a fresh clone of HEAD, empty .build, then
# `make build` (what `make import` builds) and `make test`'s build of the tests on top of it.
# Prints wall and CPU seconds of each beside its target (300 s for `make import` and for
# `make test`, builds and test run included: the test run itself is timed by `make test`).
# BENCH_BUILD=0 skips it (it takes several minutes on 2 cores); BENCH_BUILD_TESTS=1 also runs the
# tests in the clone, to time the whole `make test`.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
[ "${BENCH_BUILD:-1}" = 0 ] && { echo "bench/build: skipped (BENCH_BUILD=0)"; exit 0; }
clone="$(mktemp -d "${TMPDIR:-/tmp}/shelfline-build-bench.XXXXXX")"
trap 'rm -rf "$clone"' EXIT
git clone -q "$ROOT" "$clone/shelfline"
# The tests read ../shared/corpus beside the repository when it is there.
[ -d "$ROOT/../shared" ] && ln -s "$(cd "$ROOT/../shared" && pwd)" "$clone/shared"
cd "$clone/shelfline"
timed() {  # timed LABEL TARGET COMMAND...: one row, wall and CPU from /usr/bin/time
    local label=$1 target=$2; shift 2
    /usr/bin/time -f "%e %U %S" -o "$clone/time" "$@" > "$clone/log" 2>&1 || { tail -n 20 "$clone/log" >&2; exit 1; }
    read -r wall user sys < "$clone/time"
    printf '%-44s wall %7.1f s  cpu %7.1f s  target <= %s s\n' "$label" "$wall" "$(echo "$user + $sys" | bc)" "$target"
}
timed "fresh clone: make build (make import's build)" 300 make build
timed "then the tests' build (make build-tests)" 300 make build-tests
if [ "${BENCH_BUILD_TESTS:-0}" = 1 ]; then
    timed "then make test (build no-op + every test)" 300 make test
fi
