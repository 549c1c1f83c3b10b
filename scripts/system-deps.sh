#!/usr/bin/env bash
# System packages the test suite needs: Debian's Chromium (for the Playwright
# end-to-end tests; no browser download) and a PostgreSQL server (for the
# multi-process tests), zlib's headers (endgame tables).  Installs only what is missing.
set -euo pipefail
need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
if ! command -v pg_ctl >/dev/null 2>&1 && ! ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1; then
  need+=(postgresql)
fi
# zlib headers: the native core compresses the endgame table blocks (native/egdb_io.c)
[ -f /usr/include/zlib.h ] || need+=(zlib1g-dev)
if [ ${#need[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi
