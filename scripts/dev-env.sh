#!/usr/bin/env bash
# The addresses ./dev.sh's services are reached at, derived from the ports it uses (PORT,
# PARLEY_API_PORT, HOST) unless the person set them: the API's public URL (its OAuth metadata
# and the 401 on /mcp name it), the web UI's origins (the first makes invite links and is the
# passkeys' relying party, so it is a name: localhost) and the address the examples and
# `parley hook` use. Sourced by dev.sh, which writes them to .parley/dev.env for other shells
# (`. .parley/dev.env` before `parley user create`, say); run alone it prints them.

dev_env() {
  host="${HOST:-127.0.0.1}"
  api_port="${PARLEY_API_PORT:-8000}"
  web_port="${PORT:-3000}"
  api_url="http://127.0.0.1:$api_port"
  # Passkeys refuse an IP address as their relying party: the web UI is announced by name.
  case "$host" in
    127.*|localhost|0.0.0.0|::|::1) web_url="http://localhost:$web_port" ;;
    *) web_url="http://$host:$web_port" ;;
  esac
  origins="http://localhost:$web_port,http://127.0.0.1:$web_port"
  case "$host" in 127.0.0.1|localhost) ;; *) origins="$origins,http://$host:$web_port" ;; esac
  export PARLEY_PUBLIC_URL="${PARLEY_PUBLIC_URL:-$api_url}"
  export PARLEY_WEB_ORIGINS="${PARLEY_WEB_ORIGINS:-$origins}"
  export PARLEY_URL="${PARLEY_URL:-$api_url}"
}

# dev_env_lines: the derived settings (and the database dev.sh uses) as `export` lines.
dev_env_lines() {
  local name value
  for name in PARLEY_DATA_DIR DATABASE_URL PARLEY_PUBLIC_URL PARLEY_WEB_ORIGINS PARLEY_URL; do
    [ -n "${!name:-}" ] || continue
    value="${!name}"
    printf "export %s='%s'\n" "$name" "${value//\'/\'\\\'\'}"
  done
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -euo pipefail
  dev_env
  dev_env_lines
fi
