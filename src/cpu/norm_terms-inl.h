// The norm core's per-vector maths (see norm.h), shared by both passes of
// the kernel (norm_pass1-inl.h, norm_kernel.cc).
// Per-target include guard, as Highway requires for *-inl.h files.
#if defined(GRADOPS_CPU_NORM_TERMS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef GRADOPS_CPU_NORM_TERMS_INL_H_
#undef GRADOPS_CPU_NORM_TERMS_INL_H_
#else
#define GRADOPS_CPU_NORM_TERMS_INL_H_
#endif

#include "cpu/norm.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace gradops {
namespace cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// The kernels are instantiated per kind and leave out the terms it lacks
// (norm.h): the bits of the general formula at fewer operations.
template <NormKind kKind>
struct Terms {
  static constexpr bool kMean = HasMean(kKind);    // x - mean
  static constexpr bool kScale = HasScale(kKind);  // * rstd
  static constexpr bool kA = HasA(kKind);          // sum(g), a
  static constexpr bool kC = HasC(kKind);          // sum(xc), c
  static constexpr bool kDbeta = HasDbeta(kKind);  // dbeta += dy
};

// x - mean, or x where the kind has no mean.
template <bool kMean, class V>
HWY_INLINE V Centered(V x, V mean) {
  if constexpr (kMean) return hn::Sub(x, mean);
  else return x;
}

// Per-row constants of pass 2, set for the block's rows only (a block is
// often a single row).
struct RowConstants {
  float mean[kMaxBlockRows], rstd[kMaxBlockRows];
  float a[kMaxBlockRows], b[kMaxBlockRows], c[kMaxBlockRows];
};

// Row r's constants in every lane.
template <class V>
struct RowVectors {
  V mean, rstd, a, b, c;
};
template <class DF>
HWY_INLINE RowVectors<hn::Vec<DF>> RowVectorsOf(DF df, const RowConstants& k, int r) {
  return {hn::Set(df, k.mean[r]), hn::Set(df, k.rstd[r]), hn::Set(df, k.a[r]), hn::Set(df, k.b[r]),
          hn::Set(df, k.c[r])};
}

// Pass 2 of one vector of columns, in the reference's grouping, so that
// infinities and NaN propagate alike and g - a and x_hat - c cancel exactly
// where the reference's terms do.
// Scalar math: x_hat = (x - mean) * rstd; dx = rstd * ((dy * gamma - a) - (x_hat - c) * b).
template <NormKind kKind, class V>
HWY_INLINE V XHatOfCentered(V xc, V rstd) {
  if constexpr (Terms<kKind>::kScale) return hn::Mul(xc, rstd);
  else return xc;
}
template <NormKind kKind, class V>
HWY_INLINE V XHat(V x, const RowVectors<V>& t) {
  return XHatOfCentered<kKind>(Centered<Terms<kKind>::kMean>(x, t.mean), t.rstd);
}
template <NormKind kKind, class V>
HWY_INLINE V Dx(V dy, V gamma, V xh, const RowVectors<V>& t) {
  using K = Terms<kKind>;
  V g = hn::Mul(dy, gamma), xh_c = xh;
  if constexpr (K::kA) g = hn::Sub(g, t.a);
  if constexpr (K::kC) xh_c = hn::Sub(xh, t.c);
  return hn::Mul(t.rstd, hn::NegMulAdd(xh_c, t.b, g));
}
// Scalar math: dgamma += dy * x_hat; dbeta += dy.
template <NormKind kKind, class V>
HWY_INLINE void Accumulate(V dy, V xh, V& dg, V& db) {
  dg = hn::MulAdd(dy, xh, dg);
  if constexpr (Terms<kKind>::kDbeta) db = hn::Add(db, dy);
}

}  // namespace HWY_NAMESPACE
}  // namespace cpu
}  // namespace gradops
HWY_AFTER_NAMESPACE();

#endif  // GRADOPS_CPU_NORM_TERMS_INL_H_
