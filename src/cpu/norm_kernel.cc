// The SIMD row-block kernel of the norm core (see norm.h for the maths):
// pass 1 (norm_pass1-inl.h) computes each row's sums, pass 2
// (norm_pass2-inl.h) sweeps the columns once for the whole block or each row
// alone; here the kernels that put them together, a block at a time
// (BlockKernel) or each row's pass 2 beside the next row's pass 1
// (FusedBlock), and their dispatch.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/norm_kernel.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include <type_traits>

#include "cpu/norm.h"
#include "cpu/norm_pass1-inl.h"
#include "cpu/norm_pass2-inl.h"
#include "cpu/norm_terms-inl.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace gradops {
namespace cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// NormSplitPairs for this target's pairs.
void SplitPairsImpl(const float* in, int64_t n, float* out) {
  const int64_t L = static_cast<int64_t>(hn::Lanes(hn::ScalableTag<float>()));
  int64_t j = 0;
  for (; j + 2 * L <= n; j += 2 * L) {
    for (int64_t i = 0; i < L; ++i) out[j + i] = in[j + 2 * i], out[j + L + i] = in[j + 2 * i + 1];
  }
  for (; j < n; ++j) out[j] = in[j];
}

// Row r's constants of pass 2 into k at index `at`, from its sums:
//   a = inv_n * sum(g), b = inv_n * rstd * sum(g * xc), c = inv_n * rstd * sum(xc).
void SetRowConstants(const NormKernelParams& p, const NormBlock& block, int r, const RowSums& sums, RowConstants& k,
                     int at) {
  const float rstd = block.rstd[r];
  k.mean[at] = block.mean[r];
  k.rstd[at] = rstd;
  k.a[at] = sums.g * p.inv_n;
  k.b[at] = sums.gxc * rstd * p.inv_n;
  k.c[at] = sums.xc * rstd * p.inv_n;
}

template <NormKind kKind, typename T>
void BlockKernel(const NormKernelParams& p, const NormBlock& block) {
  // Pass 1: per-row constants of dx:
  //   a = inv_n * sum(g), b = inv_n * rstd * sum(g * xc), c = inv_n * rstd * sum(xc).
  // Rows swept alone add their dgamma/dbeta terms in pass 1 (two rows at
  // once where the block has two), so that pass 2 stores dx alone: its
  // streaming stores drain slowly, and the partials' stores would wait
  // behind them in the store queue.
  const bool acc = block.dgamma != nullptr;
  const bool alone = p.sweep_rows || block.rows == 1;
  // (Two rows hold one group's terms: no group ends at the first.)
  const bool one_group = block.rows == 1 || (block.rows == 2 && !(block.group_ends & 1u));
  const bool acc_in_pass1 = PartialsInPass1(kKind) && acc && p.want_dx && alone && one_group;
  RowConstants k;
  RowSums pass1[kMaxRowsAlone];
  if constexpr (PartialsInPass1(kKind)) {
    if (acc_in_pass1) {
      WithGroupPlace(block, [&](auto resume, auto close) HWY_ATTR {
        constexpr bool kResume = decltype(resume)::value, kClose = decltype(close)::value;
        const RowPartials out = PartialsOf<kClose>(block);
        block.rows == 2 ? SumRows<kKind, T, 2, true, kResume, kClose>(block, 0, p.N, out, pass1)
                        : SumRows<kKind, T, 1, true, kResume, kClose>(block, 0, p.N, out, pass1);
      });
    }
  }
  for (int r = 0; r < block.rows; ++r) {
    RowSums sums;  // zeros: a = b = c = 0 (no dx)
    if (p.want_dx) {
      if (acc_in_pass1) sums = pass1[r];
      else SumRows<kKind, T, 1>(block, r, p.N, RowPartials(), &sums);
    }
    SetRowConstants(p, block, r, sums, k, r);
  }
  // Pass 2: one sweep over the columns for the whole block, with the
  // outputs this kind and this call have.
  if constexpr (kKind == NormKind::kColumnSums) {
    SweepColumns<kKind, T, false, false, true>(p, block, k);
  } else if constexpr (kKind == NormKind::kLayerNormGrad) {  // dx and x_hat; no dgamma/dbeta partials
    p.want_res ? SweepColumns<kKind, T, true, true, false>(p, block, k)
               : SweepColumns<kKind, T, true, false, false>(p, block, k);
  } else if (p.want_dx) {
    acc && !acc_in_pass1 ? SweepColumns<kKind, T, true, false, true>(p, block, k)
                         : SweepColumns<kKind, T, true, false, false>(p, block, k);
  } else if (acc) {
    SweepColumns<kKind, T, false, false, true>(p, block, k);
  }
}

// Row r of a block as a block of one row: the fused sweep's pass 2 of it.
NormBlock RowAlone(const NormBlock& block, int r, bool last) {
  NormBlock row;
  row.rows = 1;
  row.x[0] = block.x[r];
  row.dy[0] = block.dy[r];
  row.dx[0] = block.dx[r];
  row.res[0] = block.res[r];
  row.mean[0] = block.mean[r];
  row.rstd[0] = block.rstd[r];
  if (last) row.next_x[0] = block.next_x[r], row.next_dy[0] = block.next_dy[r];
  row.gamma = block.gamma;
  row.split_gamma = block.split_gamma;
  return row;
}

// The fused sweep (NormKernelParams::fused_rows): rows alone, each row's
// pass 2 (from the cache, where its pass 1 left it) a step at a time beside
// the same step of the next row's pass 1 (from memory), so that each core
// reads the next row while it works on this one and no pass waits on memory
// alone. Each row adds its dgamma/dbeta terms in its pass 1 (RowSummer), in
// row order; the last row's pass 2 prefetches the row after the block
// (next_x), whose pass 1 then reads the cache. The same bits as the other
// sweeps: each row's sums take the same steps in the same chains. Streaming
// stores of dx where a row starts aligned for them, else plain ones.
template <NormKind kKind, typename T>
void FusedBlock(const NormKernelParams& p, const NormBlock& block) {
  const bool acc = PartialsInPass1(kKind) && block.dgamma != nullptr;
  const int64_t n = p.N;
  const bool native = p.bf16_instructions;
  RowSums sums;
  // Pass 1 of row r (with its dgamma/dbeta terms where kAcc); beside the
  // steps of row r - 1's pass 2 where `pass2`.
  const auto sum_row = [&](int r, auto pass2, auto has_acc, auto resume, auto close) HWY_ATTR {
    constexpr bool kAcc = decltype(has_acc)::value && PartialsInPass1(kKind);
    constexpr bool kResume = decltype(resume)::value, kClose = decltype(close)::value;
    const RowPartials out = kAcc ? PartialsOf<kClose>(block) : RowPartials();
    if constexpr (!decltype(pass2)::value) {
      return SumRows<kKind, T, 1, kAcc, kResume, kClose>(block, r, n, out, &sums);
    } else {
      RowSummer<kKind, T, 1, kAcc, kResume, kClose> summer(block, r, n, out);
      const int64_t end = summer.StepsEnd();
      const NormBlock row = RowAlone(block, r - 1, false);
      RowConstants k;
      SetRowConstants(p, block, r - 1, sums, k, 0);
      summer = p.want_res ? SweepRow<kKind, T, true, true, false>(row, 0, k, p.stream_dx, native, 0, end, summer)
                          : SweepRow<kKind, T, true, false, false>(row, 0, k, p.stream_dx, native, 0, end, summer);
      p.want_res ? ColumnsLeft<kKind, T, true, true, false>(row, k, p.stream_dx, native, end, n)
                 : ColumnsLeft<kKind, T, true, false, false>(row, k, p.stream_dx, native, end, n);
      summer.Tail(end);
      summer.Finish(&sums);
    }
  };
  const auto sum_row_at_place = [&](int r, auto pass2) HWY_ATTR {
    using No = std::false_type;
    if (!acc) return sum_row(r, pass2, No(), No(), No());
    WithRowPlace(block, r, [&](auto resume, auto close) HWY_ATTR {
      sum_row(r, pass2, std::true_type(), resume, close);
    });
  };
  sum_row_at_place(0, std::false_type());
  for (int r = 1; r < block.rows; ++r) sum_row_at_place(r, std::true_type());
  const int last = block.rows - 1;
  const NormBlock row = RowAlone(block, last, true);
  RowConstants k;
  SetRowConstants(p, block, last, sums, k, 0);
  // (SweepColumns flushes the streaming stores of the whole block.)
  p.want_res ? SweepColumns<kKind, T, true, true, false>(p, row, k)
             : SweepColumns<kKind, T, true, false, false>(p, row, k);
}

template <typename T>
void BlockKernelOf(const NormKernelParams& p, const NormBlock& block) {
  if (p.fused_rows) {
    switch (p.kind) {
      case NormKind::kLayerNorm: return FusedBlock<NormKind::kLayerNorm, T>(p, block);
      case NormKind::kLayerNormGrad: return FusedBlock<NormKind::kLayerNormGrad, T>(p, block);
      case NormKind::kRmsNorm: return FusedBlock<NormKind::kRmsNorm, T>(p, block);
      case NormKind::kColumnSums: break;  // no dx: never fused (ScheduleNorm)
    }
  }
  switch (p.kind) {
    case NormKind::kLayerNorm: return BlockKernel<NormKind::kLayerNorm, T>(p, block);
    case NormKind::kLayerNormGrad: return BlockKernel<NormKind::kLayerNormGrad, T>(p, block);
    case NormKind::kRmsNorm: return BlockKernel<NormKind::kRmsNorm, T>(p, block);
    case NormKind::kColumnSums: return BlockKernel<NormKind::kColumnSums, T>(p, block);
  }
}

// Blocks of rows on AVX-512, rows alone elsewhere (norm.h, SweepRow).
bool TargetSweepsRowsImpl() {
#if HWY_ARCH_X86
  return HWY_TARGET > HWY_AVX3;
#else
  return true;
#endif
}

void NormBlockKernelImpl(const NormKernelParams& params, const NormBlock& block) {
  switch (params.dtype) {
    case DType::kFloat32: return BlockKernelOf<float>(params, block);
    case DType::kFloat16: return BlockKernelOf<hwy::float16_t>(params, block);
    case DType::kBFloat16: return BlockKernelOf<hwy::bfloat16_t>(params, block);
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
HWY_EXPORT(TargetSweepsRowsImpl);
HWY_EXPORT(SplitPairsImpl);

bool NormTargetSweepsRows() { return HWY_DYNAMIC_DISPATCH(TargetSweepsRowsImpl)(); }

void NormSplitPairs(const float* in, int64_t n, float* out) { HWY_DYNAMIC_DISPATCH(SplitPairsImpl)(in, n, out); }

void NormBlockKernel(const NormKernelParams& params, const NormBlock& block) {
  HWY_DYNAMIC_DISPATCH(NormBlockKernelImpl)(params, block);
}
}  // namespace cpu
}  // namespace gradops
#endif
