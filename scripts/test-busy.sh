#!/usr/bin/env bash
# `npm test` while other work keeps every core of the machine busy, as a laptop running a build
# does: the suite must stay green (its time limits scale with the machine, test/support/machine.ts).
# Runs it N times in a row (default 1), stopping at the first failure, and says how long each took.
#   npm run test:busy        npm run test:busy -- 3
set -u
runs=${1:-1}
cores=$(nproc)
burners=()
for _ in $(seq "$cores"); do
  nice -n 0 node -e 'for (;;) {}' &
  burners+=($!)
done
trap 'kill "${burners[@]}" 2>/dev/null' EXIT
for run in $(seq "$runs"); do
  started=$(date +%s)
  npm test
  rc=$?
  echo "test:busy: run $run of $runs, $cores cores kept busy: $(($(date +%s) - started)) s, exit $rc"
  [ "$rc" -eq 0 ] || exit "$rc"
done
