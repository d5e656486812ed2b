// The two small kernels around the CUDA norm rows: gamma (any layout and
// dtype, or ones when absent) into a float32 workspace vector, and the
// finalize that sums the chunks' dgamma/dbeta partials into the outputs.
// The finalize's order is fixed by the number of chunks alone: thread slice
// q of a column adds chunks q, q + S, q + 2S, ... in order, then the S slice
// sums are added in slice order. No atomics; zero chunks give zeros.
#include <cuda_runtime.h>

#include <algorithm>

#include "cuda/device_access.cuh"
#include "cuda/launch.cuh"
#include "cuda/norm_launch.h"

namespace gradops {
namespace cuda {
namespace {

constexpr int kColumns = 32;  // columns per CTA of the finalize (one warp wide)
constexpr int kSlices = 16;   // chunk slices per column

__global__ void PrepareGammaKernel(const __grid_constant__ GammaParams p) {
  for (int64_t j = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; j < p.N; j += int64_t{gridDim.x} * blockDim.x) {
    p.out[j] = p.has_gamma ? LoadElement(p.gamma.data, p.gamma.dtype, LayoutOffset(p.gamma.layout, j)) : 1.0f;
  }
}

__global__ void __launch_bounds__(kColumns * kSlices) FinalizeKernel(const __grid_constant__ FinalizeParams p) {
  __shared__ float slice_sums[kSlices][kColumns];
  const int which = blockIdx.y;  // 0: dgamma, 1: dbeta
  if (!p.want[which]) return;
  const int tx = threadIdx.x % kColumns, q = threadIdx.x / kColumns;
  const int64_t j = blockIdx.x * int64_t{kColumns} + tx;
  float sum = 0.0f;
  if (j < p.N) {
    for (int64_t chunk = q; chunk < p.chunks; chunk += kSlices) sum += p.partials[(chunk * 2 + which) * p.N + j];
  }
  slice_sums[q][tx] = sum;
  __syncthreads();
  if (q != 0 || j >= p.N) return;
  float total = slice_sums[0][tx];
  for (int s = 1; s < kSlices; ++s) total += slice_sums[s][tx];
  const cpu::VectorOperand& out = p.out[which];
  StoreElement(out.data, out.dtype, LayoutOffset(out.layout, j), total);
}

}  // namespace

cudaError_t LaunchPrepareGamma(const GammaParams& params, cudaStream_t stream) {
  const int block = 256;
  const int64_t grid = std::min<int64_t>((params.N + block - 1) / block, 1024);
  return LaunchKernel(PrepareGammaKernel, dim3(static_cast<unsigned>(grid)), block, 0, stream, params);
}

cudaError_t LaunchFinalize(const FinalizeParams& params, cudaStream_t stream) {
  const dim3 grid(static_cast<unsigned>((params.N + kColumns - 1) / kColumns), 2);
  return LaunchKernel(FinalizeKernel, grid, kColumns * kSlices, 0, stream, params);
}

}  // namespace cuda
}  // namespace gradops
