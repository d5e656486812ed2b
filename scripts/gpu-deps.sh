#!/usr/bin/env bash
# Bundles the build dependencies that a GPU machine's image lacks (Highway,
# GoogleTest, pkg-config) from this Debian machine into build-gpu-deps/, a
# prefix that scripts/gpu-check uses when it is present. Carry the folder
# to the GPU machine with the working tree (about 6 MB).
set -euo pipefail
cd "$(dirname "$0")/.."
out=build-gpu-deps
multiarch=lib/x86_64-linux-gnu
rm -rf "$out"
mkdir -p "$out/include" "$out/$multiarch/pkgconfig" "$out/$multiarch/cmake" "$out/bin"
cp -r /usr/include/hwy /usr/include/gtest "$out/include/"
[ -d /usr/include/gmock ] && cp -r /usr/include/gmock "$out/include/"
cp -a /usr/$multiarch/libhwy*.so* /usr/$multiarch/libgtest*.a "$out/$multiarch/"
cp -a /usr/$multiarch/libgmock*.a "$out/$multiarch/" 2>/dev/null || true
cp -r /usr/$multiarch/cmake/GTest "$out/$multiarch/cmake/"
for pc in libhwy libhwy-contrib; do
  sed 's|^prefix=.*|prefix=${pcfiledir}/../../..|' "/usr/$multiarch/pkgconfig/$pc.pc" > "$out/$multiarch/pkgconfig/$pc.pc"
done
cp "$(readlink -f "$(command -v pkg-config)")" "$out/bin/pkg-config"
cp -a /usr/$multiarch/libpkgconf.so* /lib/$multiarch/libpkgconf.so* "$out/$multiarch/" 2>/dev/null || true
du -sh "$out"
