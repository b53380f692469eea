#!/usr/bin/env bash
# contract-compile.sh — CONTRACT.md section 1 on every case of tests/node_pass.txt, compile only
# (ctest target `contract_compile`): each case's model is converted by the build's onnx2c and
# the generated C must compile without a warning under
#   arm-none-eabi-gcc -std=c99 -Wall -Wextra -pedantic -Werror  (Cortex-M4: 32-bit size_t)
#   clang -std=c99 -Wall -Wextra -pedantic -Werror  (at -O0: clang's warnings come from its
#     front end whatever the level, and -O0 compiles the dispatch clones 4x faster than -O1;
#     clang's optimiser on the generated code is ctest dispatch_plain, at -O2)
# (gcc and tcc on the host are covered by backend_gcc_strict and backend_tcc).  Two compiles at
# a time.  Prints "FAIL compiler case: first diagnostic" per failure and, per compiler and in
# total, "N passed, N failed".  Exits 77 (skipped) without arm-none-eabi-gcc or clang.
#   tools/contract-compile.sh [BUILD_DIR] [LIST]
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
list=${2:-tests/node_pass.txt}
data=${ONNX_TESTDATA:-/usr/share/libonnx-testdata/data}
for t in arm-none-eabi-gcc clang; do
  command -v $t >/dev/null || { echo "contract-compile.sh: $t not found: skipped (tools/deps.sh installs it)"; exit 77; }
done
[ -x "$build/onnx2c" ] || { echo "contract-compile.sh: build $build first" >&2; exit 2; }
out=$build/contract
rm -rf "$out" && mkdir -p "$out"

# 1. generate: one folder per case, named after the case with '/' -> '__'
mapfile -t cases < <(sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e 's/^[[:space:]]*//' "$list" | grep -v '^$')
n=${#cases[@]}

# per case, two cases at a time: convert (folder named after the case, '/' -> '__'), then
# compile with each compiler; prints "PASS|FAIL arm|clang CASE[: first diagnostic]"
export ARM="arm-none-eabi-gcc -std=c99 -Wall -Wextra -pedantic -Werror -mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16 -O2 -c"
export CLANG="clang -std=c99 -Wall -Wextra -pedantic -Werror -O0 -c"
export onnx2c=$build/onnx2c data out
# tools/sp-check.sh (ctest single_precision, run after this) reads the undefined symbols of
# these Cortex-M4 objects instead of compiling the same cases again with the same flags: each
# case's arm.undef, valid for the onnx2c and the flags in the stamp
stamp() { sha256sum "$onnx2c" | cut -d' ' -f1; echo "$ARM"; }
one() { # case
  local d=$out/${1//\//__} cc cmd
  mkdir -p "$d"
  if ! "$onnx2c" "$data/$1/model.onnx" -o "$d/model.c" 2>"$d/gen.log"; then
    echo "FAIL arm $1: onnx2c: $(head -1 "$d/gen.log")"
    echo "FAIL clang $1: onnx2c: $(head -1 "$d/gen.log")"
    return
  fi
  for cc in arm clang; do
    if [ $cc = arm ]; then cmd=$ARM; else cmd=$CLANG; fi
    if $cmd "$d/model.c" -o "$d/$cc.o" >"$d/$cc.log" 2>&1; then
      [ $cc = arm ] && arm-none-eabi-nm -u "$d/arm.o" >"$d/arm.undef"
      echo "PASS $cc $1"
    else
      echo "FAIL $cc $1: $(grep -m1 -E 'error|warning' "$d/$cc.log" | sed "s|^$d/||" || head -1 "$d/$cc.log")"
    fi
    rm -f "$d/$cc.o"
  done
}
export -f one
stamp >"$out/stamp"
printf '%s\0' "${cases[@]}" | xargs -0 -n1 -P2 bash -c 'one "$0"' >"$out/results.txt"

passed=0
for cc in arm clang; do
  p=$(grep -c "^PASS $cc " "$out/results.txt")
  grep "^FAIL $cc " "$out/results.txt"
  echo "$cc: $p passed, $((n - p)) failed"
  passed=$((passed + p))
done
echo "$n cases x 2 compilers: $passed passed, $((2 * n - passed)) failed"
[ $passed -eq $((2 * n)) ]
