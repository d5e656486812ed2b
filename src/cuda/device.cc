// Device discovery, pointer placement and the small memory and timing
// helpers of cuda_backend.h.
#include <cuda_runtime.h>

#include <algorithm>
#include <vector>

#include "cuda/cuda_backend.h"

namespace gradops {
namespace cuda {
namespace {

thread_local int last_run_error = 0;

}  // namespace

int DeviceCount() {
  static const int count = [] {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) n = 0;
    cudaGetLastError();  // a missing driver is not an error for the caller
    return n;
  }();
  return count;
}

bool IsDevicePointer(const void* p) { return DeviceOf(p) >= 0; }

int DeviceOf(const void* p) {
  if (p == nullptr || DeviceCount() == 0) return -1;
  cudaPointerAttributes attributes = {};
  if (cudaPointerGetAttributes(&attributes, p) != cudaSuccess) {
    cudaGetLastError();
    return -1;
  }
  const bool device = attributes.type == cudaMemoryTypeDevice || attributes.type == cudaMemoryTypeManaged;
  return device ? attributes.device : -1;
}

DeviceInfo QueryDevice(int device) {
  DeviceInfo info;
  cudaDeviceGetAttribute(&info.sm_count, cudaDevAttrMultiProcessorCount, device);
  cudaDeviceGetAttribute(&info.cc_major, cudaDevAttrComputeCapabilityMajor, device);
  cudaDeviceGetAttribute(&info.cc_minor, cudaDevAttrComputeCapabilityMinor, device);
  cudaDeviceGetAttribute(&info.max_threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, device);
  cudaGetLastError();
  info.sm_count = std::max(1, info.sm_count);
  info.max_threads_per_sm = std::max(32, info.max_threads_per_sm);
  return info;
}

int TakeLastRunError() {
  const int e = last_run_error;
  last_run_error = 0;
  return e;
}

void SetLastRunError(int error) {
  if (error != 0 && last_run_error == 0) last_run_error = error;
}

void* DeviceAlloc(size_t bytes) {
  void* p = nullptr;
  if (cudaMalloc(&p, std::max<size_t>(bytes, 1)) != cudaSuccess) {
    cudaGetLastError();
    return nullptr;
  }
  return p;
}

void DeviceFree(void* p) { cudaFree(p); }

bool CopyToDevice(void* dst, const void* src, size_t bytes) {
  return cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice) == cudaSuccess;
}

bool CopyToHost(void* dst, const void* src, size_t bytes) {
  return cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost) == cudaSuccess;
}

bool CopyOnDevice(void* dst, const void* src, size_t bytes) {
  return cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, nullptr) == cudaSuccess;
}

bool FillOnDevice(void* dst, int byte, size_t bytes) { return cudaMemset(dst, byte, bytes) == cudaSuccess; }

bool Synchronize(std::string* error) {
  cudaError_t e = cudaDeviceSynchronize();
  if (e == cudaSuccess) e = cudaGetLastError();
  if (e != cudaSuccess && error != nullptr) *error = cudaGetErrorString(e);
  return e == cudaSuccess;
}

void* CreateStream() {
  cudaStream_t stream = nullptr;
  if (cudaStreamCreate(&stream) != cudaSuccess) {
    cudaGetLastError();
    return nullptr;
  }
  return stream;
}

void DestroyStream(void* stream) {
  if (stream != nullptr) cudaStreamDestroy(static_cast<cudaStream_t>(stream));
}

double TimeMs(void (*fn)(void*), void* context, int reps, int rounds) {
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  fn(context);  // warm-up
  std::vector<float> ms;
  for (int r = 0; r < rounds; ++r) {
    cudaEventRecord(start, nullptr);
    for (int i = 0; i < reps; ++i) fn(context);
    cudaEventRecord(stop, nullptr);
    cudaEventSynchronize(stop);
    float t = 0.0f;
    cudaEventElapsedTime(&t, start, stop);
    ms.push_back(t / static_cast<float>(std::max(1, reps)));
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  std::sort(ms.begin(), ms.end());
  return ms.empty() ? 0.0 : ms[ms.size() / 2];
}

}  // namespace cuda
}  // namespace gradops
