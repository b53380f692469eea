#!/usr/bin/env bash
# profile.sh — executed instructions per function of a Cortex-M ELF, from a run with the plugin's
# blocks=on:  tools/insn-count/profile.sh ELF COUNT_FILE [TOP]
# COUNT_FILE is the plugin's outfile ("insns N", then "tb ADDR INSNS EXECS" per block). Each
# block's INSNS x EXECS goes to the function whose symbol (arm-none-eabi-nm) starts at or before
# ADDR; prints the TOP (default 25) functions with their share of the total.
set -euo pipefail
elf=$1 counts=$2 top=${3:-25}
arm-none-eabi-nm -n -t d --defined-only "$elf" | awk '$2 ~ /^[tTwW]$/ {print $1, $3}' >"$counts.syms"
awk -v top="$top" '
  NR == FNR { addr[n] = $1 + 0; name[n] = $2; n++; next }
  $1 == "insns" { total = $2; next }
  $1 == "tb" {
    a = $2 + 0; lo = 0; hi = n - 1; f = -1
    while (lo <= hi) { m = int((lo + hi) / 2); if (addr[m] <= a) { f = m; lo = m + 1 } else hi = m - 1 }
    fn = f < 0 ? "?" : name[f]; sum[fn] += $3 * $4
  }
  END {
    for (k in sum) printf "%14d %6.2f%%  %s\n", sum[k], 100 * sum[k] / (total ? total : 1), k | "sort -rn | head -" top
  }' "$counts.syms" "$counts"
rm -f "$counts.syms"
