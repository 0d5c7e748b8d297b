#!/usr/bin/env bash
# Starts the whole product: the API (with an embedded PostgreSQL under .parley/ unless
# DATABASE_URL is set), the offline model (unless OPENAI_API_KEY is set) and the web UI.
set -euo pipefail
root="$(cd "$(dirname "$0")" && pwd)"
cd "$root"
scripts/setup.sh

api_port="${PARLEY_API_PORT:-8000}"
web_port="${PORT:-3000}"
mkdir -p .parley
# A stable secret, so sign-ins survive a restart.
[ -f .parley/auth-secret ] || .venv/bin/python -c "import secrets;print(secrets.token_urlsafe(32))" > .parley/auth-secret
export PARLEY_AUTH_SECRET="${PARLEY_AUTH_SECRET:-$(cat .parley/auth-secret)}"
export PARLEY_DEV_LOGIN="${PARLEY_DEV_LOGIN:-1}"

# Each service runs in its own process group, so stopping one stops its children too
# (npm start -> next-server; parley serve -> its embedded PostgreSQL is stopped by parley).
set -m
pids=()
cleanup() {
  trap - EXIT INT TERM
  for pid in "${pids[@]}"; do kill -TERM -- "-$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap cleanup EXIT INT TERM

.venv/bin/parley serve --host 127.0.0.1 --port "$api_port" &
pids+=($!)

if [ -f frontend/package.json ]; then
  (cd frontend && npm run build >/dev/null && PARLEY_API_URL="http://127.0.0.1:$api_port" PORT="$web_port" npm start) &
  pids+=($!)
  echo "==> Parley: web UI on http://127.0.0.1:$web_port  (API on http://127.0.0.1:$api_port)"
else
  echo "==> Parley API on http://127.0.0.1:$api_port"
fi
wait -n
