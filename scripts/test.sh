#!/usr/bin/env bash
# The whole test suite on a fresh machine: installs the dependencies, builds
# gradops with its tests and runs them under CTest.
#   scripts/test.sh              Release build in build/
#   scripts/test.sh --sanitize   AddressSanitizer + UndefinedBehaviorSanitizer build in build-sanitize/
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
build=build
flags=(-DCMAKE_BUILD_TYPE=Release)
if [ "${1:-}" = "--sanitize" ]; then
  build=build-sanitize
  flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DGRADOPS_SANITIZE=address,undefined -DGRADOPS_CUDA=OFF)
fi
cmake -S . -B "$build" "${flags[@]}"
cmake --build "$build" -j2
# OpenMP's runtime keeps thread pools alive at exit; they are not leaks.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
ctest --test-dir "$build" -j2 --output-on-failure
