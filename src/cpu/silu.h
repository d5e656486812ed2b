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
  bool divide = false;           // computed g divides for 1 / (1 + e): SiluDivides()
  const float* table = nullptr;  // g for 16-bit x (SiluSlopeTable(dtype, divide)), else nullptr
  bool look_up = false;          // the SIMD span gathers g from `table` instead of computing it
};

SiluSchedule ScheduleSilu(const SiluProblem& problem, int threads);
void RunSilu(const SiluProblem& problem, const SiluSchedule& schedule);

// SIMD span: n elements of dx (contiguous); dy and x advance by step 1, or
// stay on one element with step 0; `table`: SiluSlopeTable(dtype, divide)
// to look g up in, or nullptr to compute it (the same bits); `divide`: how
// computed g gets 1 / (1 + e) (SiluDivides). With `stream` (contiguous
// inputs), dx is stored non-temporally from its first aligned element.
void SiluSpan(DType dtype, const void* dy, int dy_step, const void* x, int x_step, void* dx, int64_t n,
              const float* table, bool divide, bool stream);

// g(x) for all 65536 bit patterns of a 16-bit dtype (kFloat16 or
// kBFloat16), by the span's vector code with `divide`, into g[65536]
// (SiluSlopeTable builds its tables with it).
void SiluSlopes(DType dtype, bool divide, float* g);

// Whether computed g takes 1 / (1 + e) by a division (exact) rather than by
// the x86 reciprocal estimate refined by Newton steps: where division was
// measured faster (Zen 5 and AVX2 Zen 3, docs/performance.md attempts 67
// and 112), unless set otherwise. The two give different last bits, so a
// plan keeps its choice (SiluSchedule::divide) and SiluSlopeTable has a
// table for each; the setter lets tests check both on one machine.
// Thread-safe.
bool SiluDivides();
void SetSiluDivides(bool divide);

// The width in bits of the vectors the kernels' target gathers with in
// hardware: 256 (AVX2), 512 (AVX-512), or 0 where it has no gathers.
// SiluSchedule::look_up depends on it (silu_driver.cc, ScheduleSilu).
int SiluGatherBits();

}  // namespace cpu
}  // namespace gradops
