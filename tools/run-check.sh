#!/usr/bin/env bash
# run-check.sh — onnx2c-run on every model of tests/models (ctest target `run_models`):
#   1. with each test_data_set_K (its inputs, --compare its outputs): must pass;
#   2. with random inputs at the dims set 0 has (--dim, printed by run 1), its outputs written
#      (--output-dir): must run;
#   3. set 0's inputs given one by one (--input K=FILE.pb), compared with the .npy outputs run 1
#      wrote (--output-dir, then --compare of that folder): must pass;
#   4. with --weights (the weights in a blob, run through NAME_run_w), set 0's inputs compared
#      with the .npy outputs of run 1 (the inline build): must pass;
# then on the .npy files NumPy wrote (tests/data/run/<model>/NAME.npy): inputs by name
# (--input NAME=FILE.npy) and from the folder, compared with its .npy references; on the cases
# of random ops (tests/data/random/cases: outputs made of draws, checked for what their ops
# guarantee, runtime/draws.c); and the exit status of a failed comparison (1) and of missing
# dims (2).
#   tools/run-check.sh [BUILD_DIR]
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
run=${ONNX2C_RUN:-$build/onnx2c-run}
tmp=$build/run-check
rm -rf "$tmp"
mkdir -p "$tmp"
fails=0 models=0
bad() { echo "FAIL $*"; fails=$((fails + 1)); }

for dir in tests/models/*/; do
  dir=${dir%/}
  [ -f "$dir/model.onnx" ] || continue
  name=$(basename "$dir")
  models=$((models + 1))
  for set in "$dir"/test_data_set_*; do
    args=()
    [ "${set##*_}" = 0 ] && args=(--output-dir "$tmp/$name")
    "$run" "$dir/model.onnx" --compare "$set" "${args[@]}" > "$tmp/$name.log" 2>&1 ||
      { bad "$name: --compare $(basename "$set")"; tail -3 "$tmp/$name.log"; }
    [ "${set##*_}" = 0 ] && cp "$tmp/$name.log" "$tmp/$name.set0.log"
  done
  dims=()
  for d in $(sed -n 's/^dims: //p' "$tmp/$name.set0.log"); do dims+=(--dim "$d"); done
  "$run" "$dir/model.onnx" "${dims[@]}" --seed 7 --output-dir "$tmp/$name.random" > "$tmp/$name.log" 2>&1 ||
    { bad "$name: random inputs ${dims[*]}"; tail -3 "$tmp/$name.log"; }
  inputs=()
  for f in "$dir"/test_data_set_0/input_*.pb; do
    k=${f##*input_}
    inputs+=(--input "${k%.pb}=$f")
  done
  "$run" "$dir/model.onnx" "${inputs[@]}" --compare "$tmp/$name" > "$tmp/$name.log" 2>&1 ||
    { bad "$name: --input .pb, --compare the .npy it wrote"; tail -3 "$tmp/$name.log"; }
  "$run" "$dir/model.onnx" --weights "${inputs[@]}" --compare "$tmp/$name" > "$tmp/$name.w.log" 2>&1 &&
    grep -q "; weights: a blob of" "$tmp/$name.w.log" ||
    { bad "$name: --weights, --compare the inline build's .npy"; tail -3 "$tmp/$name.w.log"; }
done

for dir in tests/data/run/*/; do
  dir=${dir%/}
  name=$(basename "$dir")
  [ -f "tests/models/$name/model.onnx" ] || continue
  "$run" "tests/models/$name/model.onnx" --compare "$dir" > "$tmp/$name.npy.log" 2>&1 ||
    { bad "$name: NumPy's .npy (inputs from the folder)"; tail -3 "$tmp/$name.npy.log"; }
  inputs=()
  for input in $(sed -n "s/^input  [0-9]* '\([^']*\)'.*/\1/p" "$tmp/$name.npy.log"); do
    inputs+=(--input "$input=$dir/$input.npy")
  done
  "$run" "tests/models/$name/model.onnx" "${inputs[@]}" --compare "$dir" > "$tmp/$name.npy.log" 2>&1 ||
    { bad "$name: NumPy's .npy (--input NAME=FILE)"; tail -3 "$tmp/$name.npy.log"; }
done

# outputs made of random draws: no reference holds their values; each data set must pass by
# what the ops guarantee, and a reference of another type still fails
randoms=0
for dir in tests/data/random/cases/*/; do
  dir=${dir%/}
  name=random_$(basename "$dir")
  for set in "$dir"/test_data_set_*; do
    randoms=$((randoms + 1))
    "$run" "$dir/model.onnx" --compare "$set" > "$tmp/$name.log" 2>&1 ||
      { bad "$name: --compare $(basename "$set")"; tail -3 "$tmp/$name.log"; }
  done
done
mkdir -p "$tmp/random_wrong"
cp tests/data/random/cases/bernoulli_sym/test_data_set_0/input_0.pb "$tmp/random_wrong/"
cp tests/data/random/wrong/bernoulli_type.pb "$tmp/random_wrong/output_0.pb"
"$run" tests/data/random/cases/bernoulli_sym/model.onnx --compare "$tmp/random_wrong" \
  > "$tmp/random_wrong.log" 2>&1
[ $? = 1 ] && grep -q "FAIL compare: output 0: type float, want double" "$tmp/random_wrong.log" ||
  bad "a random output's reference of another type does not exit 1"

# other values than the reference's fail (1): random inputs (the folder has only outputs) at
# set 0's dims; a wrong shape fails too; no dims is bad usage (2)
"$run" tests/models/segnet_dynamic/model.onnx --dim N=1 --dim H=32 --dim W=32 \
  --compare "$tmp/segnet_dynamic" > "$tmp/wrong.log" 2>&1
[ $? = 1 ] && grep -q "FAIL compare: output 0: element" "$tmp/wrong.log" ||
  bad "other values than the reference's do not exit 1"
"$run" tests/models/segnet_dynamic/model.onnx --dim N=1 --dim H=32 --dim W=40 \
  --compare "$tmp/segnet_dynamic" > "$tmp/wrong.log" 2>&1
[ $? = 1 ] && grep -q "FAIL shape: output 0 is \[1,4,32,40\], want \[1,4,32,32\]" "$tmp/wrong.log" ||
  bad "another shape than the reference's does not exit 1"
"$run" tests/models/segnet_dynamic/model.onnx > "$tmp/nodims.log" 2>&1
[ $? = 2 ] && grep -q "missing dims" "$tmp/nodims.log" || bad "no dims does not exit 2 naming them"

echo "$models models, $randoms data sets of random ops, $fails failed"
[ "$fails" = 0 ]
