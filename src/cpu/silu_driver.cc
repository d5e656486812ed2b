// Threads around the SiLU span kernel: the output is cut into fixed runs of
// elements; each run walks the merged dimensions with an odometer.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>

#include "core/dtype.h"
#include "core/parallel.h"
#include "cpu/cpu_model.h"
#include "cpu/silu.h"
#include "cpu/silu_table.h"
#include "cpu/streaming.h"

namespace gradops {
namespace cpu {
namespace {

// Scalar math of the generic path for float32 x, the same formula as the
// SIMD span's.
float SiluGradScalar(float dy, float x) {
  const float e = std::exp(-std::fabs(x));
  const float inv = 1.0f / (1.0f + e);
  const float y = x >= 0.0f ? x * e : x;       // x * (1 - s) = y * inv
  const float s = (x >= 0.0f ? 1.0f : e) * inv;
  return dy * (s * std::fma(y, inv, 1.0f));
}

// Division against the refined estimate (docs/performance.md): on a Zen 5
// division made 16-bit SiLU 9-15% faster from memory at 2 threads (attempt
// 67; its divider takes a 16-lane division every 1.5 cycles or so); on an
// AVX2 Zen 3 it made float32 16% faster in cache and 17-21% from memory
// (attempt 112, against the estimate with the two-step refinement of attempt
// 81; with one Newton step it had been 12% slower, attempt 30). Intel CPUs
// (whose AVX-512 divider takes several times longer per vector) and AMD's
// with AVX-512 before the Zen 5 (the Zen 4: a 14-bit estimate and one step,
// not measured with division) keep the estimate.
std::atomic<int> divides{-1};  // -1: this CPU's default

}  // namespace

bool SiluDivides() {
  const int set = divides.load(std::memory_order_relaxed);
  if (set >= 0) return set != 0;
  const CpuModel cpu = ThisCpu();
  return cpu == CpuModel::kZen5 || (cpu == CpuModel::kAmd && SiluGatherBits() == 256);  // 256: AVX2 at most
}

void SetSiluDivides(bool divide) { divides.store(divide ? 1 : 0, std::memory_order_relaxed); }

SiluSchedule ScheduleSilu(const SiluProblem& p, int threads) {
  SiluSchedule s;
  s.threads = std::max(1, threads);
  s.task_elements = 1 << 16;
  const int last = p.rank - 1;
  const bool same_dtype = p.dtype[0] == p.dtype[2] && p.dtype[1] == p.dtype[2];
  s.simd = same_dtype && p.stride[2][last] == 1 && p.stride[0][last] <= 1 && p.stride[1][last] <= 1;
  s.stream = s.simd && StreamOutput(static_cast<double>(p.numel) * DTypeSize(p.dtype[2]));
  // g of a 16-bit x into a 16-bit dx from the table; into a float32 dx (mixed
  // dtypes, the generic path) computed per element (SiluGradScalar), whose
  // exponential is the C library's.
  s.divide = SiluDivides();
  s.table = DTypeSize(p.dtype[2]) == 2 ? SiluSlopeTable(p.dtype[1], s.divide) : nullptr;  // built once, at plan time
  // Looking g up costs a gather per vector, computing it an exponential, a
  // reciprocal and about 15 more vector operations. Measured from memory at 2
  // threads (docs/performance.md): with AVX-512, on an Intel Xeon the gathers
  // won (attempt 60: bfloat16 +24%, float16 +12%), on a Zen 5 they lost
  // (attempt 65: bfloat16 and float16 -30% to -35%, AMD's gathers being
  // microcoded); with AVX2 on a Zen 3 they won (attempt 79: bfloat16 +47%,
  // float16 +37%; in cache +61% and +56% on one core), the computed g being
  // 8 lanes wide there. Zen 4 (AVX-512) was not measured with them.
  const int gather_bits = SiluGatherBits();
  s.look_up = s.table != nullptr && (gather_bits == 256 || (gather_bits == 512 && ThisCpu() == CpuModel::kIntel));
  return s;
}

void RunSilu(const SiluProblem& p, const SiluSchedule& s) {
  if (p.numel == 0) return;
  const int64_t tasks = (p.numel + s.task_elements - 1) / s.task_elements;
  const int last = p.rank - 1;
  const int64_t inner = p.size[last];
  ParallelFor(tasks, s.threads, [&](int64_t task, int) {
    const int64_t begin = task * s.task_elements, end = std::min(p.numel, begin + s.task_elements);
    // Unravel `begin` into an index and the three offsets.
    int64_t index[kMaxRank] = {};
    int64_t offset[3] = {0, 0, 0};
    int64_t linear = begin;
    for (int d = last; d >= 0; --d) {
      index[d] = linear % p.size[d];
      linear /= p.size[d];
      for (int k = 0; k < 3; ++k) offset[k] += index[d] * p.stride[k][d];
    }
    for (int64_t i = begin; i < end;) {
      const int64_t run = std::min(inner - index[last], end - i);
      if (s.simd) {
        const size_t elem = DTypeSize(p.dtype[2]);
        SiluSpan(p.dtype[2], static_cast<const char*>(p.data[0]) + offset[0] * elem,
                 static_cast<int>(p.stride[0][last]),
                 static_cast<const char*>(p.data[1]) + offset[1] * elem,
                 static_cast<int>(p.stride[1][last]),
                 static_cast<char*>(p.data[2]) + offset[2] * elem, run, s.look_up ? s.table : nullptr, s.divide,
                 s.stream);
      } else {
        const int64_t step[3] = {p.stride[0][last], p.stride[1][last], p.stride[2][last]};
        for (int64_t k = 0; k < run; ++k) {
          const float dy = LoadAsFloat(p.data[0], p.dtype[0], offset[0] + k * step[0]);
          const int64_t at = offset[1] + k * step[1];
          const float dx = s.table ? dy * s.table[static_cast<const uint16_t*>(p.data[1])[at]]
                                   : SiluGradScalar(dy, LoadAsFloat(p.data[1], p.dtype[1], at));
          StoreFromFloat(p.data[2], p.dtype[2], offset[2] + k * step[2], dx);
        }
      }
      i += run;
      // Advance the odometer by `run` along the last dimension, then carry.
      index[last] += run;
      for (int k = 0; k < 3; ++k) offset[k] += run * p.stride[k][last];
      for (int d = last; d > 0 && index[d] == p.size[d]; --d) {
        for (int k = 0; k < 3; ++k) offset[k] += p.stride[k][d - 1] - index[d] * p.stride[k][d];
        index[d] = 0;
        ++index[d - 1];
      }
    }
  });
}

}  // namespace cpu
}  // namespace gradops
