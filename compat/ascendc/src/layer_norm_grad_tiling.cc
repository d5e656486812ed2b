// Host tiling of LayerNormGrad (tiling/tiling_api.h). The kernel function
// splits B*S*H into chunks of oneCalSize elements, whole rows, in a count of
// rows rounded up to one 32-byte block of rows (8 for float, 16 for half);
// each working buffer of the temporary space holds one chunk in float32.
#include <cstring>

#include "tiling/tiling_api.h"
#include "tiling_shape.h"
#include "tmp_sizes.h"

namespace AscendC {
namespace {

constexpr const char* kApi = "LayerNormGrad";

uint32_t FloatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof(u));
  return u;
}

// Working-buffer offsets, in elements, in the order they are laid out:
// tmpTensorBSH, pdVar, pdMean, then x1 and x2 unless float reuses the
// source, then x3, then for half three conversion buffers.
void SetBufferLayout(uint32_t one, uint32_t type_size, bool reuse_source, tiling::LayerNormGradTiling& t) {
  t.tmpTensorBSHPos = 0;
  t.pdVarTensorPos = one;
  t.pdMeanTensorPos = 2 * one;
  uint32_t next = 3 * one;
  t.x1TensorPos = t.x2TensorPos = 0;
  if (!(reuse_source && type_size == 4)) {
    t.x1TensorPos = next;
    t.x2TensorPos = next + one;
    next += 2 * one;
  }
  t.x3TensorPos = next;
  t.tmpTensorPos = t.tmpTensor1Pos = t.tmpTensor2Pos = 0;
  if (type_size == 2) {
    t.tmpTensorPos = next + one;
    t.tmpTensor1Pos = next + 2 * one;
    t.tmpTensor2Pos = next + 3 * one;
  }
  t.tmpTensorBSHSize = t.pdVarTensorSize = t.pdMeanTensorSize = one;
  t.x1TensorSize = t.x2TensorSize = t.x3TensorSize = one;
  t.tmpTensorSize = t.tmpTensor1Size = t.tmpTensor2Size = one;
}

}  // namespace

void GetLayerNormGradMaxMinTmpSize(const ge::Shape& srcShape, const uint32_t typeSize, const bool isReuseSource,
                                   uint32_t& maxValue, uint32_t& minValue) {
  gradops::ascendc::NormTilingShape s;
  if (!gradops::ascendc::ReadNormTilingShape(kApi, "GetLayerNormGradMaxMinTmpSize", srcShape, typeSize, &s)) return;
  const gradops::ascendc::TmpBytes bytes = gradops::ascendc::LayerNormGradTmpBytes(s.b, s.s, s.h, typeSize, isReuseSource);
  maxValue = bytes.max;
  minValue = bytes.min;
}

void GetLayerNormGradNDTilingInfo(const ge::Shape srcShape, const uint32_t stackBufferSize, const uint32_t typeSize,
                                  const bool isReuseSource, tiling::LayerNormGradTiling& tiling) {
  constexpr const char* kFunction = "GetLayerNormGradNDTilingInfo";
  gradops::ascendc::NormTilingShape s;
  if (!gradops::ascendc::ReadNormTilingShape(kApi, kFunction, srcShape, typeSize, &s)) return;
  const uint32_t buffers = gradops::ascendc::LayerNormGradBufferCount(typeSize, isReuseSource);
  uint32_t one = stackBufferSize / sizeof(float) / buffers / s.h * s.h;
  if (one == 0) {
    gradops::ascendc::HostError(kApi, kFunction, "stackBufferSize %u is not enough for one row of %u elements",
                                stackBufferSize, s.h);
    return;
  }
  const uint32_t rows_per_block = typeSize == 4 ? 8 : 16;
  const uint32_t rows = (one / s.h + rows_per_block - 1) / rows_per_block * rows_per_block;
  one = rows * s.h;

  tiling::LayerNormGradTiling t;
  SetBufferLayout(one, typeSize, isReuseSource, t);
  const uint32_t total = s.b * s.s * s.h;
  t.stackBufferSize = stackBufferSize;
  t.bLength = s.b;
  t.sLength = s.s;
  t.hLength = s.h;
  t.originalHLength = s.original_h;
  t.oneCalSize = one;
  t.nohCalSize = rows;
  t.loopNum = total / one;
  t.tailSize = total % one;
  t.nohTailSize = t.tailSize / s.h;
  t.lastDimValueBack = FloatBits(1.0f / static_cast<float>(s.original_h));
  t.lastDimValueBackMulTwo = FloatBits(2.0f / static_cast<float>(s.original_h));
  tiling = t;
}

void GetLayerNormGradNDTilingInfo(const ge::Shape srcShape, const uint32_t stackBufferSize, const uint32_t typeSize,
                                  const bool isReuseSource, optiling::LayerNormGradTiling& tiling) {
  GetLayerNormGradNDTilingInfo(srcShape, stackBufferSize, typeSize, isReuseSource,
                               static_cast<tiling::LayerNormGradTiling&>(tiling));
}

}  // namespace AscendC
