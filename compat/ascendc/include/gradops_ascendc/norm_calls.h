// The bridge from the high-level kernel functions (templates in
// layer_norm_grad.h and layer_norm_grad_beta.h) to the gradops core: one
// call description per function, checked and run by libgradops.
#pragma once

#include "gradops/tensor.h"
#include "gradops_ascendc/local_buffer.h"
#include "kernel_tiling/kernel_tiling.h"

namespace gradops {
namespace ascendc {

struct LayerNormGradCall {
  DType dtype = DType::kFloat32;
  bool reuse_source = false;
  BufferRef pd_x, res_for_gamma, dy, x, variance, mean, gamma;
  const BufferRef* tmp = nullptr;  // null: the UB left after the TPipe's buffers
  float epsilon = 0.0f;
  const AscendC::tiling::LayerNormGradTiling* tiling = nullptr;
};

struct LayerNormGradBetaCall {
  DType dtype = DType::kFloat32;
  bool reuse_source = false;
  BufferRef pd_gamma, pd_beta, res_for_gamma, dy;
  const BufferRef* tmp = nullptr;
  const AscendC::tiling::LayerNormGradBetaTiling* tiling = nullptr;
};

// Check every operand, the tiling and the temporary space, then compute
// with gradops::PlanLayerNormGrad / PlanLayerNormGradBeta and Run.
void RunLayerNormGrad(const LayerNormGradCall& call);
void RunLayerNormGradBeta(const LayerNormGradBetaCall& call);

}  // namespace ascendc
}  // namespace gradops
