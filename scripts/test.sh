#!/usr/bin/env bash
# The one test command (npm test): static checks, then every vitest suite, then one summary line.
set -uo pipefail
cd "$(dirname "$0")/.."

bash scripts/ensure-test-deps.sh || exit 1

echo "== typecheck, lint, format, OpenAPI lint"
npx tsc --noEmit || exit 1
npx eslint . || exit 1
npx prettier --check . >/dev/null || { npx prettier --check .; exit 1; }
# The OpenAPI documents as served, linted offline (no telemetry, no update check): 0 problems.
npx tsx scripts/openapi-dump.ts >/dev/null || exit 1
REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true npx redocly lint >.tmp/redocly.log 2>&1 ||
  { cat .tmp/redocly.log; exit 1; }

echo "== tests"
mkdir -p .tmp
# A test stuck in a busy loop cannot reach its own timeout; this bound makes CI fail in minutes
# with a line saying so instead of running out its whole allowance.
limit=${MAILROOM_TEST_LIMIT_S:-2400}
timeout --kill-after=30 "$limit" npx vitest run --reporter=default --reporter=json --outputFile.json=.tmp/vitest.json "$@"
status=$?
if [ $status -eq 124 ] || [ $status -eq 137 ]; then
  echo "the tests did not finish in ${limit} s (MAILROOM_TEST_LIMIT_S): a test is stuck; the files not listed above as done hold it"
  exit $status
fi
node -e '
const r = JSON.parse(require("fs").readFileSync(".tmp/vitest.json", "utf8"));
console.log(`${r.numPassedTests} passed, ${r.numFailedTests} failed, ${r.numPendingTests + r.numTodoTests} skipped`);
' || true
exit $status
