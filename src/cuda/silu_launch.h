// Launcher of the CUDA SiLU backward kernels (silu.cu).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/silu_params.h"

namespace gradops {
namespace cuda {

cudaError_t LaunchSilu(const SiluParams& params, bool vector, int64_t grid, int block, cudaStream_t stream);

}  // namespace cuda
}  // namespace gradops
