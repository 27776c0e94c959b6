#!/usr/bin/env bash
# The one test command (npm test): static checks, then every vitest suite on both engines (a
# vitest project each: SQLite and PostgreSQL, see test/engines.ts), then one summary line.
set -uo pipefail
cd "$(dirname "$0")/.."

bash scripts/ensure-test-deps.sh || exit 1
mkdir -p .tmp

echo "== typecheck, lint, format, OpenAPI lint"
# Side by side: each is one single-threaded process, and the machine has more than one core.
checks=(
  "npx tsc --noEmit"
  "npx eslint ."
  "npx prettier --check ."
  # The OpenAPI documents as served, linted offline (no telemetry, no update check): 0 problems.
  "npx tsx scripts/openapi-dump.ts >/dev/null && REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true npx redocly lint"
)
pids=()
for i in "${!checks[@]}"; do
  bash -c "${checks[$i]}" >".tmp/check-$i.log" 2>&1 &
  pids+=($!)
done
failed=0
for i in "${!checks[@]}"; do
  if ! wait "${pids[$i]}"; then
    echo "-- failed: ${checks[$i]}"
    cat ".tmp/check-$i.log"
    failed=1
  fi
done
[ $failed -eq 0 ] || exit 1

echo "== tests"
# A test stuck in a busy loop cannot reach its own timeout; this bound makes CI fail in minutes
# with a line saying so instead of running out its whole allowance.
limit=${MAILROOM_TEST_LIMIT_S:-3600}
# The last lines (test/helpers/engine-summary.ts) say what ran on which engine, then
# `N passed, N failed, N skipped` for the whole run.
timeout --kill-after=30 "$limit" npx vitest run "$@"
status=$?
if [ $status -eq 124 ] || [ $status -eq 137 ]; then
  echo "the tests did not finish in ${limit} s (MAILROOM_TEST_LIMIT_S): a test is stuck; the files not listed above as done hold it"
fi
exit $status
