// Host tiling of LayerNormGradBeta (tiling/tiling_api.h). stackBufferSize
// arrives in bytes and is kept in float32 elements. For half, two float32
// accumulators of H come first, then two conversion buffers share the rest;
// a chunk (oneCalSize) is whole rows, at most B*S*H.
#include <algorithm>

#include "tiling/tiling_api.h"
#include "tiling_shape.h"
#include "tmp_sizes.h"

namespace AscendC {
namespace {
constexpr const char* kApi = "LayerNormGradBeta";
}  // namespace

void GetLayerNormGradBetaMaxMinTmpSize(const ge::Shape& srcShape, const uint32_t typeSize, const bool isReuseSource,
                                       uint32_t& maxValue, uint32_t& minValue) {
  gradops::ascendc::NormTilingShape s;
  if (!gradops::ascendc::ReadNormTilingShape(kApi, "GetLayerNormGradBetaMaxMinTmpSize", srcShape, typeSize, &s)) {
    return;
  }
  const gradops::ascendc::TmpBytes bytes = gradops::ascendc::LayerNormGradBetaTmpBytes(s.b, s.s, s.h, typeSize);
  maxValue = bytes.max;
  minValue = bytes.min;
}

void GetLayerNormGradBetaNDTilingInfo(const ge::Shape srcShape, const uint32_t stackBufferSize,
                                      const uint32_t typeSize, const bool isReuseSource,
                                      tiling::LayerNormGradBetaTiling& tiling) {
  constexpr const char* kFunction = "GetLayerNormGradBetaNDTilingInfo";
  gradops::ascendc::NormTilingShape s;
  if (!gradops::ascendc::ReadNormTilingShape(kApi, kFunction, srcShape, typeSize, &s)) return;
  const uint32_t stack = stackBufferSize / sizeof(float);
  if (stack < 2 * s.h) {
    gradops::ascendc::HostError(kApi, kFunction, "stackBufferSize %u bytes is less than 2 * H float32 elements",
                                stackBufferSize);
    return;
  }
  tiling::LayerNormGradBetaTiling t;
  t.stackBufferSize = stack;
  t.numberOfTmpBuf = typeSize == 2 ? 2 : 1;
  uint32_t one = typeSize == 2 ? (stack - 2 * s.h) / 2 : stack;
  one = one / s.h * s.h;
  if (one == 0) {
    gradops::ascendc::HostError(kApi, kFunction, "stackBufferSize %u is not enough for one row", stackBufferSize);
    return;
  }
  t.bLength = s.b;
  t.sLength = s.s;
  t.hLength = s.h;
  t.originalHLength = s.original_h;
  t.bshLength = s.b * s.s * s.h;
  t.bsLength = s.b * s.s;
  one = std::min(one, t.bshLength);
  t.oneCalSize = one;
  t.loopRound = t.bshLength / one;
  t.inputTailSize = t.bshLength % one;
  t.inputTailPos = t.bshLength - t.inputTailSize;
  t.bsTailSize = t.inputTailSize / s.h;
  t.bshCurLength = one;
  t.bsCurLength = one / s.h;
  if (typeSize == 2) {
    t.gammaTempTensorPos = 0;
    t.betaTempTensorPos = s.h;
    t.inputDyTmpTensorPos = 2 * s.h;
    t.resForGammaTmpTensorPos = 2 * s.h + one;
  }
  tiling = t;
}

void GetLayerNormGradBetaNDTilingInfo(const ge::Shape srcShape, const uint32_t stackBufferSize,
                                      const uint32_t typeSize, const bool isReuseSource,
                                      optiling::LayerNormGradBetaTiling& tiling) {
  GetLayerNormGradBetaNDTilingInfo(srcShape, stackBufferSize, typeSize, isReuseSource,
                                   static_cast<tiling::LayerNormGradBetaTiling&>(tiling));
}

}  // namespace AscendC
