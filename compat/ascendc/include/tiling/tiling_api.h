// Host tiling API of the LayerNormGrad and LayerNormGradBeta high-level
// kernel functions. srcShape is {B, S, H, originH}: H is the stored
// (32-byte aligned, zero-padded) row length, originH the true one. typeSize
// is 2 (half) or 4 (float). Sizes are bytes, except where noted. On a bad
// argument the functions log to stderr and return, leaving outputs as they
// were.
#pragma once

#include <cstdint>

#include "graph/tensor.h"
#include "gradops_ascendc/optiling_norm_tiling.h"
#include "kernel_tiling/kernel_tiling.h"
#include "register/tilingdata_base.h"

namespace AscendC {

using TensorShape = ge::Shape;

// Temporary space of LayerNormGrad: with base sizes max/min(B*S*H, H*H)
// and 9 buffers (half), 6 (float) or 4 (float with isReuseSource), each of
// typeSize bytes per element.
void GetLayerNormGradMaxMinTmpSize(const ge::Shape& srcShape, const uint32_t typeSize, const bool isReuseSource,
                                   uint32_t& maxValue, uint32_t& minValue);
void GetLayerNormGradNDTilingInfo(const ge::Shape srcShape, const uint32_t stackBufferSize, const uint32_t typeSize,
                                  const bool isReuseSource, optiling::LayerNormGradTiling& tiling);
void GetLayerNormGradNDTilingInfo(const ge::Shape srcShape, const uint32_t stackBufferSize, const uint32_t typeSize,
                                  const bool isReuseSource, AscendC::tiling::LayerNormGradTiling& tiling);

// Temporary space of LayerNormGradBeta: 4 (half) or 2 (float) float32
// buffers of B*S*H (max) or H (min) elements.
void GetLayerNormGradBetaMaxMinTmpSize(const ge::Shape& srcShape, const uint32_t typeSize, const bool isReuseSource,
                                       uint32_t& maxValue, uint32_t& minValue);
void GetLayerNormGradBetaNDTilingInfo(const ge::Shape srcShape, const uint32_t stackBufferSize,
                                      const uint32_t typeSize, const bool isReuseSource,
                                      optiling::LayerNormGradBetaTiling& tiling);
void GetLayerNormGradBetaNDTilingInfo(const ge::Shape srcShape, const uint32_t stackBufferSize,
                                      const uint32_t typeSize, const bool isReuseSource,
                                      AscendC::tiling::LayerNormGradBetaTiling& tiling);

}  // namespace AscendC
