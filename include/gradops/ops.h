// gradops public API: the five backward operators, in two phases.
//
//   Plan*(args, &plan)  validates every argument, chooses the kernel and
//                       reports plan.workspace_bytes(); nothing is read or
//                       written through the views yet.
//   Run(plan, ws, n)    computes, with no validation and no allocation, in the
//                       caller's workspace of n >= plan.workspace_bytes() bytes.
//
// Vocabulary: a normalization operator sees its input as M rows of N columns;
// the last `normalized_rank` dimensions form a row. Outputs are overwritten,
// never accumulated into. An output may share memory with an input of the
// same dtype through an identical view (in place); other overlaps are not
// supported. Arithmetic is float32 (or wider); float16/bfloat16
// results are rounded to nearest even. Results are bitwise identical for every
// run and every thread count.
#pragma once

#include <cstddef>
#include <memory>

#include "gradops/status.h"
#include "gradops/tensor.h"

namespace gradops {

// LayerNorm backward, mean/rstd form (aclnnLayerNormBackward):
//   x_hat = (x - mean) * rstd,  g = dy * gamma
//   dx     = rstd * (g - mean_N(g) - x_hat * mean_N(g * x_hat))
//   dgamma = sum_M(dy * x_hat),  dbeta = sum_M(dy)
struct LayerNormBackwardArgs {
  TensorView dy, x;                    // [A1..Ai, R1..Rj], same dtype
  int normalized_rank = 1;             // j >= 1
  TensorView mean, rstd;               // M = A1*..*Ai values each, any shape
  const TensorView* gamma = nullptr;   // [R1..Rj], or null for ones
  bool output_mask[3] = {true, true, true};  // dx, dgamma, dbeta
  TensorView dx, dgamma, dbeta;        // read only where the mask is set
};

// LayerNormGrad, variance/epsilon form (AscendC LayerNormGrad), with the
// seed's formulas: rstd = (variance + epsilon)^-0.5, the last dimension H is
// normalized and
//   res_for_gamma = (x - mean) * rstd
//   dx = dy*gamma*rstd + pd_var*(2/H)*(x - mean) + pd_mean/H
struct LayerNormGradArgs {
  TensorView dy, x;             // [.., H]
  TensorView variance, mean;    // M values each
  TensorView gamma;             // [H]
  float epsilon = 1e-5f;
  // H of the 1/H factors; 0 means the last dim's size. Rows zero-padded to an
  // aligned length pass the unpadded length here (AscendC originalHLength).
  int64_t mean_count = 0;
  TensorView dx, res_for_gamma; // [.., H]
};

// LayerNormGradBeta: dgamma = sum_M(dy * res_for_gamma), dbeta = sum_M(dy).
struct LayerNormGradBetaArgs {
  TensorView res_for_gamma, dy;  // [.., H], same shape
  TensorView dgamma, dbeta;      // [H]
};

// RMSNorm backward (ATB RmsNormBackward): gamma's dims are the trailing dims
// of x; x_hat = x * rstd, g = dy * gamma,
//   dx = rstd * (g - x_hat * mean_N(g * x_hat)),  dgamma = sum_M(dy * x_hat)
struct RmsNormBackwardArgs {
  TensorView dy, x;   // same shape and dtype
  TensorView rstd;    // M values
  TensorView gamma;   // trailing dims of x
  TensorView dx, dgamma;
};

// SiLU backward: dx = dy * s(x) * (1 + x * (1 - s(x))), s the sigmoid. dy and
// x broadcast (NumPy rules) to dx's shape.
struct SiluBackwardArgs {
  TensorView dy, x, dx;
};

namespace internal {
class PlannedOp;
}

// The result of a successful Plan* call: what Run needs. Cheap to copy; it
// keeps the argument views, not the data.
class Plan {
 public:
  Plan();
  ~Plan();
  Plan(const Plan&);
  Plan& operator=(const Plan&);

  bool valid() const { return op_ != nullptr; }
  size_t workspace_bytes() const;
  const char* op_name() const;  // "layer_norm_backward", ...
  int threads() const;          // threads Run will use

  // Internal: set by the Plan* functions.
  explicit Plan(std::shared_ptr<const internal::PlannedOp> op);
  const internal::PlannedOp* op() const { return op_.get(); }

 private:
  std::shared_ptr<const internal::PlannedOp> op_;
};

Status PlanLayerNormBackward(const LayerNormBackwardArgs& args, Plan* plan);
Status PlanLayerNormGrad(const LayerNormGradArgs& args, Plan* plan);
Status PlanLayerNormGradBeta(const LayerNormGradBetaArgs& args, Plan* plan);
Status PlanRmsNormBackward(const RmsNormBackwardArgs& args, Plan* plan);
Status PlanSiluBackward(const SiluBackwardArgs& args, Plan* plan);

// Runs a plan. Fails (writing nothing) on an empty plan, or when
// workspace_bytes < plan.workspace_bytes() or the workspace is null while
// bytes are needed; for a plan on CUDA device memory (docs/cuda.md), also
// on a host workspace (kInvalidArgument) or a failed launch (kRuntimeError).
// A plan on CUDA device memory launches its kernels on `stream` (a
// cudaStream_t; null: the legacy default stream) and returns without
// waiting; a host plan ignores `stream` and is done when Run returns.
Status Run(const Plan& plan, void* workspace, size_t workspace_bytes, void* stream = nullptr);

// Threads used by plans made after this call; 0 restores the default (all
// hardware threads). Results do not depend on it.
void SetNumThreads(int threads);
int NumThreads();

}  // namespace gradops
