// Parameters of the CUDA SiLU backward kernels (silu.cu).
#pragma once

#include <cstdint>

#include "cpu/silu.h"

namespace gradops {
namespace cuda {

struct SiluParams {
  cpu::SiluProblem problem;  // merged dims, broadcast strides (0), data at each view's first element
};

}  // namespace cuda
}  // namespace gradops
