#!/usr/bin/env bash
# convert-all.sh — converts every model the suites use into OUTDIR, for comparing the generated
# C of two builds (a refactor must leave it byte-identical, or explain the diff):
#
#   tools/convert-all.sh /tmp/before build-old/onnx2c
#   tools/convert-all.sh /tmp/after build/onnx2c
#   diff -r /tmp/before /tmp/after
#
# The ONNX backend node cases of tests/node_pass.txt (default and --memory-first), then every
# model under tests/data and tests/models.  Each model gives NAME.c, NAME.h and NAME.err (the
# one-line error of the models the compiler refuses, empty otherwise).
set -uo pipefail
out=${1:?usage: convert-all.sh OUTDIR [ONNX2C]}
bin=$(realpath "${2:-build/onnx2c}")
root=$(cd "$(dirname "$0")/.." && pwd)
node=${ONNX_TESTDATA:-/usr/share/libonnx-testdata/data}/node
rm -rf "$out" && mkdir -p "$out" && out=$(realpath "$out")
cd "$root"
n=0
for d in $(sed -n 's#^node/##p' tests/node_pass.txt); do
  f=$node/$d/model.onnx
  [ -f "$f" ] || continue
  "$bin" "$f" -o "$out/node_$d.c" >/dev/null 2>"$out/node_$d.err"
  "$bin" --memory-first "$f" -o "$out/mf_$d.c" >/dev/null 2>"$out/mf_$d.err"
  n=$((n + 1))
done
for f in $(find tests/data tests/models -name '*.onnx' | sort); do
  k=$(echo "$f" | tr '/' '_')
  "$bin" "$f" -o "$out/$k.c" >/dev/null 2>"$out/$k.err"
  n=$((n + 1))
done
echo "$n models converted into $out"
