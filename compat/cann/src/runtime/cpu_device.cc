// The host CPU (device 0 unless GRADOPS_ACL_DEVICE selects CUDA devices).
// Streams are synchronous, so in-order execution and Synchronize are
// trivially satisfied.
#include <cstring>

#include "core/host_memory.h"
#include "runtime/device.h"

namespace gradops {
namespace cann {
namespace runtime {
namespace {

class CpuStream final : public Stream {
 public:
  void Submit(std::function<Status(void*)> work) override {
    Status status = work(nullptr);
    if (!status.ok() && pending_.ok()) pending_ = status;
  }
  Status Synchronize() override {
    Status status = pending_;
    pending_ = Status();
    return status;
  }

 private:
  Status pending_;
};

class CpuDeviceImpl final : public Device {
 public:
  const char* name() const override { return "cpu"; }
  // Tensors: staggered within their pages (core/host_memory.h).
  void* Allocate(size_t bytes, bool huge_pages) override {
    return AllocateHostMemory(bytes, HostPlacement{huge_pages, /*staggered=*/true});
  }
  void Free(void* ptr) override { FreeHostMemory(ptr); }
  void* AllocateHost(size_t bytes) override { return AllocateHostMemory(bytes); }
  void FreeHost(void* ptr) override { FreeHostMemory(ptr); }
  Status Copy(void* dst, const void* src, size_t bytes, Stream*) override {
    if (bytes > 0) std::memmove(dst, src, bytes);
    return Status();
  }
  Status Fill(void* dst, int value, size_t bytes, Stream*) override {
    if (bytes > 0) std::memset(dst, value, bytes);
    return Status();
  }
  std::unique_ptr<Stream> CreateStream() override { return std::unique_ptr<Stream>(new CpuStream()); }
  Stream& DefaultStream() override { return default_stream_; }

 private:
  CpuStream default_stream_;
};

}  // namespace

Device& CpuDevice() {
  static CpuDeviceImpl* device = new CpuDeviceImpl();
  return *device;
}

}  // namespace runtime
}  // namespace cann
}  // namespace gradops
