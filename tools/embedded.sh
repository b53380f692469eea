#!/usr/bin/env bash
# embedded.sh — runs generated models on Cortex-M cores under QEMU (ctest target `embedded`).
#   tools/embedded.sh [--record] [BUILD_DIR] [CASE_NAME...]
# For each case: converts the model with the build's onnx2c (--fix, or --max for every dim, so
# that NET_WORKSPACE_MAX sizes a static arena), cross-compiles the generated C with the
# contract's flags plus -Werror, links it with embedded/runner.c and the start-up and linker
# script of embedded/, prints the ELF's size, runs it on qemu-system-arm (mps2-an386) once per
# data set — one ELF serves every set, the dims are read at run time — and compares the outputs
# written back through semihosting (build/onnx2c-emb, CONTRACT.md section 3's tolerance).
#
# Then the MLPerf Tiny-style models (tests/models/tiny_*, make_tiny.py), compiled with
# onnx2c $TINY_OPTS (default --memory-first), on the Cortex-M4 (mps2-an386) and the Cortex-M55
# (mps3-an547, Helium): both data sets checked, and per model and core the arena
# (NET_WORKSPACE_MAX), the model object's text + rodata (arm-none-eabi-size) and the executed
# instructions of one inference (tools/insn-count: a runner with -DRUNNER_REPEAT=2 minus one
# with 1). Prints them beside the figures recorded in tests/models/tiny_budget.txt and fails
# when one grows more than 2% over its record (checked when TINY_OPTS are the record's options).
# --record rewrites the records of the models run. BUILD_DIR/embedded/tiny-figures.txt keeps
# this run's figures (tools/tiny-table.sh reads it). TINY_BUDGET=FILE: another record file.
# Then the int8 models (tests/models/q_*, make_quant.py), compiled with onnx2c $QUANT_OPTS
# (default --memory-first), on the same two cores with the same figures, the outputs compared
# bit for bit (onnx2c-emb check --exact), their figures checked against the same record file
# (BUILD_DIR/embedded/quant-figures.txt keeps them).
# INSN_PROFILE=N: also prints the N functions that ran the most instructions, per model and core
# (the plugin's blocks=on, tools/insn-count/profile.sh).
# Closes with "N passed, N failed".  Exits 77 (skipped) without arm-none-eabi-gcc or QEMU.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
record=0
if [ "${1:-}" = --record ]; then record=1; shift; fi
build=${1:-build}
shift || true
for t in arm-none-eabi-gcc arm-none-eabi-size qemu-system-arm; do
  command -v $t >/dev/null || { echo "embedded.sh: $t not found: skipped (tools/deps.sh installs it)"; exit 77; }
done
onnx2c=$build/onnx2c host=$build/onnx2c-emb
if ! [ -x "$onnx2c" ] || ! [ -x "$host" ]; then echo "embedded.sh: build $build first" >&2; exit 2; fi
build=$(cd "$build" && pwd)   # absolute: QEMU runs inside the data set folders
data=${ONNX_TESTDATA:-/usr/share/libonnx-testdata/data}
emb=$PWD/embedded
out=$build/embedded
budget=${TINY_BUDGET:-tests/models/tiny_budget.txt}
TINY_OPTS=${TINY_OPTS---memory-first}
mkdir -p "$out"

STRICT="-std=c99 -Wall -Wextra -pedantic -Werror"
# target: gcc flags | linker script | QEMU machine and cpu
declare -A TARGET=(
  [m4]="-mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16|mps2.ld|-M mps2-an386 -cpu cortex-m4"
  [m55]="-mcpu=cortex-m55 -mthumb -mfloat-abi=hard|mps3_an547.ld|-M mps3-an547 -cpu cortex-m55"
)

# name | model | onnx2c options ("bounds": --max from the largest data set) | data: pattern, or sets
# | cores (default m4)
cases=(
  "tinynet|examples/tinynet.onnx|--fix batch=1 --fix height=32 --fix width=32|pattern"
  "siamese_unfold|tests/models/siamese_unfold/model.onnx|bounds|sets"
  "lstm_dynamic|tests/models/lstm_dynamic/model.onnx|bounds|sets"
)
for n in conv_with_strides_padding maxpool_2d_pads averagepool_2d_strides gemm_all_attributes \
         softmax_axis_1 reduce_mean_keepdims_example gather_2d_indices lstm_defaults matmul_3d \
         argmax_keepdims_random layer_normalization_3d_axis1_epsilon cast_FLOAT_to_FLOAT16 \
         cumsum_2d_axis_1 einsum_batch_matmul; do
  cases+=("$n|$data/node/test_$n/model.onnx||sets")
done
# the fully connected kernel of --memory-first (templates/gemv.c: on the M4 its vldmia path)
# over the shapes of its op cases: tails of the blocks of 8 and of the k unroll, transposes,
# bias shapes, residual, activations
for d in tests/data/matconv/gemv/*/; do
  n=$(basename "$d")
  cases+=("gemv_$n|${d}model.onnx|bounds --memory-first|sets")
done
# the int8 engine (templates/quant_i8*.c) over its op cases, on both cores: the DSP (SMLAD)
# and Helium paths against the same references; constant operands (*_c) and the engine cases
# with run-time ones (the weight packed on every run)
for d in tests/data/quant/cases/*_c/ tests/data/quant/cases/qconv_e_*[!c]/; do
  n=$(basename "$d")
  cases+=("quant_$n|${d}model.onnx|bounds --memory-first|sets|m4 m55")
done
tiny=(tiny_kws tiny_vww tiny_resnet8 tiny_ad)
# the int8 models of tests/models/make_quant.py (QOperator and QDQ forms)
quant=(q_kws_qop q_kws_qdq q_resnet8_qop q_resnet8_qdq q_fc_qop q_fc_qdq q_tblock_qop q_tblock_qdq)
QUANT_OPTS=${QUANT_OPTS---memory-first}

passed=0 failed=0
fail() { echo "FAIL $name: $*"; failed=$((failed + 1)); }
selected() { [ ${#only[@]} -eq 0 ] || [[ " ${only[*]} " == *" $1 "* ]]; }
only=("$@")

# build W/net.o and the runner for target T (W/T/: startup.o, runner REPEATS..., elfs rN.elf);
# io: the runner's I/O buffer. Errors go to W/log.
build_for() {
  local w=$1 t=$2 io=$3 r; shift 3
  local flags ld
  IFS='|' read -r flags ld _ <<<"${TARGET[$t]}"
  local cflags="$flags -O2 -ffunction-sections -fdata-sections"
  mkdir -p "$w/$t"
  # the generated C under the contract's flags; the runner is ISO C99 too
  # shellcheck disable=SC2086
  arm-none-eabi-gcc $cflags $STRICT -c "$w/net.c" -o "$w/$t/net.o" &&
  arm-none-eabi-gcc $cflags -std=c11 -Wall -Wextra -Werror -c "$emb/startup.c" -o "$w/$t/startup.o" || return 1
  for r in "$@"; do
    # shellcheck disable=SC2086
    arm-none-eabi-gcc $cflags $STRICT -I"$w" -DRUNNER_IO_BYTES="$io" -DRUNNER_REPEAT="$r" \
      -c "$emb/runner.c" -o "$w/$t/runner$r.o" &&
    arm-none-eabi-gcc $flags --specs=rdimon.specs -nostartfiles -L"$emb" -T $ld -Wl,--gc-sections \
      "$w/$t/startup.o" "$w/$t/runner$r.o" "$w/$t/net.o" -lm -o "$w/$t/r$r.elf" || return 1
  done
}

# run ELF on target T in data set folder DIR [counting instructions into DIR/count.txt]
run_on() {
  local t=$1 elf=$2 dir=$3 count=${4:-} qemu plugin=()
  IFS='|' read -r _ _ qemu <<<"${TARGET[$t]}"
  [ -n "$count" ] && plugin=(-plugin "$build/insn-count/insn_count.so,outfile=$dir/count.txt$([ -n "${INSN_PROFILE:-}" ] && echo ,blocks=on)")
  # shellcheck disable=SC2086
  (cd "$dir" && timeout 120 qemu-system-arm $qemu -display none -monitor none -serial none \
     -semihosting-config enable=on,target=native -kernel "$elf" "${plugin[@]}") >"$dir/qemu.log" 2>&1
}

for c in "${cases[@]}"; do
  IFS='|' read -r name model opts src cores <<<"$c"
  selected "$name" || continue
  w=$out/$name
  rm -rf "$w" && mkdir -p "$w"
  casedir=$(dirname "$model")
  if [ "${opts%% *}" = bounds ]; then   # "bounds [MORE OPTIONS]"
    more=${opts#bounds}
    opts=$("$host" bounds "$model" "$casedir" 2>"$w/log") || { fail "bounds: $(head -1 "$w/log")"; continue; }
    opts="$opts$more"
  fi
  # shellcheck disable=SC2086
  if ! "$onnx2c" "$model" -o "$w/net.c" --name net $opts 2>"$w/log"; then
    fail "onnx2c: $(head -1 "$w/log")"; continue
  fi
  sets=()
  if [ "$src" = pattern ]; then sets=(pattern); else
    for s in "$casedir"/test_data_set_*; do sets+=("$s"); done
  fi
  io=0 ok=1 k=0
  for s in "${sets[@]}"; do
    mkdir -p "$w/set$k"
    # shellcheck disable=SC2086
    b=$("$host" prep $opts "$model" "$s" "$w/set$k" 2>"$w/log") || { ok=0; break; }
    [ "$b" -gt "$io" ] && io=$b
    k=$((k + 1))
  done
  [ $ok = 1 ] || { fail "prep: $(head -1 "$w/log")"; continue; }
  base=$name
  for t in ${cores:-m4}; do
    name=$base; [ "$t" = m4 ] || name="$base ($t)"
    if ! build_for "$w" $t "$io" 1 >"$w/log" 2>&1; then
      fail "arm-none-eabi-gcc: $(grep -m1 -E 'error|warning' "$w/log" || head -1 "$w/log")"; continue
    fi
    read -r text data bss _ < <(arm-none-eabi-size "$w/$t/r1.elf" | tail -1)
    model_text=$(arm-none-eabi-size "$w/$t/net.o" | tail -1 | awk '{print $1}')
    k=0 msg=
    for s in "${sets[@]}"; do
      run_on $t "$w/$t/r1.elf" "$w/set$k"
      rc=$?
      if [ $rc -ne 0 ]; then msg="set $k: qemu exit $rc: $(tail -1 "$w/set$k/qemu.log")"; break; fi
      # shellcheck disable=SC2086
      r=$("$host" check $opts "$model" "$s" "$w/set$k" 2>&1) || { msg="set $k: compare: $r"; break; }
      k=$((k + 1))
    done
    if [ -n "$msg" ]; then fail "$msg"; continue; fi
    ws=$(sed -n 's/.*workspace \([0-9]*\) of \([0-9]*\) bytes.*/\2/p' "$w/set0/qemu.log")
    printf 'PASS %-40s sets %d  elf text %7d data %5d bss %7d  (model .o text %7d, arena %s, io %d)  %s\n' \
      "$name" "${#sets[@]}" "$text" "$data" "$bss" "$model_text" "${ws:-?}" "$io" "$opts"
    passed=$((passed + 1))
  done
done

# ---- the MLPerf Tiny-style models and the int8 models on M4 and M55, with figures
run_tiny=0 run_quant=0
for n in "${tiny[@]}"; do selected "$n" && run_tiny=1; done
for n in "${quant[@]}"; do selected "$n" && run_quant=1; done
[ $run_tiny = 1 ] || [ $run_quant = 1 ] || { echo "$passed passed, $failed failed"; [ $failed -eq 0 ]; exit; }

name=insn-count
if ! tools/insn-count/build.sh "$build/insn-count" >"$out/insn-count.log" 2>&1; then
  fail "$(tail -1 "$out/insn-count.log")"; echo "$passed passed, $failed failed"; exit 1
fi
if [ $run_tiny = 1 ]; then
  name=liveness_bound
  /usr/bin/python3 tools/liveness_bound.py --self-test >"$out/liveness.log" 2>&1 ||
    fail "$(tail -1 "$out/liveness.log")"
fi

# measure NAME "OPTIONS" "CHECK OPTIONS" FIGURES: tests/models/NAME converted with OPTIONS, both
# data sets run on the M4 and the M55 and compared (onnx2c-emb check CHECK OPTIONS); appends
# "NAME core arena text+rodata instructions text rodata io" per core to FIGURES
measure() {
  name=$1
  local opts=$2 copts=$3 figures=$4 model=tests/models/$1/model.onnx w=$out/$1
  local arena io=0 ok=1 k b t text rodata msg counts run rep cnt rc r
  rm -rf "$w" && mkdir -p "$w"
  # shellcheck disable=SC2086
  if ! "$onnx2c" "$model" -o "$w/net.c" --name net $opts 2>"$w/log"; then
    fail "onnx2c: $(head -1 "$w/log")"; return
  fi
  arena=$(sed -n 's/^#define NET_WORKSPACE_MAX \([0-9]*\)u.*/\1/p' "$w/net.h")
  for k in 0 1; do
    mkdir -p "$w/set$k"
    b=$("$host" prep "$model" "tests/models/$name/test_data_set_$k" "$w/set$k" 2>"$w/log") || { ok=0; break; }
    [ "$b" -gt "$io" ] && io=$b
  done
  [ $ok = 1 ] || { fail "prep: $(head -1 "$w/log")"; return; }
  for t in m4 m55; do
    if ! build_for "$w" $t "$io" 1 2 >"$w/log" 2>&1; then
      fail "$t: arm-none-eabi-gcc: $(grep -m1 -E 'error|warning' "$w/log" || head -1 "$w/log")"; continue
    fi
    # text and rodata of the model's object (the generated C alone)
    read -r text rodata < <(arm-none-eabi-size -A "$w/$t/net.o" |
      awk '$1 ~ /^\.text/ {t += $2} $1 ~ /^\.rodata/ {r += $2} END {print t + 0, r + 0}')
    msg="" counts=()
    for run in "1 0 count" "2 0 count" "1 1"; do
      read -r rep k cnt <<<"$run"
      rm -f "$w/set$k/count.txt" "$w/set$k"/out_*.raw
      run_on $t "$w/$t/r$rep.elf" "$w/set$k" "$cnt"
      rc=$?
      if [ $rc -ne 0 ]; then msg="$t set $k: qemu exit $rc: $(tail -1 "$w/set$k/qemu.log")"; break; fi
      # shellcheck disable=SC2086
      r=$("$host" check $copts "$model" "tests/models/$name/test_data_set_$k" "$w/set$k" 2>&1) ||
        { msg="$t set $k (repeat $rep): compare: $r"; break; }
      [ -n "$cnt" ] && counts+=("$(awk '$1 == "insns" {print $2}' "$w/set$k/count.txt")")
    done
    if [ -n "$msg" ]; then fail "$msg"; continue; fi
    if [ -n "${INSN_PROFILE:-}" ]; then   # the functions of the twice-run ELF, by instructions
      echo "$name $t: instructions per function (2 inferences + start-up)"
      tools/insn-count/profile.sh "$w/$t/r2.elf" "$w/set0/count.txt" "$INSN_PROFILE"
    fi
    echo "$name $t $arena $((text + rodata)) $((counts[1] - counts[0])) $text $rodata $io" >>"$figures"
    passed=$((passed + 1))
  done
}

figures=$out/tiny-figures.txt
[ $run_tiny = 1 ] && : >"$figures"
for n in "${tiny[@]}"; do
  selected "$n" && measure "$n" "$TINY_OPTS" "" "$figures"
done
# the int8 models (tests/models/make_quant.py) with --memory-first, outputs bit for bit (their
# dequantized outputs are float32 products of integers: one quantization step is far above the
# contract's tolerance anyway)
qfigures=$out/quant-figures.txt
[ $run_quant = 1 ] && : >"$qfigures"
for n in "${quant[@]}"; do
  selected "$n" && measure "$n" "$QUANT_OPTS" "--exact" "$qfigures"
done

# the table: this run's figures beside the records; a figure more than 2% over its record fails
rec_opts=$(sed -n 's/^# options: //p' "$budget" 2>/dev/null)
check=1
[ "$TINY_OPTS" = "$rec_opts" ] && [ "$QUANT_OPTS" = "$rec_opts" ] || check=0
all=$out/all-figures.txt
cat $([ $run_tiny = 1 ] && echo "$figures") $([ $run_quant = 1 ] && echo "$qfigures") >"$all"
echo
echo "onnx2c $TINY_OPTS: this run (record in $budget$([ $check = 1 ] || echo ", made with '$rec_opts': not checked"))"
printf '%-14s %-4s %19s %21s %25s\n' model core "arena" "text+rodata" "instructions/inference"
while read -r m t a f n _; do
  read -r ra rf rn < <(awk -v m="$m" -v t="$t" '$1 == m && $2 == t {print $3, $4, $5}' "$budget" 2>/dev/null)
  printf '%-14s %-4s %9d (%7s) %10d (%8s) %12d (%10s)\n' "$m" "$t" "$a" "${ra:--}" "$f" "${rf:--}" "$n" "${rn:--}"
  if [ $check = 0 ] || [ $record = 1 ]; then continue; fi
  name="$m $t"
  if [ -z "$ra" ]; then fail "no record in $budget (tools/embedded.sh --record)"; continue; fi
  for pair in "arena $a $ra" "text+rodata $f $rf" "instructions $n $rn"; do
    read -r what now was <<<"$pair"
    [ $((now * 100)) -le $((was * 102)) ] || fail "$what $now is more than 2% over the record $was"
  done
done <"$all"

if [ $record = 1 ]; then
  # the records of models not run this time stay, unless they were made with other options
  keep=$budget
  [ "$TINY_OPTS" = "$rec_opts" ] || keep=/dev/null
  {
    echo "# The figures of the MLPerf Tiny-style models (tests/models/tiny_*) and of the int8 models"
    echo "# (tests/models/q_*) that tools/embedded.sh checks: per model and core, the arena"
    echo "# (NET_WORKSPACE_MAX, bytes), text + rodata of the model's object (bytes, arm-none-eabi-gcc"
    echo "# 12 -O2) and the executed instructions of one inference on QEMU. A run fails when a"
    echo "# figure is more than 2% over its record; record improvements with"
    echo "# tools/embedded.sh --record [BUILD_DIR] [MODEL...]."
    echo "# options: $TINY_OPTS"
    echo "# model core arena text+rodata instructions"
    { awk 'NR == FNR {run[$1 " " $2] = 1; next} /^#/ {next} NF && !(($1 " " $2) in run)' "$all" "$keep"
      awk '{print $1, $2, $3, $4, $5}' "$all"; } | sort -k1,1 -k2,2
  } >"$out/budget.new" && mv "$out/budget.new" "$budget"
  echo "recorded in $budget"
fi
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
