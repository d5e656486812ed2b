#!/usr/bin/env bash
# The main job on a fresh machine: installs the dependencies, builds gradops,
# checks every operator against the float64 reference and prints a short
# benchmark table.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j2
./build/gradops check
./build/gradops bench --quick
