#!/usr/bin/env bash
# `npm test` while other work keeps the machine busy, as a laptop running a build does: the suite
# must stay green, since no limit inside what a test runs is tight enough for load to reach it
# (docs/development.md#tests). Runs it N times in a row (default 1), stopping at the first failure,
# and says how long each took. Busy processes: one per core unless --spinners says how many. Words
# after -- go to vitest (a file, a filter).
#   npm run test:busy        npm run test:busy -- 3 --spinners 8        npm run test:busy -- --spinners 8 -- test/faults.test.ts
set -u
runs=1
spinners=$(nproc)
while [ $# -gt 0 ]; do
  case "$1" in
    --spinners) spinners=${2:?--spinners takes a number}; shift 2 ;;
    --spinners=*) spinners=${1#--spinners=}; shift ;;
    --) shift; break ;;
    *[!0-9]* | '') echo "test:busy: unknown argument $1 (a count of runs, --spinners N, then -- and vitest's own)" >&2; exit 2 ;;
    *) runs=$1; shift ;;
  esac
done
burners=()
for _ in $(seq "$spinners"); do
  nice -n 0 node -e 'for (;;) {}' &
  burners+=($!)
done
trap 'kill "${burners[@]}" 2>/dev/null' EXIT
for run in $(seq "$runs"); do
  started=$(date +%s)
  npm test -- "$@"
  rc=$?
  echo "test:busy: run $run of $runs, $spinners busy processes on $(nproc) cores: $(($(date +%s) - started)) s, exit $rc"
  [ "$rc" -eq 0 ] || exit "$rc"
done
