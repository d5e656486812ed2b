// The high-level normalization functions: check the operands, the tiling
// and the temporary space, then compute with the gradops core on views over
// the LocalTensors' UB memory. The core's workspace lives in host memory of
// the block's thread: it is the CPU's working set, not the kernel's UB.
#include <algorithm>
#include <string>
#include <vector>

#include "block_context.h"
#include "core/parallel.h"
#include "gradops/ops.h"
#include "gradops_ascendc/norm_calls.h"
#include "gradops_ascendc/runtime.h"
#include "tmp_sizes.h"

namespace gradops {
namespace ascendc {
namespace {

// `ref` is usable and holds at least `count` elements of `dtype`.
void CheckOperand(const char* api, const char* name, const BufferRef& ref, uint64_t count, DType dtype) {
  CheckUsable(ref, api);
  const uint64_t need = count * DTypeSize(dtype);
  if (ref.bytes < need) {
    Fail(std::string(api) + " operand size", std::string(name) + " holds " + std::to_string(ref.bytes) +
                                                  " bytes; the tiling's shape needs " + std::to_string(need));
  }
}

// The row length is whole 32-byte blocks and the shape is not empty.
void CheckShape(const char* api, uint32_t b, uint32_t s, uint32_t h, uint32_t original_h, DType dtype) {
  if (uint64_t{b} * s == 0 || h == 0) {
    Fail(std::string(api) + " tiling", "bLength, sLength and hLength must be positive: was the tiling filled in?");
  }
  if (uint64_t{h} * DTypeSize(dtype) % kUbAlign != 0) {
    Fail("H alignment", std::string(api) + ": hLength " + std::to_string(h) + " x " +
                            std::to_string(DTypeSize(dtype)) +
                            " bytes is not a multiple of 32 bytes; pad H with zeros and pass originalHLength");
  }
  if (original_h == 0 || original_h > h) {
    Fail(std::string(api) + " tiling", "originalHLength " + std::to_string(original_h) + " is outside [1, hLength = " +
                                           std::to_string(h) + "]");
  }
}

// The temporary space holds at least the documented minimum and the
// tiling's stackBufferSize (both in bytes).
void CheckTmp(const char* api, const BufferRef* tmp, uint32_t min_bytes, uint64_t stack_bytes) {
  uint64_t have = 0;
  std::string what;
  if (tmp != nullptr) {
    CheckUsable(*tmp, api);
    have = tmp->bytes;
    what = "sharedTmpBuffer holds ";
  } else {
    have = UbFree();
    what = "the UB left after the TPipe's buffers is ";
  }
  const uint64_t need = std::max<uint64_t>(min_bytes, stack_bytes);
  if (have < need) {
    Fail("temporary space", std::string(api) + " needs " + std::to_string(need) + " bytes (minimum " +
                                std::to_string(min_bytes) + ", tiling stackBufferSize " + std::to_string(stack_bytes) +
                                "); " + what + std::to_string(have) + " bytes");
  }
}

TensorView Rows(const BufferRef& ref, DType dtype, int64_t rows, int64_t h) {
  return Contiguous(ref.data, dtype, {rows, h});
}
TensorView Vector(const BufferRef& ref, DType dtype, int64_t n) { return Contiguous(ref.data, dtype, {n}); }

void PlanAndRun(const char* api, const Status& planned, const Plan& plan) {
  if (!planned.ok()) Fail(api, "the gradops core refused the call: " + planned.message());
  thread_local std::vector<unsigned char> workspace;
  if (workspace.size() < plan.workspace_bytes()) workspace.resize(plan.workspace_bytes());
  const Status ran = Run(plan, workspace.data(), workspace.size());
  if (!ran.ok()) Fail(api, "the gradops core failed: " + ran.message());
}

}  // namespace

void RunLayerNormGrad(const LayerNormGradCall& c) {
  constexpr const char* kApi = "LayerNormGrad";
  const AscendC::tiling::LayerNormGradTiling& t = *c.tiling;
  CheckShape(kApi, t.bLength, t.sLength, t.hLength, t.originalHLength, c.dtype);
  const int64_t rows = int64_t{t.bLength} * t.sLength, h = t.hLength;
  const uint64_t elements = static_cast<uint64_t>(rows) * h;
  CheckOperand(kApi, "outputPdX", c.pd_x, elements, c.dtype);
  CheckOperand(kApi, "resForGamma", c.res_for_gamma, elements, c.dtype);
  CheckOperand(kApi, "inputDy", c.dy, elements, c.dtype);
  CheckOperand(kApi, "inputX", c.x, elements, c.dtype);
  CheckOperand(kApi, "inputVariance", c.variance, rows, c.dtype);
  CheckOperand(kApi, "inputMean", c.mean, rows, c.dtype);
  CheckOperand(kApi, "inputGamma", c.gamma, h, c.dtype);
  const uint32_t type_size = static_cast<uint32_t>(DTypeSize(c.dtype));
  CheckTmp(kApi, c.tmp, LayerNormGradTmpBytes(t.bLength, t.sLength, h, type_size, c.reuse_source).min,
           t.stackBufferSize);

  LayerNormGradArgs args;
  args.dy = Rows(c.dy, c.dtype, rows, h);
  args.x = Rows(c.x, c.dtype, rows, h);
  args.variance = Vector(c.variance, c.dtype, rows);
  args.mean = Vector(c.mean, c.dtype, rows);
  args.gamma = Vector(c.gamma, c.dtype, h);
  args.epsilon = c.epsilon;
  args.mean_count = t.originalHLength;
  args.dx = Rows(c.pd_x, c.dtype, rows, h);
  args.res_for_gamma = Rows(c.res_for_gamma, c.dtype, rows, h);
  // The blocks are the kernel's parallelism: each computes single-threaded.
  Plan plan;
  const ScopedPlanThreads one_thread(1);
  const Status planned = PlanLayerNormGrad(args, &plan);
  PlanAndRun(kApi, planned, plan);
}

void RunLayerNormGradBeta(const LayerNormGradBetaCall& c) {
  constexpr const char* kApi = "LayerNormGradBeta";
  const AscendC::tiling::LayerNormGradBetaTiling& t = *c.tiling;
  CheckShape(kApi, t.bLength, t.sLength, t.hLength, t.originalHLength, c.dtype);
  const int64_t rows = int64_t{t.bLength} * t.sLength, h = t.hLength;
  const uint64_t elements = static_cast<uint64_t>(rows) * h;
  CheckOperand(kApi, "outputPdGamma", c.pd_gamma, h, c.dtype);
  CheckOperand(kApi, "outputPdBeta", c.pd_beta, h, c.dtype);
  CheckOperand(kApi, "resForGamma", c.res_for_gamma, elements, c.dtype);
  CheckOperand(kApi, "inputDy", c.dy, elements, c.dtype);
  const uint32_t type_size = static_cast<uint32_t>(DTypeSize(c.dtype));
  CheckTmp(kApi, c.tmp, LayerNormGradBetaTmpBytes(t.bLength, t.sLength, h, type_size).min,
           uint64_t{t.stackBufferSize} * sizeof(float));

  LayerNormGradBetaArgs args;
  args.res_for_gamma = Rows(c.res_for_gamma, c.dtype, rows, h);
  args.dy = Rows(c.dy, c.dtype, rows, h);
  args.dgamma = Vector(c.pd_gamma, c.dtype, h);
  args.dbeta = Vector(c.pd_beta, c.dtype, h);
  Plan plan;
  const ScopedPlanThreads one_thread(1);
  const Status planned = PlanLayerNormGradBeta(args, &plan);
  PlanAndRun(kApi, planned, plan);
}

}  // namespace ascendc
}  // namespace gradops
