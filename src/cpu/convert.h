// Bulk conversion between float32 and a storage dtype, with the SIMD
// conversions of the kernels (rounding to nearest, ties to even).
#pragma once

#include <cstdint>

#include "gradops/tensor.h"

namespace gradops {
namespace cpu {

// Whether kernels use the CPU's AVX512-BF16 conversions: where it has them,
// unless turned off. The bits are the same either way (convert-inl.h), so
// this only chooses the speed; the setter lets tests check both paths on one
// machine. Thread-safe; kernels read it once per call.
bool BFloat16Instructions();
void SetBFloat16Instructions(bool allowed);

void ConvertToFloat(DType dtype, const void* in, float* out, int64_t n);
void ConvertFromFloat(DType dtype, const float* in, void* out, int64_t n);

}  // namespace cpu
}  // namespace gradops
