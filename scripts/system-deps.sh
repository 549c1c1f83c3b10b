#!/usr/bin/env bash
# System packages the test suite needs: Debian's Chromium (for the Playwright
# end-to-end tests; no browser download) and a PostgreSQL server (for the
# multi-process tests), zlib's headers (endgame tables), and Node.js with npm (the
# JavaScript's type and length checks of make test), and Caddy (the proxy of the
# production path, tests/server/test_deployment.py).  Installs only what is missing.
set -euo pipefail
need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
if ! command -v pg_ctl >/dev/null 2>&1 && ! ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1; then
  need+=(postgresql)
fi
# zlib headers: the native core compresses the endgame table blocks (native/egdb_io.c)
[ -f /usr/include/zlib.h ] || need+=(zlib1g-dev)
# Node.js 18.18 or later (Debian 12's) runs the development tools of package.json
command -v npm >/dev/null 2>&1 || need+=(nodejs npm)
# the proxy of docs/DEPLOY.md (its package does not start it where systemd does not run)
command -v caddy >/dev/null 2>&1 || need+=(caddy)
if [ ${#need[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
  # the tests start their own Caddy: a machine running systemd gets no caddy service
  # from them (the package enables one on ports 80 and 443)
  if [[ " ${need[*]} " == *" caddy "* ]] && [ -d /run/systemd/system ]; then
    $SUDO systemctl disable --now caddy >/dev/null 2>&1 || true
  fi
fi
