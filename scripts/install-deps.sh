#!/usr/bin/env bash
# Installs what gradops needs to build and test, from Debian's packages:
# a C++17 compiler, CMake, Highway (SIMD), OpenMP, GoogleTest, oneDNN (the
# benchmark's peer; Debian's CMake package of it requires OpenCL's files,
# which apt only recommends) and clang (the fuzz target). Needs root (or sudo).
set -euo pipefail
packages=(build-essential cmake pkg-config libhwy-dev libgtest-dev libgomp1 libdnnl-dev ocl-icd-opencl-dev clang python3)
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all packages present"
  exit 0
fi
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
