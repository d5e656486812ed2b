// The SIMD span kernel of SiLU backward.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/silu_kernel.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include <cstring>
#include <type_traits>

#include "cpu/convert-inl.h"
#include "cpu/convert.h"
#include "cpu/silu.h"
#include "cpu/streaming.h"
#include "hwy/cache_control.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace gradops {
namespace cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// e^t for t <= 0; 0 below t = -86, where e^t < 5e-38 and the scaling below
// would leave the normal range. Scalar math: n = round(t / ln 2); r = t -
// n * ln 2 (with FMA one step, ln 2 rounded to float: r off by n * 1.9e-9,
// at most 2.4e-7); e^t = p(r) * 2^n with p of degree 5 fitted to e^r on
// [-ln 2 / 2, ln 2 / 2] for the least largest relative error (1.9e-7
// evaluated in float32, p(0) = 1 exactly; the degree-6 Taylor polynomial's
// was 2.5e-7). Each takes an operation off g's dependent chain, which bounds
// its speed (docs/performance.md, attempt 69; a 16-bit x computed with
// degree 4 lost float16's precision near g's root, attempt 65).
template <class DF, class V>
HWY_INLINE V ExpNonPositive(DF df, V t) {
  const hn::RebindToSigned<DF> di;
  // Adding 1.5 * 2^23 rounds t / ln 2 to an integer n held in the low
  // mantissa bits; shifted up by 23, those bits are n's exponent increment.
  const auto kRound = hn::Set(df, 12582912.0f);
  const auto shifted = hn::MulAdd(t, hn::Set(df, 1.44269504088896341f), kRound);
  const auto n = hn::Sub(shifted, kRound);
#if HWY_NATIVE_FMA
  const V r = hn::MulAdd(n, hn::Set(df, -0.693147182f), t);  // one rounding: off by n * 1.9e-9
#else
  // Without FMA n * ln 2 would be rounded (off by 4e-6 at n = 104): ln 2 in
  // two parts, the first's products exact.
  V r = hn::MulAdd(n, hn::Set(df, -0.693145751953125f), t);
  r = hn::MulAdd(n, hn::Set(df, -1.428606765330187045e-6f), r);
#endif
  // p(r) = (c0 + c1 r) + r^2 * ((c2 + c3 r) + r^2 * (c4 + c5 r)): Estrin's
  // scheme, three FMAs deep where Horner's is five.
  const auto r2 = hn::Mul(r, r);
  const auto p01 = hn::MulAdd(r, hn::Set(df, 0.999999702f), hn::Set(df, 1.0f));
  const auto p23 = hn::MulAdd(r, hn::Set(df, 0.166676357f), hn::Set(df, 0.499991506f));
  const auto p45 = hn::MulAdd(r, hn::Set(df, 0.00829031505f), hn::Set(df, 0.0418979302f));
  const auto p = hn::MulAdd(hn::MulAdd(p45, r2, p23), r2, p01);
  const auto scaled = hn::BitCast(df, hn::Add(hn::BitCast(di, p), hn::ShiftLeft<23>(hn::BitCast(di, shifted))));
  return hn::IfThenElseZero(hn::Ge(t, hn::Set(df, -86.0f)), scaled);
}

// How the span gets g: looked up in the table of 16-bit x, or computed with
// 1 / (1 + e) by a division or by the reciprocal estimate (silu.h,
// SiluDivides). Fixed for a whole span, so its loops test nothing per vector.
enum class SlopeBy { kTable, kDivision, kEstimate };
constexpr bool Divides(SlopeBy by) { return by == SlopeBy::kDivision; }

// 1 / d: a division (kDivide), or on x86 the hardware estimate r refined
// from its relative error e = 1 - d * r: with AVX-512's 14 bits, one Newton
// step r + r * e (error e^2); with the 12 bits before it, r * (1 + e + e^2)
// (error e^3, about 2^-36; one Newton step left 1 / 2 off by an ulp, at
// 0.49999997), an operation and a dependent step shorter than two Newton
// steps (docs/performance.md, attempt 81). Other architectures divide
// (NEON's estimate has 8 bits).
template <bool kDivide, class DF, class V>
HWY_INLINE V Reciprocal(DF df, V d) {
#if HWY_ARCH_X86
  if constexpr (kDivide) return hn::Div(hn::Set(df, 1.0f), d);
  const auto r = hn::ApproximateReciprocal(d);
  const auto e = hn::NegMulAdd(d, r, hn::Set(df, 1.0f));
  if constexpr (HWY_TARGET <= HWY_AVX3) return hn::MulAdd(r, e, r);
  return hn::MulAdd(hn::MulAdd(e, e, e), r, r);
#else
  return hn::Div(hn::Set(df, 1.0f), d);
#endif
}

// g(x) = s * (1 + x * (1 - s)), s = sigmoid(x): dx = dy * g(x). Scalar
// math: e = exp(-|x|); inv = 1 / (1 + e);
//       x >= 0: s = inv,     1 - s = e * inv;
//       x < 0:  s = e * inv, 1 - s = inv;
// taken as s = z * inv and x * (1 - s) = y * inv, with z = 1, y = x * e for
// x >= 0 and z = e, y = x for x < 0: z and y are ready before inv, so only
// two operations follow the reciprocal on g's dependent chain, where the
// selects of s and 1 - s after e * inv made four (docs/performance.md,
// attempt 81). 1 - s comes from e directly, never as a difference, so it
// keeps full precision where s is close to 1. (s + x * s * (1 - s), with s
// * (1 - s) = e * inv * inv for either sign, saves a select and was 3x more
// accurate near g's root, but where e underflows (x < -86) it gives +0, not
// the -0 of the reference's rounding: attempt 67.)
template <bool kDivide, class DF, class V>
HWY_INLINE V SiluSlope(DF df, V x) {
  const auto one = hn::Set(df, 1.0f);
  const auto e = ExpNonPositive(df, hn::Or(x, hn::SignBit(df)));  // -|x|
  const auto inv = Reciprocal<kDivide>(df, hn::Add(one, e));
  const auto positive = hn::Ge(x, hn::Zero(df));
  const auto y = hn::Mul(x, hn::IfThenElse(positive, e, one));
  const auto s = hn::Mul(hn::IfThenElse(positive, one, e), inv);
  return hn::Mul(s, hn::MulAdd(y, inv, one));
}

// g of Lanes(df) x: looked up by their bits in the table of g (16-bit x;
// silu_table.h, built by SiluSlope), or computed: the same bits either way.
template <SlopeBy kBy, class DF, typename T>
HWY_INLINE hn::Vec<DF> Slope(DF df, const T* x, const float* table) {
  static_assert(kBy != SlopeBy::kTable || sizeof(T) == 2, "a table for 16-bit x only");
  if constexpr (kBy != SlopeBy::kTable) return SiluSlope<Divides(kBy)>(df, LoadF32(df, x));
  const hn::RebindToSigned<DF> di32;
  const auto bits = hn::LoadU(hn::Rebind<uint16_t, DF>(), reinterpret_cast<const uint16_t*>(x));
  return hn::GatherIndex(df, table, hn::PromoteTo(di32, bits));
}

#ifdef GRADOPS_BFLOAT16_PAIRS
// The same for 2 * Lanes(df) bfloat16 x, in split order (convert-inl.h).
template <SlopeBy kBy, class DF>
HWY_INLINE void SlopePair(DF df, const hwy::bfloat16_t* x, const float* table, hn::Vec<DF>& g_a, hn::Vec<DF>& g_b) {
  if constexpr (kBy != SlopeBy::kTable) {
    LoadPairF32(df, x, g_a, g_b);
    g_a = SiluSlope<Divides(kBy)>(df, g_a);
    g_b = SiluSlope<Divides(kBy)>(df, g_b);
    return;
  }
  const hn::RebindToUnsigned<DF> du32;
  const hn::RebindToSigned<DF> di32;
  const auto bits = hn::LoadU(du32, reinterpret_cast<const uint32_t*>(x));  // x's values 2j and 2j + 1
  g_a = hn::GatherIndex(df, table, hn::BitCast(di32, hn::And(bits, hn::Set(du32, 0xFFFFu))));
  g_b = hn::GatherIndex(df, table, hn::BitCast(di32, hn::ShiftRight<16>(bits)));
}
#endif

// Software prefetch of the inputs this many bytes ahead: the loop's
// arithmetic keeps too few loads in flight for memory to stay busy. On an
// AVX2-only Zen 3, a stand-alone streaming loop with 16 FMAs per 16 values
// went from 14.6 to 19.1 GB/s at 2 threads with prefetches 1 KiB ahead (the
// triad 19.6 in the same runs). On an AVX-512 Intel Xeon (docs/performance.md,
// attempt 41), SiLU backward at 2 threads: float32 26.8 -> 35.4 GB/s at 1 KiB,
// 36.1 at 2 KiB; bfloat16 12.4 -> 28.8 and 29.6 (its hardware prefetchers
// alone kept half the bandwidth idle). Zen 4 was not measured with them.
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
constexpr int64_t kPrefetchAhead = 2048;
#else
constexpr int64_t kPrefetchAhead = 1024;
#endif

// A line of each contiguous input kPrefetchAhead bytes past element i, once
// per line: at the step (of `step` elements, a divisor of a line's) where i
// enters a new line; nothing past the n elements.
template <int kDyStep, int kXStep, typename T>
HWY_INLINE void PrefetchAhead(const T* dy, const T* x, int64_t i, int64_t step, int64_t n) {
  constexpr int64_t kAhead = kPrefetchAhead / static_cast<int64_t>(sizeof(T));
  constexpr int64_t kLine = 64 / static_cast<int64_t>(sizeof(T));
  if (kAhead == 0 || (i & (kLine - 1)) >= step || i + kAhead >= n) return;
  if constexpr (kDyStep) hwy::Prefetch(dy + i + kAhead);
  if constexpr (kXStep) hwy::Prefetch(x + i + kAhead);
}

// kDyStep/kXStep: 1 for a contiguous input, 0 for one broadcast element.
// kBy: how g is found (`table`: g of 16-bit x, silu_table.h).
// `native`: bfloat16 narrowed by the CPU's instruction where it has one.
template <int kDyStep, int kXStep, bool kStream, SlopeBy kBy, typename T>
void Span(const T* dy, const T* x, T* dx, int64_t n, const float* table, bool native) {  // dx may be dy or x
  const hn::ScalableTag<float> df;
  const int64_t L = static_cast<int64_t>(hn::Lanes(df));
  const auto dy0 = kDyStep ? hn::Zero(df) : hn::Set(df, LoadScalar(dy));  // of a broadcast dy
  const auto g0 = [&]() HWY_ATTR {  // g of a broadcast x, found as Slope finds it
    if constexpr (kXStep) return hn::Zero(df);
    if constexpr (kBy == SlopeBy::kTable) return hn::Set(df, table[*reinterpret_cast<const uint16_t*>(x)]);
    return SiluSlope<Divides(kBy)>(df, hn::Set(df, LoadScalar(x)));
  }();
  // dx of the L values of x from xs (unless x is broadcast), given their dy.
  const auto grad = [&](hn::Vec<decltype(df)> vdy, const T* xs) HWY_ATTR {
    if constexpr (!kXStep) return hn::Mul(vdy, g0);
    return hn::Mul(vdy, Slope<kBy>(df, xs, table));
  };
  int64_t i = 0;
#ifdef GRADOPS_BFLOAT16_PAIRS
  if constexpr (std::is_same_v<T, hwy::bfloat16_t> && kDyStep && kXStep) {
    for (; i + 2 * L <= n; i += 2 * L) {  // two vectors per conversion, in split order (convert-inl.h)
      PrefetchAhead<kDyStep, kXStep>(dy, x, i, 2 * L, n);
      hn::Vec<decltype(df)> dy_a, dy_b, g_a, g_b;
      LoadPairF32(df, dy + i, dy_a, dy_b);
      SlopePair<kBy>(df, x + i, table, g_a, g_b);
      StorePairF32(df, hn::Mul(dy_a, g_a), hn::Mul(dy_b, g_b), dx + i, kStream, native);
    }
  }
#else
  (void)native;
#endif
#ifdef GRADOPS_ORDERED_PAIRS
  if constexpr (std::is_same_v<T, hwy::float16_t> && kDyStep && kXStep) {
    const hn::Repartition<uint16_t, decltype(df)> du16;
    for (; i + 2 * L <= n; i += 2 * L) {  // two vectors per store: whole lines
      PrefetchAhead<kDyStep, kXStep>(dy, x, i, 2 * L, n);
      const auto a = grad(LoadF32(df, dy + i), x + i), b = grad(LoadF32(df, dy + i + L), x + i + L);
      Put(du16, EncodeOrderedPair(df, a, b, native, dx), reinterpret_cast<uint16_t*>(dx + i), kStream);
    }
  }
#endif
  for (; i + L <= n; i += L) {
    PrefetchAhead<kDyStep, kXStep>(dy, x, i, L, n);
    const auto vdy = kDyStep ? LoadF32(df, dy + i) : dy0;
    if constexpr (kStream) StreamF32(df, grad(vdy, x + i), dx + i);
    else StoreF32(df, grad(vdy, x + i), dx + i);
  }
  if constexpr (kStream) hwy::FlushStream();
  if (i < n) {
    const size_t left = static_cast<size_t>(n - i);
    const auto vdy = kDyStep ? LoadF32Tail(df, dy + i, left) : dy0;
    HWY_ALIGN T rest[hn::MaxLanes(df)] = {};  // zeros past the end: harmless, and not stored
    if (kXStep) std::memcpy(rest, x + i, left * sizeof(T));
    StoreF32Tail(df, grad(vdy, rest), dx + i, left);
  }
}

template <SlopeBy kBy, typename T>
void SpanOf(const void* dy, int dy_step, const void* x, int x_step, void* dx, int64_t n, const float* table,
            bool stream, bool native) {
  const T* a = static_cast<const T*>(dy);
  const T* b = static_cast<const T*>(x);
  T* out = static_cast<T*>(dx);
  const hn::ScalableTag<float> df;
  // The widest store: a float32 vector, or two vectors' worth of 16-bit values.
  const int64_t head = ElementsToAlignment(dx, hn::Lanes(df) * sizeof(float), sizeof(T), n);
  if (stream && dy_step && x_step && head >= 0) {
    // Plain stores up to the first aligned element, streaming ones after it.
    Span<1, 1, false, kBy>(a, b, out, head, table, native);
    return Span<1, 1, true, kBy>(a + head, b + head, out + head, n - head, table, native);
  }
  if (dy_step && x_step) return Span<1, 1, false, kBy>(a, b, out, n, table, native);
  if (dy_step) return Span<1, 0, false, kBy>(a, b, out, n, table, native);
  if (x_step) return Span<0, 1, false, kBy>(a, b, out, n, table, native);
  return Span<0, 0, false, kBy>(a, b, out, n, table, native);
}

// g looked up where there is a table (16-bit x), else computed.
template <typename T>
void SpanOf(const void* dy, int dy_step, const void* x, int x_step, void* dx, int64_t n, const float* table,
            bool divide, bool stream, bool native) {
  if constexpr (sizeof(T) == 2) {
    if (table != nullptr) return SpanOf<SlopeBy::kTable, T>(dy, dy_step, x, x_step, dx, n, table, stream, native);
  }
  if (divide) return SpanOf<SlopeBy::kDivision, T>(dy, dy_step, x, x_step, dx, n, nullptr, stream, native);
  SpanOf<SlopeBy::kEstimate, T>(dy, dy_step, x, x_step, dx, n, nullptr, stream, native);
}

// The target's hardware gather width (silu.h).
int GatherBitsImpl() {
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
  return 512;
#elif HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2
  return 256;
#else
  return 0;
#endif
}

// g(x) for all 65536 bit patterns of a 16-bit T, by SiluSlope.
template <bool kDivide, typename T>
void SlopesOf(float* g) {
  static_assert(sizeof(T) == 2, "16-bit x");
  const hn::ScalableTag<float> df;
  const size_t L = hn::Lanes(df);  // a power of two, at most 65536
  HWY_ALIGN T xs[hn::MaxLanes(df)];
  for (size_t bits = 0; bits < (size_t{1} << 16); bits += L) {
    for (size_t j = 0; j < L; ++j) {
      const uint16_t b = static_cast<uint16_t>(bits + j);
      std::memcpy(&xs[j], &b, sizeof(b));
    }
    hn::StoreU(SiluSlope<kDivide>(df, LoadF32(df, xs)), df, g + bits);
  }
}

void SiluSlopesImpl(DType dtype, bool divide, float* g) {  // dtype: kFloat16 or kBFloat16 (silu.h)
  if (dtype == DType::kFloat16) return divide ? SlopesOf<true, hwy::float16_t>(g) : SlopesOf<false, hwy::float16_t>(g);
  divide ? SlopesOf<true, hwy::bfloat16_t>(g) : SlopesOf<false, hwy::bfloat16_t>(g);
}

void SiluSpanImpl(DType dtype, const void* dy, int dy_step, const void* x, int x_step, void* dx, int64_t n,
                  const float* table, bool divide, bool stream, bool native) {
  switch (dtype) {
    case DType::kFloat32:
      return SpanOf<float>(dy, dy_step, x, x_step, dx, n, nullptr, divide, stream, native);
    case DType::kFloat16:
      return SpanOf<hwy::float16_t>(dy, dy_step, x, x_step, dx, n, table, divide, stream, native);
    case DType::kBFloat16:
      return SpanOf<hwy::bfloat16_t>(dy, dy_step, x, x_step, dx, n, table, divide, stream, native);
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
HWY_EXPORT(SiluSlopesImpl);
HWY_EXPORT(GatherBitsImpl);

void SiluSlopes(DType dtype, bool divide, float* g) { HWY_DYNAMIC_DISPATCH(SiluSlopesImpl)(dtype, divide, g); }

int SiluGatherBits() { return HWY_DYNAMIC_DISPATCH(GatherBitsImpl)(); }

void SiluSpan(DType dtype, const void* dy, int dy_step, const void* x, int x_step, void* dx, int64_t n,
              const float* table, bool divide, bool stream) {
  HWY_DYNAMIC_DISPATCH(SiluSpanImpl)
  (dtype, dy, dy_step, x, x_step, dx, n, table, divide, stream, BFloat16Instructions());
}
}  // namespace cpu
}  // namespace gradops
#endif
