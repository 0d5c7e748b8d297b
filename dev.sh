#!/usr/bin/env bash
# Starts the whole product: the API (with an embedded PostgreSQL under .parley/ unless
# DATABASE_URL is set), the offline model (unless OPENAI_API_KEY is set) and the web UI.
# Both listen on 127.0.0.1; HOST=0.0.0.0 (say) serves the web UI to the network.
set -euo pipefail
root="$(cd "$(dirname "$0")" && pwd)"
cd "$root"
scripts/setup.sh

# shellcheck source=scripts/dev-env.sh
. scripts/dev-env.sh
mkdir -p .parley
export PARLEY_DATA_DIR="${PARLEY_DATA_DIR:-$root/.parley}"
# A stable secret, so sign-ins survive a restart.
[ -f .parley/auth-secret ] || .venv/bin/python -c "import secrets;print(secrets.token_urlsafe(32))" > .parley/auth-secret
export PARLEY_AUTH_SECRET="${PARLEY_AUTH_SECRET:-$(cat .parley/auth-secret)}"
export PARLEY_DEV_LOGIN="${PARLEY_DEV_LOGIN:-1}"
# Anyone at this machine may make an account.
export PARLEY_SIGNUP="${PARLEY_SIGNUP:-open}"
# Where the API and the web UI are reached (from PORT, PARLEY_API_PORT, HOST unless set), also
# written down for commands run in another shell: `. .parley/dev.env; parley user create me`.
dev_env
(umask 077 && dev_env_lines > .parley/dev.env)

case "$host" in
  127.*|localhost|::1) ;;
  *)
    if [ "$PARLEY_DEV_LOGIN" = "1" ]; then
      echo "WARNING: HOST=$host exposes passwordless dev sign-in to the network: anyone who" >&2
      echo "         can reach this machine can sign in as anyone. Set PARLEY_DEV_LOGIN=0 to turn it off." >&2
    fi
    ;;
esac

# Each service runs in its own process group, so stopping one stops its children too
# (npm start -> server.mjs and Next; parley serve -> its embedded PostgreSQL is stopped by parley).
set -m
pids=()
cleanup() {
  trap - EXIT INT TERM
  for pid in "${pids[@]}"; do kill -TERM -- "-$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap cleanup EXIT INT TERM

# answers URL: true once URL responds (any HTTP status).
answers() { .venv/bin/python -c "import sys,urllib.request as u
try: u.urlopen(sys.argv[1], timeout=2)
except u.HTTPError: pass
except Exception: sys.exit(1)" "$1"; }

# wait_for URL PID: until URL answers; fails if the process PID ends first.
wait_for() {
  until answers "$1"; do
    kill -0 "$2" 2>/dev/null || return 1
    sleep 0.5
  done
}

# The API stays on loopback: the web UI proxies to it.
.venv/bin/parley serve --host 127.0.0.1 --port "$api_port" &
api_pid=$!
pids+=("$api_pid")
wait_for "$api_url/api/health" "$api_pid" || { echo "==> the API did not start (see above)" >&2; exit 1; }

if [ -f frontend/package.json ]; then
  build_log=.parley/web-build.log
  # A build is reused while nothing it is made from changed (its sources, config, lockfile):
  # a warm start takes seconds, not a rebuild. Tests and build output are not sources.
  build_stamp=.parley/web-build.sha256
  sources_sha=$(cd frontend && find . \( -name node_modules -o -name .next -o -name tests \
      -o -name test-results \) -prune -o -type f -print0 | LC_ALL=C sort -z \
      | xargs -0 sha256sum | sha256sum | cut -d' ' -f1)
  if [ -f frontend/.next/BUILD_ID ] && [ "$(cat "$build_stamp" 2>/dev/null)" = "$sources_sha" ]; then
    echo "==> the web UI is built from these sources already (reusing it)"
  else
    echo "==> building the web UI (log: $build_log)"
    rm -f "$build_stamp"
    if ! (cd frontend && npm run build) >"$build_log" 2>&1; then
      cat "$build_log" >&2
      echo "==> the web UI failed to build (above)" >&2
      exit 1
    fi
    echo "$sources_sha" >"$build_stamp"
  fi
  (cd frontend && PARLEY_API_URL="http://127.0.0.1:$api_port" PORT="$web_port" exec npm start -- -H "$host") &
  web_pid=$!
  pids+=("$web_pid")
  wait_for "http://$host:$web_port/" "$web_pid" || { echo "==> the web UI did not start (see above)" >&2; exit 1; }
  echo "==> Parley: web UI on $web_url  (API on $api_url; for other shells: . .parley/dev.env)"
else
  echo "==> Parley API on $api_url"
fi
wait -n
