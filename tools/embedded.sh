#!/usr/bin/env bash
# embedded.sh — runs generated models on a Cortex-M4 under QEMU (ctest target `embedded`).
#   tools/embedded.sh [BUILD_DIR] [CASE_NAME...]
# For each case: converts the model with the build's onnx2c (--fix, or --max for every dim, so
# that NET_WORKSPACE_MAX sizes a static arena), cross-compiles the generated C with the
# contract's flags plus -Werror, links it with embedded/runner.c and the start-up and linker
# script of embedded/, prints the ELF's size, runs it on qemu-system-arm (mps2-an386) once per
# data set — one ELF serves every set, the dims are read at run time — and compares the outputs
# written back through semihosting (build/onnx2c-emb, CONTRACT.md section 3's tolerance).
# Closes with "N passed, N failed".  Exits 77 (skipped) without arm-none-eabi-gcc or QEMU.
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
shift || true
for t in arm-none-eabi-gcc arm-none-eabi-size qemu-system-arm; do
  command -v $t >/dev/null || { echo "embedded.sh: $t not found: skipped (tools/deps.sh installs it)"; exit 77; }
done
onnx2c=$build/onnx2c host=$build/onnx2c-emb
[ -x "$onnx2c" ] && [ -x "$host" ] || { echo "embedded.sh: build $build first" >&2; exit 2; }
data=${ONNX_TESTDATA:-/usr/share/libonnx-testdata/data}
emb=$PWD/embedded
out=$build/embedded
mkdir -p "$out"

M4="-mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16"
STRICT="-std=c99 -Wall -Wextra -pedantic -Werror"
CFLAGS="$M4 -O2 -ffunction-sections -fdata-sections"

# name | model | onnx2c options ("bounds": --max from the largest data set) | data: pattern, or sets
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

passed=0 failed=0
fail() { echo "FAIL $name: $*"; failed=$((failed + 1)); }
for c in "${cases[@]}"; do
  IFS='|' read -r name model opts src <<<"$c"
  if [ $# -gt 0 ] && [[ " $* " != *" $name "* ]]; then continue; fi
  w=$out/$name
  rm -rf "$w" && mkdir -p "$w"
  casedir=$(dirname "$model")
  if [ "$opts" = bounds ]; then
    opts=$("$host" bounds "$model" "$casedir" 2>"$w/log") || { fail "bounds: $(head -1 "$w/log")"; continue; }
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
  # the generated C under the contract's flags; the runner is ISO C99 too
  if ! { arm-none-eabi-gcc $CFLAGS $STRICT -c "$w/net.c" -o "$w/net.o" &&
         arm-none-eabi-gcc $CFLAGS $STRICT -I"$w" -DRUNNER_IO_BYTES="$io" -c "$emb/runner.c" -o "$w/runner.o" &&
         arm-none-eabi-gcc $CFLAGS -std=c11 -Wall -Wextra -Werror -c "$emb/startup.c" -o "$w/startup.o" &&
         arm-none-eabi-gcc $M4 --specs=rdimon.specs -nostartfiles -L"$emb" -T mps2.ld -Wl,--gc-sections \
           "$w/startup.o" "$w/runner.o" "$w/net.o" -lm -o "$w/m4.elf"; } >"$w/log" 2>&1; then
    fail "arm-none-eabi-gcc: $(grep -m1 -E 'error|warning' "$w/log" || head -1 "$w/log")"; continue
  fi
  read -r text data bss _ < <(arm-none-eabi-size "$w/m4.elf" | tail -1)
  model_text=$(arm-none-eabi-size "$w/net.o" | tail -1 | awk '{print $1}')
  k=0 msg=
  for s in "${sets[@]}"; do
    (cd "$w/set$k" && timeout 60 qemu-system-arm -M mps2-an386 -cpu cortex-m4 -display none \
       -monitor none -serial none -semihosting-config enable=on,target=native -kernel ../m4.elf) \
       >"$w/set$k/qemu.log" 2>&1
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
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
