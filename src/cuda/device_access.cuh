// Device-side element access shared by the CUDA kernels: float32 <->
// float16/bfloat16 conversion (round to nearest even), element loads and
// stores by runtime dtype, Layout offsets and per-row statistics.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

#include "core/layout.h"
#include "cpu/norm.h"

namespace gradops {
namespace cuda {

// Storage types and their conversions.
__device__ __forceinline__ float ToFloat(float v) { return v; }
__device__ __forceinline__ float ToFloat(__half v) { return __half2float(v); }
__device__ __forceinline__ float ToFloat(__nv_bfloat16 v) { return __bfloat162float(v); }

template <typename T>
__device__ __forceinline__ T FromFloat(float v);
template <>
__device__ __forceinline__ float FromFloat<float>(float v) { return v; }
template <>
__device__ __forceinline__ __half FromFloat<__half>(float v) { return __float2half_rn(v); }
template <>
__device__ __forceinline__ __nv_bfloat16 FromFloat<__nv_bfloat16>(float v) { return __float2bfloat16_rn(v); }

// Element `index` (in elements from base) of a buffer of `dtype`.
__device__ __forceinline__ float LoadElement(const void* base, DType dtype, int64_t index) {
  switch (dtype) {
    case DType::kFloat16: return ToFloat(static_cast<const __half*>(base)[index]);
    case DType::kBFloat16: return ToFloat(static_cast<const __nv_bfloat16*>(base)[index]);
    default: return static_cast<const float*>(base)[index];
  }
}

__device__ __forceinline__ void StoreElement(void* base, DType dtype, int64_t index, float value) {
  switch (dtype) {
    case DType::kFloat16: static_cast<__half*>(base)[index] = FromFloat<__half>(value); break;
    case DType::kBFloat16: static_cast<__nv_bfloat16*>(base)[index] = FromFloat<__nv_bfloat16>(value); break;
    default: static_cast<float*>(base)[index] = value; break;
  }
}

// Layout::Offset on the device: offset of row-major linear index `linear`.
// Ranks above 1 (divisions) stay out of line, off the kernels' registers.
static __device__ __noinline__ int64_t LayoutOffsetSlow(const Layout& layout, int64_t linear) {
  int64_t offset = 0;
  for (int d = layout.rank - 1; d >= 0; --d) {
    offset += (linear % layout.size[d]) * layout.stride[d];
    linear /= layout.size[d];
  }
  return offset;
}

__device__ __forceinline__ int64_t LayoutOffset(const Layout& layout, int64_t linear) {
  if (layout.rank == 0) return 0;
  if (layout.rank == 1) return linear * layout.stride[0];
  return LayoutOffsetSlow(layout, linear);
}

__device__ __forceinline__ float RowStatAt(const cpu::RowStat& stat, int64_t row) {
  if (!stat.from_view) return stat.constant;
  return LoadElement(stat.values.data, stat.values.dtype, LayoutOffset(stat.values.layout, row));
}

// rstd of a row: the value itself, or (variance + epsilon)^-0.5.
__device__ __forceinline__ float RowRstd(const cpu::RowStat& stat, bool is_variance, float epsilon, int64_t row) {
  const float v = RowStatAt(stat, row);
  return is_variance ? 1.0f / sqrtf(v + epsilon) : v;
}

// Start of row `row` of a matrix operand, in elements from its data pointer.
__device__ __forceinline__ int64_t RowOffset(const cpu::MatrixOperand& m, int64_t row) {
  return LayoutOffset(m.rows, row);
}

}  // namespace cuda
}  // namespace gradops
