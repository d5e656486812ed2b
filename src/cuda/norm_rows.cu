// The row kernel of the CUDA norm core (maths in cpu/norm.h): one pass over
// x and dy. A group of G threads (a power of two) holds a row, or on Hopper
// a cluster of CTAs holds it in slices, in registers as 16-byte vectors; the
// row sums are reduced in a fixed order (warp butterfly, then warps in order,
// then cluster ranks in order through distributed shared memory); dx, x_hat
// and the dgamma/dbeta partials come from the same registers. Rows are taken
// in chunks of chunk_rows; a chunk's partials are summed in registers, then
// across the CTA's groups in a fixed order, and written once to the
// workspace (overwritten, never accumulated into). A persistent grid walks
// the chunks; no atomics, so results do not depend on the grid.
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include "cuda/launch.cuh"
#include "cuda/norm_launch.h"
#include "cuda/shared_memory.cuh"
#include "cuda/vector_access.cuh"

namespace gradops {
namespace cuda {
namespace {

namespace cg = cooperative_groups;

struct RowSums {
  float g, gxc, xc;  // sum(g), sum(g * (x - mean)), sum(x - mean)
};

__device__ __forceinline__ RowSums ShuffleAdd(RowSums v, int lane_mask) {
  v.g += __shfl_xor_sync(0xFFFFFFFFu, v.g, lane_mask);
  v.gxc += __shfl_xor_sync(0xFFFFFFFFu, v.gxc, lane_mask);
  v.xc += __shfl_xor_sync(0xFFFFFFFFu, v.xc, lane_mask);
  return v;
}

__device__ __forceinline__ RowSums Add(RowSums a, const float* b) { return {a.g + b[0], a.gxc + b[1], a.xc + b[2]}; }

// Shared memory of the row sums, one object for every instantiation of the
// kernel (the CPU emulation needs static shared variables outside templates).
struct SharedRowSums {
  float warp[2][16][3];  // per row slot and warp
  float cta[2][3];       // per row slot: this CTA's sums, read by the cluster
};

__device__ __forceinline__ SharedRowSums& RowSumsScratch() {
  __shared__ SharedRowSums scratch;
  return scratch;
}

// Sums of one row over its group (and cluster). Every thread of the group
// gets the same bits. `slot` alternates between rows so that one barrier per
// row suffices.
__device__ __forceinline__ RowSums ReduceRow(RowSums v, int group_threads, int cluster, int slot) {
  const int width = group_threads < 32 ? group_threads : 32;
  for (int mask = 1; mask < width; mask *= 2) v = ShuffleAdd(v, mask);
  if (group_threads <= 32) return v;
  float (*warp_sums)[16][3] = RowSumsScratch().warp;
  float (*cta_sums)[3] = RowSumsScratch().cta;
  const int warp = threadIdx.x / 32;
  if (threadIdx.x % 32 == 0) {
    warp_sums[slot][warp][0] = v.g;
    warp_sums[slot][warp][1] = v.gxc;
    warp_sums[slot][warp][2] = v.xc;
  }
  __syncthreads();
  v = {warp_sums[slot][0][0], warp_sums[slot][0][1], warp_sums[slot][0][2]};
  for (int w = 1; w < static_cast<int>(blockDim.x / 32); ++w) v = Add(v, warp_sums[slot][w]);
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  if (cluster > 1) {
    cg::cluster_group cl = cg::this_cluster();
    if (threadIdx.x == 0) {
      cta_sums[slot][0] = v.g;
      cta_sums[slot][1] = v.gxc;
      cta_sums[slot][2] = v.xc;
    }
    cl.sync();
    const float* first = cl.map_shared_rank(&cta_sums[slot][0], 0);
    v = {first[0], first[1], first[2]};
    for (int r = 1; r < cluster; ++r) v = Add(v, cl.map_shared_rank(&cta_sums[slot][0], r));
  }
#endif
  return v;
}

template <typename T, int V>
__global__ void __launch_bounds__(V * Pack<T>::kElems >= 32 ? 256 : 512) NormRowsKernel(const __grid_constant__ NormRowsParams params) {
  constexpr int W = Pack<T>::kElems;
  const NormOperands& p = params.op;
  const int G = params.group_threads;
  const int C = params.cluster;
  const int lane = threadIdx.x & (G - 1);
  const int group = threadIdx.x / G;
  const int groups = blockDim.x / G;
  int rank = 0;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  if (C > 1) rank = static_cast<int>(cg::this_cluster().block_rank());
#endif
  const int64_t nv = p.N / W;
  const int64_t first_vector = int64_t{rank} * V * G;  // this CTA's slice of the row
  const bool want_acc = p.partials != nullptr;

  float* combine = DynamicShared<float>();  // [2][G * V * W]: partials of several groups

  int slot = 0;
  for (int64_t chunk = blockIdx.x / C; chunk < p.chunks; chunk += gridDim.x / C) {
    float acc_g[V][W], acc_b[V][W];
#pragma unroll
    for (int k = 0; k < V; ++k) {
#pragma unroll
      for (int e = 0; e < W; ++e) acc_g[k][e] = acc_b[k][e] = 0.0f;
    }
    const int64_t row_begin = chunk * p.chunk_rows;
    const int64_t row_end = min(p.M, row_begin + p.chunk_rows);
    // Every group of the CTA takes the same number of steps (shuffles and
    // barriers stay uniform); a group past the chunk's end is inactive.
    for (int64_t step = row_begin; step < row_end; step += groups) {
      const int64_t row = step + group;
      const bool active = row < row_end;
      float x[V][W], dy[V][W];
      bool valid[V];
      const T* x_row = static_cast<const T*>(p.x.data) + (active ? RowOffset(p.x, row) : 0);
      const T* dy_row = static_cast<const T*>(p.dy.data) + (active ? RowOffset(p.dy, row) : 0);
#pragma unroll
      for (int k = 0; k < V; ++k) {
        const int64_t vi = first_vector + int64_t{k} * G + lane;
        valid[k] = active && vi < nv;
        if (valid[k]) {
          LoadPack(x_row + vi * W, x[k]);
          LoadPack(dy_row + vi * W, dy[k]);
        } else {
#pragma unroll
          for (int e = 0; e < W; ++e) x[k][e] = dy[k][e] = 0.0f;
        }
      }
      const float mean = active ? RowStatAt(p.mean, row) : 0.0f;
      const float rstd = active ? RowRstd(p.rstd, p.rstd_is_variance, p.epsilon, row) : 0.0f;

      float a = 0.0f, b = 0.0f, c = 0.0f;
      float gamma[V][W];
      if (p.want_dx) {
        RowSums sums = {0.0f, 0.0f, 0.0f};
#pragma unroll
        for (int k = 0; k < V; ++k) {
          if (!valid[k]) continue;
          LoadFloats<W>(p.gamma + (first_vector + int64_t{k} * G + lane) * W, gamma[k]);
#pragma unroll
          for (int e = 0; e < W; ++e) {
            const float xc = x[k][e] - mean;
            const float g = dy[k][e] * gamma[k][e];
            sums.g += g;
            sums.gxc = fmaf(g, xc, sums.gxc);
            sums.xc += xc;
          }
        }
        sums = ReduceRow(sums, G, C, slot);
        slot ^= 1;
        a = p.has_a ? sums.g * p.inv_n : 0.0f;
        b = sums.gxc * rstd * p.inv_n;
        c = p.has_c ? sums.xc * rstd * p.inv_n : 0.0f;
      }

      T* dx_row = p.want_dx && active ? static_cast<T*>(p.dx.data) + RowOffset(p.dx, row) : nullptr;
      T* res_row = p.want_res && active ? static_cast<T*>(p.res.data) + RowOffset(p.res, row) : nullptr;
#pragma unroll
      for (int k = 0; k < V; ++k) {
        if (!valid[k]) continue;
        const int64_t column = (first_vector + int64_t{k} * G + lane) * W;
        // The grouping of cpu/norm_kernel.cc: x_hat = (x - mean) * rstd,
        // dx = rstd * ((dy * gamma - a) - (x_hat - c) * b).
        float xh[W], out[W];
#pragma unroll
        for (int e = 0; e < W; ++e) xh[e] = (x[k][e] - mean) * rstd;
        if (dx_row) {
#pragma unroll
          for (int e = 0; e < W; ++e) {
            const float g = dy[k][e] * gamma[k][e] - a;
            out[e] = rstd * fmaf(-(xh[e] - c), b, g);
          }
          StorePack(dx_row + column, out);
        }
        if (res_row) StorePack(res_row + column, xh);
        if (want_acc) {
#pragma unroll
          for (int e = 0; e < W; ++e) {
            acc_g[k][e] = fmaf(dy[k][e], xh[e], acc_g[k][e]);
            acc_b[k][e] += dy[k][e];
          }
        }
      }
    }
    if (!want_acc) continue;

    float* part_g = p.partials + (chunk * 2) * p.N;
    float* part_b = part_g + p.N;
    if (groups == 1) {  // every thread owns its columns
#pragma unroll
      for (int k = 0; k < V; ++k) {
        const int64_t vi = first_vector + int64_t{k} * G + lane;
        if (vi >= nv) continue;
        StoreFloats<W>(part_g + vi * W, acc_g[k]);
        StoreFloats<W>(part_b + vi * W, acc_b[k]);
      }
      continue;
    }
    // Several groups: lanes lane, lane + G, ... of a warp own the same
    // columns (butterfly), then the warps add in order in shared memory.
    for (int mask = G; mask < 32; mask *= 2) {
#pragma unroll
      for (int k = 0; k < V; ++k) {
#pragma unroll
        for (int e = 0; e < W; ++e) {
          acc_g[k][e] += __shfl_xor_sync(0xFFFFFFFFu, acc_g[k][e], mask);
          acc_b[k][e] += __shfl_xor_sync(0xFFFFFFFFu, acc_b[k][e], mask);
        }
      }
    }
    const int span = G * V * W;
    const int warp = threadIdx.x / 32;
    for (int w = 0; w < static_cast<int>(blockDim.x / 32); ++w) {
      if (warp == w && static_cast<int>(threadIdx.x % 32) < G) {
#pragma unroll
        for (int k = 0; k < V; ++k) {
#pragma unroll
          for (int e = 0; e < W; ++e) {
            const int i = (k * G + lane) * W + e;
            combine[i] = w == 0 ? acc_g[k][e] : combine[i] + acc_g[k][e];
            combine[span + i] = w == 0 ? acc_b[k][e] : combine[span + i] + acc_b[k][e];
          }
        }
      }
      __syncthreads();
    }
    for (int64_t i = threadIdx.x; i < p.N; i += blockDim.x) {
      part_g[i] = combine[i];
      part_b[i] = combine[span + i];
    }
    __syncthreads();
  }
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  if (C > 1) cg::this_cluster().sync();  // no CTA leaves while others may read its shared memory
#endif
}

template <typename T, int V>
cudaError_t Launch(const NormRowsParams& params, int64_t grid, int block, cudaStream_t stream) {
  const int groups = block / params.group_threads;
  const size_t smem =
      params.op.partials != nullptr && groups > 1 ? size_t{2} * params.group_threads * V * Pack<T>::kElems * 4 : 0;
  return LaunchKernel(NormRowsKernel<T, V>, dim3(static_cast<unsigned>(grid)), block, smem, stream, params,
                      params.cluster);
}

template <typename T>
cudaError_t LaunchT(const NormRowsParams& params, int vectors, int64_t grid, int block, cudaStream_t stream) {
  switch (vectors) {
    case 1: return Launch<T, 1>(params, grid, block, stream);
    case 2: return Launch<T, 2>(params, grid, block, stream);
    case 3:
    case 4: return Launch<T, 4>(params, grid, block, stream);
    default:
      if constexpr (Pack<T>::kElems == 4) return Launch<T, 8>(params, grid, block, stream);
      return cudaErrorInvalidValue;
  }
}

}  // namespace

cudaError_t LaunchNormRows(const NormRowsParams& params, DType dtype, int vectors, int64_t grid, int block,
                           cudaStream_t stream) {
  switch (dtype) {
    case DType::kFloat32: return LaunchT<float>(params, vectors, grid, block, stream);
    case DType::kFloat16: return LaunchT<__half>(params, vectors, grid, block, stream);
    case DType::kBFloat16: return LaunchT<__nv_bfloat16>(params, vectors, grid, block, stream);
  }
  return cudaErrorInvalidValue;
}

}  // namespace cuda
}  // namespace gradops
