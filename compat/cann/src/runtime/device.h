// The device interface behind the acl runtime. The front ends (acl, aclnn,
// ATB) reach memory and streams only through it, so another device (a GPU)
// can be added by implementing Device and Stream, without touching them.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>

#include "gradops/status.h"

namespace gradops {
namespace cann {
namespace runtime {

// An in-order queue of work. Work that fails keeps its Status; the next
// Synchronize returns the first such failure and clears it.
class Stream {
 public:
  virtual ~Stream() = default;
  // Queues `work` behind everything submitted before it; `work` gets the
  // stream's native handle for its launches (a cudaStream_t; null on the CPU).
  virtual void Submit(std::function<Status(void* native)> work) = 0;
  // Waits for all submitted work.
  virtual Status Synchronize() = 0;
};

class Device {
 public:
  virtual ~Device() = default;
  virtual const char* name() const = 0;
  // Device memory, aligned to at least 64 bytes; null when out of memory.
  // `huge_pages`: aclrtMalloc's policy asks for large pages first (the CPU
  // device advises them; a CUDA device has no such choice).
  virtual void* Allocate(size_t bytes, bool huge_pages) = 0;
  virtual void Free(void* ptr) = 0;
  // Host memory for copies to and from this device; null when out of memory.
  virtual void* AllocateHost(size_t bytes) = 0;
  virtual void FreeHost(void* ptr) = 0;
  // Copies and fills in stream order (stream null: synchronous); a copy's
  // direction follows from the pointers. The Status says whether the work
  // ran (synchronous) or was queued.
  virtual Status Copy(void* dst, const void* src, size_t bytes, Stream* stream) = 0;
  virtual Status Fill(void* dst, int value, size_t bytes, Stream* stream) = 0;
  virtual std::unique_ptr<Stream> CreateStream() = 0;
  // The stream of a null aclrtStream handle.
  virtual Stream& DefaultStream() = 0;
};

// The host CPU: device memory is host memory and streams run their work at
// submission, on the calling thread.
Device& CpuDevice();

// CUDA device `index` (0 <= index < CudaDeviceCount()). Without the CUDA
// backend, or without a GPU, the count is 0.
int CudaDeviceCount();
Device& CudaDevice(int index);

}  // namespace runtime
}  // namespace cann
}  // namespace gradops
