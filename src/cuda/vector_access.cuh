// Aligned 16-byte vectors of a storage type, converted to and from float32
// registers. W = 16 / sizeof(T) values per vector.
#pragma once

#include "cuda/device_access.cuh"

namespace gradops {
namespace cuda {

template <typename T>
struct alignas(16) Pack {
  static constexpr int kElems = 16 / sizeof(T);
  T v[kElems];
};

// out[0..W) = p[0..W) as float; p 16-byte aligned.
template <typename T>
__device__ __forceinline__ void LoadPack(const T* p, float (&out)[Pack<T>::kElems]) {
  const Pack<T> pack = *reinterpret_cast<const Pack<T>*>(p);
#pragma unroll
  for (int e = 0; e < Pack<T>::kElems; ++e) out[e] = ToFloat(pack.v[e]);
}

template <typename T>
__device__ __forceinline__ void StorePack(T* p, const float (&in)[Pack<T>::kElems]) {
  Pack<T> pack;
#pragma unroll
  for (int e = 0; e < Pack<T>::kElems; ++e) pack.v[e] = FromFloat<T>(in[e]);
  *reinterpret_cast<Pack<T>*>(p) = pack;
}

// W float32 values (W a multiple of 4) from or to 16-byte aligned memory.
template <int W>
__device__ __forceinline__ void LoadFloats(const float* p, float (&out)[W]) {
#pragma unroll
  for (int q = 0; q < W / 4; ++q) {
    const float4 f = reinterpret_cast<const float4*>(p)[q];
    out[4 * q + 0] = f.x;
    out[4 * q + 1] = f.y;
    out[4 * q + 2] = f.z;
    out[4 * q + 3] = f.w;
  }
}

template <int W>
__device__ __forceinline__ void StoreFloats(float* p, const float (&in)[W]) {
#pragma unroll
  for (int q = 0; q < W / 4; ++q) {
    reinterpret_cast<float4*>(p)[q] = make_float4(in[4 * q + 0], in[4 * q + 1], in[4 * q + 2], in[4 * q + 3]);
  }
}

}  // namespace cuda
}  // namespace gradops
