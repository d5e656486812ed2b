// Host memory for tensors (src/core/host_memory.h): alignment, sizes that
// cannot be had, and the large-page advice.
#include "core/host_memory.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>

#include "page_advice.h"

namespace gradops {
namespace {

uintptr_t Address(const void* p) { return reinterpret_cast<uintptr_t>(p); }

TEST(HostMemory, LinesAlignedAndUsable) {
  for (bool huge : {false, true}) {
    for (size_t bytes : {size_t{0}, size_t{1}, size_t{63}, size_t{64}, size_t{4097}, kHugePageBytes - 1}) {
      void* p = AllocateHostMemory(bytes, huge);
      ASSERT_NE(p, nullptr) << bytes;
      EXPECT_EQ(Address(p) % 64, 0u) << bytes;
      std::memset(p, 0x5A, bytes);
      FreeHostMemory(p);
    }
  }
}

TEST(HostMemory, LargeAllocationsOnHugePageBoundaries) {
  for (size_t bytes : {kHugePageBytes, 3 * kHugePageBytes + 5}) {
    unsigned char* p = static_cast<unsigned char*>(AllocateHostMemory(bytes, true));
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(Address(p) % kHugePageBytes, 0u);
    std::memset(p, 0xA5, bytes);  // every byte asked for is there
    EXPECT_EQ(p[bytes - 1], 0xA5);
    FreeHostMemory(p);
  }
}

TEST(HostMemory, SizesPastTheAddressSpaceFail) {
  for (bool huge : {false, true}) {
    EXPECT_EQ(AllocateHostMemory(SIZE_MAX, huge), nullptr);
    EXPECT_EQ(AllocateHostMemory(SIZE_MAX - 100, huge), nullptr);
  }
}

// The advice reaches the kernel for large allocations asked with huge
// pages, and only for those.
TEST(HostMemory, HugePageAdvice) {
  void* large = AllocateHostMemory(4 * kHugePageBytes, true);
  void* plain = AllocateHostMemory(4 * kHugePageBytes, false);
  void* small = AllocateHostMemory(kHugePageBytes / 2, true);
  ASSERT_TRUE(large && plain && small);
  const std::optional<bool> advised = test::AdvisedForHugePages(large);
  if (!advised.has_value()) {
    FreeHostMemory(large);
    FreeHostMemory(plain);
    FreeHostMemory(small);
    GTEST_SKIP() << "this kernel reports no transparent huge pages (/proc/self/smaps VmFlags)";
  }
  EXPECT_TRUE(*advised);
  EXPECT_EQ(test::AdvisedForHugePages(plain), std::optional<bool>(false));
  EXPECT_EQ(test::AdvisedForHugePages(small), std::optional<bool>(false));
  FreeHostMemory(large);
  FreeHostMemory(plain);
  FreeHostMemory(small);
}

}  // namespace
}  // namespace gradops
