// The SIMD span kernel of SiLU backward.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/silu_kernel.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include <algorithm>
#include <type_traits>

#include "cpu/convert-inl.h"
#include "cpu/silu.h"
#include "hwy/cache_control.h"
#include "hwy/contrib/math/math-inl.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace gradops {
namespace cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Scalar math: e = exp(-|x|); inv = 1 / (1 + e);
//              s = x >= 0 ? inv : e * inv;  1 - s = x >= 0 ? e * inv : inv;
//              dx = dy * s * (1 + x * (1 - s)).
// 1 - s comes from e directly, never as a difference, so it keeps full
// precision where s is close to 1. 1 / (1 + e), with 1 + e in [1, 2], is the
// hardware estimate refined by one Newton step, r = r0 * (2 - d * r0).
template <class DF, class V>
HWY_INLINE V SiluGrad(DF df, V dy, V x) {
  const auto one = hn::Set(df, 1.0f);
  const auto e = hn::Exp(df, hn::Neg(hn::Abs(x)));
  const auto d = hn::Add(one, e);
  const auto r0 = hn::ApproximateReciprocal(d);
  const auto inv = hn::Mul(r0, hn::NegMulAdd(d, r0, hn::Set(df, 2.0f)));
  const auto e_inv = hn::Mul(e, inv);
  const auto positive = hn::Ge(x, hn::Zero(df));
  const auto s = hn::IfThenElse(positive, inv, e_inv);
  const auto one_minus_s = hn::IfThenElse(positive, e_inv, inv);
  return hn::Mul(hn::Mul(dy, s), hn::MulAdd(x, one_minus_s, one));
}

// kDyStep/kXStep: 1 for a contiguous input, 0 for one broadcast element.
template <int kDyStep, int kXStep, bool kStream, typename T>
void Span(const T* dy, const T* x, T* dx, int64_t n) {  // dx may be dy or x (in place)
  const hn::ScalableTag<float> df;
  const int64_t L = static_cast<int64_t>(hn::Lanes(df));
  const auto dy0 = hn::Set(df, LoadScalar(dy));
  const auto x0 = hn::Set(df, LoadScalar(x));
  int64_t i = 0;
#ifdef GRADOPS_BFLOAT16_PAIRS
  if constexpr (std::is_same_v<T, hwy::bfloat16_t> && kDyStep && kXStep) {
    for (; i + 2 * L <= n; i += 2 * L) {  // two vectors per conversion (elementwise: any lane order)
      hn::Vec<decltype(df)> dy_a, dy_b, x_a, x_b;
      LoadPairF32(df, dy + i, dy_a, dy_b);
      LoadPairF32(df, x + i, x_a, x_b);
      StorePairF32(df, SiluGrad(df, dy_a, x_a), SiluGrad(df, dy_b, x_b), dx + i, kStream);
    }
  }
#endif
  for (; i + L <= n; i += L) {
    const auto vdy = kDyStep ? LoadF32(df, dy + i) : dy0;
    const auto vx = kXStep ? LoadF32(df, x + i) : x0;
    if constexpr (kStream) StreamF32(df, SiluGrad(df, vdy, vx), dx + i);
    else StoreF32(df, SiluGrad(df, vdy, vx), dx + i);
  }
  if constexpr (kStream) hwy::FlushStream();
  if (i < n) {
    const size_t left = static_cast<size_t>(n - i);
    const auto vdy = kDyStep ? LoadF32Tail(df, dy + i, left) : dy0;
    const auto vx = kXStep ? LoadF32Tail(df, x + i, left) : x0;
    StoreF32Tail(df, SiluGrad(df, vdy, vx), dx + i, left);
  }
}

template <typename T>
void SpanOf(const void* dy, int dy_step, const void* x, int x_step, void* dx, int64_t n, bool stream) {
  const T* a = static_cast<const T*>(dy);
  const T* b = static_cast<const T*>(x);
  T* out = static_cast<T*>(dx);
  const hn::ScalableTag<float> df;
  // The widest store: a float32 vector, or two vectors' worth of 16-bit values.
  const size_t vector_bytes = hn::Lanes(df) * sizeof(float);
  const uintptr_t misalign = reinterpret_cast<uintptr_t>(dx) % vector_bytes;
  if (stream && dy_step && x_step && misalign % sizeof(T) == 0) {
    // Plain stores up to the first aligned element, streaming ones after it.
    const int64_t head = std::min<int64_t>(n, static_cast<int64_t>((vector_bytes - misalign) % vector_bytes / sizeof(T)));
    Span<1, 1, false>(a, b, out, head);
    return Span<1, 1, true>(a + head, b + head, out + head, n - head);
  }
  if (dy_step && x_step) return Span<1, 1, false>(a, b, out, n);
  if (dy_step) return Span<1, 0, false>(a, b, out, n);
  if (x_step) return Span<0, 1, false>(a, b, out, n);
  return Span<0, 0, false>(a, b, out, n);
}

void SiluSpanImpl(DType dtype, const void* dy, int dy_step, const void* x, int x_step, void* dx, int64_t n,
                  bool stream) {
  switch (dtype) {
    case DType::kFloat32: return SpanOf<float>(dy, dy_step, x, x_step, dx, n, stream);
    case DType::kFloat16: return SpanOf<hwy::float16_t>(dy, dy_step, x, x_step, dx, n, stream);
    case DType::kBFloat16: return SpanOf<hwy::bfloat16_t>(dy, dy_step, x, x_step, dx, n, stream);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace cpu
}  // namespace gradops
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace gradops {
namespace cpu {
HWY_EXPORT(SiluSpanImpl);

void SiluSpan(DType dtype, const void* dy, int dy_step, const void* x, int x_step, void* dx, int64_t n,
              bool stream) {
  HWY_DYNAMIC_DISPATCH(SiluSpanImpl)(dtype, dy, dy_step, x, x_step, dx, n, stream);
}
}  // namespace cpu
}  // namespace gradops
#endif
