#!/usr/bin/env bash
# What `make setup` (and so `make run` and `make test`) needs from the system to build
# the native core: a C compiler, Python's venv module and headers (Debian:
# python3-venv, python3-dev) and zlib's headers (zlib1g-dev: the endgame tables'
# blocks are compressed).  Installs what is missing with apt when it can (root, or
# sudo), and otherwise names every missing package and stops, instead of letting a
# quiet pip build fail without saying why.
#   usage: scripts/build-deps.sh PYTHON
# BUILD_DEPS_DRY_RUN=1 only names what is missing (exit 1 if anything is);
# ZLIB_HEADER overrides where zlib.h is looked for (tests).
set -euo pipefail
py="${1:-python3}"
need=()
why=()
if ! command -v cc >/dev/null 2>&1 && ! command -v gcc >/dev/null 2>&1; then
  need+=(gcc); why+=("a C compiler")
fi
if ! "$py" -c "import venv, ensurepip" >/dev/null 2>&1; then
  need+=(python3-venv); why+=("Python's venv module ($py -m venv)")
fi
include="$("$py" -c 'import sysconfig; print(sysconfig.get_paths()["include"])' 2>/dev/null || true)"
if [ -z "$include" ] || [ ! -f "$include/Python.h" ]; then
  need+=(python3-dev); why+=("Python's headers (Python.h for $py)")
fi
if [ ! -f "${ZLIB_HEADER:-/usr/include/zlib.h}" ]; then
  need+=(zlib1g-dev); why+=("zlib's headers (zlib.h)")
fi
[ ${#need[@]} -eq 0 ] && exit 0
for i in "${!need[@]}"; do
  echo "missing: ${need[$i]} — ${why[$i]}" >&2
done
if [ "${BUILD_DEPS_DRY_RUN:-}" = 1 ]; then
  exit 1
fi
SUDO=""
if [ "$(id -u)" != 0 ]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    SUDO="sudo"
  else
    echo "install them (Debian: sudo apt-get install ${need[*]}) and run make again" >&2
    exit 1
  fi
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "no apt-get here: install the packages above with this system's package manager" >&2
  exit 1
fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
echo "installed: ${need[*]}" >&2
