#!/usr/bin/env bash
# The static checks of `npm test`: typecheck, lint, format and the OpenAPI lint, side by side (each
# is one single-threaded process). tsc and eslint keep a cache in .tmp/, so a second run over
# unchanged files costs seconds instead of a minute; the formatter takes a second anyway.
# Prints only the failures; exits 1 when one fails.
set -uo pipefail
cd "$(dirname "$0")/.."
mkdir -p .tmp
names=(typecheck lint format openapi)
checks=(
  # TypeScript 7's compiler (package.json: typescript-native); one checker thread, since the tests
  # beside it keep both cores busy (4 threads took twice the CPU for the same answer).
  "npm run --silent typecheck -- --singleThreaded --incremental --tsBuildInfoFile .tmp/tsc-check.tsbuildinfo"
  # ESLint keyed on content (a fresh clone's files all have new times): a file is linted again
  # when it or the config changed. Then the rules that need the types (.oxlintrc.json), through
  # oxlint's tsgolint on TypeScript 7's checker: ~11 CPU-s where typescript-eslint took ~30.
  "npx eslint --cache --cache-strategy content --cache-location .tmp/eslintcache . && npx oxlint --type-aware --deny-warnings --threads=1 src test"
  "npx oxfmt --check ."
  # The OpenAPI documents as served, linted offline (no telemetry, no update check): 0 problems.
  "npx tsx scripts/openapi-dump.ts >/dev/null && REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true npx redocly lint"
)
# Arguments: names (typecheck lint format openapi) run only those (.ci/run starts the lint early).
only=" $* "
status=()
pids=()
for i in "${!checks[@]}"; do
  if [ $# -gt 0 ] && [[ "$only" != *" ${names[$i]} "* ]]; then status[i]=0; continue; fi
  bash -c "${checks[$i]}" >".tmp/check-$i.log" 2>&1 &
  pids[i]=$!
done
failed=0
for i in "${!checks[@]}"; do
  [ -n "${status[i]:-}" ] || { wait "${pids[$i]}"; status[i]=$?; }
  if [ "${status[i]}" -ne 0 ]; then
    echo "-- failed: ${checks[$i]}"
    cat ".tmp/check-$i.log"
    failed=1
  fi
done
exit $failed
