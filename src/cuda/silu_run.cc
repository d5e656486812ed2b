// RunSilu: one launch of the vector or the general SiLU kernel.
#include <cuda_runtime.h>

#include "cuda/cuda_backend.h"
#include "cuda/silu_launch.h"

namespace gradops {
namespace cuda {

int RunSilu(const cpu::SiluProblem& p, const SiluSchedule& s, void* stream) {
  if (p.numel == 0) return 0;
  SiluParams params;
  params.problem = p;
  return LaunchSilu(params, s.vector, s.grid, s.block_threads, static_cast<cudaStream_t>(stream));
}

}  // namespace cuda
}  // namespace gradops
