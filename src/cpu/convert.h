// Bulk conversion between float32 and a storage dtype, with the SIMD
// conversions of the kernels (rounding to nearest, ties to even), and float32
// runs summed in float64.
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

// sum[j] += the j-th value of each of `runs` runs of n float32 values from
// in, `stride` values apart, in run order and in float64: the same bits as
// the scalar loop (each sum alone, in the same order).
void AddRunsFloat64(const float* in, int64_t runs, int64_t stride, int64_t n, double* sum);

}  // namespace cpu
}  // namespace gradops
