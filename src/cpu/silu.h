// The CPU SiLU backward: dx = dy * g(x), g = s * (1 + x * (1 - s)), s =
// sigmoid(x), with dy and x broadcast to dx's shape; for 16-bit x, g comes
// from a table (silu_table.h) or is computed by the same vector code.
#pragma once

#include <cstddef>
#include <cstdint>

#include "gradops/tensor.h"

namespace gradops {
namespace cpu {

// Operands with their strides broadcast to the output shape (0 where
// broadcast), dimensions merged where all three allow it.
struct SiluProblem {
  int rank = 1;  // at least 1
  int64_t size[kMaxRank] = {};
  int64_t stride[3][kMaxRank] = {};  // dy, x, dx
  void* data[3] = {};                // at each view's first element
  DType dtype[3] = {};
  int64_t numel = 0;
};

struct SiluSchedule {
  int threads = 1;
  int64_t task_elements = 1;
  bool simd = false;    // same dtype everywhere and a unit-stride dx
  bool stream = false;  // dx far larger than the caches: non-temporal stores
  const float* table = nullptr;  // g for 16-bit x (SiluSlopeTable), else nullptr
  bool look_up = false;          // the SIMD span gathers g from `table` instead of computing it
};

SiluSchedule ScheduleSilu(const SiluProblem& problem, int threads);
void RunSilu(const SiluProblem& problem, const SiluSchedule& schedule);

// SIMD span: n elements of dx (contiguous); dy and x advance by step 1, or
// stay on one element with step 0; `table`: SiluSlopeTable(dtype) to look g
// up in, or nullptr to compute it (the same bits). With `stream`
// (contiguous inputs), dx is stored non-temporally from its first aligned
// element.
void SiluSpan(DType dtype, const void* dy, int dy_step, const void* x, int x_step, void* dx, int64_t n,
              const float* table, bool stream);

// g(x) for all 65536 bit patterns of a 16-bit dtype (kFloat16 or
// kBFloat16), by the span's vector code, into g[65536] (SiluSlopeTable
// builds its tables with it).
void SiluSlopes(DType dtype, float* g);

// Whether the target the kernels dispatch to is one where gathering g was
// measured against computing it (AVX-512): SiluSchedule::look_up needs it
// and an Intel CPU.
bool SiluTargetMayGather();

}  // namespace cpu
}  // namespace gradops
