#!/usr/bin/env bash
# Runs every check and test Parley has, fastest first: lint and types, the backend's unit
# layer, the backend tests on a real PostgreSQL, the same on a Citus cluster (built once per
# machine from vendor/), a benchmark smoke run, and the frontend's checks, unit tests and
# browser tests. Installs what it needs first. Prints how long each
# layer took, then one closing line counting every layer's tests.
set -euo pipefail
root="$(cd "$(dirname "$0")" && pwd)"
cd "$root"
scripts/setup.sh --browser

logs="$(mktemp -d)"
timings=()
# The closing line counts passed, failed and skipped tests from each runner's own summary,
# also when a layer failed and the run stops there.
finish() {
  local status=$?
  echo "==> time per layer"
  printf '    %s\n' "${timings[@]}"
  python3 scripts/count-tests.py "$logs"/* 2>/dev/null || echo "0 passed, 1 failed"
  rm -rf "$logs"
  exit "$status"
}
trap finish EXIT

# CPU seconds (user + system) this shell's finished children had used at the last
# `times > "$logs/.times"`: that runs in this shell, since a subshell's count starts at zero.
children_cpu() {
  awk 'END { n = split($0, t, " "); s = 0
             for (i = 1; i <= n; i++) { split(t[i], p, /[ms]/); s += p[1] * 60 + p[2] }
             printf "%d", s }' "$logs/.times"
}

# layer NAME COMMAND...: runs it, keeps its output in $logs/NAME, and times it: wall seconds,
# and the CPU seconds its processes used (two cores busy = twice the wall time).
layer() {
  local name="$1"
  shift
  echo "==> $name"
  local start=$SECONDS cpu_start
  times > "$logs/.times"
  cpu_start="$(children_cpu)"
  "$@" 2>&1 | tee "$logs/$name"
  times > "$logs/.times"
  timings+=("$(printf '%-22s %4ds wall %5ds CPU' "$name" $((SECONDS - start)) \
    $(($(children_cpu) - cpu_start)))")
}

has_script() { [ -f frontend/package.json ] && node -e "process.exit(require('./frontend/package.json').scripts?.['$1'] ? 0 : 1)"; }

lint() {
  (cd backend && ../.venv/bin/ruff check . ../bench && ../.venv/bin/ruff format --check . ../bench \
    && ../.venv/bin/mypy parley)
}
layer "lint+types" lint
layer "backend unit" bash -c 'cd backend && ../.venv/bin/pytest -q -p no:cacheprovider -m unit'
# The web UI is built once, before the tests that serve it (a backend test puts it in front of
# the API; the browser layer drives it), on a machine not yet busy with them.
if [ -f frontend/package.json ]; then
  layer "web build" bash -c 'cd frontend && NEXT_TELEMETRY_DISABLED=1 npm run build'
fi
# Three workers on two cores: most of these tests wait on servers, processes and timeouts.
layer "backend" bash -c \
  'cd backend && ../.venv/bin/pytest -q -p no:cacheprovider -m "not unit and not cluster" -n 3 --dist worksteal --durations=25'
# One process: the cluster (a coordinator and two workers) is made once for the layer.
layer "cluster" bash -c 'cd backend && ../.venv/bin/pytest -q -p no:cacheprovider -m cluster'
layer "bench --quick" .venv/bin/python bench/run.py --quick

if [ -f frontend/package.json ]; then
  layer "frontend checks" bash -c 'cd frontend && npm run lint && npm run typecheck'
  if has_script check:api-types; then
    layer "api types" bash -c 'cd frontend && npm run check:api-types'
  fi
  if has_script test:unit; then
    layer "frontend unit" bash -c 'cd frontend && npm run test:unit'
  fi
  layer "browser" bash -c 'cd frontend && PARLEY_E2E_SKIP_BUILD=1 npm run test:e2e'
fi

