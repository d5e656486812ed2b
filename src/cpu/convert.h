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

// n values from in into out (which must not overlap it): each whole step of
// `step` values from in[0] from column order into split order (norm.h,
// NormPairStep: the step's even values, then its odd ones), or back
// (Unsplit); the values after the last whole step as they are. The float64
// form rounds each value to float32.
void SplitPairs(const float* in, int64_t n, int64_t step, float* out);
void UnsplitPairs(const float* in, int64_t n, int64_t step, float* out);
void UnsplitPairs(const double* in, int64_t n, int64_t step, float* out);
// UnsplitPairs of a float64 sum of one run from +0, in float32: each value
// plus +0 (the same bits: -0 becomes +0, any other value stays).
void UnsplitSum(const float* in, int64_t n, int64_t step, float* out);

}  // namespace cpu
}  // namespace gradops
