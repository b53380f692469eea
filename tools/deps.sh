#!/usr/bin/env bash
# deps.sh — installs the Debian packages onnx2c needs that are missing (Debian 12, as root).
#   tools/deps.sh           build + test dependencies
set -euo pipefail
#   (gcc-arm-none-eabi, libnewlib-arm-none-eabi, qemu-system-arm: the embedded tests, ~110 MB
#    of packages, ~30 s to install; clang: the second compiler of contract_compile;
#    gcc-aarch64-linux-gnu, libc6-dev-arm64-cross, qemu-user: the 64-bit Arm tests)
pkgs=(cmake make gcc pkg-config protobuf-c-compiler libprotobuf-c-dev libtcc-dev tcc
      libcriterion-dev libonnx-testdata clang
      gcc-arm-none-eabi libnewlib-arm-none-eabi qemu-system-arm
      gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "deps.sh: installing ${missing[*]}"
  if [ "$(id -u)" -ne 0 ]; then
    echo "deps.sh: error: run as root (or install: ${missing[*]})" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
