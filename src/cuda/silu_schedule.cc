// Host-side scheduling of the CUDA SiLU backward (see silu_schedule.h).
#include "cuda/silu_schedule.h"

#include <algorithm>
#include <cstdint>

namespace gradops {
namespace cuda {

bool SiluVectorPathApplies(const cpu::SiluProblem& p) {
  if (p.rank != 1 || p.dtype[0] != p.dtype[2] || p.dtype[1] != p.dtype[2]) return false;
  for (int k = 0; k < 3; ++k) {
    if (p.stride[k][0] != 1 && p.size[0] != 1) return false;
    if (reinterpret_cast<uintptr_t>(p.data[k]) % 16 != 0) return false;
  }
  return true;
}

SiluSchedule ScheduleSilu(const cpu::SiluProblem& p, const DeviceInfo& device) {
  SiluSchedule s;
  s.vector = SiluVectorPathApplies(p);
  s.vector_elems = s.vector ? 16 / static_cast<int>(DTypeSize(p.dtype[2])) : 1;
  const int64_t items = (p.numel + s.vector_elems - 1) / s.vector_elems;
  const int64_t resident = int64_t{std::max(1, device.sm_count)} * std::max(1, device.max_threads_per_sm / s.block_threads);
  s.grid = std::min((items + s.block_threads - 1) / s.block_threads, resident);
  return s;
}

}  // namespace cuda
}  // namespace gradops
