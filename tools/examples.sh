#!/usr/bin/env bash
# examples.sh — converts and runs every example program (ctest target `examples`):
#   examples/tinynet_main.c  <- examples/tinynet.onnx
#   examples/siamese_main.c  <- tests/models/siamese_unfold/model.onnx
#   examples/segnet_main.c   <- tests/models/segnet_dynamic/model.onnx
#   examples/nms_main.c      <- tests/models/survey_nms_post/model.onnx (a data dim)
#   examples/weights_main.c  <- examples/tinynet.onnx with --weights: the blob linked in (its
#                               .S assembled) and loaded from the file, the same outputs
# Each generated .c is compiled with the contract's strict C99 flags (the programs are C11 for
# aligned_alloc) and runs at two sizes.
#   tools/examples.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
out=$build/examples
mkdir -p "$out"
CC=${CC:-cc}
run() { # NAME MODEL
  "$build/onnx2c" "$2" -o "$out/$1.c"
  $CC -std=c99 -O2 -Wall -Wextra -pedantic -Werror -c "$out/$1.c" -o "$out/$1.o"
  $CC -std=c11 -O2 -Wall -Wextra -Werror -I"$out" "examples/$1_main.c" "$out/$1.o" -lm -o "$out/$1"
  echo "== $1"
  "$out/$1"
}
run tinynet examples/tinynet.onnx
run siamese tests/models/siamese_unfold/model.onnx
run segnet tests/models/segnet_dynamic/model.onnx
run nms tests/models/survey_nms_post/model.onnx
echo "== weights"
"$build/onnx2c" examples/tinynet.onnx -o "$out/tinynet_w.c" --weights "$out/tinynet_w.bin"
$CC -std=c99 -O2 -Wall -Wextra -pedantic -Werror -c "$out/tinynet_w.c" -o "$out/tinynet_w.o"
$CC -c "$out/tinynet_w.bin.S" -I "$out" -o "$out/tinynet_w.bin.o"
$CC -std=c11 -O2 -Wall -Wextra -Werror -I"$out" examples/weights_main.c "$out/tinynet_w.o" \
  "$out/tinynet_w.bin.o" -lm -o "$out/weights"
"$out/weights" "$out/tinynet_w.bin"
