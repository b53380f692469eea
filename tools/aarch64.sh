#!/usr/bin/env bash
# aarch64.sh — the generated C on 64-bit Arm (Advanced SIMD), under qemu-user (ctest `aarch64`).
#   tools/aarch64.sh [BUILD_DIR] [CASE_DIR...]
# For each case (default: every op case of tests/data with data sets, and tests/models/*):
# converts the model with the build's onnx2c and --max bounds from its largest data set (so
# NET_WORKSPACE_MAX sizes a static arena), cross-compiles the generated C with
# aarch64-linux-gnu-gcc -O2 under the contract's flags plus -Werror, links it with
# embedded/runner.c (static, plain stdio on Linux), runs it with qemu-aarch64 once per data set
# and compares the outputs (build/onnx2c-emb check: CONTRACT.md section 3's tolerance).
# AARCH64_CFLAGS adds flags (e.g. -DO2C_NO_VECTOR for the plain C path).
# Closes with "N passed, N failed".  Exits 77 (skipped) without the cross compiler or QEMU.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
build=${1:-build}
shift || true
for t in aarch64-linux-gnu-gcc qemu-aarch64; do
  command -v $t >/dev/null || { echo "aarch64.sh: $t not found: skipped (tools/deps.sh installs it)"; exit 77; }
done
onnx2c=$build/onnx2c host=$build/onnx2c-emb
if ! [ -x "$onnx2c" ] || ! [ -x "$host" ]; then echo "aarch64.sh: build $build first" >&2; exit 2; fi
build=$(cd "$build" && pwd)
out=$build/aarch64
mkdir -p "$out"
STRICT="-std=c99 -Wall -Wextra -pedantic -Werror"
CC="aarch64-linux-gnu-gcc -O2 ${AARCH64_CFLAGS:-}"

cases=("$@")
if [ ${#cases[@]} -eq 0 ]; then
  for m in $(find tests/data -name model.onnx | sort) tests/models/*/model.onnx; do
    d=$(dirname "$m")
    [ -d "$d/test_data_set_0" ] && cases+=("$d")
  done
fi

passed=0 failed=0
for d in "${cases[@]}"; do
  name=${d#tests/}
  w=$out/$(echo "$name" | tr '/' '_')
  rm -rf "$w" && mkdir -p "$w"
  fail() { echo "FAIL $name: $*"; failed=$((failed + 1)); }
  opts=$("$host" bounds "$d/model.onnx" "$d" 2>"$w/log") || { fail "bounds: $(head -1 "$w/log")"; continue; }
  # shellcheck disable=SC2086
  if ! "$onnx2c" "$d/model.onnx" -o "$w/net.c" --name net $opts 2>"$w/log"; then
    fail "onnx2c: $(head -1 "$w/log")"; continue
  fi
  io=0 k=0 ok=1
  for s in "$d"/test_data_set_*; do
    mkdir -p "$w/set$k"
    # shellcheck disable=SC2086
    b=$("$host" prep $opts "$d/model.onnx" "$s" "$w/set$k" 2>"$w/log") || { ok=0; break; }
    [ "$b" -gt "$io" ] && io=$b
    k=$((k + 1))
  done
  [ $ok = 1 ] || { fail "prep: $(head -1 "$w/log")"; continue; }
  # shellcheck disable=SC2086
  if ! { $CC $STRICT -c "$w/net.c" -o "$w/net.o" &&
         $CC $STRICT -I"$w" -DRUNNER_IO_BYTES="$io" -c embedded/runner.c -o "$w/runner.o" &&
         $CC -static "$w/runner.o" "$w/net.o" -lm -o "$w/run"; } >"$w/log" 2>&1; then
    fail "aarch64-linux-gnu-gcc: $(grep -m1 -E 'error|warning' "$w/log" || head -1 "$w/log")"; continue
  fi
  k=0 msg=
  for s in "$d"/test_data_set_*; do
    (cd "$w/set$k" && timeout 300 qemu-aarch64 "$w/run") >"$w/set$k/qemu.log" 2>&1
    rc=$?
    if [ $rc -ne 0 ]; then msg="set $k: exit $rc: $(tail -1 "$w/set$k/qemu.log")"; break; fi
    # shellcheck disable=SC2086
    r=$("$host" check $opts "$d/model.onnx" "$s" "$w/set$k" 2>&1) || { msg="set $k: compare: $r"; break; }
    k=$((k + 1))
  done
  if [ -n "$msg" ]; then fail "$msg"; continue; fi
  echo "PASS $name"
  passed=$((passed + 1))
done
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
