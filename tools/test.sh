#!/usr/bin/env bash
# test.sh — the whole test suite: installs missing Debian packages, builds with the strict
# warning flags, then runs every runner with its own summary line:
#   Criterion unit tests, the ONNX backend suites (tcc, and gcc -std=c99 -pedantic -Werror), ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j2 >/dev/null
ctest --test-dir build -V 2>&1 | grep -vE "^[0-9]+: (PASS|\[----\]|\[PASS\])"
