// The acl runtime on device 0 (the CPU): set-up, memory, streams and the
// misuse it refuses instead of crashing; the choice of CUDA devices.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <thread>

#include "acl/acl.h"
#include "page_advice.h"
#ifdef GRADOPS_HAVE_CUDA
#include "cuda/cuda_backend.h"
#endif

namespace {

TEST(Runtime, InitAndDevices) {
  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
  EXPECT_EQ(aclInit(nullptr), ACL_ERROR_REPEAT_INITIALIZE);
  uint32_t count = 0;
  EXPECT_EQ(aclrtGetDeviceCount(&count), ACL_SUCCESS);
  EXPECT_EQ(count, 1u);
  EXPECT_EQ(aclrtSetDevice(1), ACL_ERROR_INVALID_DEVICE);
  EXPECT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  int32_t device = -1;
  EXPECT_EQ(aclrtGetDevice(&device), ACL_SUCCESS);
  EXPECT_EQ(device, 0);
  EXPECT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
  EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
  EXPECT_EQ(aclFinalize(), ACL_ERROR_UNINITIALIZE);
}

// GRADOPS_ACL_DEVICE, read by aclInit: "cuda" makes the device ids CUDA
// devices (none on a machine without a GPU), anything but "cpu" is refused.
TEST(Runtime, DeviceKindFromTheEnvironment) {
  ASSERT_EQ(setenv("GRADOPS_ACL_DEVICE", "npu", 1), 0);
  EXPECT_EQ(aclInit(nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("expected \"cpu\" or \"cuda\""), std::string::npos);
  EXPECT_EQ(aclFinalize(), ACL_ERROR_UNINITIALIZE);  // the refused aclInit initialized nothing

  ASSERT_EQ(setenv("GRADOPS_ACL_DEVICE", "cuda", 1), 0);
  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
  uint32_t count = 99;
  EXPECT_EQ(aclrtGetDeviceCount(&count), ACL_SUCCESS);
#ifdef GRADOPS_HAVE_CUDA
  EXPECT_EQ(count, static_cast<uint32_t>(gradops::cuda::DeviceCount()));
#else
  EXPECT_EQ(count, 0u);
#endif
  EXPECT_EQ(aclrtSetDevice(static_cast<int32_t>(count)), ACL_ERROR_INVALID_DEVICE);  // one past the last
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("GRADOPS_ACL_DEVICE=cuda"), std::string::npos);
  void* p = nullptr;
  if (count == 0) {  // nothing to run on: refused, not quietly done on the CPU
    EXPECT_EQ(aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_DEVICE);
    EXPECT_EQ(p, nullptr);
    aclrtStream s = nullptr;
    EXPECT_EQ(aclrtCreateStream(&s), ACL_ERROR_INVALID_DEVICE);
  } else {
    ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
    void* host = nullptr;
    ASSERT_EQ(aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    ASSERT_EQ(aclrtMallocHost(&host, 64), ACL_SUCCESS);
#ifdef GRADOPS_HAVE_CUDA
    EXPECT_TRUE(gradops::cuda::IsDevicePointer(p));
    EXPECT_FALSE(gradops::cuda::IsDevicePointer(host));
#endif
    aclrtStream s = nullptr;
    ASSERT_EQ(aclrtCreateStream(&s), ACL_SUCCESS);
    const char text[16] = "on the GPU";
    EXPECT_EQ(aclrtMemset(p, 64, 0x5A, 64), ACL_SUCCESS);
    EXPECT_EQ(aclrtMemcpyAsync(p, 64, text, 16, ACL_MEMCPY_HOST_TO_DEVICE, s), ACL_SUCCESS);
    EXPECT_EQ(aclrtMemcpyAsync(host, 64, p, 64, ACL_MEMCPY_DEVICE_TO_HOST, s), ACL_SUCCESS);
    EXPECT_EQ(aclrtSynchronizeStream(s), ACL_SUCCESS);
    EXPECT_STREQ(static_cast<char*>(host), "on the GPU");
    EXPECT_EQ(static_cast<unsigned char*>(host)[63], 0x5A);
    EXPECT_EQ(aclrtDestroyStream(s), ACL_SUCCESS);
    EXPECT_EQ(aclrtFree(p), ACL_SUCCESS);
    EXPECT_EQ(aclrtFreeHost(host), ACL_SUCCESS);
  }
  EXPECT_EQ(aclFinalize(), ACL_SUCCESS);

  ASSERT_EQ(unsetenv("GRADOPS_ACL_DEVICE"), 0);  // the CPU again
  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
  EXPECT_EQ(aclrtGetDeviceCount(&count), ACL_SUCCESS);
  EXPECT_EQ(count, 1u);
  EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
}

TEST(Runtime, MemoryCopiesAndMisuse) {
  void* a = nullptr;
  void* b = nullptr;
  ASSERT_EQ(aclrtMalloc(&a, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  ASSERT_EQ(aclrtMallocHost(&b, 64), ACL_SUCCESS);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a) % 32, 0u);
  const char text[16] = "device memory";
  EXPECT_EQ(aclrtMemcpy(a, 64, text, 16, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
  EXPECT_EQ(aclrtMemcpy(b, 64, a, 16, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
  EXPECT_STREQ(static_cast<char*>(b), "device memory");
  EXPECT_EQ(aclrtMemset(a, 64, 0, 64), ACL_SUCCESS);

  char big[128] = {};
  EXPECT_EQ(aclrtMemcpy(a, 128, big, 128, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_INVALID_PARAM);  // past the end
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("past the end"), std::string::npos);
  EXPECT_EQ(aclrtMemcpy(static_cast<char*>(a) + 60, 8, big, 8, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtMemcpy(big, 128, a, 65, ACL_MEMCPY_DEVICE_TO_HOST), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtMemcpy(a, 8, big, 16, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_INVALID_PARAM);  // count > destMax
  EXPECT_EQ(aclrtMemcpy(a, 8, big, 8, static_cast<aclrtMemcpyKind>(42)), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtMemset(a, 128, 0, 128), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtMalloc(&a, 0, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);

  EXPECT_EQ(aclrtFreeHost(a), ACL_ERROR_INVALID_PARAM);  // device memory is not host memory
  EXPECT_EQ(aclrtFree(a), ACL_SUCCESS);
  EXPECT_EQ(aclrtFree(a), ACL_ERROR_INVALID_PARAM);  // double free
  EXPECT_EQ(aclrtFree(big), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtFreeHost(b), ACL_SUCCESS);
}

// On the CPU, aclrtMalloc's huge-page policies advise large pages for
// allocations of 2 MiB and more; the normal-only ones do not.
TEST(CpuRuntime, MallocPolicyChoosesThePages) {
  const size_t bytes = size_t{8} << 20;
  const struct {
    aclrtMemMallocPolicy policy;
    bool advised;
  } cases[] = {{ACL_MEM_MALLOC_HUGE_FIRST, true}, {ACL_MEM_MALLOC_HUGE_ONLY, true},
               {ACL_MEM_MALLOC_NORMAL_ONLY, false}, {ACL_MEM_MALLOC_NORMAL_ONLY_P2P, false}};
  for (const auto& c : cases) {
    void* p = nullptr;
    ASSERT_EQ(aclrtMalloc(&p, bytes, c.policy), ACL_SUCCESS);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u);
    std::memset(p, 0x3C, bytes);
    const std::optional<bool> advised = gradops::test::AdvisedForHugePages(p);
    if (advised.has_value()) {
      EXPECT_EQ(*advised, c.advised) << "policy " << c.policy;
    }
    EXPECT_EQ(aclrtFree(p), ACL_SUCCESS);
    if (!advised.has_value()) {
      GTEST_SKIP() << "this kernel reports no transparent huge pages (/proc/self/smaps VmFlags)";
    }
  }
  void* host = nullptr;  // aclrtMallocHost has no policy: ordinary pages
  ASSERT_EQ(aclrtMallocHost(&host, bytes), ACL_SUCCESS);
  EXPECT_EQ(gradops::test::AdvisedForHugePages(host), std::optional<bool>(false));
  EXPECT_EQ(aclrtFreeHost(host), ACL_SUCCESS);
}

// Device memory on the CPU starts at staggered positions within its pages
// (core/host_memory.h), so that tensors allocated one after another do not
// share their page offset.
TEST(CpuRuntime, MallocStaggersTensors) {
  void* a = nullptr;
  void* b = nullptr;
  ASSERT_EQ(aclrtMalloc(&a, size_t{1} << 20, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);
  ASSERT_EQ(aclrtMalloc(&b, size_t{1} << 20, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  const uintptr_t pa = reinterpret_cast<uintptr_t>(a), pb = reinterpret_cast<uintptr_t>(b);
  EXPECT_EQ(pa % 256, 0u);
  EXPECT_EQ(pb % 256, 0u);
  EXPECT_NE(pa % 4096, pb % 4096);
  EXPECT_EQ(aclrtFree(a), ACL_SUCCESS);
  EXPECT_EQ(aclrtFree(b), ACL_SUCCESS);
}

TEST(Runtime, Streams) {
  aclrtStream s = nullptr;
  ASSERT_EQ(aclrtCreateStream(&s), ACL_SUCCESS);
  void* a = nullptr;
  ASSERT_EQ(aclrtMalloc(&a, 16, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  const int values[4] = {1, 2, 3, 4};
  EXPECT_EQ(aclrtMemcpyAsync(a, 16, values, 16, ACL_MEMCPY_HOST_TO_DEVICE, s), ACL_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeStream(s), ACL_SUCCESS);
  EXPECT_EQ(std::memcmp(a, values, 16), 0);
  EXPECT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);  // the default stream
  EXPECT_EQ(aclrtDestroyStream(s), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyStream(s), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtSynchronizeStream(s), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtMemcpyAsync(a, 16, values, 16, ACL_MEMCPY_HOST_TO_DEVICE, s), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtFree(a), ACL_SUCCESS);
}

TEST(Runtime, ErrorMessagesArePerThread) {
  EXPECT_EQ(aclrtFree(nullptr), ACL_ERROR_INVALID_PARAM);
  const std::string here = aclGetRecentErrMsg();
  EXPECT_FALSE(here.empty());
  std::string there = "unset";
  std::thread([&] { there = aclGetRecentErrMsg(); }).join();
  EXPECT_EQ(there, "");
}

TEST(Runtime, DTypesAndHalfConversion) {
  EXPECT_EQ(aclDataTypeSize(ACL_FLOAT), 4u);
  EXPECT_EQ(aclDataTypeSize(ACL_BF16), 2u);
  EXPECT_EQ(aclDataTypeSize(ACL_INT64), 8u);
  EXPECT_EQ(aclDataTypeSize(static_cast<aclDataType>(5)), 0u);
  EXPECT_EQ(aclFloatToFloat16(1.0f), 0x3C00);
  EXPECT_EQ(aclFloat16ToFloat(0xC000), -2.0f);
  EXPECT_EQ(aclFloatToFloat16(1.0f + 1.0f / 2048), 0x3C00);  // a tie: to even
}

}  // namespace
