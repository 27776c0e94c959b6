#!/usr/bin/env bash
# The one test command (npm test): static checks beside every vitest suite on both engines (a
# vitest project each: SQLite and PostgreSQL, see test/engines.ts); the checks' failures last.
set -uo pipefail
cd "$(dirname "$0")/.."

bash scripts/ensure-test-deps.sh || exit 1
mkdir -p .tmp

echo "== typecheck, lint, format, OpenAPI lint, and the tests beside them"
# The checks run side by side with the tests, not before them: each check is one single-threaded
# process, and the tests mostly wait on sockets, child processes and timers, so the two together
# take little longer than the tests alone. Their output comes after the tests'.
# MAILROOM_CHECKS names the checks to run (scripts/checks.sh), all by default: .ci/run runs the
# lint itself, started earlier.
# shellcheck disable=SC2086 # the names are words
bash scripts/checks.sh ${MAILROOM_CHECKS:-} >.tmp/checks.log 2>&1 &
checks=$!

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

failed=0
wait $checks || { cat .tmp/checks.log; failed=1; }
[ $status -eq 0 ] && [ $failed -ne 0 ] && status=1
exit $status
