// aclrt memory functions: allocation, copies and fills, with every pointer
// the runtime knows checked against its allocation.
#include <string>

#include "acl/acl.h"
#include "common/error_message.h"
#include "runtime/memory_registry.h"
#include "runtime/runtime.h"

namespace gradops {
namespace cann {
namespace runtime {
namespace {

// Large pages unless the policy asks for normal ones only.
bool HugePages(aclrtMemMallocPolicy policy) {
  return policy != ACL_MEM_MALLOC_NORMAL_ONLY && policy != ACL_MEM_MALLOC_NORMAL_ONLY_P2P;
}

aclError Allocate(void** ptr, size_t size, MemoryKind kind, bool huge_pages, const char* api) {
  if (ptr == nullptr) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": the pointer to fill is null");
  if (size == 0) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": size is 0");
  Device* device = CurrentDevice();
  if (device == nullptr) return ACL_ERROR_INVALID_DEVICE;
  void* p = kind == MemoryKind::kDevice ? device->Allocate(size, huge_pages) : device->AllocateHost(size);
  if (p == nullptr) {
    return Fail(ACL_ERROR_RT_MEMORY_ALLOCATION, std::string(api) + ": out of memory for " + std::to_string(size) + " bytes");
  }
  AddAllocation(p, size, kind, device);
  *ptr = p;
  return ACL_SUCCESS;
}

aclError Release(void* ptr, MemoryKind kind, const char* api) {
  if (ptr == nullptr) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": pointer is null");
  Device* owner = RemoveAllocation(ptr, kind);
  if (owner == nullptr) {
    return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": not the start of a live allocation of this kind "
                                                             "(freed twice, or not allocated by the runtime)");
  }
  kind == MemoryKind::kDevice ? owner->Free(ptr) : owner->FreeHost(ptr);
  return ACL_SUCCESS;
}

// The return code of a copy or fill the device ran or queued.
aclError Done(const Status& status, const char* api) {
  if (status.ok()) return ACL_SUCCESS;
  return Fail(ACL_ERROR_RT_FAILURE, std::string(api) + ": " + status.message());
}

bool ValidKind(aclrtMemcpyKind kind) {
  return kind >= ACL_MEMCPY_HOST_TO_HOST && kind <= ACL_MEMCPY_INTER_DEVICE_TO_DEVICE;
}

// The checks of aclrtMemcpy and aclrtMemcpyAsync, then the copy on `stream`.
aclError Copy(void* dst, size_t dest_max, const void* src, size_t count, aclrtMemcpyKind kind, Stream* stream,
              const char* api) {
  const std::string a = api;
  if (!ValidKind(kind)) return Fail(ACL_ERROR_INVALID_PARAM, a + ": kind " + std::to_string(kind) + " is unknown");
  if (count > dest_max) {
    return Fail(ACL_ERROR_INVALID_PARAM, a + ": count " + std::to_string(count) + " exceeds destMax " + std::to_string(dest_max));
  }
  if (count == 0) return ACL_SUCCESS;
  if (dst == nullptr || src == nullptr) return Fail(ACL_ERROR_INVALID_PARAM, a + ": dst or src is null");
  std::string error;
  if (!CheckRange(dst, count, "dst", &error) || !CheckRange(src, count, "src", &error)) {
    return Fail(ACL_ERROR_INVALID_PARAM, a + ": " + error);
  }
  Device* device = CurrentDevice();
  if (device == nullptr) return ACL_ERROR_INVALID_DEVICE;
  return Done(device->Copy(dst, src, count, stream), api);
}

}  // namespace
}  // namespace runtime
}  // namespace cann
}  // namespace gradops

using gradops::cann::Fail;
namespace rt = gradops::cann::runtime;

extern "C" {

aclError aclrtMalloc(void** devPtr, size_t size, aclrtMemMallocPolicy policy) {
  return rt::Allocate(devPtr, size, rt::MemoryKind::kDevice, rt::HugePages(policy), "aclrtMalloc");
}

aclError aclrtFree(void* devPtr) { return rt::Release(devPtr, rt::MemoryKind::kDevice, "aclrtFree"); }

aclError aclrtMallocHost(void** hostPtr, size_t size) {
  return rt::Allocate(hostPtr, size, rt::MemoryKind::kHost, false, "aclrtMallocHost");
}

aclError aclrtFreeHost(void* hostPtr) { return rt::Release(hostPtr, rt::MemoryKind::kHost, "aclrtFreeHost"); }

aclError aclrtMemcpy(void* dst, size_t destMax, const void* src, size_t count, aclrtMemcpyKind kind) {
  return rt::Copy(dst, destMax, src, count, kind, nullptr, "aclrtMemcpy");
}

aclError aclrtMemcpyAsync(void* dst, size_t destMax, const void* src, size_t count, aclrtMemcpyKind kind,
                          aclrtStream stream) {
  rt::Stream* s = rt::FindStream(stream);
  if (s == nullptr) return ACL_ERROR_INVALID_PARAM;
  return rt::Copy(dst, destMax, src, count, kind, s, "aclrtMemcpyAsync");
}

aclError aclrtMemset(void* devPtr, size_t maxCount, int32_t value, size_t count) {
  if (count > maxCount) {
    return Fail(ACL_ERROR_INVALID_PARAM, "aclrtMemset: count " + std::to_string(count) + " exceeds maxCount " +
                                             std::to_string(maxCount));
  }
  if (count == 0) return ACL_SUCCESS;
  if (devPtr == nullptr) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtMemset: devPtr is null");
  std::string error;
  if (!rt::CheckRange(devPtr, count, "devPtr", &error)) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtMemset: " + error);
  rt::Device* device = rt::CurrentDevice();
  if (device == nullptr) return ACL_ERROR_INVALID_DEVICE;
  return rt::Done(device->Fill(devPtr, value, count, nullptr), "aclrtMemset");
}

}  // extern "C"
