// The triad kernel, with plain or streaming (non-temporal) stores.
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

}  // namespace HWY_NAMESPACE
}  // namespace cpu
}  // namespace gradops
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace gradops {
namespace cpu {
HWY_EXPORT(TriadImpl);

void Triad(float* a, const float* b, const float* c, float s, int64_t n, bool nontemporal) {
  HWY_DYNAMIC_DISPATCH(TriadImpl)(a, b, c, s, n, nontemporal);
}
}  // namespace cpu
}  // namespace gradops
#endif
