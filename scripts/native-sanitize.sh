#!/usr/bin/env bash
# Build the native core's C test driver with AddressSanitizer and UBSan and run it.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -f native/test_native.c ]; then
  echo "native-sanitize: no native/test_native.c yet, nothing to run"
  exit 0
fi
mkdir -p build/sanitize
srcs=$(ls native/*.c | grep -v -e module.c -e 'native/test_')
cc -std=c11 -O1 -g -Wall -Wextra -Werror -fsanitize=address,undefined -fno-sanitize-recover=all \
   -fno-omit-frame-pointer -Inative $srcs native/test_native.c -o build/sanitize/test_native -lz -pthread
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 build/sanitize/test_native
cc -std=c11 -O1 -g -Wall -Wextra -Werror -fsanitize=address,undefined -fno-sanitize-recover=all \
   -fno-omit-frame-pointer -Inative $srcs native/test_egdb.c -o build/sanitize/test_egdb -lz -pthread
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 build/sanitize/test_egdb
