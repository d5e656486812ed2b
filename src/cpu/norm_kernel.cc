// The SIMD row-block kernel of the norm core (see norm.h for the maths).
// Pass 1 computes each row's sums; pass 2 sweeps the columns once for the
// whole block: dx, x_hat and the dgamma/dbeta partials from the same loads,
// the partials held in registers across the block's rows.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/norm_kernel.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "cpu/convert-inl.h"
#include "cpu/norm.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace gradops {
namespace cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

struct RowSums {
  float g = 0, gx = 0, x = 0;  // sum(g), sum(g * x_hat), sum(x_hat)
};

// Scalar math: x_hat = (x - mean) * rstd; g = dy * gamma;
//              sums += {g, g * x_hat, x_hat}.
template <typename T>
RowSums SumRow(const T* HWY_RESTRICT x, const T* HWY_RESTRICT dy, const float* HWY_RESTRICT gamma,
               int64_t n, float mean, float rstd, bool want_x) {
  const hn::ScalableTag<float> df;
  const int64_t L = static_cast<int64_t>(hn::Lanes(df));
  const auto vmean = hn::Set(df, mean), vrstd = hn::Set(df, rstd);
  auto g0 = hn::Zero(df), g1 = hn::Zero(df), gx0 = hn::Zero(df), gx1 = hn::Zero(df);
  auto x0 = hn::Zero(df), x1 = hn::Zero(df);
  int64_t j = 0;
  for (; j + 2 * L <= n; j += 2 * L) {
    const auto xh0 = hn::Mul(hn::Sub(LoadF32(df, x + j), vmean), vrstd);
    const auto xh1 = hn::Mul(hn::Sub(LoadF32(df, x + j + L), vmean), vrstd);
    const auto ga = hn::Mul(LoadF32(df, dy + j), hn::LoadU(df, gamma + j));
    const auto gb = hn::Mul(LoadF32(df, dy + j + L), hn::LoadU(df, gamma + j + L));
    g0 = hn::Add(g0, ga);
    g1 = hn::Add(g1, gb);
    gx0 = hn::MulAdd(ga, xh0, gx0);
    gx1 = hn::MulAdd(gb, xh1, gx1);
    x0 = hn::Add(x0, xh0);
    x1 = hn::Add(x1, xh1);
  }
  for (; j < n; j += L) {
    const size_t left = static_cast<size_t>(n - j);
    const bool full = left >= static_cast<size_t>(L);
    const auto vx = full ? LoadF32(df, x + j) : LoadF32Tail(df, x + j, left);
    const auto vdy = full ? LoadF32(df, dy + j) : LoadF32Tail(df, dy + j, left);
    const auto vg = full ? hn::LoadU(df, gamma + j) : LoadF32Tail(df, gamma + j, left);
    // Lanes past the row end must add nothing, even when mean or rstd is not finite.
    const auto valid = hn::FirstN(df, left);
    const auto xh = hn::IfThenElseZero(valid, hn::Mul(hn::Sub(vx, vmean), vrstd));
    const auto g = hn::Mul(vdy, vg);
    g0 = hn::Add(g0, g);
    gx0 = hn::MulAdd(g, xh, gx0);
    x0 = hn::Add(x0, xh);
  }
  RowSums sums;
  sums.g = hn::GetLane(hn::SumOfLanes(df, hn::Add(g0, g1)));
  sums.gx = hn::GetLane(hn::SumOfLanes(df, hn::Add(gx0, gx1)));
  if (want_x) sums.x = hn::GetLane(hn::SumOfLanes(df, hn::Add(x0, x1)));
  return sums;
}

template <typename T>
void BlockKernel(const NormKernelParams& p, const NormBlock& block) {
  const hn::ScalableTag<float> df;
  const int64_t L = static_cast<int64_t>(hn::Lanes(df));
  const int rows = block.rows;
  const int64_t n = p.N;
  const bool want_acc = block.dgamma != nullptr;

  // Pass 1: per-row coefficients of dx.
  float a[kMaxBlockRows] = {}, b[kMaxBlockRows] = {}, c[kMaxBlockRows] = {};
  if (p.want_dx) {
    for (int r = 0; r < rows; ++r) {
      const RowSums s = SumRow(static_cast<const T*>(block.x[r]), static_cast<const T*>(block.dy[r]),
                               block.gamma, n, block.mean[r], block.rstd[r],
                               p.kind == NormKind::kLayerNormGrad);
      a[r] = p.kind == NormKind::kRmsNorm ? 0.0f : s.g * p.inv_n;
      b[r] = s.gx * p.inv_n;
      c[r] = p.kind == NormKind::kLayerNormGrad ? s.x * p.inv_n : 0.0f;
    }
  }

  // Pass 2, one column vector at a time across the block's rows.
  // Scalar math: x_hat = (x - mean) * rstd; dx = rstd * ((dy * gamma - a) - (x_hat - c) * b);
  //              dgamma += dy * x_hat; dbeta += dy.
  for (int64_t j = 0; j < n; j += L) {
    const size_t left = static_cast<size_t>(n - j);
    const bool full = left >= static_cast<size_t>(L);
    const auto vgamma = p.want_dx ? (full ? hn::LoadU(df, block.gamma + j) : LoadF32Tail(df, block.gamma + j, left))
                                  : hn::Zero(df);
    auto dgamma = hn::Zero(df), dbeta = hn::Zero(df);
    if (want_acc) {
      dgamma = full ? hn::LoadU(df, block.dgamma + j) : LoadF32Tail(df, block.dgamma + j, left);
      dbeta = full ? hn::LoadU(df, block.dbeta + j) : LoadF32Tail(df, block.dbeta + j, left);
    }
    for (int r = 0; r < rows; ++r) {
      const T* HWY_RESTRICT x = static_cast<const T*>(block.x[r]) + j;
      const T* HWY_RESTRICT dy = static_cast<const T*>(block.dy[r]) + j;
      const auto vx = full ? LoadF32(df, x) : LoadF32Tail(df, x, left);
      const auto vdy = full ? LoadF32(df, dy) : LoadF32Tail(df, dy, left);
      const auto vrstd = hn::Set(df, block.rstd[r]);
      const auto xh = hn::Mul(hn::Sub(vx, hn::Set(df, block.mean[r])), vrstd);
      if (p.want_dx) {
        const auto g = hn::Sub(hn::Mul(vdy, vgamma), hn::Set(df, a[r]));
        const auto t = hn::Mul(hn::Sub(xh, hn::Set(df, c[r])), hn::Set(df, b[r]));
        const auto vdx = hn::Mul(vrstd, hn::Sub(g, t));
        T* out = static_cast<T*>(block.dx[r]) + j;
        if (full) StoreF32(df, vdx, out); else StoreF32Tail(df, vdx, out, left);
      }
      if (p.want_res) {
        T* out = static_cast<T*>(block.res[r]) + j;
        if (full) StoreF32(df, xh, out); else StoreF32Tail(df, xh, out, left);
      }
      if (want_acc) {
        dgamma = hn::MulAdd(vdy, xh, dgamma);
        dbeta = hn::Add(dbeta, vdy);
      }
    }
    if (want_acc) {
      if (full) {
        hn::StoreU(dgamma, df, block.dgamma + j);
        hn::StoreU(dbeta, df, block.dbeta + j);
      } else {
        StoreF32Tail(df, dgamma, block.dgamma + j, left);
        StoreF32Tail(df, dbeta, block.dbeta + j, left);
      }
    }
  }
}

void NormBlockKernelImpl(const NormKernelParams& params, const NormBlock& block) {
  switch (params.dtype) {
    case DType::kFloat32: return BlockKernel<float>(params, block);
    case DType::kFloat16: return BlockKernel<hwy::float16_t>(params, block);
    case DType::kBFloat16: return BlockKernel<hwy::bfloat16_t>(params, block);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace cpu
}  // namespace gradops
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace gradops {
namespace cpu {
HWY_EXPORT(NormBlockKernelImpl);

void NormBlockKernel(const NormKernelParams& params, const NormBlock& block) {
  HWY_DYNAMIC_DISPATCH(NormBlockKernelImpl)(params, block);
}
}  // namespace cpu
}  // namespace gradops
#endif
