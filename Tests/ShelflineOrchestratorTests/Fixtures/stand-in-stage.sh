#!/usr/bin/env bash
# A stand-in for a stage executable, following the stage contract, for testing the orchestrator's
# rules in isolation: each output is derived from the input's bytes and the stage name only, so
# identical inputs give identical outputs. Knobs (environment):
#   STANDIN_LOG          file to append "<stage>" to on each start
#   STANDIN_SLEEP_<st>   seconds to sleep before writing (SIGTERM during it → exit 75, "paused")
#   STANDIN_FAIL_<st>    exit with this status instead of writing
#   STANDIN_HALF_<st>    write half an output, then SIGKILL itself (a crash mid-write)
set -u
# Real stages die with the orchestrator (PR_SET_PDEATHSIG: StageCommand); so does the
# stand-in, where setpriv exists: without it, a stand-in sleeping under a SIGKILLed `shelfline`
# outlived it, and Foundation's `waitUntilExit` in the test waited for the stand-in (30 s).
if [ -z "${STANDIN_PDEATHSIG:-}" ] && command -v setpriv >/dev/null 2>&1; then
  STANDIN_PDEATHSIG=1 exec setpriv --pdeathsig TERM "$0" "$@"
fi
stage=$(basename "$0"); stage=${stage#shelfline-}
[ -n "${STANDIN_LOG:-}" ] && echo "$stage" >> "$STANDIN_LOG"
args=("$@")
outputs=()
input="${args[0]}"
for ((i = 0; i < ${#args[@]}; i++)); do
  case "$stage:${args[$i]}" in
    merge:--rejects) ;;  # an input of merge, an output of parse
    *:-o|*:--rejects|*:--report|*:--ledger|*:--review|*:--failed-rows) outputs+=("${args[$((i + 1))]}") ;;
  esac
done
if [ "$stage" = render ]; then input="merge-report.json"; outputs=("report.html"); fi
sleep_var="STANDIN_SLEEP_$stage"; fail_var="STANDIN_FAIL_$stage"; half_var="STANDIN_HALF_$stage"
if [ -n "${!sleep_var:-}" ]; then
  sleep "${!sleep_var}" &
  sleeper=$!
  trap 'kill $sleeper; echo "$stage: paused" >&2; exit 75' TERM
  wait $sleeper
fi
if [ -n "${!fail_var:-}" ]; then echo "shelfline-$stage: error: failing on purpose" >&2; exit "${!fail_var}"; fi
if [ -n "${!half_var:-}" ]; then printf 'half' > "${outputs[0]}"; kill -9 $$; fi
for output in "${outputs[@]}"; do
  { echo "stage=$stage"; sha256sum < "$input" | cut -c1-64; } > "$output.part"
  if [ "$stage" = merge ] && [ "$output" = "${outputs[0]}" ]; then
    printf '{"importId":"x","rowsRead":3,"outcomes":{"rejected":0,"added":3,"updated":0,"duplicateInFile":0},"enrichment":{"matchedByIsbn":3,"matchedBySearch":0,"needsReview":0,"notEnriched":0},"libraryBooks":3,"ledger":"l","review":"r","failedRows":"f"}\n' > "$output.part"
  fi
  mv "$output.part" "$output"
done
exit 0
