#!/usr/bin/env bash
# example.sh — the main job: installs missing Debian packages, builds onnx2c, converts the
# bundled example model (examples/tinynet.onnx) and runs it at two sizes.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j2 >/dev/null
mkdir -p build/example
./build/onnx2c examples/tinynet.onnx -o build/example/tinynet.c
cc -std=c99 -O2 -Wall -Wextra -pedantic -Werror -c build/example/tinynet.c -o build/example/tinynet.o
cc -std=c11 -O2 -Wall -Wextra -Werror -Ibuild/example examples/tinynet_main.c build/example/tinynet.o \
   -lm -o build/example/tinynet
./build/example/tinynet
