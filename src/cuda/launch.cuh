// Every kernel launch of the backend goes through LaunchKernel
// (cudaLaunchKernelEx): one parameter struct per kernel, the launch's
// dynamic shared memory, and, for cluster > 1, the thread-block cluster
// dimension. Returns the launch's error.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

namespace gradops {
namespace cuda {

template <typename Params>
cudaError_t LaunchKernel(void (*kernel)(Params), dim3 grid, int block, size_t shared_bytes, cudaStream_t stream,
                         const Params& params, int cluster = 1) {
  cudaLaunchConfig_t config = {};
  config.gridDim = grid;
  config.blockDim = dim3(static_cast<unsigned>(block));
  config.dynamicSmemBytes = shared_bytes;
  config.stream = stream;
  cudaLaunchAttribute attribute[1];
  if (cluster > 1) {
    attribute[0].id = cudaLaunchAttributeClusterDimension;
    attribute[0].val.clusterDim.x = static_cast<unsigned>(cluster);
    attribute[0].val.clusterDim.y = 1;
    attribute[0].val.clusterDim.z = 1;
    config.attrs = attribute;
    config.numAttrs = 1;
  }
  return cudaLaunchKernelEx(&config, kernel, params);
}

}  // namespace cuda
}  // namespace gradops
