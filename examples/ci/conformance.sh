#!/usr/bin/env bash
# The conformance step of a pipeline, the same in GitHub Actions and GitLab CI (both call it):
# start the server under test (here the bundled mock; point CONFORMANCE_BASE_URL at yours instead),
# run every suite with a baseline of accepted failures, and write the reports a pipeline keeps:
# JUnit (tests tab), a markdown summary, an HTML page and the JSON (for `conformance diff`).
# The exit code is the run's: 0 conforming, 1 a failure the baseline does not expect, 2 a usage error.
set -euo pipefail
cd "$(dirname "$0")/../.."
REPORTS="${CONFORMANCE_REPORTS:-reports}"
mkdir -p "$REPORTS"
if [ -z "${CONFORMANCE_BASE_URL:-}" ]; then
  # No server of your own: the bundled mock stands in, on a port of its own, answering at once
  # (its default human pace is for people watching a page).
  PORT="${CONFORMANCE_MOCK_PORT:-8089}"
  node dist/bin/conformance.js mock --port "$PORT" --pace instant > "$REPORTS/mock.log" &
  MOCK=$!
  trap 'kill $MOCK 2>/dev/null || true' EXIT
  for _ in $(seq 50); do grep -q listening "$REPORTS/mock.log" 2>/dev/null && break; sleep 0.1; done
  CONFORMANCE_BASE_URL="http://127.0.0.1:$PORT"
  export CONFORMANCE_API_KEY="${CONFORMANCE_API_KEY:-sk-mock-alpha-000000000000000000000001}"
  export CONFORMANCE_SECOND_API_KEY="${CONFORMANCE_SECOND_API_KEY:-sk-mock-beta-0000000000000000000000002}"
fi
node dist/bin/conformance.js run \
  --base-url "$CONFORMANCE_BASE_URL" \
  --expected-failures examples/ci/expected-failures.yaml \
  --reporter pretty \
  --reporter "junit=$REPORTS/junit.xml" \
  --reporter "markdown=$REPORTS/summary.md" \
  --reporter "html=$REPORTS/report.html" \
  --reporter "json=$REPORTS/report.json"
