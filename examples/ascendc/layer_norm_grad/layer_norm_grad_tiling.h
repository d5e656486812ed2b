// Tiling of the LayerNormGrad example kernel, shared by the host program
// and the kernel. Rows are split evenly over the blocks; each block walks
// its rows in tiles of tileRows rows and calls AscendC::LayerNormGrad once
// per tile, with the tiling below computed for one tile.
#pragma once

#include <cstdint>

#include "tiling/tiling_api.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(LayerNormGradExampleTiling)
  TILING_DATA_FIELD_DEF(uint32_t, rowsPerBlock);
  TILING_DATA_FIELD_DEF(uint32_t, tileRows);
  TILING_DATA_FIELD_DEF(uint32_t, tmpBytes);     // sharedTmpBuffer size; 0: the API takes free UB
  TILING_DATA_FIELD_DEF(uint32_t, reuseSource);  // float only
  TILING_DATA_FIELD_DEF(float, epsilon);
  TILING_DATA_FIELD_DEF_STRUCT(LayerNormGradTiling, layerNormGradTiling);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(LayerNormGradExample, LayerNormGradExampleTiling)
}  // namespace optiling

namespace layer_norm_grad_example {

struct Problem {
  uint32_t rows = 0;        // B * S
  uint32_t h = 0;           // stored row length, 32-byte aligned
  uint32_t originH = 0;     // true row length
  uint32_t typeSize = 4;    // 2: half, 4: float
  uint32_t blockDim = 1;
  uint32_t tileRows = 16;   // a multiple of 16, dividing rows / blockDim
  bool sharedTmp = false;   // pass a sharedTmpBuffer of the minimum size
  bool reuseSource = false;
  float epsilon = 1e-5f;
};

// Fills the tiling of `p`.
inline optiling::LayerNormGradExampleTiling MakeTiling(const Problem& p) {
  optiling::LayerNormGradExampleTiling tiling;
  tiling.set_rowsPerBlock(p.rows / p.blockDim);
  tiling.set_tileRows(p.tileRows);
  tiling.set_reuseSource(p.reuseSource ? 1 : 0);
  tiling.set_epsilon(p.epsilon);
  AscendC::TensorShape tileShape({1, p.tileRows, p.h, p.originH});
  uint32_t maxTmp = 0, minTmp = 0;
  AscendC::GetLayerNormGradMaxMinTmpSize(tileShape, p.typeSize, p.reuseSource, maxTmp, minTmp);
  tiling.set_tmpBytes(p.sharedTmp ? minTmp : 0);
  AscendC::GetLayerNormGradNDTilingInfo(tileShape, minTmp, p.typeSize, p.reuseSource, tiling.layerNormGradTiling);
  return tiling;
}

}  // namespace layer_norm_grad_example
