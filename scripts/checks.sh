#!/usr/bin/env bash
# The static checks of `npm test`: typecheck, lint, format and the OpenAPI lint, side by side (each
# is one single-threaded process). Each keeps a cache in .tmp/, so a second run over unchanged
# files costs seconds instead of a minute.
# Prints only the failures; exits 1 when one fails.
set -uo pipefail
cd "$(dirname "$0")/.."
mkdir -p .tmp
checks=(
  # TypeScript 7's compiler (package.json: typescript-native); one checker thread, since the tests
  # beside it keep both cores busy (4 threads took twice the CPU for the same answer).
  "npm run --silent typecheck -- --singleThreaded --incremental --tsBuildInfoFile .tmp/tsc-check.tsbuildinfo"
  # Keyed on content (a fresh clone's files all have new times). A file is linted again when it or
  # the config changed, not when another file broke a typed rule in it: a fresh clone (CI) has no
  # cache and lints everything.
  "npx eslint --cache --cache-strategy content --cache-location .tmp/eslintcache ."
  "npx prettier --check --cache --cache-strategy content --cache-location .tmp/prettiercache ."
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
exit $failed
