// The general kernel of the CUDA norm core (maths in cpu/norm.h): any
// layout (strided, transposed, broadcast rows), any dtype mix, any N. A CTA
// takes a chunk of rows: pass 1 reduces each row's sums in a fixed order and
// keeps the row's constants in shared memory; pass 2 walks the columns in
// tiles of blockDim, reading each (row, column) again (from L2 where it
// still sits), writing dx and x_hat and summing the chunk's dgamma/dbeta
// partials in registers, written once per column (overwritten). This is also
// the path for rows too wide for the register-resident row kernel.
#include <cuda_runtime.h>

#include "cuda/device_access.cuh"
#include "cuda/launch.cuh"
#include "cuda/norm_launch.h"
#include "cuda/norm_schedule.h"

namespace gradops {
namespace cuda {
namespace {

// Column j's offset within a row of `m`.
__device__ __forceinline__ int64_t ColumnOffset(const cpu::MatrixOperand& m, int64_t j) {
  return LayoutOffset(m.cols, j);
}

// Sum of v over the CTA in a fixed order; every thread gets the same bits.
__device__ __forceinline__ float3 BlockSum(float3 v, float (*scratch)[3]) {
  for (int mask = 16; mask >= 1; mask /= 2) {
    v.x += __shfl_xor_sync(0xFFFFFFFFu, v.x, mask);
    v.y += __shfl_xor_sync(0xFFFFFFFFu, v.y, mask);
    v.z += __shfl_xor_sync(0xFFFFFFFFu, v.z, mask);
  }
  const int warp = threadIdx.x / 32;
  if (threadIdx.x % 32 == 0) {
    scratch[warp][0] = v.x;
    scratch[warp][1] = v.y;
    scratch[warp][2] = v.z;
  }
  __syncthreads();
  float3 total = make_float3(scratch[0][0], scratch[0][1], scratch[0][2]);
  for (int w = 1; w < static_cast<int>(blockDim.x / 32); ++w) {
    total.x += scratch[w][0];
    total.y += scratch[w][1];
    total.z += scratch[w][2];
  }
  __syncthreads();  // scratch is reused by the next row
  return total;
}

struct RowConstants {
  float mean, rstd, a, b, c;
  int64_t x, dy, dx, res;  // row offsets
};

__global__ void __launch_bounds__(kGeneralBlock) NormGeneralKernel(const __grid_constant__ NormGeneralParams params) {
  const NormOperands& p = params.op;
  __shared__ RowConstants rows[kGeneralMaxChunkRows];
  __shared__ float scratch[32][3];
  const bool want_acc = p.partials != nullptr;

  for (int64_t chunk = blockIdx.x; chunk < p.chunks; chunk += gridDim.x) {
    const int64_t row_begin = chunk * p.chunk_rows;
    const int count = static_cast<int>(min(p.chunk_rows, p.M - row_begin));
    // Pass 1: per-row constants.
    for (int r = 0; r < count; ++r) {
      const int64_t row = row_begin + r;
      const float mean = RowStatAt(p.mean, row);
      const float rstd = RowRstd(p.rstd, p.rstd_is_variance, p.epsilon, row);
      const int64_t x_row = RowOffset(p.x, row), dy_row = RowOffset(p.dy, row);
      float a = 0.0f, b = 0.0f, c = 0.0f;
      if (p.want_dx) {
        float3 sums = make_float3(0.0f, 0.0f, 0.0f);  // g, g * (x - mean), x - mean
        for (int64_t j = threadIdx.x; j < p.N; j += blockDim.x) {
          const float xc = LoadElement(p.x.data, p.x.dtype, x_row + ColumnOffset(p.x, j)) - mean;
          const float g = LoadElement(p.dy.data, p.dy.dtype, dy_row + ColumnOffset(p.dy, j)) * p.gamma[j];
          sums.x += g;
          sums.y = fmaf(g, xc, sums.y);
          sums.z += xc;
        }
        sums = BlockSum(sums, scratch);
        a = p.has_a ? sums.x * p.inv_n : 0.0f;
        b = sums.y * rstd * p.inv_n;
        c = p.has_c ? sums.z * rstd * p.inv_n : 0.0f;
      }
      if (threadIdx.x == 0) {
        rows[r] = {mean, rstd, a, b, c, x_row, dy_row, p.want_dx ? RowOffset(p.dx, row) : 0,
                   p.want_res ? RowOffset(p.res, row) : 0};
      }
    }
    __syncthreads();
    // Pass 2: column tiles across the chunk's rows.
    for (int64_t j = threadIdx.x; j < p.N; j += blockDim.x) {
      const int64_t x_col = ColumnOffset(p.x, j), dy_col = ColumnOffset(p.dy, j);
      const int64_t dx_col = p.want_dx ? ColumnOffset(p.dx, j) : 0;
      const int64_t res_col = p.want_res ? ColumnOffset(p.res, j) : 0;
      const float gamma = p.want_dx ? p.gamma[j] : 0.0f;
      float acc_g = 0.0f, acc_b = 0.0f;
      for (int r = 0; r < count; ++r) {
        const RowConstants& k = rows[r];
        const float x = LoadElement(p.x.data, p.x.dtype, k.x + x_col);
        const float dy = LoadElement(p.dy.data, p.dy.dtype, k.dy + dy_col);
        const float xh = (x - k.mean) * k.rstd;
        if (p.want_dx) {
          const float g = dy * gamma - k.a;
          StoreElement(p.dx.data, p.dx.dtype, k.dx + dx_col, k.rstd * fmaf(-(xh - k.c), k.b, g));
        }
        if (p.want_res) StoreElement(p.res.data, p.res.dtype, k.res + res_col, xh);
        acc_g = fmaf(dy, xh, acc_g);
        acc_b += dy;
      }
      if (want_acc) {
        p.partials[(chunk * 2) * p.N + j] = acc_g;
        p.partials[(chunk * 2 + 1) * p.N + j] = acc_b;
      }
    }
    __syncthreads();  // rows[] is rewritten by the next chunk
  }
}

}  // namespace

cudaError_t LaunchNormGeneral(const NormGeneralParams& params, int64_t grid, int block, cudaStream_t stream) {
  return LaunchKernel(NormGeneralKernel, dim3(static_cast<unsigned>(grid)), block, 0, stream, params);
}

}  // namespace cuda
}  // namespace gradops
