#!/usr/bin/env bash
# Installs a built tree into a temporary prefix and builds and runs a program
# that finds it with find_package(gradops).
#   install_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1
source=$2
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
test -f "$prefix/include/gradops/gradops.h"
ls "$prefix"/lib*/libgradops.so >/dev/null
test -x "$prefix/bin/gradops"
cmake -S "$source/tests/install_consumer" -B "$prefix/consumer" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$prefix/consumer" >/dev/null
LD_LIBRARY_PATH="$(ls -d "$prefix"/lib*/ | head -1)" "$prefix/consumer/consumer"
