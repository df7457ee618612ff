#!/usr/bin/env bash
# `make bench`: every stage's benchmark, then the orchestrator's. Each prints its own table with a
# reference baseline where its issue asks for one. Figures go into the README by hand.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
for part in build parse library lookup match sources dedupe render push orchestrator import offline export bookwyrm; do
    echo "== bench/$part"
    bash "$ROOT/bench/$part/run.sh"
    echo
done
