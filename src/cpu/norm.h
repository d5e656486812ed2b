// The CPU norm core: one backward kernel for LayerNorm (mean/rstd and
// variance/epsilon forms), RMSNorm and the LayerNormGradBeta column sums.
//
// For each row r with x_hat = (x - mean_r) * rstd_r and g = dy * gamma:
//   a = inv_n * sum(g)          (LayerNorm forms; 0 for RMSNorm)
//   b = inv_n * sum(g * x_hat)
//   c = inv_n * sum(x_hat)      (variance/epsilon form only; 0 otherwise)
//   dx = rstd_r * ((g - a) - (x_hat - c) * b)
// and over all rows dgamma = sum(dy * x_hat), dbeta = sum(dy).
// docs/derivations.md shows why the variance/epsilon form reduces to this.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/layout.h"
#include "gradops/tensor.h"

namespace gradops {
namespace cpu {

enum class NormKind {
  kLayerNorm,      // a and b
  kLayerNormGrad,  // a, b and c
  kRmsNorm,        // b only
  kColumnSums,     // no dx: dgamma and dbeta only
};

// The terms of the formula above that a kind has; without them the mean is
// 0, a and c are 0, rstd is 1. Kernels may leave the others out: x - 0,
// g - 0 and x * 1 change no bit.
constexpr bool HasMean(NormKind k) { return k == NormKind::kLayerNorm || k == NormKind::kLayerNormGrad; }
constexpr bool HasA(NormKind k) { return HasMean(k); }
constexpr bool HasC(NormKind k) { return k == NormKind::kLayerNormGrad; }
constexpr bool HasScale(NormKind k) { return k != NormKind::kColumnSums; }
constexpr bool HasDbeta(NormKind k) { return k != NormKind::kRmsNorm; }  // RMSNorm has no beta
constexpr bool HasRes(NormKind k) { return k == NormKind::kLayerNormGrad; }  // x_hat rows beside dx
// Kinds whose rows swept alone add their dgamma/dbeta terms in pass 1, so
// that pass 2 stores dx alone (BlockKernel in norm_kernel.cc).
constexpr bool PartialsInPass1(NormKind k) { return k == NormKind::kLayerNorm || k == NormKind::kRmsNorm; }

// M rows by N columns of a view: data points at the view's first element.
struct MatrixOperand {
  void* data = nullptr;
  DType dtype = DType::kFloat32;
  Layout rows, cols;
};

// Values in the row-major order of a view.
struct VectorOperand {
  void* data = nullptr;
  DType dtype = DType::kFloat32;
  Layout layout;
};

// A per-row statistic: values from a view, or one constant for every row.
struct RowStat {
  bool from_view = false;
  VectorOperand values;
  float constant = 0.0f;
};

struct NormProblem {
  NormKind kind = NormKind::kLayerNorm;
  int64_t M = 0, N = 0;
  float inv_n = 0.0f;
  MatrixOperand dy, x;
  RowStat mean, rstd;
  bool rstd_is_variance = false;  // rstd_r = (value + epsilon)^-0.5
  float epsilon = 0.0f;
  bool has_gamma = false;         // absent: ones
  VectorOperand gamma;
  bool want_dx = false, want_res = false, want_dgamma = false, want_dbeta = false;
  MatrixOperand dx, res;          // res: x_hat (res_for_gamma)
  VectorOperand dgamma, dbeta;
};

// How Run executes a problem; chosen once at plan time.
struct NormSchedule {
  int threads = 1;
  bool packed = false;      // rows pass through float32 scratch (strided or mixed dtypes)
  int block_rows = 1;       // rows sharing one sweep of the column partials
  bool sweep_rows = false;  // pass 2 row by row (blocks of 1 or 2 rows), else across the block
  bool fused_rows = false;  // rows alone or by pairs, their pass 2 beside the next ones' pass 1
  int64_t chunk_rows = 1;   // rows per partial-sum chunk: fixed by the shape alone
  int64_t chunks = 0;
  int64_t tile_columns = 0;  // each task's columns of a chunk (a multiple of kSumTile, or N)
  int64_t tiles = 1;         // tasks per chunk: 1 where a task needs whole rows (dx, x_hat)
  bool stream_dx = false;   // dx is far larger than the caches: store it non-temporally
  bool prefetch_next_block = false;  // blocks prefetch the next block's rows (NormBlock::next_x)
  int64_t pair_step = 0;    // columns in split order by steps of this many (NormPairStep), or 0
  bool sums_in_outputs = false;  // the kernels sum dgamma/dbeta into the outputs: no partials, no final pass
  bool copy_gamma = false;       // the kernels read gamma from a float32 copy in the workspace, not the caller's
  size_t gamma_offset = 0, partial_offset = 0, open_offset = 0, open_per_thread = 0;
  size_t scratch_offset = 0, scratch_per_thread = 0;
  size_t workspace_bytes = 0;
};

NormSchedule ScheduleNorm(const NormProblem& problem, int threads);

// How pass 2 goes over the rows of dx-producing kinds: a block of rows at a
// time, column by column across the block with the dgamma/dbeta partials in
// registers; one row at a time with the next row prefetched; or one row (or
// two) at a time beside the next ones' pass 1 (fused). Each target has the one
// measured faster on it (NormTargetSweepsRows, and ScheduleNorm's rule for
// the fused sweep); the results are the same bits either way. SetNormSweep
// forces one for plans made after it (tests run each on every target) and
// returns the previous choice.
enum class NormSweep { kTargets, kRows, kBlocks, kFused };
NormSweep SetNormSweep(NormSweep sweep);
bool NormTargetSweepsRows();  // of the target the kernels dispatch to
void RunNorm(const NormProblem& problem, const NormSchedule& schedule, void* workspace);

// The SIMD kernel: a block of rows, all row pointers at column 0 of
// contiguous rows of `dtype`.
constexpr int kMaxBlockRows = 32;
constexpr int kMaxRowsAlone = 2;  // rows of a block whose pass 2 sweeps them one at a time

struct NormBlock {
  int rows = 0;
  const void* x[kMaxBlockRows] = {};
  const void* dy[kMaxBlockRows] = {};
  void* dx[kMaxBlockRows] = {};
  void* res[kMaxBlockRows] = {};
  float mean[kMaxBlockRows] = {};
  float rstd[kMaxBlockRows] = {};
  // The row `rows` after row r, prefetched during r's pass 2 (or null): rows
  // swept alone (NormKernelParams::sweep_rows, or a block of one row), and
  // every row of a block where NormSchedule::prefetch_next_block. In the
  // fused sweep, the row after row r (the last row's prefetched).
  const void* next_x[kMaxBlockRows] = {};
  const void* next_dy[kMaxBlockRows] = {};
  const float* gamma = nullptr;  // N values (in split order: NormPairStep)
  // dgamma and dbeta are summed over groups of rows (kGroupRows from the
  // chunk's first row), each group from zero, and each group's sums added to
  // the chunk's: shorter float32 chains than one chunk-long sum. (The driver
  // has the first group's blocks sum straight into the chunk's sums, as a
  // group that never closes: open_dgamma is dgamma there.)
  float* dgamma = nullptr;       // N chunk sums, added to (or null)
  float* dbeta = nullptr;
  float* open_dgamma = nullptr;  // N sums of a group left open at a block's end
  float* open_dbeta = nullptr;
  bool resume = false;           // row 0 continues the open group (else starts one)
  uint32_t group_ends = 0;       // bit r: a group ends at row r (with sweep_rows, the last row at most)
};
static_assert(kMaxBlockRows <= 32, "group_ends holds a bit per row");

// Rows per group of the dgamma/dbeta sums, for every kind: the same for
// every layout and thread count, so the bits depend on the shape alone.
constexpr int64_t kGroupRows = 8;

struct NormKernelParams {
  NormKind kind = NormKind::kLayerNorm;
  DType dtype = DType::kFloat32;
  int64_t N = 0;
  float inv_n = 0.0f;
  bool want_dx = false, want_res = false;
  bool sweep_rows = false;  // NormSchedule::sweep_rows
  bool fused_rows = false;  // NormSchedule::fused_rows
  bool stream_dx = false;  // non-temporal stores for dx, from its first aligned column
  bool bf16_instructions = false;  // BFloat16Instructions(), read once per run
};

void NormBlockKernel(const NormKernelParams& params, const NormBlock& block);

// bfloat16 problems are computed with the columns of each row in split
// order where the target's kernel has it: each whole step of NormPairStep()
// columns from column 0 (two vectors) as its even columns, then its odd
// ones, as a pair of vectors loads them with no lane crossing
// (convert-inl.h, LoadPairF32); a row's last columns, fewer than a step, in
// column order. The bfloat16 kernel loads and stores rows that way; gamma,
// the dgamma/dbeta partials and the packed path's float32 copies of rows
// are kept in that order (RunNorm), so that every sweep and arrangement
// sums each row's columns in the same lanes: the same bits. 0: the target
// keeps column order.
int64_t NormPairStep();

// Columns per tile of the final dgamma/dbeta sums: whole steps of every
// target's NormPairStep().
constexpr int64_t kSumTile = 256;

}  // namespace cpu
}  // namespace gradops
