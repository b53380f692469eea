#!/usr/bin/env bash
# run.sh — the benchmark in one command: onnx2c's generated C (gcc -O3 -march=native) against
# PyTorch CPU and ONNX Runtime on the same machine in the same run.  See bench/README.md.
#
#   bash bench/run.sh [--quick] [--threads "1 2"] [--models "resnet18 gemm ..."] [--no-build]
#                     [--rounds R] [--runs K] [--docs | --no-docs] [--build-dir DIR]
#                     [--quant-act uint8|int8]
#
# 1. builds onnx2c (cmake Release in build/) unless --no-build; a failed build with an existing
#    build/onnx2c goes on with that binary (other work in the tree may be half done);
# 2. installs ONNX Runtime (npm's onnxruntime-node 1.30.0, into BUILD/node_modules) when missing;
#    exports the models (bench/make_models.py, skipped when up to date) into build/bench/NAME/;
#    the int8 models named in --models (q_resnet18 q_mobilenet_v2) by bench/make_quant_models.py,
#    which needs onnxruntime-node;
# 3. bench/run.py: converts, compiles, times in alternating rounds, prints the table, writes
#    build/bench/benchmarks.md and, for a full run, docs/benchmarks.md.
# --build-dir DIR: build onnx2c in DIR and keep the models in DIR/bench (default build).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=/usr/bin/python3

build=1
bdir=build
qact=uint8
models=""
pass=()
orig=("$@")
while [ $# -gt 0 ]; do
  case "$1" in
    --no-build) build=0 ;;
    --models) models="$2"; pass+=("$1" "$2"); shift ;;
    --build-dir) bdir="$2"; pass+=("$1" "$2"); shift ;;
    --quant-act) qact="$2"; shift ;;
    --threads|--rounds|--runs|--warmup|--out) pass+=("$1" "$2"); shift ;;
    --quick|--docs|--no-docs) pass+=("$1") ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    *) echo "bench/run.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done

# PyTorch's side needs a real BLAS: Debian's torch calls libblas.so.3, which is the slow reference
# BLAS unless OpenBLAS is installed (its package switches the alternative).
need=()
for p in python3-torch python3-torchvision python3-onnx python3-numpy libopenblas0-pthread cmake gcc; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
  echo "== installing ${need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq && apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

if [ "$build" = 1 ]; then
  echo "== build onnx2c"
  if ! { cmake -S . -B "$bdir" -DCMAKE_BUILD_TYPE=Release >/dev/null &&
         cmake --build "$bdir" -j2 >"$bdir/bench-build.log" 2>&1; }; then
    if [ -x "$bdir/onnx2c" ]; then
      echo "bench: warning: the build failed (see $bdir/bench-build.log); using the existing $bdir/onnx2c" >&2
    else
      echo "bench: the build failed and there is no $bdir/onnx2c (see $bdir/bench-build.log)" >&2
      exit 1
    fi
  fi
fi
[ -x "$bdir/onnx2c" ] || { echo "bench: no $bdir/onnx2c (run without --no-build)" >&2; exit 1; }

# ONNX Runtime from npm (its post-install step fetches GPU files and fails: --ignore-scripts).
# Without node and npm the float table's ORT columns read n/a; the int8 models need it.
if [ ! -d "$bdir/node_modules/onnxruntime-node" ]; then
  if command -v npm >/dev/null && command -v node >/dev/null; then
    echo "== npm install onnxruntime-node@1.30.0 into $bdir"
    (cd "$bdir" && npm install --ignore-scripts --no-save onnxruntime-node@1.30.0 >/dev/null) ||
      echo "bench: warning: npm install onnxruntime-node failed; the ORT columns will read n/a" >&2
  else
    echo "bench: warning: no node/npm (Debian: nodejs npm); the ORT columns will read n/a" >&2
  fi
fi

echo "== models"
# Model names for make_models.py: every requested one but gemm and the int8 models (q_*).
default="resnet18 mobilenet_v2 segnet correlation transformer squeezenet mobilenet_v3 lraspp facedet"
all=$(echo "${models:-$default}" | tr ',' ' ' | tr ' ' '\n' | grep -v '^$' || true)
mm=$(echo "$all" | grep -vx gemm | grep -v '^q_' | tr '\n' ' ' || true)
qm=$(echo "$all" | grep '^q_' | tr '\n' ' ' || true)
if [ -n "$mm" ]; then
  # shellcheck disable=SC2086
  "$PY" bench/make_models.py --out "$bdir/bench" $mm 2> >(grep -v -e Warning -e '_C._jit_pass' >&2)
fi
if [ -n "$qm" ]; then
  [ -d "$bdir/node_modules/onnxruntime-node" ] ||
    { echo "bench: the int8 models need onnxruntime-node (node and npm)" >&2; exit 1; }
  # shellcheck disable=SC2086
  "$PY" bench/make_quant_models.py --out "$bdir/bench" --act "$qact" $qm \
    2> >(grep -v -e Warning -e '_C._jit_pass' >&2)
fi

echo "== bench"
exec "$PY" bench/run.py "${pass[@]}" "--argv=${orig[*]:-}"
