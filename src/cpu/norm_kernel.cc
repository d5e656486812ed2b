// The SIMD row-block kernel of the norm core (see norm.h for the maths).
// Pass 1 (norm_pass1-inl.h) computes each row's sums; pass 2, here, sweeps
// the columns once for the whole block (dx, x_hat and the dgamma/dbeta
// partials from the same loads, the partials held in registers across the
// block's rows), or each row alone (norm_row-inl.h), or each row beside
// the next row's pass 1 (the fused sweep, FusedBlock).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/norm_kernel.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include <algorithm>
#include <type_traits>

#include "cpu/convert-inl.h"
#include "cpu/norm.h"
#include "cpu/norm_pass1-inl.h"
#include "cpu/norm_row-inl.h"
#include "cpu/norm_terms-inl.h"
#include "cpu/streaming.h"
#include "hwy/cache_control.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace gradops {
namespace cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Column vectors unrolled per row: enough to amortize each row's constants
// without spilling registers.
constexpr int kUnroll = (HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3) ? 4 : 2;

// kVecs column vectors from column j (or, with kTail, the row's last
// `left` < L columns) across the block's rows, rows outer so that each row's
// constants are loaded once per kVecs vectors, the dgamma/dbeta partials
// held in registers across the rows. Flags are template parameters so the
// loop holds no branches but one: with dx, where the driver gives the next
// block's rows (NormSchedule::prefetch_next_block), each row prefetches its
// successor's lines at these columns, so that memory works through pass 2.
//
// 16-bit dx waits one row (kDefer): a row's dx stays, encoded, in registers
// and is stored, store by store, after the next row has loaded the same
// columns. The columns of rows a multiple of 4 KiB apart share their low 12
// address bits, and where dx sits at x's and dy's offset within a page (as
// most allocators leave large tensors) a load that follows a store with the
// same bits waits for it as if it depended on it (4 KiB aliasing). Measured
// at 2 threads (docs/performance.md, attempt 25): 16-bit LayerNorm and
// RMSNorm rows of 4096 columns and more +8-22%, other layouts unchanged;
// float32 (four full vectors to hold) and LayerNormGrad (two outputs) did
// not gain, so they store each row at its end as before.
template <NormKind kKind, typename T, int kVecs, bool kTail, bool kDx, bool kRes, bool kAcc, class DF>
HWY_INLINE void Columns(DF df, const NormBlock& block, const RowConstants& k, bool stream, bool native, int64_t j,
                        size_t left) {
  using K = Terms<kKind>;
  using V = hn::Vec<DF>;
  const size_t L = hn::Lanes(df);
  const auto load = [&](const auto* p) HWY_ATTR {
    if constexpr (kTail) return LoadF32Tail(df, p, left);
    else return LoadF32(df, p);
  };
  // A store writes kPer vectors' outputs: 16-bit values by pairs, which are
  // steps (from a multiple of 2 * L columns) where rows are in split order.
  constexpr bool kPairs = kPairedStores<T> && !kTail && kVecs % 2 == 0;
  constexpr int kPer = kPairs ? 2 : 1;
  constexpr int kStores = kVecs / kPer;
  constexpr bool kDefer = !kTail && kDx && !kRes && sizeof(T) == 2;
  const auto encode = [&](V a, V b) HWY_ATTR { return EncodeOutputs<T, kPer>(df, a, b, native); };
  using E = decltype(encode(V(), V()));
  // A row's encoded outputs (dx, x_hat), kStores of each, and where they go.
  struct Row {
    E dx0, dx1, dx2, dx3, res0, res1, res2, res3;
    T* dx;
    T* res;
    bool stream;
  };
  const auto pick = [](auto& v0, auto& v1, auto& v2, auto& v3, auto i) -> auto& {
    if constexpr (decltype(i)::value == 0) return v0;
    else if constexpr (decltype(i)::value == 1) return v1;
    else if constexpr (decltype(i)::value == 2) return v2;
    else return v3;
  };
  const auto put = [&](const Row& row, auto s) HWY_ATTR {
    const hn::DFromV<E> de;
    const size_t at = decltype(s)::value * kPer * L;
    if constexpr (kDx) {
      Put(de, pick(row.dx0, row.dx1, row.dx2, row.dx3, s), reinterpret_cast<Bits<T>*>(row.dx + at), row.stream);
    }
    if constexpr (kRes) {
      Put(de, pick(row.res0, row.res1, row.res2, row.res3, s), reinterpret_cast<Bits<T>*>(row.res + at), false);
    }
  };
  using S0 = std::integral_constant<int, 0>;
  using S1 = std::integral_constant<int, 1>;
  using S2 = std::integral_constant<int, 2>;
  using S3 = std::integral_constant<int, 3>;
  const auto each_store = [&](auto&& f) HWY_ATTR {
    f(S0());
    if constexpr (kStores > 1) f(S1());
    if constexpr (kStores > 2) f(S2());
    if constexpr (kStores > 3) f(S3());
  };
  // Per vector v: gamma, and the dgamma/dbeta partials held across the rows.
  V g0 = hn::Zero(df), g1 = g0, g2 = g0, g3 = g0;
  V dg0 = g0, dg1 = g0, dg2 = g0, dg3 = g0, db0 = g0, db1 = g0, db2 = g0, db3 = g0;
  const auto each_vector = [&](auto&& f) HWY_ATTR {
    f(0, g0, dg0, db0);
    if constexpr (kVecs > 1) f(1, g1, dg1, db1);
    if constexpr (kVecs > 2) f(2, g2, dg2, db2);
    if constexpr (kVecs > 3) f(3, g3, dg3, db3);
  };
  each_vector([&](size_t v, V& gamma, V& dg, V& db) HWY_ATTR {
    if constexpr (kDx) gamma = load(block.gamma + j + v * L);
    if (kAcc && block.resume) {
      dg = load(block.open_dgamma + j + v * L);
      if constexpr (K::kDbeta) db = load(block.open_dbeta + j + v * L);
    }
  });
  const auto store = [&](V sum, float* p) HWY_ATTR {
    if constexpr (kTail) StoreF32Tail(df, sum, p, left);
    else hn::StoreU(sum, df, p);
  };
  // A group ends: its sums join the chunk's, and the next group's start from 0.
  const auto close_group = [&]() HWY_ATTR {
    each_vector([&](size_t v, V&, V& dg, V& db) HWY_ATTR {
      store(hn::Add(load(block.dgamma + j + v * L), dg), block.dgamma + j + v * L);
      dg = hn::Zero(df);
      if constexpr (K::kDbeta) {
        store(hn::Add(load(block.dbeta + j + v * L), db), block.dbeta + j + v * L);
        db = hn::Zero(df);
      }
    });
  };
  Row previous{};  // kDefer: the row whose dx waits
  const bool prefetch_next = kDx && !kTail && block.next_x[0] != nullptr;
  for (int r = 0; r < block.rows; ++r) {
    const T* x = static_cast<const T*>(block.x[r]) + j;
    const T* dy = static_cast<const T*>(block.dy[r]) + j;
    if (prefetch_next && block.next_x[r] != nullptr) {  // the next block's row, as far along
      PrefetchColumns<T>(block.next_x[r], j, kVecs * L * sizeof(T));
      PrefetchColumns<T>(block.next_dy[r], j, kVecs * L * sizeof(T));
    }
    Row row{};
    row.dx = kDx ? static_cast<T*>(block.dx[r]) + j : nullptr;
    row.res = kRes ? static_cast<T*>(block.res[r]) + j : nullptr;
    // Streaming needs every store aligned (SweepColumns aligns j where it can).
    row.stream = stream && reinterpret_cast<uintptr_t>(row.dx) % (L * sizeof(T) * kPer) == 0;
    const RowVectors<V> t = RowVectorsOf(df, k, r);
    // Vector v of this row: dx and x_hat; the partials take its terms.
    const auto compute = [&](auto v, V vx, V vdy, V& dx_v, V& xh_v) HWY_ATTR {
      xh_v = XHat<kKind>(vx, t);
      if constexpr (kDx) dx_v = Dx<kKind>(vdy, pick(g0, g1, g2, g3, v), xh_v, t);
      if constexpr (kAcc) Accumulate<kKind>(vdy, xh_v, pick(dg0, dg1, dg2, dg3, v), pick(db0, db1, db2, db3, v));
    };
    // One store's columns: load them, store the previous row's dx there,
    // then compute this row's.
    each_store([&](auto s) HWY_ATTR {
      constexpr int kV = decltype(s)::value * kPer;
      V x0, dy0, x1, dy1;
      if constexpr (kPer == 2) {
        LoadStep(df, x + kV * L, x0, x1), LoadStep(df, dy + kV * L, dy0, dy1);
      } else {
        x0 = x1 = load(x + kV * L), dy0 = dy1 = load(dy + kV * L);
      }
      if constexpr (kDefer) {
        if (r > 0) put(previous, s);
      }
      V o0 = x0, o1 = x0, h0 = x0, h1 = x0;
      compute(std::integral_constant<int, kV>(), x0, dy0, o0, h0);
      if constexpr (kPer == 2) compute(std::integral_constant<int, kV + 1>(), x1, dy1, o1, h1);
      if constexpr (kTail) {
        if constexpr (kDx) StoreF32Tail(df, o0, row.dx, left);
        if constexpr (kRes) StoreF32Tail(df, h0, row.res, left);
      } else {
        if constexpr (kDx) pick(row.dx0, row.dx1, row.dx2, row.dx3, s) = encode(o0, o1);
        if constexpr (kRes) pick(row.res0, row.res1, row.res2, row.res3, s) = encode(h0, h1);
      }
    });
    if constexpr (kDefer) {
      previous = row;
    } else if constexpr (!kTail) {
      each_store([&](auto s) HWY_ATTR { put(row, s); });
    }
    if (kAcc && (block.group_ends >> r & 1u)) close_group();
  }
  if constexpr (kDefer) {
    if (block.rows > 0) each_store([&](auto s) HWY_ATTR { put(previous, s); });
  }
  if (kAcc && !(block.group_ends >> (block.rows - 1) & 1u)) {  // the group goes on in the next block
    each_vector([&](size_t v, V&, V& dg, V& db) HWY_ATTR {
      store(dg, block.open_dgamma + j + v * L);
      if constexpr (K::kDbeta) store(db, block.open_dbeta + j + v * L);
    });
  }
}

// Columns [j, n) of the block, fewer than a sweep step's: vector by vector
// (rows in split order: their whole steps as pairs first).
template <NormKind kKind, typename T, bool kDx, bool kRes, bool kAcc>
void ColumnsLeft(const NormBlock& block, const RowConstants& k, bool stream, bool native, int64_t j, int64_t n) {
  const hn::ScalableTag<float> df;
  const int64_t L = static_cast<int64_t>(hn::Lanes(df));
  if constexpr (kSplitRows<T>) {
    for (; j + 2 * L <= n; j += 2 * L) Columns<kKind, T, 2, false, kDx, kRes, kAcc>(df, block, k, stream, native, j, 0);
  }
  for (; j + L <= n; j += L) Columns<kKind, T, 1, false, kDx, kRes, kAcc>(df, block, k, stream, native, j, 0);
  if (j < n) Columns<kKind, T, 1, true, kDx, kRes, kAcc>(df, block, k, stream, native, j, static_cast<size_t>(n - j));
}

// NormPairStep of this target.
int64_t PairStepImpl() {
  return kSplitRows<hwy::bfloat16_t> ? 2 * static_cast<int64_t>(hn::Lanes(hn::ScalableTag<float>())) : 0;
}

// Columns before the first one where every row's dx is aligned for streaming
// stores; 0 when the rows disagree (those rows are then stored plainly).
template <typename T>
int64_t StreamHead(const NormBlock& block, int64_t n, size_t alignment) {
  for (int r = 1; r < block.rows; ++r) {
    if (reinterpret_cast<uintptr_t>(block.dx[r]) % alignment != reinterpret_cast<uintptr_t>(block.dx[0]) % alignment) {
      return 0;
    }
  }
  const int64_t head = ElementsToAlignment(block.dx[0], alignment, sizeof(T), n);
  return head < 0 ? 0 : head;
}

// Non-temporal stores of a block of several rows: a sweep writes to every
// row of the block at once, 8-32 write streams. Measured at 2 threads,
// LayerNorm backward: on AVX-512 (Zen 4) they gain (docs/performance.md); on
// an AVX2-only Zen 3, whose sweep steps write one line or half a line per
// row, plain stores ran 2-3x faster (float32 7-8 -> 15 GB/s, 16-bit 3.4 ->
// 10). So a block sweep streams on AVX-512 targets only; a row alone (one
// write stream) streams everywhere.
#if HWY_ARCH_X86
constexpr bool kStreamBlocks = HWY_TARGET <= HWY_AVX3;
#else
constexpr bool kStreamBlocks = true;
#endif

template <NormKind kKind, typename T, bool kDx, bool kRes, bool kAcc>
void SweepColumns(const NormKernelParams& p, const NormBlock& block, const RowConstants& k) {
  const hn::ScalableTag<float> df;
  const int64_t L = static_cast<int64_t>(hn::Lanes(df));
  const int64_t n = p.N;
  const bool native = p.bf16_instructions;
  const bool alone = p.sweep_rows || block.rows == 1;
  bool stream = p.stream_dx && (kStreamBlocks || alone);
  int64_t j = 0;
  if (kDx && stream) {  // the columns before the aligned ones (up to 2L - 1), stored plainly
    int64_t head = StreamHead<T>(block, n, hn::Lanes(df) * sizeof(T) * (kPairedStores<T> ? 2 : 1));
    // (Rows in split order start their steps at column 0: unaligned, they are stored plainly.)
    if (kSplitRows<T> && head != 0) stream = false, head = 0;
    for (; j + L <= head; j += L) Columns<kKind, T, 1, false, kDx, kRes, kAcc>(df, block, k, false, native, j, 0);
    if (j < head) {
      Columns<kKind, T, 1, true, kDx, kRes, kAcc>(df, block, k, false, native, j, static_cast<size_t>(head - j));
    }
    j = head;
  }
  // Rows alone with dx have their partials added in pass 1 (BlockKernel),
  // so SweepRow is not instantiated for dx and partials together.
  if (alone && !(kDx && kAcc)) {
    const int64_t end = j + (n - j) / (2 * L) * (2 * L);
    for (int r = 0; r < block.rows; ++r) {
      NothingBeside nothing;
      SweepRow<kKind, T, kDx, kRes, kAcc>(block, r, k, stream, native, j, end, nothing);
    }
    j = end;
  }
  // Column sums alone read their rows from memory here (no pass 1): each
  // row's lines kRowPrefetchColumns ahead, and past the row's end the next
  // block's rows from their first column on (next_x), so that no block
  // starts its rows from memory. Measured on a Zen 5 (docs/performance.md,
  // attempt 73): with two rows a block, +9% to +17% at 2 threads against
  // neither (four rows a block and the row prefetch alone); with four rows
  // it came out level.
  const int64_t prefetch_end = !kDx && !kRes ? RowPrefetchEnd<T>(n, kUnroll * L) : 0;
  for (; j + kUnroll * L <= n; j += kUnroll * L) {
    if (j < prefetch_end) {
      for (int r = 0; r < block.rows; ++r) {
        PrefetchColumns<T>(block.x[r], j + kRowPrefetchColumns<T>, kUnroll * L * sizeof(T));
        PrefetchColumns<T>(block.dy[r], j + kRowPrefetchColumns<T>, kUnroll * L * sizeof(T));
      }
    } else if (prefetch_end > 0) {
      const int64_t c = std::max<int64_t>(0, j + kRowPrefetchColumns<T> - n);
      for (int r = 0; r < block.rows && block.next_x[r] != nullptr; ++r) {
        PrefetchColumns<T>(block.next_x[r], c, kUnroll * L * sizeof(T));
        PrefetchColumns<T>(block.next_dy[r], c, kUnroll * L * sizeof(T));
      }
    }
    Columns<kKind, T, kUnroll, false, kDx, kRes, kAcc>(df, block, k, stream, native, j, 0);
  }
  ColumnsLeft<kKind, T, kDx, kRes, kAcc>(block, k, stream, native, j, n);
  if (stream) hwy::FlushStream();
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

// Row r of a block as a block of one row (the fused sweep's last row, and
// row tails): `next` keeps its prefetch of the row after it.
NormBlock RowAlone(const NormBlock& block, int r, bool next) {
  NormBlock row;
  row.rows = 1;
  row.x[0] = block.x[r];
  row.dy[0] = block.dy[r];
  row.dx[0] = block.dx[r];
  row.res[0] = block.res[r];
  row.mean[0] = block.mean[r];
  row.rstd[0] = block.rstd[r];
  if (next) row.next_x[0] = block.next_x[r], row.next_dy[0] = block.next_dy[r];
  row.gamma = block.gamma;
  return row;
}

// f(acc, resume, close) with row r's place in its group of dgamma/dbeta sums
// as std::bool_constant arguments (WithGroupPlace, for one row of a block
// whose rows each add their terms in pass 1): acc, the row has terms to add.
template <class F>
HWY_INLINE auto WithRowPlace(const NormBlock& block, int r, int last, bool acc, F&& f) {
  using Yes = std::true_type;
  using No = std::false_type;
  if (!acc) return f(No(), No(), No());
  const bool resume = r == 0 ? block.resume : !(block.group_ends >> (r - 1) & 1u);
  const bool close = block.group_ends >> last & 1u;
  if (resume) return close ? f(Yes(), Yes(), Yes()) : f(Yes(), Yes(), No());
  return close ? f(Yes(), No(), Yes()) : f(Yes(), No(), No());
}

// A pass 1 of two rows beside the pass 2 of two rows, one after the other
// (SweepRow's `beside`): a step of it every other step of pass 2.
template <class Summer>
struct EveryOtherStep {
  Summer summer;
  bool now = false;
  int64_t column = 0;
  template <class Carried>
  HWY_INLINE void Step(int64_t, const Carried&) {
    if (now) {
      summer.Step(column);
      column += 2 * static_cast<int64_t>(hn::Lanes(hn::ScalableTag<float>()));
    }
    now = !now;
  }
};

// Pass 2 of row `row` of the fused sweep, beside a pass 1 (`beside`): its
// steps up to `end`, then its last columns alone.
template <NormKind kKind, typename T, bool kRes, class Beside>
HWY_INLINE void FusedPass2Of(const NormKernelParams& p, const NormBlock& block, int row, const RowSums& sums,
                             int64_t end, Beside& beside) {
  const bool native = p.bf16_instructions;
  RowConstants k;
  SetRowConstants(p, block, row, sums, k, row);
  // (The block's own row: a block of one row for it, about 2 KiB to fill
  // per row, took 3% to 10% of LayerNormGrad float32 16384x1024 in profiles.)
  SweepRow<kKind, T, true, kRes, false>(block, row, k, p.stream_dx, native, 0, end, beside);
  if (end < p.N) {
    const NormBlock alone = RowAlone(block, row, false);
    SetRowConstants(p, block, row, sums, k, 0);
    ColumnsLeft<kKind, T, true, kRes, false>(alone, k, p.stream_dx, native, end, p.N);
  }
}

// The same with res rows where this kind has them and the call wants them.
// (Each instantiation is inlined at each of its places, so the kinds without
// res rows have no copy with them.)
template <NormKind kKind, typename T, class Beside>
HWY_INLINE void FusedPass2(const NormKernelParams& p, const NormBlock& block, int row, const RowSums& sums,
                           int64_t end, Beside& beside) {
  if constexpr (HasRes(kKind)) {
    if (p.want_res) return FusedPass2Of<kKind, T, true>(p, block, row, sums, end, beside);
  }
  FusedPass2Of<kKind, T, false>(p, block, row, sums, end, beside);
}

// Rows of x and dy (together) up to this many bytes are fused by pairs where
// they have dgamma/dbeta terms: two rows' terms per pass over the partials
// (float32, 8 bytes per column and row read and written for LayerNorm: more
// than a 16-bit row's x and dy), at four rows in the L2 (a pair in pass 2,
// the next in pass 1). Measured on an Intel Xeon against rows one at a time
// (docs/performance.md, attempt 54), alternating rounds: LayerNorm and
// RMSNorm float32 1024x16384 +4% to +15% at 2 threads, +6% at 1; bfloat16
// 1024x16384 -2% to +4% (neutral). Rows of 256 KiB lost: float32 256x65536
// -13%, 16-bit 256x65536 -6% to +3%. LayerNormGrad, which has no such
// terms, lost 5% to 31% by pairs: it keeps rows alone.
constexpr int64_t kFusedPairBytes = 128 << 10;

// The fused sweep (NormKernelParams::fused_rows): each unit of rows (one
// row, or two) has its pass 2 (from the cache, where its pass 1 left it) a
// step at a time beside the next unit's pass 1 (from memory), so that each
// core reads the next rows while it works on these and no pass waits on
// memory alone. Each unit adds its dgamma/dbeta terms in its pass 1
// (RowSummer; two rows of one group of sums load and store the partials once
// for both, adding their terms in row order), but for rows alone, which go
// by pairs of one group through the partials all the same: the first of a
// pair adds its terms from its pass 2, beside the second's pass 1 (kCarry),
// so that no more rows are in the cache at once; the last unit's pass 2
// prefetches the row after each of its rows (next_x), so the block after it
// starts from the cache. The same bits as the other sweeps: each row's sums
// take the same steps in the same chains, the partials the same terms in the
// same order. Streaming stores of dx where a row starts aligned for them,
// else plain ones.
template <NormKind kKind, typename T>
void FusedBlock(const NormKernelParams& p, const NormBlock& block) {
  const bool acc = PartialsInPass1(kKind) && block.dgamma != nullptr;
  const int64_t n = p.N;
  const bool pairs = acc && n * 2 * static_cast<int64_t>(sizeof(T)) <= kFusedPairBytes;
  RowSums sums[2];
  int prev = 0, prev_rows = 0;  // the unit whose pass 2 comes next: rows [prev, prev + prev_rows)
  bool carry = false;           // the last row summed leaves its terms to the next row (rows alone)
  // Pass 1 of rows [r, r + kRows), beside pass 2 of the unit before it
  // where that unit has as many rows (prev_rows: kRows, or 0), adding their
  // terms where `terms`; kCarry, with the terms of that unit's row first.
  const auto sum_unit = [&](int r, bool terms, auto two, auto carried) HWY_ATTR {
    constexpr int kRows = decltype(two)::value ? 2 : 1;
    constexpr bool kCarry = decltype(carried)::value;
    WithRowPlace(block, kCarry ? r - 1 : r, r + kRows - 1, terms, [&](auto has_acc, auto resume, auto close) HWY_ATTR {
      constexpr bool kAcc = decltype(has_acc)::value && PartialsInPass1(kKind);
      constexpr bool kClose = decltype(close)::value;
      if constexpr (kAcc || (kRows == 1 && !kCarry)) {  // (pairs and carries always have terms)
        using Summer = RowSummer<kKind, T, kRows, kAcc, decltype(resume)::value, kClose, kCarry>;
        Summer summer(block, r, n, kAcc ? PartialsOf<kClose>(block) : RowPartials());
        const int64_t end = summer.StepsEnd();
        if (prev_rows == 0) {  // the block's first unit, or one after a unit of the other size
          const int64_t step = 2 * static_cast<int64_t>(hn::Lanes(hn::ScalableTag<float>()));
          if constexpr (!kCarry) {  // (a carried row's pass 2 is always beside)
            for (int64_t j = 0; j < end; j += step) summer.Step(j);
          }
        }
        // (Each pass 2 called once where it goes, not in a loop: the
        // compiler then keeps the summer's sums in registers through it.)
        if constexpr (kRows == 1) {
          if (prev_rows == 1) FusedPass2<kKind, T>(p, block, prev, sums[0], end, summer);
        } else if (prev_rows == 2) {
          EveryOtherStep<Summer> paced{summer};
          FusedPass2<kKind, T>(p, block, prev, sums[0], end, paced);
          FusedPass2<kKind, T>(p, block, prev + 1, sums[1], end, paced);
          summer = paced.summer;
        }
        summer.Tail(end);
        summer.Finish(sums);
      }
    });
    prev = r, prev_rows = kRows;
  };
  // Pass 2 of the unit before alone, each row prefetching the row after it.
  const auto sweep_unit = [&]() HWY_ATTR {
    for (int q = 0; q < prev_rows; ++q) {
      const int row = prev + q;
      const NormBlock alone = RowAlone(block, row, true);
      RowConstants k;
      SetRowConstants(p, block, row, sums[q], k, 0);
      // (SweepColumns flushes the streaming stores of the whole block.)
      if (HasRes(kKind) && p.want_res) SweepColumns<kKind, T, true, HasRes(kKind), false>(p, alone, k);
      else SweepColumns<kKind, T, true, false, false>(p, alone, k);
    }
    prev_rows = 0;
  };
  for (int r = 0; r < block.rows;) {
    const bool two = pairs && r + 1 < block.rows && !(block.group_ends >> r & 1u);
    if (prev_rows != (two ? 2 : 1)) sweep_unit();  // (units of one size beside each other)
    // A row alone leaves its terms to the next row of its group (its pass 2
    // is beside that row's pass 1), unless it takes the row before's.
    const bool carried = carry;
    carry = !pairs && !carried && acc && r + 1 < block.rows && !(block.group_ends >> r & 1u);
    const bool terms = acc && !carry;
    if constexpr (PartialsInPass1(kKind)) {
      if (two) sum_unit(r, terms, std::true_type(), std::false_type());
      else if (carried) sum_unit(r, terms, std::false_type(), std::true_type());
    }
    if (!two && !carried) sum_unit(r, terms, std::false_type(), std::false_type());
    r += two ? 2 : 1;
  }
  sweep_unit();
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
HWY_EXPORT(PairStepImpl);

bool NormTargetSweepsRows() { return HWY_DYNAMIC_DISPATCH(TargetSweepsRowsImpl)(); }

int64_t NormPairStep() { return HWY_DYNAMIC_DISPATCH(PairStepImpl)(); }

void NormBlockKernel(const NormKernelParams& params, const NormBlock& block) {
  HWY_DYNAMIC_DISPATCH(NormBlockKernelImpl)(params, block);
}
}  // namespace cpu
}  // namespace gradops
#endif
