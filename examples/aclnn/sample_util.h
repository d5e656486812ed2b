// Shared boilerplate of the aclnn sample programs: runtime set-up, device
// tensors from host vectors, reading results back and printing them as
// "name[i] = value" lines.
#ifndef GRADOPS_EXAMPLES_ACLNN_SAMPLE_UTIL_H_
#define GRADOPS_EXAMPLES_ACLNN_SAMPLE_UTIL_H_

#include <cstdint>
#include <cstdio>
#include <vector>

#include "acl/acl.h"
#include "aclnn/acl_meta.h"

#define SAMPLE_CHECK(expr, what)                                                        \
  do {                                                                                  \
    const int sample_status_ = static_cast<int>(expr);                                  \
    if (sample_status_ != 0) {                                                          \
      std::printf("%s failed: %d (%s)\n", what, sample_status_, aclGetRecentErrMsg());  \
      return sample_status_;                                                            \
    }                                                                                   \
  } while (0)

inline int64_t Numel(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

// aclInit, device 0 and a new stream.
inline int InitRuntime(aclrtStream* stream) {
  SAMPLE_CHECK(aclInit(nullptr), "aclInit");
  SAMPLE_CHECK(aclrtSetDevice(0), "aclrtSetDevice");
  SAMPLE_CHECK(aclrtCreateStream(stream), "aclrtCreateStream");
  return 0;
}

inline int FinalizeRuntime(aclrtStream stream) {
  SAMPLE_CHECK(aclrtDestroyStream(stream), "aclrtDestroyStream");
  SAMPLE_CHECK(aclrtResetDevice(0), "aclrtResetDevice");
  SAMPLE_CHECK(aclFinalize(), "aclFinalize");
  return 0;
}

// A contiguous ND tensor of `shape` on the device, holding `host`.
template <typename T>
int MakeDeviceTensor(const std::vector<T>& host, const std::vector<int64_t>& shape, aclDataType dtype,
                     void** device, aclTensor** tensor) {
  const size_t bytes = host.size() * sizeof(T);
  SAMPLE_CHECK(aclrtMalloc(device, bytes, ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc");
  SAMPLE_CHECK(aclrtMemcpy(*device, bytes, host.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE), "aclrtMemcpy");
  std::vector<int64_t> strides(shape.size(), 1);
  for (size_t i = shape.size(); i-- > 1;) strides[i - 1] = strides[i] * shape[i];
  *tensor = aclCreateTensor(shape.data(), shape.size(), dtype, strides.data(), 0, ACL_FORMAT_ND, shape.data(),
                            shape.size(), *device);
  return *tensor == nullptr ? 1 : 0;
}

// Copies `count` floats back from the device and prints them.
inline int PrintDeviceFloats(const char* name, const void* device, int64_t count) {
  std::vector<float> host(static_cast<size_t>(count));
  const size_t bytes = host.size() * sizeof(float);
  SAMPLE_CHECK(aclrtMemcpy(host.data(), bytes, device, bytes, ACL_MEMCPY_DEVICE_TO_HOST), "aclrtMemcpy");
  for (int64_t i = 0; i < count; ++i) std::printf("%s[%lld] = %.9g\n", name, static_cast<long long>(i), host[i]);
  return 0;
}

inline void PrintHostFloats(const char* name, const std::vector<float>& values) {
  for (size_t i = 0; i < values.size(); ++i) std::printf("%s[%zu] = %.9g\n", name, i, values[i]);
}

#endif  // GRADOPS_EXAMPLES_ACLNN_SAMPLE_UTIL_H_
