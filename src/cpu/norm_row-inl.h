// Pass 2 of one row at a time, in storage order: rows swept alone
// (NormKernelParams::sweep_rows, blocks of one row) and the fused sweep's
// rows (beside the next row's pass 1), and how pass 2 encodes its outputs
// (the block sweep's Columns, norm_kernel.cc, stores them the same way).
// Per-target include guard, as Highway requires for *-inl.h files.
#if defined(GRADOPS_CPU_NORM_ROW_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef GRADOPS_CPU_NORM_ROW_INL_H_
#undef GRADOPS_CPU_NORM_ROW_INL_H_
#else
#define GRADOPS_CPU_NORM_ROW_INL_H_
#endif

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "cpu/convert-inl.h"
#include "cpu/norm.h"
#include "cpu/norm_pass1-inl.h"
#include "cpu/norm_terms-inl.h"
#include "cpu/streaming.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace gradops {
namespace cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// 16-bit rows are stored by ordered pairs of vectors where the target has
// them: whole lines per store, and bfloat16 at fewer instructions.
template <typename T>
#ifdef GRADOPS_ORDERED_PAIRS
constexpr bool kPairedStores = sizeof(T) == 2;
#else
constexpr bool kPairedStores = false;
#endif

// Outputs in the storage type (16-bit values as uint16 lanes): kPer = 2
// vectors as one pair (a step: in split order where kSplitRows), else a alone.
template <typename T, int kPer, class DF>
HWY_INLINE auto EncodeOutputs(DF df, hn::Vec<DF> a, hn::Vec<DF> b, bool native) {
  if constexpr (kPer == 2) {
#ifdef GRADOPS_BFLOAT16_PAIRS
    if constexpr (kSplitRows<T>) return EncodeSplitPair(df, a, b, native);
#endif
#ifdef GRADOPS_ORDERED_PAIRS
    if constexpr (!kSplitRows<T>) return EncodeOrderedPair(df, a, b, native, static_cast<const T*>(nullptr));
#endif
  } else {
    (void)b, (void)native;
    return Encode(df, a, static_cast<const T*>(nullptr));
  }
}

// Nothing beside a step of pass 2 (SweepRow's `beside`).
struct NothingBeside {
  template <class Carried>
  HWY_INLINE void Step(int64_t, const Carried&) const {}
};

// A row's outputs of a step of pass 2 (kPer vectors per store, above).
template <typename T, int kPer, class DF>
HWY_INLINE void PutStep(DF df, T* out, hn::Vec<DF> a, hn::Vec<DF> b, bool stream, bool native) {
  if constexpr (kPer == 2) {
    const auto e = EncodeOutputs<T, 2>(df, a, b, native);
    Put(hn::DFromV<decltype(e)>(), e, reinterpret_cast<Bits<T>*>(out), stream);
  } else {
    const auto ea = EncodeOutputs<T, 1>(df, a, b, native), eb = EncodeOutputs<T, 1>(df, b, a, native);
    Put(hn::DFromV<decltype(ea)>(), ea, reinterpret_cast<Bits<T>*>(out), stream);
    Put(hn::DFromV<decltype(eb)>(), eb, reinterpret_cast<Bits<T>*>(out + hn::Lanes(df)), stream);
  }
}

// The row of SweepRow: its pointers (no restrict: an output may be an input
// in place, gradops/ops.h) and the row `rows` after it, to prefetch (or null).
template <typename T>
struct SweptRow {
  const T* x;
  const T* dy;
  T* dx;
  T* res;
  const char* next_x;
  const char* next_dy;
};

// A step of SweepRow's loop: columns [j, j + 2 * Lanes) of the row (and
// near's step beside them), for the row's place in its group of
// dgamma/dbeta sums: the group's sums so far (kResume; else from zero) take
// this row's terms, and at the group's last row (kClose) join the chunk's.
// With kPrefetch, the same bytes of the next row's x and dy from column j
// are prefetched. Everything it reads comes by
// value: vector stores may alias any memory, so a loop that reads through
// references (a lambda's captures) reads them again after every store
// (docs/performance.md, attempt 56: a dozen loads per step and the column
// index kept in memory). Every load of a step comes before its stores, the
// loads of the step beside it too: a store followed by a load with the same
// low 12 address bits (dx, x and the partials often sit at one offset within
// their pages, and rows of a multiple of 4 KiB keep it) waits for it. Beside
// stores of dx to row r - 1 (fused sweep), loads of row r after them cost
// float16 LayerNorm 1024x16384 at 1 thread 40% in one layout (8.7 against
// 14.2 GB/s).
template <NormKind kKind, typename T, bool kDx, bool kRes, bool kAcc, bool kResume, bool kClose, bool kPrefetch,
          class Beside>
HWY_INLINE void RowStep(SweptRow<T> row, const float* gamma, RowPartials partials,
                        RowVectors<hn::Vec<hn::ScalableTag<float>>> t, int64_t j, bool stream, bool native,
                        Beside& near) {
  using K = Terms<kKind>;
  const hn::ScalableTag<float> df;
  using V = hn::Vec<decltype(df)>;
  const int64_t L = static_cast<int64_t>(hn::Lanes(df));
  constexpr int kPer = kPairedStores<T> ? 2 : 1;  // vectors per store
  static_assert(kPer == 2 || !kSplitRows<T>, "a step in split order is stored as one pair");
  if constexpr (kPrefetch) {
    const int64_t step_bytes = 2 * L * static_cast<int64_t>(sizeof(T));
    PrefetchColumns<T>(row.next_x, j, step_bytes);
    PrefetchColumns<T>(row.next_dy, j, step_bytes);
  }
  V x0, x1, dy0, dy1;
  LoadStep(df, row.x + j, x0, x1);
  LoadStep(df, row.dy + j, dy0, dy1);
  const V xh0 = XHat<kKind>(x0, t), xh1 = XHat<kKind>(x1, t);
  V dg0 = hn::Zero(df), dg1 = dg0, db0 = dg0, db1 = dg0;
  if constexpr (kAcc) {
    if constexpr (kResume) {
      dg0 = hn::LoadU(df, partials.dg_in + j), dg1 = hn::LoadU(df, partials.dg_in + j + L);
      if constexpr (K::kDbeta) db0 = hn::LoadU(df, partials.db_in + j), db1 = hn::LoadU(df, partials.db_in + j + L);
    }
    Accumulate<kKind>(dy0, xh0, dg0, db0);
    Accumulate<kKind>(dy1, xh1, dg1, db1);
    if constexpr (kClose) {
      dg0 = hn::Add(hn::LoadU(df, partials.dg_out + j), dg0);
      dg1 = hn::Add(hn::LoadU(df, partials.dg_out + j + L), dg1);
      if constexpr (K::kDbeta) {
        db0 = hn::Add(hn::LoadU(df, partials.db_out + j), db0);
        db1 = hn::Add(hn::LoadU(df, partials.db_out + j + L), db1);
      }
    }
  }
  V dx0 = x0, dx1 = x1;
  if constexpr (kDx) {
    dx0 = Dx<kKind>(dy0, hn::LoadU(df, gamma + j), xh0, t);
    dx1 = Dx<kKind>(dy1, hn::LoadU(df, gamma + j + L), xh1, t);
  }
  near.Step(j, StepTerms<V>{dy0, xh0, dy1, xh1});
  if constexpr (kAcc) {
    hn::StoreU(dg0, df, partials.dg_out + j), hn::StoreU(dg1, df, partials.dg_out + j + L);
    if constexpr (K::kDbeta) hn::StoreU(db0, df, partials.db_out + j), hn::StoreU(db1, df, partials.db_out + j + L);
  }
  if constexpr (kDx) PutStep<T, kPer>(df, row.dx + j, dx0, dx1, stream, native);
  if constexpr (kRes) PutStep<T, kPer>(df, row.res + j, xh0, xh1, false, native);
}

// SweepRow's loop over columns [j, end), a step of 2 * Lanes columns at a
// time (end - j a multiple of it): a line of the next row's x and dy per
// line of this row's (kPrefetch), the steps of a line taken together where
// a line holds several (16-bit rows of 256 bits: two), the first prefetching.
// Whether it prefetches is a template argument, and the steps of a line
// need no step count; rows alone also have their loop for each kind of
// store of dx (SweepRow), so that no step tests either.
template <NormKind kKind, typename T, bool kDx, bool kRes, bool kAcc, bool kResume, bool kClose, bool kPrefetch,
          class Beside>
HWY_INLINE Beside RowSteps(SweptRow<T> row, const float* gamma, RowPartials partials,
                           RowVectors<hn::Vec<hn::ScalableTag<float>>> t, int64_t j, int64_t end, bool stream,
                           bool native, Beside near) {
  const int64_t step = 2 * static_cast<int64_t>(hn::Lanes(hn::ScalableTag<float>()));
  // Steps per line, from the widest vectors (a scalable target's may be
  // shorter: it then prefetches a line more often than it needs to).
  constexpr int kPerLine = kPrefetch ? static_cast<int>(std::max<size_t>(1, 64 / (HWY_MAX_BYTES / 2 * sizeof(T)))) : 1;
  if constexpr (kPerLine > 1) {
    for (; j + kPerLine * step <= end; j += kPerLine * step) {
      RowStep<kKind, T, kDx, kRes, kAcc, kResume, kClose, true>(row, gamma, partials, t, j, stream, native, near);
      for (int i = 1; i < kPerLine; ++i) {
        RowStep<kKind, T, kDx, kRes, kAcc, kResume, kClose, false>(row, gamma, partials, t, j + i * step, stream,
                                                                    native, near);
      }
    }
  }
  for (; j < end; j += step) {
    RowStep<kKind, T, kDx, kRes, kAcc, kResume, kClose, kPrefetch>(row, gamma, partials, t, j, stream, native, near);
  }
  return near;
}

// Row r of a block swept row by row (a block of one row, or of rows alone:
// NormKernelParams::sweep_rows), columns [j, end) two vectors a step (end -
// j a multiple of 2 * Lanes): the same arithmetic as Columns, the row's
// constants held across the whole row and, with kAcc (when pass 1 has not
// added them: BlockKernel), its dgamma/dbeta group sums through memory
// (open_dgamma, then the chunk's at the group's last row), since a lone row
// has no rows to hold them across in registers. A block sweep stores dx to
// every row of its block in turn, one step apart; a row alone is one write
// stream, whose stores never precede a load of the same columns of another
// row (no 4 KiB aliasing). While this row computes from the cache, a later
// row's x and dy (next_x[r]: the row `rows` after it) are prefetched, a line
// of each per line of this row, so that memory keeps working through pass 2:
// that row's pass 1 then reads from cache. j is a multiple of 2 * Lanes
// where rows are in split order (kSplitRows).
//
// Beside each step at column j, beside.Step(j, terms): the fused sweep
// takes a step of the next rows' pass 1 there (FusedBlock), which may add
// this row's dgamma/dbeta terms (`terms`, StepTerms) with its own. The loop holds a
// copy of `beside` in registers and leaves it in `beside` after it. Inlined
// where it is called, so that the copy is registers and not memory: where
// the compiler called it instead, LayerNormGrad float32 16384x1024 ran 14%
// slower at 2 threads.
template <NormKind kKind, typename T, bool kDx, bool kRes, bool kAcc, class Beside>
HWY_INLINE void SweepRow(const NormBlock& block, int r, const RowConstants& k, bool stream, bool native, int64_t j,
                         int64_t end, Beside& beside) {
  // (Beside the fused sweep's steps, pass 1 reads the next row itself: no
  // prefetch, nor registers for it, in that loop.)
  constexpr bool kPrefetchNext = std::is_same_v<Beside, NothingBeside>;
  // (The last row of a chunk has no row to prefetch: its own, from the cache.)
  const void* next_x = block.next_x[r] != nullptr ? block.next_x[r] : block.x[r];
  const void* next_dy = block.next_x[r] != nullptr ? block.next_dy[r] : block.dy[r];
  const SweptRow<T> row{static_cast<const T*>(block.x[r]),
                        static_cast<const T*>(block.dy[r]),
                        static_cast<T*>(block.dx[r]),
                        static_cast<T*>(block.res[r]),
                        static_cast<const char*>(next_x),
                        static_cast<const char*>(next_dy)};
  const auto t = RowVectorsOf(hn::ScalableTag<float>(), k, r);
  // dx streams where `stream` and its first store is aligned for it.
  const int64_t store_bytes = static_cast<int64_t>(hn::Lanes(hn::ScalableTag<float>()) * sizeof(T)) *
                              (kPairedStores<T> ? 2 : 1);
  stream = stream && reinterpret_cast<uintptr_t>(row.dx + j) % store_bytes == 0;
  const auto steps = [&](auto resume, auto close) HWY_ATTR {
    constexpr bool kResume = decltype(resume)::value, kClose = decltype(close)::value;
    const RowPartials partials = PartialsOf<kClose>(block);
    const auto run = [&](bool streams) HWY_ATTR {
      beside = RowSteps<kKind, T, kDx, kRes, kAcc, kResume, kClose, kPrefetchNext>(row, block.gamma, partials, t, j,
                                                                                    end, streams, native, beside);
    };
    // Rows alone: a loop for each store (no test in either); the fused
    // sweep's one loop, with a copy of `beside` in registers, tests it.
    if (kPrefetchNext && kDx) {
      stream ? run(true) : run(false);
    } else {
      run(stream);
    }
  };
  if constexpr (kAcc) {
    WithGroupPlace(block, steps);
  } else {
    steps(std::false_type(), std::false_type());
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace cpu
}  // namespace gradops
HWY_AFTER_NAMESPACE();

#endif  // GRADOPS_CPU_NORM_ROW_INL_H_
