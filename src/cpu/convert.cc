// Bulk conversions through convert-inl.h.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/convert.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "cpu/convert-inl.h"
#include "cpu/convert.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace gradops {
namespace cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

template <typename T>
void ToFloat(const T* in, float* out, int64_t n) {
  const hn::ScalableTag<float> df;
  const int64_t L = static_cast<int64_t>(hn::Lanes(df));
  int64_t i = 0;
  for (; i + L <= n; i += L) hn::StoreU(LoadF32(df, in + i), df, out + i);
  if (i < n) StoreF32Tail(df, LoadF32Tail(df, in + i, static_cast<size_t>(n - i)), out + i, static_cast<size_t>(n - i));
}

template <typename T>
void FromFloat(const float* in, T* out, int64_t n) {
  const hn::ScalableTag<float> df;
  const int64_t L = static_cast<int64_t>(hn::Lanes(df));
  int64_t i = 0;
  for (; i + L <= n; i += L) StoreF32(df, hn::LoadU(df, in + i), out + i);
  if (i < n) StoreF32Tail(df, LoadF32Tail(df, in + i, static_cast<size_t>(n - i)), out + i, static_cast<size_t>(n - i));
}

void ConvertToFloatImpl(DType dtype, const void* in, float* out, int64_t n) {
  switch (dtype) {
    case DType::kFloat32: return ToFloat(static_cast<const float*>(in), out, n);
    case DType::kFloat16: return ToFloat(static_cast<const hwy::float16_t*>(in), out, n);
    case DType::kBFloat16: return ToFloat(static_cast<const hwy::bfloat16_t*>(in), out, n);
  }
}

void ConvertFromFloatImpl(DType dtype, const float* in, void* out, int64_t n) {
  switch (dtype) {
    case DType::kFloat32: return FromFloat(in, static_cast<float*>(out), n);
    case DType::kFloat16: return FromFloat(in, static_cast<hwy::float16_t*>(out), n);
    case DType::kBFloat16: return FromFloat(in, static_cast<hwy::bfloat16_t*>(out), n);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace cpu
}  // namespace gradops
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace gradops {
namespace cpu {
HWY_EXPORT(ConvertToFloatImpl);
HWY_EXPORT(ConvertFromFloatImpl);

void ConvertToFloat(DType dtype, const void* in, float* out, int64_t n) {
  HWY_DYNAMIC_DISPATCH(ConvertToFloatImpl)(dtype, in, out, n);
}
void ConvertFromFloat(DType dtype, const float* in, void* out, int64_t n) {
  HWY_DYNAMIC_DISPATCH(ConvertFromFloatImpl)(dtype, in, out, n);
}
}  // namespace cpu
}  // namespace gradops
#endif
