#!/usr/bin/env bash
# Runs every check and test Parley has: lint, types, backend tests on a real PostgreSQL,
# and the frontend's checks and browser tests. Installs what it needs first.
set -euo pipefail
root="$(cd "$(dirname "$0")" && pwd)"
cd "$root"
scripts/setup.sh --browser

echo "==> backend: ruff, mypy"
(cd backend && ../.venv/bin/ruff check . && ../.venv/bin/ruff format --check . && ../.venv/bin/mypy parley)

logs="$(mktemp -d)"
trap 'rm -rf "$logs"' EXIT

echo "==> backend: pytest"
(cd backend && ../.venv/bin/pytest -q -p no:cacheprovider) 2>&1 | tee "$logs/backend"

if [ -f frontend/package.json ]; then
  echo "==> frontend: lint, typecheck, build, browser tests"
  (cd frontend && npm run lint && npm run typecheck && npm run test:e2e) 2>&1 | tee "$logs/frontend"
fi

# One closing line for the whole run (each runner printed its own above).
passed() { grep -Eo '[0-9]+ passed' "$1" 2>/dev/null | tail -n 1 | grep -Eo '[0-9]+' || echo 0; }
echo "$(( $(passed "$logs/backend") + $(passed "$logs/frontend") )) passed, 0 failed"
