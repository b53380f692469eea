#!/usr/bin/env bash
# fuzz.sh [SECONDS] [-- LIBFUZZER OPTIONS...] — runs libFuzzer on the whole compiler
# (tests/fuzz/fuzz_compile.c: every stage on arbitrary bytes as a model file, under ASan and
# UBSan) for SECONDS (default 60), seeded with every small .onnx of tests/ (tests/fuzz/seeds/
# holds crafted models: hostile names and attributes) and of Debian's backend cases, with the
# dictionary tests/fuzz/onnx.dict (comment and splice payloads, int64 limits as varints).  On
# success the target also checks that OUT.c and OUT.h are safe text (no splice, trigraph,
# nested comment or unclosed literal).  Builds build-fuzz with clang.  Crashes, leaks and timeouts are written to
# build-fuzz/findings/ as crash-*, leak-*, timeout-* (rerun one: build-fuzz/fuzz_compile FILE);
# the exit status is libFuzzer's: 0 when nothing was found.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-60}
shift || true
[ "${1:-}" = "--" ] && shift
CC=clang cmake -S . -B build-fuzz -DONNX2C_FUZZ=ON -DCMAKE_BUILD_TYPE=Debug >/dev/null
cmake --build build-fuzz -j2 --target fuzz_compile >/dev/null
corpus=build-fuzz/corpus
mkdir -p "$corpus" build-fuzz/findings
# seeds, named by content so reruns do not duplicate them
find tests /usr/share/libonnx-testdata/data/node -name '*.onnx' -size -64k 2>/dev/null |
    while read -r f; do cp "$f" "$corpus/$(md5sum < "$f" | cut -c1-16).onnx"; done
echo "fuzz: $(ls "$corpus" | wc -l) inputs in the corpus, $secs s"
exec build-fuzz/fuzz_compile -max_total_time="$secs" -max_len=65536 -timeout=20 \
    -rss_limit_mb=4096 -artifact_prefix=build-fuzz/findings/ -print_final_stats=1 -dict=tests/fuzz/onnx.dict "$@" "$corpus"
