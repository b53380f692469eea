#!/usr/bin/env bash
# tiny-table.sh — issue 10's closing table for the MLPerf Tiny-style models (tests/models/tiny_*).
#   tools/tiny-table.sh [--opts "ONNX2C_OPTIONS"] [--no-run] [BUILD_DIR]
# Runs tools/embedded.sh on the four models with onnx2c OPTIONS (default --memory-first; ""
# for the default mode) on the Cortex-M4 and Cortex-M55 — or, with --no-run, reads the figures
# of its last run (BUILD_DIR/embedded/tiny-figures.txt) — and prints per model and core:
#   arena            NET_WORKSPACE_MAX (bytes)
#   bound            the liveness bound (tools/liveness_bound.py), and arena / bound
#   arena+io         the arena plus the bytes of the model's inputs and outputs
#   text+rodata      the model object's code and constants, and rodata / parameter bytes
#                    (parameter bytes: the float initializers, tests/models/make_tiny.py --stats)
#   instr            executed instructions of one inference on QEMU, and per MAC
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
opts=--memory-first run=1
while [ $# -gt 0 ]; do
  case $1 in
    --opts) opts=$2; shift 2 ;;
    --no-run) run=0; shift ;;
    *) break ;;
  esac
done
build=${1:-build}
figures=$build/embedded/tiny-figures.txt
models=(tiny_kws tiny_vww tiny_resnet8 tiny_ad)
if [ $run = 1 ]; then
  TINY_OPTS=$opts tools/embedded.sh "$build" "${models[@]}" >"$build/tiny-table.log" 2>&1
  rc=$?
  [ $rc = 77 ] && { echo "tiny-table.sh: the Cortex-M tools are missing"; exit 77; }
  grep -E '^FAIL' "$build/tiny-table.log"
fi
[ -s "$figures" ] || { echo "tiny-table.sh: no figures in $figures" >&2; exit 1; }

stats=$(/usr/bin/python3 tests/models/make_tiny.py --stats "${models[@]}") || exit 1
bounds=""
for m in "${models[@]}"; do
  b=$(/usr/bin/python3 tools/liveness_bound.py "tests/models/$m/model.onnx") || exit 1
  bounds+="$m ${b#* }"$'\n'
done

echo "onnx2c ${opts:-(default options)}; instructions counted on QEMU 7.2, arm-none-eabi-gcc 12 -O2"
echo
echo "| model | core | arena | liveness bound | arena / bound | arena + inputs + outputs | text + rodata | rodata / parameter bytes | instructions / inference | instructions / MAC |"
echo "|---|---|---|---|---|---|---|---|---|---|"
awk -v stats="$stats" -v bounds="$bounds" '
  function c(n,   s) { s = sprintf("%d", n); while (s ~ /[0-9][0-9][0-9][0-9]/) sub(/[0-9][0-9][0-9]([,]|$)/, ",&", s); return s }
  BEGIN {
    n = split(stats, L, "\n"); for (i = 1; i <= n; i++) { split(L[i], f, " "); par[f[1]] = f[2]; mac[f[1]] = f[3] }
    n = split(bounds, L, "\n"); for (i = 1; i <= n; i++) { k = split(L[i], f, " "); lb[f[1]] = f[3]; io[f[1]] = f[k] }
  }
  # model core arena text+rodata instructions text rodata runner-io
  {
    m = $1
    printf "| %s | %s | %s | %s | %.2f | %s | %s | %.3f | %s | %.2f |\n", m, ($2 == "m4" ? "Cortex-M4" : "Cortex-M55"),
      c($3), c(lb[m]), (lb[m] ? $3 / lb[m] : 0), c($3 + io[m]), c($4), $7 / par[m], c($5), $5 / mac[m]
  }' "$figures"
