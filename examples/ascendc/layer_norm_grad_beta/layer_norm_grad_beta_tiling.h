// Host side of the LayerNormGradBeta example's tiling. The kernel declares
// its own plain struct with the same fields (BetaKernelTiling) and copies it
// from GM with CopyTiling, as the AscendC samples do.
#pragma once

#include <cstdint>

#include "tiling/tiling_api.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(LayerNormGradBetaExampleTiling)
  TILING_DATA_FIELD_DEF(uint32_t, rowsPerBlock);
  TILING_DATA_FIELD_DEF(uint32_t, tmpBytes);     // sharedTmpBuffer size; 0: the API takes free UB
  TILING_DATA_FIELD_DEF(uint32_t, reuseSource);  // float only
  TILING_DATA_FIELD_DEF_STRUCT(LayerNormGradBetaTiling, layerNormGradBetaTiling);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(LayerNormGradBetaExample, LayerNormGradBetaExampleTiling)
}  // namespace optiling

namespace layer_norm_grad_beta_example {

struct Problem {
  uint32_t rows = 0;       // B * S, divisible by blockDim
  uint32_t h = 0;          // 32-byte aligned row length
  uint32_t typeSize = 4;   // 2: half, 4: float
  uint32_t blockDim = 1;
  bool sharedTmp = false;  // pass a sharedTmpBuffer of the minimum size
  bool reuseSource = false;
};

// Each block reduces its rows in one call: the tiling is for one block's share.
inline optiling::LayerNormGradBetaExampleTiling MakeTiling(const Problem& p) {
  optiling::LayerNormGradBetaExampleTiling tiling;
  const uint32_t rowsPerBlock = p.rows / p.blockDim;
  tiling.set_rowsPerBlock(rowsPerBlock);
  tiling.set_reuseSource(p.reuseSource ? 1 : 0);
  AscendC::TensorShape blockShape({1, rowsPerBlock, p.h, p.h});
  uint32_t maxTmp = 0, minTmp = 0;
  AscendC::GetLayerNormGradBetaMaxMinTmpSize(blockShape, p.typeSize, p.reuseSource, maxTmp, minTmp);
  tiling.set_tmpBytes(p.sharedTmp ? minTmp : 0);
  AscendC::GetLayerNormGradBetaNDTilingInfo(blockShape, minTmp, p.typeSize, p.reuseSource,
                                            tiling.layerNormGradBetaTiling);
  return tiling;
}

}  // namespace layer_norm_grad_beta_example
