// The emulator's version of src/cuda/shared_memory.cuh (found first on the
// include path of the emulated build): the running CTA's dynamic shared
// memory.
#pragma once

#include <cuda_runtime.h>

namespace gradops {
namespace cuda {

template <typename T>
inline T* DynamicShared() {
  return static_cast<T*>(::cuda_emulator::DynamicShared());
}

}  // namespace cuda
}  // namespace gradops
