// Vector loads and stores that convert between a storage type (float,
// hwy::float16_t, hwy::bfloat16_t) and float32 lanes. Stores round to nearest,
// ties to even, exactly as the scalar conversions in core/dtype.h.
// Per-target include guard, as Highway requires for *-inl.h files.
#if defined(GRADOPS_CPU_CONVERT_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef GRADOPS_CPU_CONVERT_INL_H_
#undef GRADOPS_CPU_CONVERT_INL_H_
#else
#define GRADOPS_CPU_CONVERT_INL_H_
#endif

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "core/dtype.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace gradops {
namespace cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// One element as float.
HWY_INLINE float LoadScalar(const float* p) { return *p; }
HWY_INLINE float LoadScalar(const hwy::bfloat16_t* p) {
  return BFloat16ToFloat(*reinterpret_cast<const uint16_t*>(p));
}
HWY_INLINE float LoadScalar(const hwy::float16_t* p) {
  return Float16ToFloat(*reinterpret_cast<const uint16_t*>(p));
}

template <class DF>
HWY_INLINE hn::Vec<DF> LoadF32(DF df, const float* p) {
  return hn::LoadU(df, p);
}
template <class DF>
HWY_INLINE hn::Vec<DF> LoadF32(DF df, const hwy::bfloat16_t* p) {
  const hn::Rebind<hwy::bfloat16_t, DF> dbf;
  return hn::PromoteTo(df, hn::LoadU(dbf, p));
}
template <class DF>
HWY_INLINE hn::Vec<DF> LoadF32(DF df, const hwy::float16_t* p) {
  const hn::Rebind<hwy::float16_t, DF> dh;
  return hn::PromoteTo(df, hn::LoadU(dh, p));
}

// Encode: float32 lanes as the storage type's bits (float32 lanes unchanged,
// 16-bit types as uint16 lanes), for plain or streaming stores.
template <class DF>
HWY_INLINE hn::Vec<DF> Encode(DF, hn::Vec<DF> v, const float*) {
  return v;
}

// Scalar math: bits = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16; NaN -> quiet NaN.
template <class DF>
HWY_INLINE hn::Vec<hn::Rebind<uint16_t, DF>> Encode(DF df, hn::Vec<DF> v, const hwy::bfloat16_t*) {
  const hn::RebindToUnsigned<DF> du32;
  const hn::RebindToSigned<DF> di32;
  const hn::Rebind<uint16_t, DF> du16;
  const auto bits = hn::BitCast(du32, v);
  const auto lsb = hn::And(hn::ShiftRight<16>(bits), hn::Set(du32, 1u));
  const auto rounded = hn::Add(bits, hn::Add(lsb, hn::Set(du32, 0x7FFFu)));
  const auto quiet_nan = hn::Or(bits, hn::Set(du32, 0x00400000u));
  const auto is_nan = hn::RebindMask(du32, hn::IsNaN(v));
  const auto out = hn::ShiftRight<16>(hn::IfThenElse(is_nan, quiet_nan, rounded));
  return hn::DemoteTo(du16, hn::BitCast(di32, out));
}

template <class DF>
HWY_INLINE hn::Vec<hn::Rebind<uint16_t, DF>> Encode(DF df, hn::Vec<DF> v, const hwy::float16_t*) {
  const hn::Rebind<uint16_t, DF> du16;
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2 && !defined(HWY_DISABLE_F16C)
  // vcvtps2ph with rounding mode 0: nearest, ties to even.
  const hn::Rebind<hwy::float16_t, DF> dh;
  return hn::BitCast(du16, hn::DemoteTo(dh, v));
#else
  HWY_ALIGN float lanes[hn::MaxLanes(df)];
  HWY_ALIGN uint16_t out[hn::MaxLanes(df)];
  hn::Store(v, df, lanes);
  for (size_t i = 0; i < hn::Lanes(df); ++i) out[i] = FloatToFloat16(lanes[i]);
  return hn::Load(du16, out);
#endif
}

// The storage bits a T* points at: float, or uint16_t for 16-bit types.
template <typename T>
using Bits = std::conditional_t<sizeof(T) == 4, float, uint16_t>;

template <class DF, typename T>
HWY_INLINE void StoreF32(DF df, hn::Vec<DF> v, T* p) {
  const auto e = Encode(df, v, static_cast<const T*>(p));
  hn::StoreU(e, hn::DFromV<decltype(e)>(), reinterpret_cast<Bits<T>*>(p));
}

// A non-temporal store (bypasses the caches): p must be aligned to the
// stored vector's size. Callers end a streaming pass with hwy::FlushStream.
template <class DF, typename T>
HWY_INLINE void StreamF32(DF df, hn::Vec<DF> v, T* p) {
  const auto e = Encode(df, v, static_cast<const T*>(p));
  hn::Stream(e, hn::DFromV<decltype(e)>(), reinterpret_cast<Bits<T>*>(p));
}

// The same for the last n < Lanes(df) elements of a row: lanes past n load as
// zero and are not stored.
template <class DF, typename T>
HWY_INLINE hn::Vec<DF> LoadF32Tail(DF df, const T* p, size_t n) {
  HWY_ALIGN T buffer[hn::MaxLanes(df)] = {};
  std::memcpy(buffer, p, n * sizeof(T));
  return LoadF32(df, buffer);
}

template <class DF, typename T>
HWY_INLINE void StoreF32Tail(DF df, hn::Vec<DF> v, T* p, size_t n) {
  HWY_ALIGN T buffer[hn::MaxLanes(df)];
  StoreF32(df, v, buffer);
  std::memcpy(p, buffer, n * sizeof(T));
}

}  // namespace HWY_NAMESPACE
}  // namespace cpu
}  // namespace gradops
HWY_AFTER_NAMESPACE();

#endif  // GRADOPS_CPU_CONVERT_INL_H_
