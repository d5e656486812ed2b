// SiLU backward on the GPU: dx = dy * s * (1 + x * (1 - s)), s = sigmoid(x),
// with the arithmetic of cpu/silu_kernel.cc (e = exp(-|x|), an exact
// division, one fused multiply-add). The vector kernel moves aligned 16-byte
// vectors of one dtype over unit strides, four in flight per thread; the
// general kernel unravels each 64-bit linear index over the merged dims
// (broadcast strides 0, any dtype mix). Both walk the tensor with a
// grid-stride loop over a persistent grid.
#include <cuda_runtime.h>

#include "cuda/launch.cuh"
#include "cuda/silu_launch.h"
#include "cuda/vector_access.cuh"

namespace gradops {
namespace cuda {
namespace {

__device__ __forceinline__ float SiluGrad(float dy, float x) {
  const float e = expf(-fabsf(x));
  const float inv = 1.0f / (1.0f + e);
  const float s = x >= 0.0f ? inv : e * inv;
  return dy * s * fmaf(x, 1.0f - s, 1.0f);
}

constexpr int kUnroll = 4;

template <typename T>
__global__ void SiluVectorKernel(const __grid_constant__ SiluParams params) {
  constexpr int W = Pack<T>::kElems;
  const cpu::SiluProblem& p = params.problem;
  const T* dy = static_cast<const T*>(p.data[0]);
  const T* x = static_cast<const T*>(p.data[1]);
  T* dx = static_cast<T*>(p.data[2]);
  const int64_t vectors = p.numel / W;
  const int64_t threads = int64_t{gridDim.x} * blockDim.x;
  const int64_t first = blockIdx.x * int64_t{blockDim.x} + threadIdx.x;
  for (int64_t base = first; base < vectors; base += kUnroll * threads) {
    float vdy[kUnroll][W], vx[kUnroll][W];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {  // loads first: several in flight
      const int64_t v = base + u * threads;
      if (v < vectors) {
        LoadPack(dy + v * W, vdy[u]);
        LoadPack(x + v * W, vx[u]);
      }
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int64_t v = base + u * threads;
      if (v >= vectors) continue;
      float out[W];
#pragma unroll
      for (int e = 0; e < W; ++e) out[e] = SiluGrad(vdy[u][e], vx[u][e]);
      StorePack(dx + v * W, out);
    }
  }
  for (int64_t i = vectors * W + first; i < p.numel; i += threads) {  // the ragged tail
    dx[i] = FromFloat<T>(SiluGrad(ToFloat(dy[i]), ToFloat(x[i])));
  }
}

__global__ void SiluGeneralKernel(const __grid_constant__ SiluParams params) {
  const cpu::SiluProblem& p = params.problem;
  const int64_t threads = int64_t{gridDim.x} * blockDim.x;
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < p.numel; i += threads) {
    int64_t offset[3] = {0, 0, 0};
    int64_t linear = i;
    for (int d = p.rank - 1; d >= 0; --d) {
      const int64_t index = linear % p.size[d];
      linear /= p.size[d];
      for (int k = 0; k < 3; ++k) offset[k] += index * p.stride[k][d];
    }
    const float dy = LoadElement(p.data[0], p.dtype[0], offset[0]);
    const float x = LoadElement(p.data[1], p.dtype[1], offset[1]);
    StoreElement(p.data[2], p.dtype[2], offset[2], SiluGrad(dy, x));
  }
}

}  // namespace

cudaError_t LaunchSilu(const SiluParams& params, bool vector, int64_t grid, int block, cudaStream_t stream) {
  if (grid <= 0) return cudaSuccess;
  const dim3 g(static_cast<unsigned>(grid));
  if (!vector) return LaunchKernel(SiluGeneralKernel, g, block, 0, stream, params);
  switch (params.problem.dtype[2]) {
    case DType::kFloat32: return LaunchKernel(SiluVectorKernel<float>, g, block, 0, stream, params);
    case DType::kFloat16: return LaunchKernel(SiluVectorKernel<__half>, g, block, 0, stream, params);
    case DType::kBFloat16: return LaunchKernel(SiluVectorKernel<__nv_bfloat16>, g, block, 0, stream, params);
  }
  return cudaErrorInvalidValue;
}

}  // namespace cuda
}  // namespace gradops
