#!/usr/bin/env bash
# install-check.sh — onnx2c as a user's build gets it (ctest targets `install` and
# `cmake_subdirectory`).
#
#   tools/install-check.sh BUILD_DIR            cmake --install into BUILD_DIR/install-check/prefix,
#                                               the installed files, the installed tools run, the
#                                               CMake example (examples/cmake) found by
#                                               find_package, built, run, rebuilt when the model
#                                               or onnx2c changes; the Makefile example
#                                               (examples/make) with the prefix on the PATH
#   tools/install-check.sh BUILD_DIR subdir     the CMake example with onnx2c's source tree as a
#                                               subdirectory (add_subdirectory)
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:?usage: install-check.sh BUILD_DIR [subdir]}" && pwd)
mode=${2:-install}
work=$build/install-check/$mode
rm -rf "$work"
mkdir -p "$work"
cp "$src/examples/tinynet.onnx" "$work/tinynet.onnx"
fail() { echo "FAIL: $*"; exit 1; }

# builds the example in $work/example (extra cmake arguments: $@); checks it runs and passes
example() {
  cmake -S "$src/examples/cmake" -B "$work/example" -DCMAKE_BUILD_TYPE=Release \
        -DTINYNET_ONNX="$work/tinynet.onnx" "$@" > "$work/configure.log" 2>&1 ||
    { cat "$work/configure.log"; fail "the example does not configure"; }
  cmake --build "$work/example" -j2 > "$work/build.log" 2>&1 ||
    { cat "$work/build.log"; fail "the example does not build"; }
  "$work/example/tinynet_app" | tail -1 | grep -qx PASS || fail "the example's outputs are wrong"
  # onnx2c_add_model(... WEIGHTS): the blob linked in, and loaded from its file
  "$work/example/tinynet_w_app" "$work/example/onnx2c/tinynet_w/tinynet_w.bin" > "$work/weights.log" ||
    { cat "$work/weights.log"; fail "the WEIGHTS example"; }
}

# the conversion runs again (true) or not (false) on the next build
converts() {
  cmake --build "$work/example" > "$work/rebuild.log" 2>&1 || { cat "$work/rebuild.log"; fail "rebuild"; }
  grep -q "onnx2c tinynet:" "$work/rebuild.log"
}

if [ "$mode" = subdir ]; then
  example -DONNX2C_SOURCE_DIR="$src"
  ! converts || fail "a build with nothing changed converts the model again"
  touch "$work/tinynet.onnx"
  converts || fail "a changed model is not converted again"
  echo "PASS: add_subdirectory: onnx2c built, the model converted and run"
  exit 0
fi

prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" > "$work/install.log" || fail "cmake --install"
libdir=$(sed -n 's/^CMAKE_INSTALL_LIBDIR:PATH=//p' "$build/CMakeCache.txt")
for f in bin/onnx2c bin/onnx2c-test bin/onnx2c-run \
         share/man/man1/onnx2c.1 share/man/man1/onnx2c-test.1 share/man/man1/onnx2c-run.1 \
         "$libdir"/cmake/onnx2c/onnx2c-config.cmake "$libdir"/cmake/onnx2c/onnx2c-config-version.cmake \
         "$libdir"/cmake/onnx2c/onnx2c-functions.cmake "$libdir"/cmake/onnx2c/onnx2c-targets.cmake; do
  [ -f "$prefix/$f" ] || fail "not installed: $f"
done
# the installed tools, from elsewhere (the templates are inside onnx2c; libtcc's files are the
# system's)
cd "$work"
"$prefix/bin/onnx2c" --version | grep -q "^onnx2c " || fail "onnx2c --version"
"$prefix/bin/onnx2c" tinynet.onnx -o tinynet.c && [ -s tinynet.c ] && [ -s tinynet.h ] ||
  fail "the installed onnx2c does not convert"
"$prefix/bin/onnx2c-run" tinynet.onnx --dim batch=1 --dim height=16 --dim width=16 \
  --output-dir out > run.log || { cat run.log; fail "the installed onnx2c-run"; }
[ -s out/probs.npy ] || fail "onnx2c-run wrote no out/probs.npy"
"$prefix/bin/onnx2c-test" "$src/tests/models/segnet_dynamic" | grep -q "^1 passed" ||
  fail "the installed onnx2c-test"

# find_package(onnx2c) from an out-of-tree project
example -DCMAKE_PREFIX_PATH="$prefix"
! converts || fail "a build with nothing changed converts the model again"
touch "$work/tinynet.onnx"
converts || fail "a changed model is not converted again"
touch "$prefix/bin/onnx2c"
converts || fail "a changed onnx2c does not convert the model again"
"$work/example/tinynet_app" | tail -1 | grep -qx PASS || fail "the rebuilt example"

# the Makefile pattern rule, onnx2c from the PATH
mkdir -p "$work/make"
PATH="$prefix/bin:$PATH" make -s -C "$work/make" -f "$src/examples/make/Makefile" \
  VPATH="$src/examples:$src/examples/cmake" check > "$work/make.log" 2>&1 ||
  { cat "$work/make.log"; fail "the Makefile example"; }
tail -1 "$work/make.log" | grep -qx PASS || fail "the Makefile example's outputs are wrong"
echo "PASS: installed into $prefix; find_package example and Makefile example built and run"
