// The triad kernel, with plain or streaming (non-temporal) stores, and the
// two-array read.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/triad.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "cpu/triad.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace gradops {
namespace cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Scalar math: a[i] = b[i] + s * c[i].
void TriadImpl(float* a, const float* b, const float* c, float s, int64_t n, bool nontemporal) {
  const hn::ScalableTag<float> df;
  const int64_t L = static_cast<int64_t>(hn::Lanes(df));
  const auto vs = hn::Set(df, s);
  int64_t i = 0;
  if (nontemporal) {
    for (; i + L <= n; i += L) hn::Stream(hn::MulAdd(vs, hn::LoadU(df, c + i), hn::LoadU(df, b + i)), df, a + i);
  } else {
    for (; i + L <= n; i += L) hn::StoreU(hn::MulAdd(vs, hn::LoadU(df, c + i), hn::LoadU(df, b + i)), df, a + i);
  }
  for (; i < n; ++i) a[i] = b[i] + s * c[i];
}

// Scalar math: the sum of b[i] * c[i], in two vector sums (two FMA chains,
// each well within memory's time).
float ReadTwoImpl(const float* b, const float* c, int64_t n) {
  const hn::ScalableTag<float> df;
  const int64_t L = static_cast<int64_t>(hn::Lanes(df));
  auto sum0 = hn::Zero(df), sum1 = hn::Zero(df);
  int64_t i = 0;
  for (; i + 2 * L <= n; i += 2 * L) {
    sum0 = hn::MulAdd(hn::LoadU(df, b + i), hn::LoadU(df, c + i), sum0);
    sum1 = hn::MulAdd(hn::LoadU(df, b + i + L), hn::LoadU(df, c + i + L), sum1);
  }
  float sum = hn::GetLane(hn::SumOfLanes(df, hn::Add(sum0, sum1)));
  for (; i < n; ++i) sum += b[i] * c[i];
  return sum;
}

}  // namespace HWY_NAMESPACE
}  // namespace cpu
}  // namespace gradops
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace gradops {
namespace cpu {
HWY_EXPORT(TriadImpl);
HWY_EXPORT(ReadTwoImpl);

void Triad(float* a, const float* b, const float* c, float s, int64_t n, bool nontemporal) {
  HWY_DYNAMIC_DISPATCH(TriadImpl)(a, b, c, s, n, nontemporal);
}

float ReadTwo(const float* b, const float* c, int64_t n) { return HWY_DYNAMIC_DISPATCH(ReadTwoImpl)(b, c, n); }
}  // namespace cpu
}  // namespace gradops
#endif
