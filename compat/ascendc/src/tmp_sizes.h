// The documented temporary-space sizes of LayerNormGrad and
// LayerNormGradBeta, in bytes: what GetLayerNormGrad(Beta)MaxMinTmpSize
// report and what the kernel functions require at least.
#pragma once

#include <cstdint>

namespace gradops {
namespace ascendc {

struct TmpBytes {
  uint32_t max = 0, min = 0;
};

// Buffers of LayerNormGrad's working set: 9 for half, 6 for float, 4 for
// float with isReuseSource.
uint32_t LayerNormGradBufferCount(uint32_t type_size, bool reuse_source);

// bufferCount * max/min(B*S*H, H*H) * typeSize.
TmpBytes LayerNormGradTmpBytes(uint64_t b, uint64_t s, uint64_t h, uint32_t type_size, bool reuse_source);

// (4 for half, 2 for float) float32 buffers of B*S*H (max) or H (min).
TmpBytes LayerNormGradBetaTmpBytes(uint64_t b, uint64_t s, uint64_t h, uint32_t type_size);

}  // namespace ascendc
}  // namespace gradops
