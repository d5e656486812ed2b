// Launchers of the CUDA norm kernels (defined in the .cu files); each
// returns the launch's error code.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/norm_params.h"

namespace gradops {
namespace cuda {

cudaError_t LaunchNormRows(const NormRowsParams& params, DType dtype, int vectors, int64_t grid, int block,
                           cudaStream_t stream);
cudaError_t LaunchNormGeneral(const NormGeneralParams& params, int64_t grid, int block, cudaStream_t stream);
cudaError_t LaunchPrepareGamma(const GammaParams& params, cudaStream_t stream);
cudaError_t LaunchFinalize(const FinalizeParams& params, cudaStream_t stream);

}  // namespace cuda
}  // namespace gradops
