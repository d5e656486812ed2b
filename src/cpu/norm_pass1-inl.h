// Pass 1 of the norm kernel: each row's sums for the constants of dx, and
// (rows swept alone) their dgamma/dbeta terms added to the partials.
// Per-target include guard, as Highway requires for *-inl.h files.
#if defined(GRADOPS_CPU_NORM_PASS1_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef GRADOPS_CPU_NORM_PASS1_INL_H_
#undef GRADOPS_CPU_NORM_PASS1_INL_H_
#else
#define GRADOPS_CPU_NORM_PASS1_INL_H_
#endif

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "cpu/convert-inl.h"
#include "cpu/norm.h"
#include "cpu/norm_terms-inl.h"
#include "hwy/cache_control.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace gradops {
namespace cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// bfloat16 rows in split order (norm.h, NormPairStep): each whole step of
// 2 * Lanes columns from column 0 loads and stores as one pair of vectors
// (convert-inl.h, LoadPairF32), its even columns in the first vector and its
// odd ones in the second; gamma and the dgamma/dbeta partials are kept in
// that order (RunNorm), a row's tail in column order. No lane crosses in
// either conversion: two instructions widen a pair where widening its
// vectors alone takes four (docs/performance.md, attempts 40 and 52: in
// cache, rows swept alone 15% less time; every sweep in split order, at 2
// threads from memory, bfloat16 LayerNorm +1% to +9%). Targets of a fixed
// width, whose steps divide kSumTile.
template <typename T>
#if defined(GRADOPS_BFLOAT16_PAIRS) && !HWY_HAVE_SCALABLE
constexpr bool kSplitRows = std::is_same_v<T, hwy::bfloat16_t>;
static_assert(kSumTile % (2 * HWY_MAX_BYTES / 4) == 0, "a tile of the final sums holds whole steps");
#else
constexpr bool kSplitRows = false;
#endif

// The two vectors of a step of a row of T from p: in column order, or as a
// pair in split order (kSplitRows).
template <class DF, typename T>
HWY_INLINE void LoadStep(DF df, const T* p, hn::Vec<DF>& a, hn::Vec<DF>& b) {
#ifdef GRADOPS_BFLOAT16_PAIRS
  if constexpr (kSplitRows<T>) return LoadPairF32(df, p, a, b);
#endif
  a = LoadF32(df, p), b = LoadF32(df, p + hn::Lanes(df));
}

// Sums of a row, over xc = x - mean (rstd is applied once per row later).
struct RowSums {
  float g = 0, gxc = 0, xc = 0;  // sum(g), sum(g * xc), sum(xc)
};

// A row's running sums in pass 1: even and odd vectors in separate chains.
template <class V>
struct SumChains {
  V g0, g1, gx0, gx1, xc0, xc1;
};

// One vector's terms (g = dy * gamma, and xc) join chain 1 (kOdd) or 0.
template <NormKind kKind, bool kOdd, class V>
HWY_INLINE void AddSums(SumChains<V>& s, V g, V xc) {
  using K = Terms<kKind>;
  V& sum_g = kOdd ? s.g1 : s.g0;
  V& sum_gxc = kOdd ? s.gx1 : s.gx0;
  V& sum_xc = kOdd ? s.xc1 : s.xc0;
  if constexpr (K::kA) sum_g = hn::Add(sum_g, g);
  sum_gxc = hn::MulAdd(g, xc, sum_gxc);
  if constexpr (K::kC) sum_xc = hn::Add(sum_xc, xc);
}

// The chains' sums added into `total`, the chains from zero again.
template <class V>
HWY_INLINE void Fold(SumChains<V>& total, SumChains<V>& s) {
  total = SumChains<V>{hn::Add(total.g0, s.g0),   hn::Add(total.g1, s.g1),   hn::Add(total.gx0, s.gx0),
                       hn::Add(total.gx1, s.gx1), hn::Add(total.xc0, s.xc0), hn::Add(total.xc1, s.xc1)};
  const V zero = hn::Zero(hn::DFromV<V>());
  s = SumChains<V>{zero, zero, zero, zero, zero, zero};
}

template <NormKind kKind, class DF>
HWY_INLINE RowSums ReduceSums(DF df, const SumChains<hn::Vec<DF>>& s) {
  using K = Terms<kKind>;
  RowSums sums;
  if constexpr (K::kA) sums.g = hn::GetLane(hn::SumOfLanes(df, hn::Add(s.g0, s.g1)));
  sums.gxc = hn::GetLane(hn::SumOfLanes(df, hn::Add(s.gx0, s.gx1)));
  if constexpr (K::kC) sums.xc = hn::GetLane(hn::SumOfLanes(df, hn::Add(s.xc0, s.xc1)));
  return sums;
}

// A row's dgamma/dbeta terms at a step of 2 * Lanes columns, as its pass 2
// has them: dy and x_hat of the step's two vectors (RowSummer's kCarry).
template <class V>
struct StepTerms {
  V dy0, xh0, dy1, xh1;
};

// Where pass 1 puts its rows' dgamma/dbeta terms (kAcc): they join the sums
// of their group so far (kResume: open_*; else from zero), and at the
// group's last row (kClose) the chunk's.
struct RowPartials {
  const float* dg_in = nullptr;
  const float* db_in = nullptr;
  float* dg_out = nullptr;  // the open sums, or the chunk's (kClose)
  float* db_out = nullptr;
};

template <bool kClose>
RowPartials PartialsOf(const NormBlock& block) {
  RowPartials out;
  out.dg_in = block.open_dgamma;
  out.db_in = block.open_dbeta;
  out.dg_out = kClose ? block.dgamma : block.open_dgamma;
  out.db_out = kClose ? block.dbeta : block.open_dbeta;
  return out;
}

// f(resume, close) with the block's place in its group of dgamma/dbeta sums
// as std::bool_constant arguments, so that loops hold no branch on it:
// resume, the group's sums so far are in open_*; close, the group ends at
// the block's last row (and at no row before it: rows swept alone).
template <class F>
HWY_INLINE auto WithGroupPlace(const NormBlock& block, F&& f) {
  using Yes = std::true_type;
  using No = std::false_type;
  const bool close = block.group_ends >> (block.rows - 1) & 1u;
  if (block.resume) return close ? f(Yes(), Yes()) : f(Yes(), No());
  return close ? f(No(), Yes()) : f(No(), No());
}

// Software prefetch of rows read from memory: pass 1, and column sums
// without a pass 1. On AVX-512 targets (the block sweep: nothing else
// brings a block's rows in) a line of each input row this many bytes ahead
// per line read, where a row of each input spans kRowPrefetchMinRow bytes or
// more. Measured on an Intel Xeon (docs/performance.md, attempt 42), caches
// emptied before each call: 16-bit LayerNorm, RMSNorm and LayerNormGrad on
// rows of 8 KiB and more +4% to +15% at 2 threads, 0% to +12% at 1; float32
// rows of 16 KiB and more within 3%; LayerNormGradBeta 16-bit rows of 8 KiB
// and more +3% to +15%, float32 within 3%. Rows of 4 KiB (prefetching only
// their first half) lost 11-16% in float32 pass 1, so they go without.
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
constexpr int64_t kRowPrefetchAhead = 2048;
#else
constexpr int64_t kRowPrefetchAhead = 0;
#endif
constexpr int64_t kRowPrefetchMinRow = 8192;

// Columns of a row of T, in the row prefetches: kRowPrefetchAhead bytes.
template <typename T>
constexpr int64_t kRowPrefetchColumns = kRowPrefetchAhead / static_cast<int64_t>(sizeof(T));

// For a row of n values of T read `step` columns at a time: the columns j
// below which the step's lines kRowPrefetchColumns<T> ahead lie wholly within
// the row (0: no prefetch).
template <typename T>
int64_t RowPrefetchEnd(int64_t n, int64_t step) {
  const bool wide = n * static_cast<int64_t>(sizeof(T)) >= kRowPrefetchMinRow;
  return kRowPrefetchColumns<T> > 0 && wide ? std::max<int64_t>(0, n - kRowPrefetchColumns<T> - step + 1) : 0;
}

// A prefetch of each line of the `bytes` bytes from column c of a row of T
// (one line where bytes is under a line): every software prefetch of the
// norm kernels' rows goes through here.
template <typename T>
HWY_INLINE void PrefetchColumns(const void* row, int64_t c, int64_t bytes) {
  const char* at = static_cast<const char*>(row) + c * static_cast<int64_t>(sizeof(T));
  for (int64_t b = 0; b < bytes; b += 64) hwy::Prefetch(at + b);
}

// Pass 1 of kRows (1 or 2) rows from row r of the block, a step of 2 *
// Lanes columns at a time: SumRows below, or a step at a time beside another
// row's pass 2 (the fused sweep, norm_kernel.cc).
// Scalar math: xc = x - mean; g = dy * gamma; sums += {g, g * xc, xc}
// (sum(g) and sum(xc) only where the kind has them); with kAcc also
// dgamma += dy * xc * rstd, dbeta += dy, row after row, as pass 2 would:
// two rows load and store the partials once for both. Each row's vectors
// join two chains of sums, even and odd vectors of the steps, the tail's
// vectors the even chain: the same bits however the steps are taken. Every
// kFoldSteps steps the chains' sums are added into a row total and the
// chains start again from zero, so that no lane chains more than
// kFoldSteps values: a float32 row of 65536 columns on AVX2 chained 4096
// per lane, and its dx error (3.4e-7) was above oneDNN's (3.0e-7;
// docs/performance.md, attempt 83).
//
// kCarry (one row r, with kAcc): row r - 1's terms come first, as its pass
// 2 has them beside each step (Step(j, terms); its last columns from its x
// and dy in Tail), so that one load and store of the partials takes both
// rows' terms, in row order: the same bits as row after row.
template <NormKind kKind, typename T, int kRows, bool kAcc = false, bool kResume = false, bool kClose = false,
          bool kCarry = false>
class RowSummer {
  static_assert(kRows == 1 || kRows == 2, "one row or two");
  static_assert(!kCarry || (kRows == 1 && kAcc), "a row's terms are carried to one row's pass 1 with terms");
  using K = Terms<kKind>;
  using DF = hn::ScalableTag<float>;
  using V = hn::Vec<DF>;
  static constexpr int kLast = kRows - 1;
  static constexpr int kBefore = kCarry ? -1 : 0;  // the carried row, relative to r

 public:
  HWY_INLINE RowSummer(const NormBlock& block, int r, int64_t n, const RowPartials& out)
      : n_(n),
        x0_(static_cast<const T*>(block.x[r])),
        dy0_(static_cast<const T*>(block.dy[r])),
        x1_(static_cast<const T*>(block.x[r + kLast])),
        dy1_(static_cast<const T*>(block.dy[r + kLast])),
        gamma_(block.gamma),
        mean0_(hn::Set(DF(), block.mean[r])),
        mean1_(hn::Set(DF(), block.mean[r + kLast])),
        rstd0_(hn::Set(DF(), block.rstd[r])),
        rstd1_(hn::Set(DF(), block.rstd[r + kLast])),
        x_before_(static_cast<const T*>(block.x[r + kBefore])),
        dy_before_(static_cast<const T*>(block.dy[r + kBefore])),
        mean_before_(hn::Set(DF(), block.mean[r + kBefore])),
        rstd_before_(hn::Set(DF(), block.rstd[r + kBefore])),
        dg_in_(kClose ? out.dg_in : nullptr),  // (else dg_out_: see Partials)
        db_in_(kClose ? out.db_in : nullptr),
        dg_out_(out.dg_out),
        db_out_(out.db_out),
        prefetch_end_(RowPrefetchEnd<T>(n, 2 * Lanes())) {
    const V zero = hn::Zero(DF());
    s0_ = SumChains<V>{zero, zero, zero, zero, zero, zero};
    s1_ = t0_ = t1_ = s0_;
  }

  // Columns whose steps are whole: [0, StepsEnd()).
  HWY_INLINE int64_t StepsEnd() const { return n_ / (2 * Lanes()) * (2 * Lanes()); }

  // Columns [j, j + 2 * Lanes), their lines kRowPrefetchAhead bytes ahead
  // prefetched where the row is wide enough; `carried`, row r - 1's terms
  // there (kCarry; else unused). kFoldHere: the chains fold after every
  // kFoldSteps-th step (else Steps does).
  template <bool kFoldHere = true>
  HWY_INLINE void Step(int64_t j) {
    const V zero = hn::Zero(DF());
    Step<kFoldHere>(j, StepTerms<V>{zero, zero, zero, zero});
  }
  template <bool kFoldHere = true>
  HWY_INLINE void Step(int64_t j, const StepTerms<V>& carried) {
    if (j < prefetch_end_) {
      const int64_t ahead = j + kRowPrefetchColumns<T>;
      const int64_t bytes = 2 * Lanes() * static_cast<int64_t>(sizeof(T));
      PrefetchColumns<T>(x0_, ahead, bytes), PrefetchColumns<T>(dy0_, ahead, bytes);
      if constexpr (kRows == 2) PrefetchColumns<T>(x1_, ahead, bytes), PrefetchColumns<T>(dy1_, ahead, bytes);
    }
    const DF df;
    V xa_0, xb_0, dya_0, dyb_0, xa_1, xb_1, dya_1, dyb_1;
    LoadStep(df, x0_ + j, xa_0, xb_0), LoadStep(df, dy0_ + j, dya_0, dyb_0);
    if constexpr (kRows == 2) LoadStep(df, x1_ + j, xa_1, xb_1), LoadStep(df, dy1_ + j, dya_1, dyb_1);
    else xa_1 = xb_1 = dya_1 = dyb_1 = hn::Zero(df);
    const size_t L = static_cast<size_t>(Lanes());
    Vector<false, false>(j, xa_0, dya_0, xa_1, dya_1, carried.dy0, carried.xh0, L);
    Vector<true, false>(j + Lanes(), xb_0, dyb_0, xb_1, dyb_1, carried.dy1, carried.xh1, L);
    if constexpr (kFoldHere) {
      if ((j / (2 * Lanes()) + 1) % kFoldSteps == 0) FoldRows();
    }
  }

  // The whole steps, kFoldSteps at a time with a fold after each group: the
  // same bits as Step's fold after each kFoldSteps-th step, without its test
  // on every step.
  HWY_INLINE void Steps() {
    const int64_t end = StepsEnd(), group = kFoldSteps * 2 * Lanes();
    int64_t j = 0;
    for (; j + group <= end; FoldRows()) {
      for (const int64_t group_end = j + group; j < group_end; j += 2 * Lanes()) Step<false>(j);
    }
    for (; j < end; j += 2 * Lanes()) Step<false>(j);
  }

  // Columns [j, n): the row's last, after its steps.
  HWY_INLINE void Tail(int64_t j) {
    for (; j < n_; j += Lanes()) {
      const size_t left = static_cast<size_t>(std::min<int64_t>(n_ - j, Lanes()));
      const auto load = [&](const T* p) HWY_ATTR { return LoadF32Tail(DF(), p + j, left); };
      const V zero = hn::Zero(DF());
      V dyc = zero, xhc = zero;
      if constexpr (kCarry) {
        const V xc = hn::IfThenElseZero(hn::FirstN(DF(), left), Centered<K::kMean>(load(x_before_), mean_before_));
        dyc = load(dy_before_), xhc = XHatOfCentered<kKind>(xc, rstd_before_);
      }
      Vector<false, true>(j, load(x0_), load(dy0_), kRows == 2 ? load(x1_) : zero, kRows == 2 ? load(dy1_) : zero,
                          dyc, xhc, left);
    }
  }

  HWY_INLINE void FoldRows() {
    Fold(t0_, s0_);
    if constexpr (kRows == 2) Fold(t1_, s1_);
  }

  HWY_INLINE void Finish(RowSums* sums) {
    Fold(t0_, s0_);
    sums[0] = ReduceSums<kKind>(DF(), t0_);
    if constexpr (kRows == 2) {
      Fold(t1_, s1_);
      sums[1] = ReduceSums<kKind>(DF(), t1_);
    }
  }

 private:
  // (A constant on targets of fixed width: no register holds it.)
  static HWY_INLINE int64_t Lanes() { return static_cast<int64_t>(hn::Lanes(DF())); }

  // Columns [c, c + left) of the partials; the rows' loop has no other
  // stores. The pointers are members that no store can change. Before a
  // group's end the sums so far are read where they are written (dg_in and
  // dg_out are one array: one pointer live in the loop, not two).
  HWY_INLINE void Partials(int64_t c, V dy_0, V xc_0, V dy_1, V xc_1, V dy_c, V xh_c, size_t left) {
    const DF df;
    const bool whole = left == static_cast<size_t>(Lanes());
    const auto load = [&](const float* p) HWY_ATTR { return whole ? hn::LoadU(df, p) : LoadF32Tail(df, p, left); };
    const auto store = [&](V v, float* p) HWY_ATTR { whole ? hn::StoreU(v, df, p) : StoreF32Tail(df, v, p, left); };
    const V zero = hn::Zero(df);
    const float* dg_in = kClose ? dg_in_ : dg_out_;
    const float* db_in = kClose ? db_in_ : db_out_;
    V dg = kResume ? load(dg_in + c) : zero, db = dg;
    if constexpr (K::kDbeta) db = kResume ? load(db_in + c) : zero;
    if constexpr (kCarry) Accumulate<kKind>(dy_c, xh_c, dg, db);
    Accumulate<kKind>(dy_0, XHatOfCentered<kKind>(xc_0, rstd0_), dg, db);
    if constexpr (kRows == 2) Accumulate<kKind>(dy_1, XHatOfCentered<kKind>(xc_1, rstd1_), dg, db);
    if constexpr (kClose) {
      dg = hn::Add(load(dg_out_ + c), dg);
      if constexpr (K::kDbeta) db = hn::Add(load(db_out_ + c), db);
    }
    store(dg, dg_out_ + c);
    if constexpr (K::kDbeta) store(db, db_out_ + c);
  }

  // The vector at column c of each row, x and dy (its last `left` columns:
  // kTail; lanes past the row end are 0 and must add nothing, even when
  // mean is not finite), into the odd chains (kOdd) or the even; dy_c and
  // xh_c, the carried row's terms there (kCarry).
  template <bool kOdd, bool kTail>
  HWY_INLINE void Vector(int64_t c, V x_0, V dy_0, V x_1, V dy_1, V dy_c, V xh_c, size_t left) {
    const DF df;
    const V gm = kTail ? LoadF32Tail(df, gamma_ + c, left) : hn::LoadU(df, gamma_ + c);
    const auto row = [&](V x, V dy, V mean, SumChains<V>& s) HWY_ATTR {
      V xc = Centered<K::kMean>(x, mean);
      if constexpr (kTail) xc = hn::IfThenElseZero(hn::FirstN(df, left), xc);
      AddSums<kKind, kOdd>(s, hn::Mul(dy, gm), xc);
      return xc;
    };
    const V xc_0 = row(x_0, dy_0, mean0_, s0_);
    V xc_1 = x_1;
    if constexpr (kRows == 2) xc_1 = row(x_1, dy_1, mean1_, s1_);
    if constexpr (kAcc) Partials(c, dy_0, xc_0, dy_1, xc_1, dy_c, xh_c, left);
  }

  int64_t n_;
  const T *x0_, *dy0_, *x1_, *dy1_;
  const float* gamma_;
  V mean0_, mean1_, rstd0_, rstd1_;
  const T *x_before_, *dy_before_;  // the carried row (kCarry)
  V mean_before_, rstd_before_;
  const float *dg_in_, *db_in_;
  float *dg_out_, *db_out_;
  int64_t prefetch_end_;
  static constexpr int64_t kFoldSteps = 64;
  SumChains<V> s0_, s1_;  // the rows' chains since the last fold
  SumChains<V> t0_, t1_;  // and their totals before it
};

template <NormKind kKind, typename T, int kRows, bool kAcc = false, bool kResume = false, bool kClose = false>
void SumRows(const NormBlock& block, int r, int64_t n, const RowPartials& out, RowSums* sums) {
  RowSummer<kKind, T, kRows, kAcc, kResume, kClose> summer(block, r, n, out);
  summer.Steps();
  summer.Tail(summer.StepsEnd());
  summer.Finish(sums);
}

}  // namespace HWY_NAMESPACE
}  // namespace cpu
}  // namespace gradops
HWY_AFTER_NAMESPACE();

#endif  // GRADOPS_CPU_NORM_PASS1_INL_H_
