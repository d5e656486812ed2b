#!/usr/bin/env bash
# Builds the CANN front-end fuzz target with clang (ASan, UBSan, libFuzzer) in
# its own build directory and runs it for a bounded time.
#
#   scripts/fuzz-cann.sh [SECONDS] [BUILD_DIR]     (defaults: 60, build-fuzz-cann)
#
# Exits non-zero when the build fails or the fuzzer finds a crash; the
# reproducer is left in BUILD_DIR/artifacts/.
set -euo pipefail

seconds="${1:-60}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${2:-${root}/build-fuzz-cann}"
cc="${CC:-$(command -v clang-14 || command -v clang)}"
cxx="${CXX:-$(command -v clang++-14 || command -v clang++)}"
jobs="${JOBS:-2}"

cmake -S "${root}/tests/cann/fuzz" -B "${build}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER="${cc}" -DCMAKE_CXX_COMPILER="${cxx}" -DGRADOPS_CUDA=OFF >/dev/null
cmake --build "${build}" --target cann_fuzz -j "${jobs}"

mkdir -p "${build}/corpus" "${build}/artifacts"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-1}"
"${build}/cann_fuzz" -max_total_time="${seconds}" -max_len=512 -timeout=10 \
  -artifact_prefix="${build}/artifacts/" "${build}/corpus"
