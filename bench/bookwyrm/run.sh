#!/usr/bin/env bash
# BookWyrm's importers against Shelfline, row by row, on sample exports of the eight formats
# BookWyrm reads (bench/bookwyrm/samples, written here). compare.py reads each file as BookWyrm's
# importer does (its header says which BookWyrm file each rule follows, and the comparison's own
# rules), imports it with `shelfline run` into a fresh offline workspace, and prints per format:
# rows, kept, skipped by the source, disagreements by field, then each disagreement and what
# Shelfline keeps that BookWyrm's reading drops. Exit 1 on any disagreement or row not kept.
# Run from the repository root after `make build`. BOOKWYRM_BENCH_KEEP=1 keeps the workspaces.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BIN="${SHELFLINE_BIN:-$ROOT/.build/release}"
[ -x "$BIN/shelfline" ] || { echo "bench/bookwyrm: build first (make build)" >&2; exit 66; }
work=$(mktemp -d /tmp/shelfline-bookwyrm-bench.XXXXXX)
cleanup() { [ "${BOOKWYRM_BENCH_KEEP:-0}" = 1 ] && echo "kept $work" || rm -rf "$work"; }
trap cleanup EXIT
echo "== bookwyrm: what BookWyrm's importers read from each sample, against Shelfline's library"
python3 "$ROOT/bench/bookwyrm/compare.py" "$ROOT/bench/bookwyrm/samples" "$BIN" "$work"
