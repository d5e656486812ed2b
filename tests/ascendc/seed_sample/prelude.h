// Compiled ahead of the seed's kernel code: the CopyTiling every AscendC
// sample defines for itself (a uint32-by-uint32 copy of the tiling struct
// from GM), which the seed's excerpt uses without showing.
#pragma once

#include "kernel_operator.h"

template <typename Tiling>
__aicore__ inline void CopyTiling(Tiling* tiling, GM_ADDR tilingGm) {
  uint32_t* dst = reinterpret_cast<uint32_t*>(tiling);
  auto src = reinterpret_cast<__gm__ uint32_t*>(tilingGm);
  for (size_t i = 0; i < sizeof(Tiling) / sizeof(uint32_t); ++i) dst[i] = src[i];
}
