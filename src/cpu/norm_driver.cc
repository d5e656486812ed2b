// Threads and chunks around the norm kernel. Rows are split into chunks of a
// size fixed by the shape alone; each chunk writes its own float32 dgamma and
// dbeta partial sums (groups of kGroupRows rows summed from zero, the first
// into the chunk's sums, each later one then added to them), and a final pass
// adds the chunks' partials in chunk order in float64. A chunk is one task,
// or, where no output needs whole rows (column sums alone), a task per tile
// of its columns. The same bits come out for any thread count and layout.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "core/dtype.h"
#include "core/parallel.h"
#include "cpu/convert.h"
#include "cpu/cpu_model.h"
#include "cpu/norm.h"
#include "cpu/streaming.h"

namespace gradops {
namespace cpu {
namespace {

constexpr size_t kAlign = 64;
size_t AlignUp(size_t n) { return (n + kAlign - 1) / kAlign * kAlign; }

// Elements of `dtype` from the start of a row at linear row index `row`.
char* RowPointer(const MatrixOperand& m, int64_t row) {
  return static_cast<char*>(m.data) + m.rows.Offset(row) * static_cast<int64_t>(DTypeSize(m.dtype));
}

float RowStatValue(const RowStat& stat, int64_t row) {
  if (!stat.from_view) return stat.constant;
  return LoadAsFloat(stat.values.data, stat.values.dtype, stat.values.layout.Offset(row));
}

// Elements [begin, end) of a strided layout over `base`, to and from float32:
// consecutive ones by the SIMD conversions (the scalar ones' bits, NaN's
// payloads aside), the rest one at a time. (Element at a time, gamma's read
// and dgamma's and dbeta's writes took 56% of a LayerNorm backward of 2 x
// 16384 and 2.5% at 128 x 65536, one thread.)
void ReadElements(const void* base, DType dtype, const Layout& layout, int64_t begin, int64_t end, float* out) {
  if (layout.unit() && begin < end) {
    return ConvertToFloat(dtype, static_cast<const char*>(base) + begin * DTypeSize(dtype), out, end - begin);
  }
  ForEachOffset(layout, begin, end, [&](int64_t offset) { *out++ = LoadAsFloat(base, dtype, offset); });
}
void WriteElements(void* base, DType dtype, const Layout& layout, int64_t begin, int64_t end, const float* in) {
  if (layout.unit() && begin < end) {
    return ConvertFromFloat(dtype, in, static_cast<char*>(base) + begin * DTypeSize(dtype), end - begin);
  }
  ForEachOffset(layout, begin, end, [&](int64_t offset) { StoreFromFloat(base, dtype, offset, *in++); });
}

// ReadElements and WriteElements with the float32 side in split order by
// steps of `step` from `begin` (norm.h, NormPairStep; 0: column order): a
// tile of whole steps at a time through the L1, one pass over the values.
void ReadSplit(const void* base, DType dtype, const Layout& layout, int64_t begin, int64_t end, int64_t step,
               float* out) {
  if (step == 0) return ReadElements(base, dtype, layout, begin, end, out);
  float tile[kSumTile];
  for (int64_t j = begin; j < end; j += kSumTile) {
    const int64_t m = std::min(kSumTile, end - j);
    ReadElements(base, dtype, layout, j, j + m, tile);
    SplitPairs(tile, m, step, out + (j - begin));
  }
}
void WriteUnsplit(void* base, DType dtype, const Layout& layout, int64_t begin, int64_t end, int64_t step,
                  const float* in) {
  if (step == 0) return WriteElements(base, dtype, layout, begin, end, in);
  float tile[kSumTile];
  for (int64_t j = begin; j < end; j += kSumTile) {
    const int64_t m = std::min(kSumTile, end - j);
    UnsplitPairs(in + (j - begin), m, step, tile);
    WriteElements(base, dtype, layout, j, j + m, tile);
  }
}

// A vector operand into float32, in split order by steps of `step` (the
// ones vector when absent: the same in either order).
void LoadVector(const VectorOperand& v, bool present, int64_t n, int64_t step, float* out) {
  if (present) {
    ReadSplit(v.data, v.dtype, v.layout, 0, n, step, out);
  } else {
    std::fill(out, out + n, 1.0f);
  }
}

bool RowsContiguous(const MatrixOperand& m, DType dtype) { return m.dtype == dtype && m.cols.unit(); }

// The bytes from a view's first element to its last (strides are never
// negative: validate.cc), and whether a span shares a byte with any of others.
struct ByteSpan {
  const char* first;
  const char* last;
};
ByteSpan SpanOf(const void* data, DType dtype, int64_t max_offset) {
  const char* first = static_cast<const char*>(data);
  return {first, first + (max_offset + 1) * static_cast<int64_t>(DTypeSize(dtype)) - 1};
}
ByteSpan SpanOf(const MatrixOperand& m) { return SpanOf(m.data, m.dtype, m.rows.max_offset() + m.cols.max_offset()); }
ByteSpan SpanOf(const VectorOperand& v) { return SpanOf(v.data, v.dtype, v.layout.max_offset()); }
bool OverlapsAny(ByteSpan a, const std::vector<ByteSpan>& spans) {
  return std::any_of(spans.begin(), spans.end(), [&](ByteSpan b) { return a.first <= b.last && b.first <= a.last; });
}

// Whether the kernels can sum dgamma and dbeta straight into the outputs
// (NormSchedule::sums_in_outputs): one chunk of partials in column order,
// whose float32 sums are the results' bits (the final pass adds +0 to each,
// which changes none: a group's sum from +0 is never -0), every sum the kind
// has wanted into contiguous float32, and neither output sharing a byte with
// an input the kernels read after writing to it (x, dy, mean, rstd; gamma
// is copied first where an output shares its bytes: CopyGamma). A LayerNorm
// backward of 1 x 16384 float32 spent a quarter of its time copying the
// partials to the outputs.
bool SumsInOutputs(const NormProblem& p, int64_t chunks, int64_t pair_step) {
  if (chunks != 1 || pair_step != 0) return false;
  std::vector<ByteSpan> inputs = {SpanOf(p.x), SpanOf(p.dy)};
  for (const RowStat* stat : {&p.mean, &p.rstd}) {
    if (stat->from_view) inputs.push_back(SpanOf(stat->values));
  }
  const auto usable = [&](bool wanted, const VectorOperand& out) {
    return wanted && out.dtype == DType::kFloat32 && out.layout.unit() && !OverlapsAny(SpanOf(out), inputs);
  };
  return usable(p.want_dgamma, p.dgamma) && (!HasDbeta(p.kind) || usable(p.want_dbeta, p.dbeta));
}

// Whether the kernels read gamma from a float32 copy in the workspace
// (NormSchedule::copy_gamma), which LoadVector converts, splits or fills
// with ones, rather than from the caller's: where gamma is absent, not
// contiguous float32 in column order, or shares a byte with an output (an
// output may be written over an input of its view: gradops/ops.h). Column
// sums read no gamma. The copy was 12% of a LayerNorm backward of 1 x 16384
// float32, one thread.
bool CopyGamma(const NormProblem& p, int64_t pair_step) {
  if (p.kind == NormKind::kColumnSums) return false;
  if (!p.has_gamma || p.gamma.dtype != DType::kFloat32 || !p.gamma.layout.unit() || pair_step != 0) return true;
  std::vector<ByteSpan> outputs;
  if (p.want_dx) outputs.push_back(SpanOf(p.dx));
  if (p.want_res) outputs.push_back(SpanOf(p.res));
  if (p.want_dgamma) outputs.push_back(SpanOf(p.dgamma));
  if (p.want_dbeta) outputs.push_back(SpanOf(p.dbeta));
  return OverlapsAny(SpanOf(p.gamma), outputs);
}

std::atomic<NormSweep> forced_sweep{NormSweep::kTargets};

// The sweep of a problem of `kind` whose rows of x take `row_bytes`: one forced
// by SetNormSweep, else the target's. Rows alone: measured at 2 threads,
// LayerNorm backward on an AVX2-only Zen 3 (docs/performance.md, attempt 32):
// 1.4-2x faster than blocks, which on an AVX-512 Zen 4 were the faster; fused
// where rows alone are the target's, measured there against rows alone (attempt
// 80, alternating rounds, at 2 / 1 threads): float32 LayerNorm and RMSNorm with
// rows of x of 16 KiB and more (4096 columns +24% / +20% and +22% / +35%, 16384
// +12% / +17% and +10% / +16%, 65536 +9% / +18% and +11% / +26%; 1024 columns
// level or lower), float32 LayerNormGrad at every width (+4% to +16% / +11% to
// +33%), and float16 LayerNormGrad from rows of 32 KiB (16384 columns +14% /
// +9%, 65536 +30% / +23%); bfloat16 rows came out level or lower (-7% to -50%),
// as did narrower float16 rows. Fused, where blocks are the target's: measured
// on an Intel Xeon at 2 threads against blocks (attempts 47-48): LayerNormGrad,
// which has no dgamma/dbeta partials and no next-block prefetch, -1% to +38% on
// every benchmark shape, so it is fused at every width; LayerNorm and RMSNorm
// with rows of x of 32 KiB and more: float32 2048x8192 +8% / +11%, 1024x16384
// +17% / +17%, 512x32768 +20%, 256x65536 +25% / +40%; 16-bit 1024x16384 -1% to
// +8%, 256x65536 +1% to +14%. Narrower rows lose (float32 4096x4096 and
// 8192x4096 -3% to -6%, bfloat16 2048x8192 -14%): blocks. AMD CPUs before Zen 5
// keep blocks: a fused loop lost on Zen 4 (attempt 18), and this one has not
// run there. Rows alone again on the Intel Xeon for 16-bit rows of a few KiB,
// measured after attempts 52-60 leaned the loops (attempt 61, alternating
// rounds): RMSNorm rows of 1 KiB to under 4 KiB, 16384x1024 +14% at 2 threads
// and 1 (blocks at 512 bytes and from 4 KiB: -6% to -18%); LayerNormGrad rows
// of 2 to 8 KiB, +3% to +9% against fused (fused at 1 KiB and from 16 KiB: -1%
// to -28%). LayerNorm and float32 rows keep theirs. On a Zen 5
// (docs/performance.md, attempt 65; forced sweeps, alternating rounds, GB/s at
// 2 / 1 threads): rows alone beat blocks for LayerNormGrad at every width (+5%
// to +77%); for LayerNorm from 16-bit rows of 4 KiB (bfloat16 2048 columns +21%
// / +33%, 4096 +18% / +23%, 65536 +20% / +35%), and RMSNorm likewise from 4096
// columns (+12% / +15%; 2048: -6% / +9%); for float32 rows from 32 KiB (8192
// columns: level; 16384 and 65536, +5% to +22%). Narrower rows keep blocks
// (float32 1024 columns: -12% / -30%). The fused sweep did no better than rows
// alone there.
NormSweep SweepOf(NormKind kind, int64_t row_bytes, DType dtype) {
  const NormSweep forced = forced_sweep.load(std::memory_order_relaxed);
  if (forced != NormSweep::kTargets) return forced;
  const size_t element_bytes = DTypeSize(dtype);
  const bool grad = kind == NormKind::kLayerNormGrad;
  if (NormTargetSweepsRows()) {
    const bool fuse = element_bytes == 4 ? grad || row_bytes >= (16 << 10)
                                         : grad && dtype == DType::kFloat16 && row_bytes >= (32 << 10);
    return fuse ? NormSweep::kFused : NormSweep::kRows;
  }
  if (ThisCpu() == CpuModel::kZen5) {
    const bool rows = grad || row_bytes >= (element_bytes == 2 ? 4 << 10 : 32 << 10);
    return rows ? NormSweep::kRows : NormSweep::kBlocks;
  }
  if (ThisCpu() != CpuModel::kIntel) return NormSweep::kBlocks;
  if (element_bytes == 2) {
    const bool rms = kind == NormKind::kRmsNorm && row_bytes >= (1 << 10) && row_bytes < (4 << 10);
    const bool grad_rows = grad && row_bytes >= (2 << 10) && row_bytes <= (8 << 10);
    if (rms || grad_rows) return NormSweep::kRows;
  }
  const bool fuse = grad || row_bytes >= (32 << 10);
  return fuse ? NormSweep::kFused : NormSweep::kBlocks;
}

// Whether a block's pass 2 should prefetch the next block's rows (the block
// sweep; rows swept alone always do). Measured on an Intel Xeon at 2 threads
// (docs/performance.md, attempt 44): LayerNorm and RMSNorm -1% to +22% where
// a block's x and dy take 512 KiB or less; larger blocks lost 8-25%, the
// prefetched rows evicting the block's own from the 2 MiB L2 before pass 2
// reads them. LayerNormGrad, which also stores x_hat into the cache, moved
// -7% to +5%, so it goes without. On an AVX-512 Zen 4 such prefetches lost
// (attempt 17: 28 -> 23 GB/s), so AMD CPUs go without.
bool PrefetchNextBlock(int64_t block_bytes) { return ThisCpu() == CpuModel::kIntel && block_bytes <= (512 << 10); }

// Rows per chunk at least and at most, chunks aimed at with and without
// dgamma/dbeta partials; a column tile's fewest columns (ScheduleNorm).
constexpr int64_t kMinChunkRows = 32;
constexpr int64_t kMaxChunkRows = 256;
constexpr int64_t kChunksWithPartials = 16;
constexpr int64_t kChunksWithoutPartials = 64;
constexpr int64_t kSpanRows = 64;  // rows whose group sums join before the chunk's (RunNorm)
constexpr int64_t kNarrowestColumnTile = 2048;

}  // namespace

NormSweep SetNormSweep(NormSweep sweep) { return forced_sweep.exchange(sweep, std::memory_order_relaxed); }

NormSchedule ScheduleNorm(const NormProblem& p, int threads) {
  NormSchedule s;
  s.threads = std::max(1, threads);
  const bool want_acc = p.want_dgamma || p.want_dbeta;
  const DType dtype = p.x.dtype;
  s.packed = !RowsContiguous(p.x, dtype) || !RowsContiguous(p.dy, dtype) ||
             (p.want_dx && !RowsContiguous(p.dx, dtype)) || (p.want_res && !RowsContiguous(p.res, dtype));
  // Block rows: each sweep reads all of its block's rows at once, and more
  // read streams in flight move more bytes per core. Measured at 2 threads on
  // the benchmark shapes on an AVX-512 Zen 4: 8 rows beat 1, 2 and 4 even
  // where 8 rows of x and dy spill the L2 (N = 65536); for bfloat16 rows of
  // 1024 (x and dy: 4 KiB), 16 rows beat 8 by about 8% and 32 beat 16 by
  // about 4% (five alternating runs each), while at 16 KiB 32 rows lose to 8
  // and 16. So 128 KiB of rows, 8 to 32 of them. On the Intel Xeon, with the
  // next block prefetched through pass 2 (PrefetchNextBlock), 8 rows beat
  // that rule wherever it chose more (docs/performance.md, attempt 63):
  // LayerNorm bfloat16 16384x1024 +10% at 2 threads (32 rows before),
  // 65536x256 +16%, float32 +2% to +16%, RMSNorm +8% to +10%; 2 and 4 rows
  // did no better. Packed rows keep their float32 copies (4 rows' worth per
  // block row) within about the L2.
  const int64_t row_bytes = std::max<int64_t>(1, p.N) * 2 * (s.packed ? 4 : DTypeSize(dtype));
  const int64_t most_rows = ThisCpu() == CpuModel::kIntel ? 8 : kMaxBlockRows;
  s.block_rows = s.packed ? static_cast<int>(std::clamp<int64_t>((1 << 20) / row_bytes, 1, 8))
                          : static_cast<int>(std::clamp<int64_t>((128 << 10) / row_bytes, 8, most_rows));
  const NormSweep sweep =
      SweepOf(p.kind, std::max<int64_t>(1, p.N) * static_cast<int64_t>(DTypeSize(dtype)), dtype);
  s.fused_rows = !s.packed && p.want_dx && sweep == NormSweep::kFused;
  s.sweep_rows = !s.packed && (p.want_dx || p.want_res) && sweep == NormSweep::kRows;
  if (s.fused_rows) s.block_rows = kMaxBlockRows;
  if (s.sweep_rows) {
    // Rows swept alone add their dgamma/dbeta terms in pass 1, two rows at
    // once where there are partials: one load and store of them for both
    // rows. Measured at 2 threads on the AVX2 Zen 3 (docs/performance.md,
    // attempt 38): LayerNorm 16-bit +7-32%, float32 -4..+26%; RMSNorm
    // -9..+22% (it has dgamma alone).
    s.block_rows = PartialsInPass1(p.kind) && p.want_dx && want_acc ? 2 : 1;
  }
  // Chunks: a function of M and of whether there are partials (never of
  // the threads), 32..256 rows each (the rows of a chunk are summed in
  // float32, so fewer rows per chunk, less error). Each chunk's 2 * N
  // float32 partials are written once and read back once by the final sums,
  // from memory: with chunks of 32 rows, an eighth of a bfloat16
  // LayerNormGradBeta's traffic and a twelfth of a bfloat16 LayerNorm's.
  // About 256 chunks (M = 16384: 64 rows each) against about 64 (256 rows)
  // cost that operator 8-14% at 2 threads, LayerNorm and RMSNorm 1-5%
  // (docs/performance.md, attempt 58); about 16 chunks against about 64
  // gained LayerNorm 1024x16384 4-10% at 2 threads and 1 (16-bit 7-10%),
  // 4096x4096 2-4%, RMSNorm (dgamma alone) 16-bit 2-3%, and 8 chunks did no
  // better (attempt 76). Without partials (LayerNormGrad) chunks are tasks
  // alone, about 64 of them. A chunk of more than kSpanRows rows sums in
  // spans (RunNorm), which keeps the dgamma/dbeta error where 64-row chunks
  // had it (attempt 64). 16 tasks keep 16 cores busy, at 15-22 GB/s each
  // about what a server socket's memory moves on these passes.
  // Column sums alone (no dx, no x_hat) need no whole rows, so their tasks
  // are tiles of a chunk's columns instead, and their chunks always hold
  // kMaxChunkRows rows: the partials' traffic falls to a sixty-fourth of a
  // bfloat16 LayerNormGradBeta's whatever M (attempt 59), the tiles keep
  // about four tasks per thread (the tiling never changes a bit: each
  // column is summed alone), and no tile is narrower than 2048 columns.
  const bool column_sums = !p.want_dx && !p.want_res && p.N > 0;
  const int64_t aim = want_acc ? kChunksWithPartials : kChunksWithoutPartials;
  s.chunk_rows = column_sums ? kMaxChunkRows : std::clamp<int64_t>((p.M + aim - 1) / aim, kMinChunkRows, kMaxChunkRows);
  s.chunks = (p.M + s.chunk_rows - 1) / s.chunk_rows;
  s.tile_columns = p.N;
  if (column_sums) {
    const int64_t most = std::max<int64_t>(1, p.N / kNarrowestColumnTile);
    const int64_t tiles =
        std::clamp<int64_t>((4 * s.threads + s.chunks - 1) / std::max<int64_t>(1, s.chunks), 1, most);
    s.tile_columns = (p.N + tiles - 1) / tiles;
    s.tile_columns = std::min(p.N, (s.tile_columns + kSumTile - 1) / kSumTile * kSumTile);
    s.tiles = (p.N + s.tile_columns - 1) / s.tile_columns;
    if (!s.packed) {
      // Column sums have no first pass that brings each row into the
      // cache in order, so the sweep's short steps across rows are what the
      // prefetchers see. Measured at 2 threads: rows under 4 KiB go fastest
      // one at a time (bfloat16 16384x1024: 17-20 GB/s at 4 rows, 31-35 at 1),
      // wider rows four at a time (float32 256x65536: 47 GB/s at 4, 32 at 8, 26 at 1).
      // On a Zen 5, rows of 4 KiB too go fastest one at a time (float32
      // 16384x1024: +27% at 2 threads, +44% at 1; docs/performance.md,
      // attempt 66); wider rows measured alike at 1 and 4 rows, and fastest
      // two at a time once the next block's first lines were prefetched
      // (SweepColumns): +2% to +14% at 2 threads, +6% to +38% at 1
      // (attempt 73).
      const int64_t tile_row_bytes = s.tile_columns * static_cast<int64_t>(DTypeSize(dtype));
      const bool zen5 = ThisCpu() == CpuModel::kZen5;
      const bool alone = tile_row_bytes < 4096 || (zen5 && tile_row_bytes == 4096);
      s.block_rows = alone ? 1 : zen5 ? 2 : 4;
    }
  }

  s.stream_dx = p.want_dx && !s.packed &&
                StreamOutput(static_cast<double>(p.M) * static_cast<double>(p.N) * DTypeSize(p.dx.dtype));
  const int64_t block_bytes = s.block_rows * p.N * 2 * static_cast<int64_t>(DTypeSize(dtype));
  // Column sums always do, as each row's own prefetch reaches its end
  // (SweepColumns); dx blocks through pass 2 where PrefetchNextBlock.
  const bool dx_blocks = !s.sweep_rows && !s.fused_rows && p.want_dx && !p.want_res;
  s.prefetch_next_block = !s.packed && (column_sums || (dx_blocks && PrefetchNextBlock(block_bytes)));

  const size_t n = static_cast<size_t>(p.N);
  size_t bytes = 0;
  s.pair_step = dtype == DType::kBFloat16 ? NormPairStep() : 0;
  s.copy_gamma = CopyGamma(p, s.pair_step);
  s.gamma_offset = bytes;
  if (s.copy_gamma) bytes += AlignUp(n * sizeof(float));
  s.sums_in_outputs = want_acc && SumsInOutputs(p, s.chunks, s.pair_step);
  s.partial_offset = bytes;
  if (want_acc && !s.sums_in_outputs) bytes += AlignUp(static_cast<size_t>(s.chunks) * 2 * n * sizeof(float));
  s.open_offset = bytes;  // per thread: the sums of a group that spans blocks, then a span's (RunNorm)
  s.open_per_thread = want_acc ? AlignUp(2 * n * sizeof(float)) * (s.chunk_rows > kSpanRows ? 2 : 1) : 0;
  bytes += s.open_per_thread * static_cast<size_t>(s.threads);
  s.scratch_offset = bytes;
  if (s.packed) {
    s.scratch_per_thread = AlignUp(static_cast<size_t>(s.block_rows) * 4 * n * sizeof(float));
    bytes += s.scratch_per_thread * static_cast<size_t>(s.threads);
  }
  const bool any_output = p.want_dx || p.want_res || want_acc;
  // Room to start the layout above at a line boundary wherever the caller's
  // workspace starts (RunNorm).
  s.workspace_bytes = (p.N == 0 || !any_output) ? 0 : bytes + kAlign - 1;
  return s;
}

void RunNorm(const NormProblem& p, const NormSchedule& s, void* workspace) {
  const int64_t N = p.N, M = p.M;
  const bool want_acc = p.want_dgamma || p.want_dbeta;
  if (N == 0 || (!p.want_dx && !p.want_res && !want_acc)) return;
  // The layout starts at the workspace's first line boundary: the kernels
  // load and store the dgamma/dbeta partials a vector at a time, and a
  // caller's workspace may start anywhere (a std::vector's storage often
  // starts 16 bytes into a page), where every 64-byte vector would span two
  // lines. Measured on an Intel Xeon (docs/performance.md, attempt 46), a
  // workspace 16 bytes past a line at 2 threads: LayerNorm backward with
  // rows swept alone +3% to +10%, LayerNormGradBeta bfloat16 +5% to +9%.
  char* ws = static_cast<char*>(workspace);
  ws += (kAlign - reinterpret_cast<uintptr_t>(ws) % kAlign) % kAlign;
  float* partials = reinterpret_cast<float*>(ws + s.partial_offset);
  // Rows in split order (norm.h, NormPairStep): gamma, the packed rows and
  // the partials in that order too, the outputs put back in column order.
  const int64_t step = s.pair_step;
  // (Column sums read no gamma: null.)
  const float* gamma = p.kind == NormKind::kColumnSums ? nullptr : static_cast<const float*>(p.gamma.data);
  if (s.copy_gamma) {
    float* copy = reinterpret_cast<float*>(ws + s.gamma_offset);
    LoadVector(p.gamma, p.has_gamma, N, step, copy);
    gamma = copy;
  }

  NormKernelParams params;
  params.kind = p.kind;
  params.dtype = s.packed ? DType::kFloat32 : p.x.dtype;
  params.N = N;
  params.inv_n = p.inv_n;
  params.want_dx = p.want_dx;
  params.want_res = p.want_res;
  params.sweep_rows = s.sweep_rows;
  params.fused_rows = s.fused_rows;
  params.stream_dx = s.stream_dx;
  params.bf16_instructions = BFloat16Instructions();

  // Every kind sums its rows in groups of kGroupRows. Column sums alone
  // keep a group that spans blocks in memory beside the chunk's sums; on
  // the AVX2 Zen 3 that cost LayerNormGradBeta 5-49% (the widest rows
  // spilling the L2) when its chunks were 32-64 rows of whole rows, so its
  // group was the chunk. In column tiles of chunks of 256 rows it costs
  // within 1% on the Intel Xeon and halves the float32 error
  // (docs/performance.md, attempt 59).
  // A task: columns [j0, j1) of a chunk's rows (all of them but for column
  // sums alone, ScheduleNorm), with its own params.N.
  ParallelFor(s.chunks * s.tiles, s.threads, [&](int64_t task, int thread) {
    const int64_t chunk = task / s.tiles, j0 = task % s.tiles * s.tile_columns, j1 = std::min(N, j0 + s.tile_columns);
    NormKernelParams tile = params;
    tile.N = j1 - j0;
    const int64_t x_skip = s.packed ? 0 : j0 * static_cast<int64_t>(DTypeSize(p.x.dtype));  // bytes
    // The chunk's sums: its partials, or the outputs themselves (sums_in_outputs).
    float* dgamma = nullptr;
    float* dbeta = nullptr;
    if (want_acc && s.sums_in_outputs) {
      dgamma = static_cast<float*>(p.dgamma.data) + j0;
      dbeta = HasDbeta(p.kind) ? static_cast<float*>(p.dbeta.data) + j0 : nullptr;
    } else if (want_acc) {
      dgamma = partials + chunk * 2 * N + j0;
      dbeta = dgamma + N;
    }
    float* open = want_acc ? reinterpret_cast<float*>(ws + s.open_offset + thread * s.open_per_thread) + j0 : nullptr;
    // Chunks of more than kSpanRows rows add their groups' sums into a span's
    // sums and each span's into the chunk's: per column, a chain of 8 + 8 + 4
    // float32 additions for 256 rows instead of 8 + 32.
    float* span =
        want_acc && s.chunk_rows > kSpanRows ? open + AlignUp(2 * N * sizeof(float)) / sizeof(float) : nullptr;
    const int64_t begin = chunk * s.chunk_rows;
    // A span's sums join the chunk's; the first span's are the chunk's first.
    const auto close_span = [&](bool first) {
      for (int k = 0; k < (HasDbeta(p.kind) ? 2 : 1); ++k) {
        const float* from = span + k * N;
        float* to = k == 0 ? dgamma : dbeta;
        if (first) std::copy(from, from + tile.N, to);
        else for (int64_t j = 0; j < tile.N; ++j) to[j] += from[j];
      }
    };
    float* scratch = s.packed ? reinterpret_cast<float*>(ws + s.scratch_offset + thread * s.scratch_per_thread)
                              : nullptr;
    const int64_t end = std::min(M, begin + s.chunk_rows);
    // One block description per chunk, its per-block fields set anew for
    // each block (the kernel reads the row arrays below `rows` only).
    NormBlock block;
    block.gamma = gamma ? gamma + j0 : nullptr;
    block.dgamma = span ? span : dgamma;
    block.dbeta = span ? span + N : dbeta;
    const auto ends_group = [&](int64_t row) { return (row + 1 - begin) % kGroupRows == 0 || row + 1 == end; };
    for (int64_t r0 = begin; r0 < end; r0 += block.rows) {
      const int64_t span_begin = span ? r0 - (r0 - begin) % kSpanRows : begin;
      const int64_t span_end = span ? std::min(end, span_begin + kSpanRows) : end;
      block.rows = static_cast<int>(std::min<int64_t>(s.block_rows, span_end - r0));
      // The first group of the sums that groups join (the chunk's, or a
      // span's) is summed straight into them, as a group left open: nothing
      // cleared first, nothing read back at its end (the same bits: a sum
      // from +0 is never -0, so +0 plus it is itself). Its blocks end with it.
      const bool first_group = want_acc && r0 - span_begin < kGroupRows;
      if (first_group) block.rows = static_cast<int>(std::min<int64_t>(block.rows, span_begin + kGroupRows - r0));
      // Rows swept alone are summed in pass 1 as one group at most.
      if (s.sweep_rows && ends_group(r0)) block.rows = 1;
      block.resume = (r0 - begin) % kGroupRows != 0;
      block.group_ends = 0;
      for (int r = 0; r < block.rows && !first_group; ++r) {
        if (ends_group(r0 + r)) block.group_ends |= 1u << r;
      }
      block.open_dgamma = first_group ? block.dgamma : open;
      block.open_dbeta = first_group ? block.dbeta : open ? open + N : nullptr;
      for (int r = 0; r < block.rows; ++r) {
        const int64_t row = r0 + r;
        block.mean[r] = RowStatValue(p.mean, row);
        const float rstd = RowStatValue(p.rstd, row);
        block.rstd[r] = p.rstd_is_variance ? 1.0f / std::sqrt(rstd + p.epsilon) : rstd;
        if (s.packed) {
          float* x = scratch + (4 * r + 0) * N;
          float* dy = scratch + (4 * r + 1) * N;
          ReadSplit(RowPointer(p.x, row), p.x.dtype, p.x.cols, j0, j1, step, x);
          ReadSplit(RowPointer(p.dy, row), p.dy.dtype, p.dy.cols, j0, j1, step, dy);
          block.x[r] = x;
          block.dy[r] = dy;
          block.dx[r] = scratch + (4 * r + 2) * N;
          block.res[r] = scratch + (4 * r + 3) * N;
        } else {
          block.x[r] = RowPointer(p.x, row) + x_skip;
          block.dy[r] = RowPointer(p.dy, row) + x_skip;
          if (p.want_dx) block.dx[r] = RowPointer(p.dx, row);
          if (p.want_res) block.res[r] = RowPointer(p.res, row);
        }
      }
      // The row `rows` after each row; in the fused sweep, the row after it.
      const bool prefetch = !s.packed && (s.sweep_rows || s.fused_rows || block.rows == 1 || s.prefetch_next_block);
      for (int r = 0; r < block.rows; ++r) {
        const int64_t next = r0 + (s.fused_rows ? 1 : block.rows) + r;
        block.next_x[r] = prefetch && next < M ? RowPointer(p.x, next) + x_skip : nullptr;
        block.next_dy[r] = prefetch && next < M ? RowPointer(p.dy, next) + x_skip : nullptr;
      }
      NormBlockKernel(tile, block);
      if (span && r0 + block.rows == span_end) close_span(span_begin == begin);
      if (s.packed) {
        for (int r = 0; r < block.rows; ++r) {
          const int64_t row = r0 + r;
          const auto write_row = [&](const MatrixOperand& m, const void* values) {
            WriteUnsplit(RowPointer(m, row), m.dtype, m.cols, j0, j1, step, static_cast<const float*>(values));
          };
          if (p.want_dx) write_row(p.dx, block.dx[r]);
          if (p.want_res) write_row(p.res, block.res[r]);
        }
      }
    }
  });

  if (!want_acc || s.sums_in_outputs) return;
  // Final sums: column tiles in parallel; within each, the chunks' partials
  // added in chunk order in float64 and rounded once (no chunks, M = 0:
  // zero-filled gradients). A tile reads a run of its width from each
  // chunk's partials, so tiles are as wide as the threads leave them, up to
  // kWidestSumTile, and each run's lines ask for the next chunk's: runs of
  // 256 columns (1 KiB), one every 2 * N floats, were too short for the
  // hardware prefetchers (docs/performance.md, attempt 58: LayerNormGradBeta
  // bfloat16 1024x16384 at 1 thread spent 14% of its time here). Every
  // thread still gets a share for N = 1024 (one tile of 2048 columns left a
  // thread doing it all). The width never changes a bit: each column is
  // summed alone, in chunk order. One chunk's partials need no float64: its
  // sum from +0 rounds back to each partial (UnsplitSum; a LayerNorm backward
  // of 1 x 16384 bfloat16 took 17 us instead of 33, docs/performance.md).
  constexpr int64_t kWidestSumTile = 8 * kSumTile;
  const int64_t share = std::clamp<int64_t>((N + s.threads - 1) / s.threads, 1, kWidestSumTile);
  const int64_t width = (share + kSumTile - 1) / kSumTile * kSumTile;
  const int64_t tiles = (N + width - 1) / width;
  ParallelFor(tiles, s.threads, [&](int64_t tile, int) {
    const int64_t j0 = tile * width, j1 = std::min(N, j0 + width);
    for (int k = 0; k < 2; ++k) {
      if (!(k == 0 ? p.want_dgamma : p.want_dbeta)) continue;
      const VectorOperand& out = k == 0 ? p.dgamma : p.dbeta;
      const float* run = partials + k * N + j0;
      // Contiguous float32 outputs take the rounded sums in place.
      float tile_sums[kWidestSumTile];
      const bool in_place = out.dtype == DType::kFloat32 && out.layout.unit();
      float* rounded = in_place ? static_cast<float*>(out.data) + j0 : tile_sums;
      if (s.chunks == 1) {
        UnsplitSum(run, j1 - j0, step, rounded);
      } else {
        double sum[kWidestSumTile];
        std::fill(sum, sum + (j1 - j0), 0.0);
        AddRunsFloat64(run, s.chunks, 2 * N, j1 - j0, sum);
        UnsplitPairs(sum, j1 - j0, step, rounded);  // back in column order (tiles hold whole steps)
      }
      if (!in_place) WriteElements(out.data, out.dtype, out.layout, j0, j1, rounded);
    }
  });
}

}  // namespace cpu
}  // namespace gradops
