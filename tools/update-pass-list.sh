#!/usr/bin/env bash
# update-pass-list.sh — runs every backend case (libtcc and gcc strict), and adds the cases that
# pass both to tests/node_pass.txt.  Cases are never removed: a case that passed once must keep
# passing (ctest's backend_* tests hold the line).
#   tools/update-pass-list.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
root=/usr/share/libonnx-testdata/data
all=$(mktemp)
for d in node pytorch-converted pytorch-operator simple; do
  ls "$root/$d" | sed "s|^|$d/|"
done > "$all"
pass_tcc=$(mktemp); pass_gcc=$(mktemp)
"$build/onnx2c-test" --root "$root" --list "$all" --timeout 60 | sed -n 's/^PASS //p' | sort > "$pass_tcc" || true
"$build/onnx2c-test" --cc "gcc -O2 -std=c99 -Wall -Wextra -pedantic -Werror" --root "$root" \
  --list "$all" --timeout 60 | sed -n 's/^PASS //p' | sort > "$pass_gcc" || true
comm -12 "$pass_tcc" "$pass_gcc" > "$pass_tcc.full"
touch tests/node_pass.txt
before=$(grep -c . tests/node_pass.txt || true)
sort -u tests/node_pass.txt "$pass_tcc.full" | grep . > "$pass_tcc.new" || true
mv "$pass_tcc.new" tests/node_pass.txt
after=$(grep -c . tests/node_pass.txt || true)
echo "tests/node_pass.txt: $before -> $after cases"
rm -f "$all" "$pass_tcc" "$pass_gcc" "$pass_tcc.full"
