// Bulk conversions through convert-inl.h.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/convert.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include <type_traits>

#include "cpu/convert-inl.h"
#include "cpu/convert.h"
#include "hwy/cache_control.h"
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
void FromFloat(const float* in, T* out, int64_t n, bool native) {
  const hn::ScalableTag<float> df;
  const int64_t L = static_cast<int64_t>(hn::Lanes(df));
  int64_t i = 0;
#ifdef GRADOPS_ORDERED_PAIRS
  if constexpr (std::is_same_v<T, hwy::bfloat16_t>) {
    for (; i + 2 * L <= n; i += 2 * L) {
      const hn::Repartition<uint16_t, decltype(df)> du16;
      const auto bits = EncodeOrderedPair(df, hn::LoadU(df, in + i), hn::LoadU(df, in + i + L), native, out);
      hn::StoreU(bits, du16, reinterpret_cast<uint16_t*>(out + i));
    }
  }
#else
  (void)native;
#endif
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

void ConvertFromFloatImpl(DType dtype, const float* in, void* out, int64_t n, bool native) {
  switch (dtype) {
    case DType::kFloat32: return FromFloat(in, static_cast<float*>(out), n, native);
    case DType::kFloat16: return FromFloat(in, static_cast<hwy::float16_t*>(out), n, native);
    case DType::kBFloat16: return FromFloat(in, static_cast<hwy::bfloat16_t*>(out), n, native);
  }
}

// sum[j] += run[j] for j < n, for each of `runs` runs of float32 from in,
// `stride` apart, in run order, in float64. Each run's lines prefetch the
// next run's: runs of a few KiB, one every stride, are too short for the
// hardware prefetchers (docs/performance.md, attempt 58).
void AddRunsFloat64Impl(const float* in, int64_t runs, int64_t stride, int64_t n, double* sum) {
  constexpr int64_t kLine = 64 / sizeof(float);
  for (int64_t r = 0; r < runs; ++r, in += stride) {
    const bool ahead = r + 1 < runs;
    int64_t j = 0;
#if HWY_HAVE_FLOAT64
    const hn::ScalableTag<double> dd;
    const hn::Rebind<float, decltype(dd)> df;
    const int64_t L = static_cast<int64_t>(hn::Lanes(dd));
    for (; j + kLine <= n; j += kLine) {
      if (ahead) hwy::Prefetch(in + stride + j);
      for (int64_t i = j; i < j + kLine; i += L) {
        hn::StoreU(hn::Add(hn::LoadU(dd, sum + i), hn::PromoteTo(dd, hn::LoadU(df, in + i))), dd, sum + i);
      }
    }
#endif
    for (; j < n; ++j) sum[j] += static_cast<double>(in[j]);
  }
}

// The pair orders of convert.h as plain loops, which the compiler
// vectorizes for each target (element at a time, the final sums of a
// LayerNorm backward of 1 x 16384 bfloat16 spent a third of its time here),
// the split of float32 steps of two vectors by Highway.
// kPlusZero: each value plus +0 (float32 sums of one run, convert.h).
template <bool kSplit, bool kPlusZero = false, typename In>
void PermutePairsOf(const In* HWY_RESTRICT in, int64_t n, int64_t step, float* HWY_RESTRICT out) {
  const auto value = [](In v) { return kPlusZero ? static_cast<float>(v) + 0.0f : static_cast<float>(v); };
  const int64_t half = step / 2, whole = step > 0 ? n / step * step : 0;
  int64_t j = 0;
#if HWY_TARGET != HWY_SCALAR
  if constexpr (kSplit && std::is_same_v<In, float>) {
    // Steps of two vectors (the norm kernels' own): each vector's even values
    // and odd ones. (As the loop below, gamma's split took 13% of a LayerNorm
    // backward of 1 x 16384 bfloat16.)
    const hn::ScalableTag<float> df;
    const int64_t L = static_cast<int64_t>(hn::Lanes(df));
    for (; step == 2 * L && j < whole; j += step) {
      const auto lo = hn::LoadU(df, in + j), hi = hn::LoadU(df, in + j + L);
      hn::StoreU(hn::ConcatEven(df, hi, lo), df, out + j);
      hn::StoreU(hn::ConcatOdd(df, hi, lo), df, out + j + L);
    }
  }
#endif
  for (; j < whole; j += step) {
    const In* HWY_RESTRICT from = in + j;
    float* HWY_RESTRICT to = out + j;
    for (int64_t i = 0; i < half; ++i) {
      if constexpr (kSplit) {
        to[i] = value(from[2 * i]), to[half + i] = value(from[2 * i + 1]);
      } else {
        to[2 * i] = value(from[i]), to[2 * i + 1] = value(from[half + i]);
      }
    }
  }
  for (; j < n; ++j) out[j] = value(in[j]);
}

void SplitPairsImpl(const float* in, int64_t n, int64_t step, float* out) { PermutePairsOf<true>(in, n, step, out); }
void UnsplitPairsImpl(const float* in, int64_t n, int64_t step, float* out) {
  PermutePairsOf<false>(in, n, step, out);
}
void UnsplitSumImpl(const float* in, int64_t n, int64_t step, float* out) {
  PermutePairsOf<false, true>(in, n, step, out);
}
void UnsplitPairsFloat64Impl(const double* in, int64_t n, int64_t step, float* out) {
  PermutePairsOf<false>(in, n, step, out);
}

}  // namespace HWY_NAMESPACE
}  // namespace cpu
}  // namespace gradops
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include <atomic>

namespace gradops {
namespace cpu {
namespace {

bool CpuHasBFloat16Instructions() {
#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
  return __builtin_cpu_supports("avx512bf16");
#else
  return false;
#endif
}

std::atomic<bool> bfloat16_instructions_allowed{true};

}  // namespace

bool BFloat16Instructions() {
  static const bool has = CpuHasBFloat16Instructions();
  return has && bfloat16_instructions_allowed.load(std::memory_order_relaxed);
}

void SetBFloat16Instructions(bool allowed) { bfloat16_instructions_allowed.store(allowed, std::memory_order_relaxed); }

HWY_EXPORT(ConvertToFloatImpl);
HWY_EXPORT(ConvertFromFloatImpl);
HWY_EXPORT(AddRunsFloat64Impl);
HWY_EXPORT(SplitPairsImpl);
HWY_EXPORT(UnsplitPairsImpl);
HWY_EXPORT(UnsplitPairsFloat64Impl);
HWY_EXPORT(UnsplitSumImpl);

void ConvertToFloat(DType dtype, const void* in, float* out, int64_t n) {
  HWY_DYNAMIC_DISPATCH(ConvertToFloatImpl)(dtype, in, out, n);
}
void ConvertFromFloat(DType dtype, const float* in, void* out, int64_t n) {
  HWY_DYNAMIC_DISPATCH(ConvertFromFloatImpl)(dtype, in, out, n, BFloat16Instructions());
}
void AddRunsFloat64(const float* in, int64_t runs, int64_t stride, int64_t n, double* sum) {
  HWY_DYNAMIC_DISPATCH(AddRunsFloat64Impl)(in, runs, stride, n, sum);
}
void SplitPairs(const float* in, int64_t n, int64_t step, float* out) {
  HWY_DYNAMIC_DISPATCH(SplitPairsImpl)(in, n, step, out);
}
void UnsplitPairs(const float* in, int64_t n, int64_t step, float* out) {
  HWY_DYNAMIC_DISPATCH(UnsplitPairsImpl)(in, n, step, out);
}
void UnsplitSum(const float* in, int64_t n, int64_t step, float* out) {
  HWY_DYNAMIC_DISPATCH(UnsplitSumImpl)(in, n, step, out);
}
void UnsplitPairs(const double* in, int64_t n, int64_t step, float* out) {
  HWY_DYNAMIC_DISPATCH(UnsplitPairsFloat64Impl)(in, n, step, out);
}
}  // namespace cpu
}  // namespace gradops
#endif
