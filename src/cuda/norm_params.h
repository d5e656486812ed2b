// The parameters of the CUDA norm kernels, one struct per kernel, built on
// the host from a NormProblem and its NormSchedule (norm_run.cc). Plain
// structs of pointers and layouts, passed to the kernels by value.
#pragma once

#include <cstdint>

#include "cpu/norm.h"

namespace gradops {
namespace cuda {

// What every row kernel reads: the problem's operands and per-row constants.
struct NormOperands {
  int64_t M = 0, N = 0;
  float inv_n = 0.0f;
  bool has_a = false, has_c = false;  // mean(g) and mean(x_hat) terms of dx
  bool want_dx = false, want_res = false;
  cpu::MatrixOperand x, dy, dx, res;
  cpu::RowStat mean, rstd;
  bool rstd_is_variance = false;
  float epsilon = 0.0f;
  const float* gamma = nullptr;  // N float32 values (workspace), where dx is wanted
  float* partials = nullptr;     // [chunks][2][N] dgamma/dbeta partials, or null
  int64_t chunk_rows = 1, chunks = 0;
};

// norm_rows.cu: rows in registers, 16-byte vectors.
struct NormRowsParams {
  NormOperands op;
  int group_threads = 1;  // threads per row (slice), a power of two
  int cluster = 1;        // CTAs per row
};

// norm_general.cu: any layout and dtype; rows read twice.
struct NormGeneralParams {
  NormOperands op;
};

// norm_vectors.cu: gamma (any layout and dtype, or ones) into float32.
struct GammaParams {
  cpu::VectorOperand gamma;
  bool has_gamma = false;
  int64_t N = 0;
  float* out = nullptr;
};

// norm_vectors.cu: dgamma/dbeta = the partials summed over chunks in a fixed order.
struct FinalizeParams {
  const float* partials = nullptr;
  int64_t chunks = 0, N = 0;
  bool want[2] = {false, false};  // dgamma, dbeta
  cpu::VectorOperand out[2];
};

}  // namespace cuda
}  // namespace gradops
