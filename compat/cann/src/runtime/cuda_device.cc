// CUDA devices behind the acl runtime (GRADOPS_ACL_DEVICE=cuda): device
// memory from cudaMalloc, pinned host memory from cudaMallocHost, copies and
// fills on CUDA streams.
//
// Ordering: operators launch their kernels on the stream they are submitted
// to, so a copy queued on a stream, then an operator, then a copy back run in
// that order, and Synchronize waits for them. The streams are blocking
// streams (cudaStreamCreate): work on the legacy default stream (a plain
// cudaMemcpy, say) waits for them and they for it.
// Without the CUDA backend this file only reports that there is no device.
#include "runtime/device.h"

#ifdef GRADOPS_HAVE_CUDA

#include <cuda_runtime.h>

#include <mutex>
#include <string>
#include <vector>

namespace gradops {
namespace cann {
namespace runtime {
namespace {

Status CudaStatus(cudaError_t error, const char* what) {
  if (error == cudaSuccess) return Status();
  return Status(StatusCode::kRuntimeError, std::string(what) + ": " + cudaGetErrorString(error));
}

class CudaStream final : public Stream {
 public:
  explicit CudaStream(int device) : device_(device) {
    cudaSetDevice(device_);
    Keep(CudaStatus(cudaStreamCreate(&stream_), "cudaStreamCreate"));
  }
  ~CudaStream() override {
    if (stream_ != nullptr) {
      cudaSetDevice(device_);
      cudaStreamDestroy(stream_);
    }
  }
  // Operators launch on this stream as they are submitted.
  void Submit(std::function<Status(void*)> work) override {
    cudaSetDevice(device_);
    Keep(work(stream_));
  }
  Status Synchronize() override {
    cudaSetDevice(device_);
    if (stream_ != nullptr) Keep(CudaStatus(cudaStreamSynchronize(stream_), "cudaStreamSynchronize"));
    Status status = pending_;
    pending_ = Status();
    return status;
  }
  cudaStream_t handle() const { return stream_; }

 private:
  void Keep(const Status& status) {
    if (!status.ok() && pending_.ok()) pending_ = status;
  }

  int device_;
  cudaStream_t stream_ = nullptr;
  Status pending_;
};

class CudaDeviceImpl final : public Device {
 public:
  explicit CudaDeviceImpl(int index) : index_(index), name_("cuda:" + std::to_string(index)) {}
  const char* name() const override { return name_.c_str(); }
  void* Allocate(size_t bytes, bool) override {
    void* p = nullptr;
    cudaSetDevice(index_);
    return cudaMalloc(&p, bytes) == cudaSuccess ? p : nullptr;  // 256-byte aligned
  }
  void Free(void* ptr) override {
    cudaSetDevice(index_);
    cudaFree(ptr);
  }
  void* AllocateHost(size_t bytes) override {
    void* p = nullptr;
    return cudaMallocHost(&p, bytes) == cudaSuccess ? p : nullptr;
  }
  void FreeHost(void* ptr) override { cudaFreeHost(ptr); }
  // The runtime checked the ranges; CUDA's unified addressing finds the
  // direction from the pointers.
  Status Copy(void* dst, const void* src, size_t bytes, Stream* stream) override {
    cudaSetDevice(index_);
    if (stream == nullptr) return CudaStatus(cudaMemcpy(dst, src, bytes, cudaMemcpyDefault), "cudaMemcpy");
    const cudaStream_t s = static_cast<CudaStream*>(stream)->handle();
    return CudaStatus(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, s), "cudaMemcpyAsync");
  }
  Status Fill(void* dst, int value, size_t bytes, Stream* stream) override {
    cudaSetDevice(index_);
    if (stream == nullptr) return CudaStatus(cudaMemset(dst, value, bytes), "cudaMemset");
    const cudaStream_t s = static_cast<CudaStream*>(stream)->handle();
    return CudaStatus(cudaMemsetAsync(dst, value, bytes, s), "cudaMemsetAsync");
  }
  std::unique_ptr<Stream> CreateStream() override { return std::unique_ptr<Stream>(new CudaStream(index_)); }
  Stream& DefaultStream() override {
    std::call_once(default_once_, [&] { default_stream_.reset(new CudaStream(index_)); });
    return *default_stream_;
  }

 private:
  int index_;
  std::string name_;
  std::once_flag default_once_;
  std::unique_ptr<CudaStream> default_stream_;
};

}  // namespace

int CudaDeviceCount() {
  static const int count = [] {
    int n = 0;
    return cudaGetDeviceCount(&n) == cudaSuccess ? n : 0;
  }();
  return count;
}

Device& CudaDevice(int index) {
  static std::vector<CudaDeviceImpl*>* devices = [] {
    auto* all = new std::vector<CudaDeviceImpl*>();
    for (int i = 0; i < CudaDeviceCount(); ++i) all->push_back(new CudaDeviceImpl(i));
    return all;
  }();
  return *(*devices)[static_cast<size_t>(index)];
}

}  // namespace runtime
}  // namespace cann
}  // namespace gradops

#else  // no CUDA backend in this build

namespace gradops {
namespace cann {
namespace runtime {

int CudaDeviceCount() { return 0; }
Device& CudaDevice(int) { return CpuDevice(); }  // unreachable: the count is 0

}  // namespace runtime
}  // namespace cann
}  // namespace gradops

#endif
