#!/usr/bin/env bash
# test.sh — the whole test suite.  Installs missing Debian packages, then:
#   1. a build under AddressSanitizer + UBSan: the unit tests (every bad input of the loader and
#      the CLI) and the backend suite's compiles run without a leak or undefined behaviour;
#   2. the release build: ctest runs the Criterion unit tests and the ONNX backend suites
#      (tests/node_pass.txt) under libtcc and under gcc -O2 -std=c99 -pedantic -Werror.
# Each runner prints its own summary line (Criterion's Synthesis, onnx2c-test's
# "N passed, N failed", ctest's total).
set -euo pipefail
cd "$(dirname "$0")/.."
tools/deps.sh
jobs=2

echo "== build (sanitizers)"
cmake -S . -B build-asan -DONNX2C_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug >/dev/null
cmake --build build-asan -j$jobs >/dev/null
echo "== tests under ASan/UBSan"
ctest --test-dir build-asan -R '^(unit|backend_tcc)$' -V 2>&1 | grep -vE '^[0-9]+: (PASS |\[----\]|\[PASS\]|Test command:)'

echo "== build (release)"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j$jobs >/dev/null
echo "== tests"
ctest --test-dir build -V 2>&1 | grep -vE '^[0-9]+: (PASS |\[----\]|\[PASS\]|Test command:)'
