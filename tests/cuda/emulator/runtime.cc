// The CUDA runtime API of the emulation: devices, memory (memory.cc does the
// allocating), copies and fills, streams, events and errors. Streams are
// synchronous: work runs when it is issued.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string>

#include "internal.h"

struct CUstream_st {};
struct CUevent_st {
  std::chrono::steady_clock::time_point time;
};

namespace cuda_emulator {
namespace {

cudaError_t last_error = cudaSuccess;
std::set<const CUstream_st*> streams;  // made by cudaStreamCreate, not yet destroyed

}  // namespace

std::recursive_mutex& Mutex() {
  static std::recursive_mutex* mutex = new std::recursive_mutex();  // outlives static destructors
  return *mutex;
}

cudaError_t Fail(cudaError_t error, const std::string& message) {
  std::fprintf(stderr, "[cuda emulator] %s\n", message.c_str());
  std::lock_guard<std::recursive_mutex> lock(Mutex());
  last_error = error;
  return error;
}

int EnvInt(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::atoi(v) : fallback;
}
int ComputeCapability() {
  static const int cc = EnvInt("GRADOPS_EMULATED_CC", 90);
  return cc;
}
int Multiprocessors() {
  static const int sms = std::max(1, EnvInt("GRADOPS_EMULATED_SMS", 4));
  return sms;
}

bool ValidStream(cudaStream_t stream) {
  return stream == nullptr || stream == cudaStreamLegacy || streams.count(stream) != 0;
}

}  // namespace cuda_emulator

// ---- The runtime API -----------------------------------------------------

using cuda_emulator::Fail;
namespace emu = cuda_emulator;

cudaError_t cudaGetDeviceCount(int* count) {
  *count = 1;
  return cudaSuccess;
}
cudaError_t cudaGetDevice(int* device) {
  *device = 0;
  return cudaSuccess;
}
cudaError_t cudaSetDevice(int device) {
  return device == 0 ? cudaSuccess : Fail(cudaErrorInvalidDevice, "cudaSetDevice(" + std::to_string(device) + ")");
}

cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attribute, int device) {
  if (device != 0) return Fail(cudaErrorInvalidDevice, "cudaDeviceGetAttribute of device " + std::to_string(device));
  switch (attribute) {
    case cudaDevAttrMaxThreadsPerBlock: *value = 1024; break;
    case cudaDevAttrMultiProcessorCount: *value = emu::Multiprocessors(); break;
    case cudaDevAttrMaxThreadsPerMultiProcessor: *value = 2048; break;
    case cudaDevAttrComputeCapabilityMajor: *value = emu::ComputeCapability() / 10; break;
    case cudaDevAttrComputeCapabilityMinor: *value = emu::ComputeCapability() % 10; break;
    default: return Fail(cudaErrorInvalidValue, "cudaDeviceGetAttribute " + std::to_string(attribute));
  }
  return cudaSuccess;
}

cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device) {
  if (device != 0) return Fail(cudaErrorInvalidDevice, "cudaGetDeviceProperties of device " + std::to_string(device));
  std::memset(prop, 0, sizeof *prop);
  std::snprintf(prop->name, sizeof prop->name, "CPU emulation of compute capability %d.%d",
                emu::ComputeCapability() / 10, emu::ComputeCapability() % 10);
  prop->multiProcessorCount = emu::Multiprocessors();
  prop->major = emu::ComputeCapability() / 10;
  prop->minor = emu::ComputeCapability() % 10;
  prop->maxThreadsPerMultiProcessor = 2048;
  prop->totalGlobalMem = size_t{16} << 30;
  return cudaSuccess;
}

cudaError_t cudaPointerGetAttributes(cudaPointerAttributes* attributes, const void* p) {
  std::lock_guard<std::recursive_mutex> lock(emu::Mutex());
  *attributes = {};
  attributes->device = -2;
  bool device = false;
  if (emu::Lookup(p, &device)) {
    attributes->type = device ? cudaMemoryTypeDevice : cudaMemoryTypeHost;
    attributes->device = 0;
    attributes->devicePointer = const_cast<void*>(p);
    attributes->hostPointer = device ? nullptr : const_cast<void*>(p);
  }
  return cudaSuccess;
}

cudaError_t cudaMalloc(void** p, size_t bytes) { return emu::Allocate(p, bytes, true); }
cudaError_t cudaFree(void* p) { return emu::Release(p, true); }
cudaError_t cudaMallocHost(void** p, size_t bytes) { return emu::Allocate(p, bytes, false); }
cudaError_t cudaFreeHost(void* p) { return emu::Release(p, false); }

cudaError_t cudaMemcpy(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind) {
  std::lock_guard<std::recursive_mutex> lock(emu::Mutex());
  if (bytes == 0) return cudaSuccess;
  // A range that starts in an allocation must end in it.
  for (const void* p : {static_cast<const void*>(dst), src}) {
    if (emu::Allocated(p, 1) && !emu::Allocated(p, bytes)) {
      return Fail(cudaErrorInvalidValue, "cudaMemcpy of " + std::to_string(bytes) + " bytes past an allocation's end");
    }
  }
  const bool dst_device = emu::OnDevice(dst, bytes), src_device = emu::OnDevice(src, bytes);
  const bool ok = kind == cudaMemcpyDefault || (kind == cudaMemcpyHostToHost && !dst_device && !src_device) ||
                  (kind == cudaMemcpyHostToDevice && dst_device && !src_device) ||
                  (kind == cudaMemcpyDeviceToHost && !dst_device && src_device) ||
                  (kind == cudaMemcpyDeviceToDevice && dst_device && src_device);
  if (!ok) {
    return Fail(cudaErrorInvalidValue, "cudaMemcpy of kind " + std::to_string(kind) + " from " +
                                           (src_device ? "device" : "host") + " to " + (dst_device ? "device" : "host") +
                                           " memory (or past an allocation's end)");
  }
  std::memmove(dst, src, bytes);
  return cudaSuccess;
}
cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind, cudaStream_t stream) {
  std::lock_guard<std::recursive_mutex> lock(emu::Mutex());
  if (!emu::ValidStream(stream)) return Fail(cudaErrorInvalidResourceHandle, "cudaMemcpyAsync on an unknown stream");
  return cudaMemcpy(dst, src, bytes, kind);
}

cudaError_t cudaMemset(void* p, int value, size_t bytes) {
  std::lock_guard<std::recursive_mutex> lock(emu::Mutex());
  if (bytes == 0) return cudaSuccess;
  if (!emu::OnDevice(p, bytes)) return Fail(cudaErrorInvalidValue, "cudaMemset outside device memory");
  std::memset(p, value, bytes);
  return cudaSuccess;
}
cudaError_t cudaMemsetAsync(void* p, int value, size_t bytes, cudaStream_t stream) {
  std::lock_guard<std::recursive_mutex> lock(emu::Mutex());
  if (!emu::ValidStream(stream)) return Fail(cudaErrorInvalidResourceHandle, "cudaMemsetAsync on an unknown stream");
  return cudaMemset(p, value, bytes);
}

cudaError_t cudaStreamCreate(cudaStream_t* stream) {
  std::lock_guard<std::recursive_mutex> lock(emu::Mutex());
  *stream = new CUstream_st;
  emu::streams.insert(*stream);
  return cudaSuccess;
}
cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  std::lock_guard<std::recursive_mutex> lock(emu::Mutex());
  if (emu::streams.erase(stream) == 0) return Fail(cudaErrorInvalidResourceHandle, "cudaStreamDestroy of an unknown stream");
  delete stream;
  return cudaSuccess;
}
cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
  std::lock_guard<std::recursive_mutex> lock(emu::Mutex());
  if (!emu::ValidStream(stream)) return Fail(cudaErrorInvalidResourceHandle, "cudaStreamSynchronize of an unknown stream");
  return cudaSuccess;
}
cudaError_t cudaDeviceSynchronize() { return cudaSuccess; }

cudaError_t cudaGetLastError() {
  std::lock_guard<std::recursive_mutex> lock(emu::Mutex());
  const cudaError_t e = emu::last_error;
  emu::last_error = cudaSuccess;
  return e;
}

const char* cudaGetErrorString(cudaError_t error) {
  switch (error) {
    case cudaSuccess: return "no error";
    case cudaErrorInvalidValue: return "invalid argument";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorInvalidConfiguration: return "invalid configuration argument";
    case cudaErrorInvalidDevicePointer: return "invalid device pointer";
    case cudaErrorInvalidMemcpyDirection: return "invalid copy direction for memcpy";
    case cudaErrorClusterOutOfResources: return "too many resources requested for launch of the cluster";
    case cudaErrorInvalidDevice: return "invalid device ordinal";
    case cudaErrorInvalidResourceHandle: return "invalid resource handle";
    case cudaErrorIllegalAddress: return "an illegal memory access was encountered";
    case cudaErrorLaunchFailure: return "unspecified launch failure";
    default: return "unknown error";
  }
}

cudaError_t cudaEventCreate(cudaEvent_t* event) {
  *event = new CUevent_st;
  return cudaSuccess;
}
cudaError_t cudaEventDestroy(cudaEvent_t event) {
  delete event;
  return cudaSuccess;
}
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t) {
  event->time = std::chrono::steady_clock::now();
  return cudaSuccess;
}
cudaError_t cudaEventSynchronize(cudaEvent_t) { return cudaSuccess; }
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
  *ms = std::chrono::duration<float, std::milli>(end->time - start->time).count();
  return cudaSuccess;
}
