#!/usr/bin/env bash
# Installs a built tree into a temporary prefix and builds and runs a program
# that finds it with find_package(gradops).
#   install_test.sh BUILD_DIR SOURCE_DIR [SANITIZERS]
# SANITIZERS: those the tree was built with; the program is built with them too.
set -euo pipefail
build=$1
source=$2
flags=()
if [ -n "${3:-}" ]; then
  flags=(-DCMAKE_CXX_FLAGS="-fsanitize=$3" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=$3")
fi
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
test -f "$prefix/include/gradops/gradops.h"
ls "$prefix"/lib*/libgradops.so >/dev/null
test -x "$prefix/bin/gradops"
cmake -S "$source/tests/install_consumer" -B "$prefix/consumer" -DCMAKE_PREFIX_PATH="$prefix" "${flags[@]}" >/dev/null
cmake --build "$prefix/consumer" >/dev/null
libdir=$(ls -d "$prefix"/lib*/ | head -1)
LD_LIBRARY_PATH="$libdir" "$prefix/consumer/consumer"

# A program written for CANN builds against the installed headers and links
# with CANN's library names.
for name in ascendcl nnopbase opapi atb; do test -e "$libdir/lib$name.so"; done
sanitize=()
[ -n "${3:-}" ] && sanitize=("-fsanitize=$3")
c++ -std=c++11 "${sanitize[@]}" "$source/examples/aclnn/layer_norm_backward.cpp" -I"$prefix/include" \
  -I"$source/examples/aclnn" -L"$libdir" -lascendcl -lnnopbase -lopapi -o "$prefix/aclnn_sample"
LD_LIBRARY_PATH="$libdir" "$prefix/aclnn_sample" > "$prefix/aclnn_sample.out"
echo "CANN-style program: built and ran against the installed tree"
