// Host-side scheduling of the CUDA norm core: which kernel runs a NormProblem,
// with how many threads per row, how rows are cut into chunks, how large the
// grid is and where the workspace holds gamma and the dgamma/dbeta partials.
// Plain C++: compiled and unit-tested without nvcc.
//
// Determinism: chunk_rows and the row-group shape depend on the problem's
// shape and dtypes only, never on the device, so every run (and every grid
// size) sums the same float32 values in the same order.
#pragma once

#include <cstddef>
#include <cstdint>

#include "cpu/norm.h"
#include "cuda/device_info.h"

namespace gradops {
namespace cuda {

enum class NormPath {
  kNone,     // nothing to compute (N == 0 or no output wanted)
  kRows,     // unit-stride rows held in registers: a row per group of threads, or per cluster
  kGeneral,  // any layout and dtype mix; also rows too wide for registers (re-read from L2/HBM)
};

// Limits of the row kernel.
constexpr int kRowsMaxVectors = 8;        // 16-byte vectors per thread and tensor
constexpr int kRowsSmallGroupBlock = 256; // CTA size when a row takes a warp or less
constexpr int kRowsMaxGroup = 512;        // threads of one CTA holding one row (slice), 16 values each
constexpr int kMaxCluster = 8;            // portable cluster size
constexpr int kGeneralBlock = 256;
constexpr int64_t kGeneralMaxChunkRows = 256;  // per-row constants live in shared memory

struct NormSchedule {
  NormPath path = NormPath::kNone;
  // kRows: W = 16 / element bytes values per vector; each thread holds
  // `vectors` vectors (1, 2, 4 or 8) of x and dy; `group_threads` threads (a power of two)
  // share one row; a row is split over `cluster` CTAs.
  int vector_elems = 1;
  int vectors = 1;
  int group_threads = 1;
  int cluster = 1;
  int block_threads = 1;
  int64_t chunk_rows = 1;  // rows per dgamma/dbeta partial
  int64_t chunks = 0;
  int64_t grid = 0;        // CTAs of the main kernel (a multiple of cluster)
  bool prepare_gamma = false;  // gamma (or ones) into float32 workspace
  bool finalize = false;       // partials -> dgamma/dbeta
  size_t gamma_offset = 0, partial_offset = 0;
  size_t workspace_bytes = 0;
};

// True when the row kernel can read and write every row with aligned
// 16-byte vectors: x, dy (and dx, res where wanted) of one dtype, unit
// column stride, N a multiple of the vector width, 16-byte aligned rows.
bool RowsPathApplies(const cpu::NormProblem& problem);

NormSchedule ScheduleNorm(const cpu::NormProblem& problem, const DeviceInfo& device);

}  // namespace cuda
}  // namespace gradops
