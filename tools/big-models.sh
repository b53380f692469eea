#!/usr/bin/env bash
# big-models.sh — issue 15's big-model table (README "Big models"): torchvision classifiers
# with random weights (tests/models/make_big.py, not committed) converted with the weights
# inline and in a blob (--weights), each .c compiled by gcc -O2; onnx2c's and gcc's wall time
# and peak memory (/usr/bin/time), the sizes, and the --weights build run against PyTorch's
# output and the inline build's (onnx2c-test --weights, libtcc) where CHECK lists the model.
# Runs one thing at a time: the machine may be shared.  Needs python3-torch, torchvision and a
# build in BUILD.
#   tools/big-models.sh [BUILD [MODEL...]]
# (default: build, resnet18 resnet50 vgg11_bn vit_b_16; about 4 minutes, 7.5 GB for gcc on VGG)
set -euo pipefail
cd "$(dirname "$0")/.."
build=$(realpath "${1:-build}")
[ $# -gt 0 ] && shift
models=(resnet18 resnet50 vgg11_bn vit_b_16)
[ $# -gt 0 ] && models=("$@")
check=${CHECK:-resnet18}
out=$build/big
mkdir -p "$out"
mb() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1e6 }'; }
measure() { # FILE CMD... : "seconds peak_KB" into FILE
  /usr/bin/time -f "%e %M" -o "$1" "${@:2}" >/dev/null
}
echo "| model | file | weights | onnx2c | onnx2c peak | .c | blob | gcc -O2 | gcc peak |"
echo "|---|---|---|---|---|---|---|---|---|"
for m in "${models[@]}"; do
  d=$out/$m
  [ -f "$d/model.onnx" ] || (cd tests/models && /usr/bin/python3 make_big.py "$m" "$d" >/dev/null)
  fsize=$(stat -c %s "$d/model.onnx")
  for mode in inline blob; do
    w=$out/$m-$mode
    rm -rf "$w" && mkdir -p "$w"
    args=()
    [ $mode = blob ] && args=(--weights "$w/model.bin")
    measure "$w/t_onnx2c" "$build/onnx2c" "$d/model.onnx" -o "$w/model.c" "${args[@]}"
    measure "$w/t_gcc" gcc -std=c99 -O2 -c "$w/model.c" -o "$w/model.o"
    read -r ot om < "$w/t_onnx2c"
    read -r gt gm < "$w/t_gcc"
    csize=$(stat -c %s "$w/model.c")
    bsize=$([ $mode = blob ] && stat -c %s "$w/model.bin" || echo 0)
    printf "| %s | %s MB | %s | %s s | %s MB (%.2fx) | %s MB | %s | %s s | %s MB |\n" "$m" \
      "$(mb "$fsize")" "$mode" "$ot" "$(mb $((om * 1024)))" "$(awk -v a=$om -v b=$fsize 'BEGIN{print a*1024/b}')" \
      "$(mb "$csize")" "$([ $mode = blob ] && echo "$(mb "$bsize") MB" || echo -)" "$gt" "$(mb $((gm * 1024)))"
    rm -f "$w/model.o"
    [ $mode = inline ] && rm -f "$w/model.c"
  done
  if [[ " $check " == *" $m "* ]]; then
    "$build/onnx2c-test" --weights "$d" >&2
  fi
done
