// Bulk conversion between float32 and a storage dtype, with the SIMD
// conversions of the kernels (rounding to nearest, ties to even).
#pragma once

#include <cstdint>

#include "gradops/tensor.h"

namespace gradops {
namespace cpu {

void ConvertToFloat(DType dtype, const void* in, float* out, int64_t n);
void ConvertFromFloat(DType dtype, const float* in, void* out, int64_t n);

}  // namespace cpu
}  // namespace gradops
