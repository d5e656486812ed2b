// The dynamic shared memory of a launch (its size is LaunchKernel's
// shared_bytes), 16-byte aligned. The CPU emulation of the kernels
// (tests/cuda/emulator) has its own version of this header.
#pragma once

#include <cuda_runtime.h>

namespace gradops {
namespace cuda {

template <typename T>
__device__ __forceinline__ T* DynamicShared() {
  extern __shared__ float4 dynamic_shared[];
  return reinterpret_cast<T*>(dynamic_shared);
}

}  // namespace cuda
}  // namespace gradops
