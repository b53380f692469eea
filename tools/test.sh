#!/usr/bin/env bash
# test.sh — the whole test suite.  Installs missing Debian packages, then:
#   1. a build under AddressSanitizer + UBSan: the unit tests (every bad input of the loader and
#      the CLI) and the backend suite's compiles run without a leak or undefined behaviour;
#   2. the release build: ctest runs the Criterion unit tests (but unit_generated, which
#      checks generated C that does not depend on the build and ran in step 1) and the ONNX
#      backend suites (tests/node_pass.txt) under libtcc and under gcc -O2 -std=c99 -pedantic
#      -Werror.
# Each runner prints its own summary line (Criterion's Synthesis, onnx2c-test's
# "N passed, N failed", ctest's total).
# ctest runs two tests at a time (-j2: most runners compile one case after another on one
# core); the longest start first (their COST in tests/CMakeLists.txt). Each stage prints its
# minutes, so a slow run shows where the time went.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS
stage() { echo "== $1 ($(( (SECONDS - start) / 60 )) min in)"; }
tools/deps.sh
jobs=2

stage "build (sanitizers)"
cmake -S . -B build-asan -DONNX2C_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug >/dev/null
cmake --build build-asan -j$jobs >/dev/null
stage "tests under ASan/UBSan"
ctest --test-dir build-asan -j$jobs -R '^(unit|unit_generated|backend_tcc)$' -V 2>&1 | grep -vE '^[0-9]+: (PASS |\[----\]|\[PASS\]|Test command:)'

stage "build (release)"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j$jobs >/dev/null
stage "tests"
ctest --test-dir build -j$jobs -E '^unit_generated$' -V 2>&1 | grep -vE '^[0-9]+: (PASS |\[----\]|\[PASS\]|Test command:)'
stage "done"
