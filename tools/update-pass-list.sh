#!/usr/bin/env bash
# update-pass-list.sh — runs every backend case of libonnx-testdata and adds the new passes to
#   tests/node_pass.txt     cases passing with libtcc and with gcc -O2 strict C99
#   tests/dynamic_pass.txt  cases passing in forced-dynamic mode (every input axis symbolic)
#   tests/dynamic_nodecl_pass.txt  the same with the declared output shapes forgotten
#                                  (--no-declared: what a dynamic export without them gives)
# Cases are never removed: a case that passed once must keep passing (ctest holds the line).
#   tools/update-pass-list.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
root=/usr/share/libonnx-testdata/data
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for d in node pytorch-converted pytorch-operator simple; do
  ls "$root/$d" | sed "s|^|$d/|"
done > "$tmp/all"
passes() { # ARGS... -> sorted case names that pass
  "$build/onnx2c-test" --root "$root" --list "$tmp/all" --timeout 60 "$@" | sed -n 's/^PASS //p' | sort || true
}
passes > "$tmp/tcc"
passes --cc "gcc -O2 -std=c99 -Wall -Wextra -pedantic -Werror" > "$tmp/gcc"
passes --dynamic > "$tmp/dyn"
passes --dynamic --no-declared > "$tmp/nodecl"
merge() { # LIST NEW
  touch "$1"
  local before after
  before=$(grep -c . "$1" || true)
  sort -u "$1" "$2" | grep . > "$tmp/merged" || true
  mv "$tmp/merged" "$1"
  after=$(grep -c . "$1" || true)
  echo "$1: $before -> $after cases"
}
comm -12 "$tmp/tcc" "$tmp/gcc" > "$tmp/static"
merge tests/node_pass.txt "$tmp/static"
merge tests/dynamic_pass.txt "$tmp/dyn"
merge tests/dynamic_nodecl_pass.txt "$tmp/nodecl"
echo "node cases passing now: $(grep -c '^node/' "$tmp/static") of $(grep -c '^node/' "$tmp/all") (static)," \
  "$(grep -c '^node/' "$tmp/dyn") (forced-dynamic), $(grep -c '^node/' "$tmp/nodecl") (forced-dynamic, no declared shapes)"
