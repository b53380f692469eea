#!/usr/bin/env bash
# man-check.sh — the man pages the build made from each tool's --help (tools/help2man.c) hold
# every option of that --help and the tool's version, and groff formats them without a warning
# (ctest target `man_pages`).
#   tools/man-check.sh [BUILD_DIR]
set -euo pipefail
build=${1:-build}
fails=0
for tool in onnx2c onnx2c-test onnx2c-run; do
  page=$build/man/$tool.1
  [ -f "$page" ] || { echo "FAIL $tool: no $page"; fails=$((fails + 1)); continue; }
  n=0
  # option lines: 2 to 4 spaces, then the flags up to two spaces
  while read -r flag; do
    n=$((n + 1))
    grep -qF "\\fB${flag//-/\\-}\\fR" "$page" || { echo "FAIL $tool: $flag is not in $page"; fails=$((fails + 1)); }
  done < <("$build/$tool" --help | sed -n 's/^ \{2,4\}\(-[^ ].*\)/\1/p' | sed 's/  .*//' |
           grep -oE '(^|[ ,])--?[a-zA-Z][-a-zA-Z]*' | tr -d ' ,')
  [ "$n" -gt 2 ] || { echo "FAIL $tool: only $n options found in --help"; fails=$((fails + 1)); }
  version=$("$build/$tool" --version | awk '{print $NF}')
  grep -qF "\"onnx2c $version\"" "$page" || { echo "FAIL $tool: $page is not of version $version"; fails=$((fails + 1)); }
  if command -v groff > /dev/null; then
    warnings=$(groff -man -ww -z "$page" 2>&1)
    [ -z "$warnings" ] || { echo "FAIL $tool: groff: $warnings"; fails=$((fails + 1)); }
  fi
  echo "$tool.1: $n options"
done
[ "$fails" = 0 ]
