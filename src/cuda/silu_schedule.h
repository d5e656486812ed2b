// Host-side scheduling of the CUDA SiLU backward: the vector kernel for one
// dtype and unit strides with 16-byte aligned data, the general kernel (any
// strides, broadcasting, mixed dtypes) otherwise. Plain C++, testable
// without nvcc.
#pragma once

#include <cstdint>

#include "cpu/silu.h"
#include "cuda/device_info.h"

namespace gradops {
namespace cuda {

constexpr int kSiluBlock = 256;

struct SiluSchedule {
  bool vector = false;  // 16-byte loads and stores; the ragged tail elementwise
  int vector_elems = 1;
  int block_threads = kSiluBlock;
  int64_t grid = 0;     // persistent: a grid-stride loop covers any size
};

bool SiluVectorPathApplies(const cpu::SiluProblem& problem);
SiluSchedule ScheduleSilu(const cpu::SiluProblem& problem, const DeviceInfo& device);

}  // namespace cuda
}  // namespace gradops
