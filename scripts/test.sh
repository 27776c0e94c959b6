#!/usr/bin/env bash
# The one test command (npm test): static checks, then every vitest suite, then one summary line.
set -uo pipefail
cd "$(dirname "$0")/.."

bash scripts/ensure-test-deps.sh || exit 1

echo "== typecheck, lint, format"
npx tsc --noEmit || exit 1
npx eslint . || exit 1
npx prettier --check . >/dev/null || { npx prettier --check .; exit 1; }

echo "== tests"
mkdir -p .tmp
npx vitest run --reporter=default --reporter=json --outputFile.json=.tmp/vitest.json "$@"
status=$?
node -e '
const r = JSON.parse(require("fs").readFileSync(".tmp/vitest.json", "utf8"));
console.log(`${r.numPassedTests} passed, ${r.numFailedTests} failed, ${r.numPendingTests + r.numTodoTests} skipped`);
' || true
exit $status
