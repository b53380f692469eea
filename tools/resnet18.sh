#!/usr/bin/env bash
# resnet18.sh — issue 2's real-model check: torchvision resnet18 (random weights, seed 0) at
# 1x3x224x224 is exported, converted, compiled with gcc -O2 (time and peak memory measured)
# and run against PyTorch's output with libtcc and with gcc.  Needs python3-torch and
# python3-torchvision (Debian) and a build in build/.
set -euo pipefail
cd "$(dirname "$0")/.."
out=build/resnet18
[ -f "$out/model.onnx" ] || (cd tests/models && /usr/bin/python3 make_resnet18.py "../../$out")
/usr/bin/time -f "onnx2c: %e s, peak %M KB" ./build/onnx2c "$out/model.onnx" -o "$out/resnet18.c"
ls -l "$out/resnet18.c" | awk '{printf "resnet18.c: %.1f MB\n", $5 / 1e6}'
/usr/bin/time -f "gcc -O2: %e s, peak %M KB" \
  gcc -std=c99 -Wall -Wextra -pedantic -Werror -O2 -c "$out/resnet18.c" -o "$out/resnet18.o"
./build/onnx2c-test "$out"
./build/onnx2c-test --cc "gcc -O2" "$out"
