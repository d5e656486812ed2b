// Host memory for tensors (src/core/host_memory.h): alignment, sizes that
// cannot be had, the large-page advice and the staggered page offsets.
#include "core/host_memory.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>

#include "core/sanitizers.h"
#include "page_advice.h"

namespace gradops {
namespace {

uintptr_t Address(const void* p) { return reinterpret_cast<uintptr_t>(p); }

TEST(HostMemory, LinesAlignedAndUsable) {
  for (bool huge : {false, true}) {
    for (bool staggered : {false, true}) {
      for (size_t bytes : {size_t{0}, size_t{1}, size_t{63}, size_t{64}, size_t{4097}, kStaggerMinBytes - 1,
                           kStaggerMinBytes, kHugePageBytes - 1, kHugePageBytes + 4095}) {
        unsigned char* p = static_cast<unsigned char*>(AllocateHostMemory(bytes, HostPlacement{huge, staggered}));
        ASSERT_NE(p, nullptr) << bytes;
        EXPECT_EQ(Address(p) % 64, 0u) << bytes;
        std::memset(p, 0x5A, bytes);
        if (bytes > 0) EXPECT_EQ(p[bytes - 1], 0x5A);
        FreeHostMemory(p);
      }
    }
  }
}

// Consecutive large allocations start kStaggerStep bytes apart within their
// pages, each one before the last, through every position of the cycle.
TEST(HostMemory, StaggeredAllocationsStepBackThroughThePage) {
  constexpr size_t kPositions = kStaggerPositions;
  static_assert(kStaggerStep * kPositions % 4096 == 0, "the cycle ends on a page");
  for (bool huge : {false, true}) {
    const size_t bytes = huge ? 2 * kHugePageBytes : kStaggerMinBytes;
    void* p[kPositions + 1];
    for (void*& q : p) {
      q = AllocateHostMemory(bytes, HostPlacement{huge, true});
      ASSERT_NE(q, nullptr);
      EXPECT_EQ(Address(q) % 256, 0u);
      std::memset(q, 0x6B, bytes);
    }
    for (size_t i = 1; i <= kPositions; ++i) {
      EXPECT_EQ((Address(p[i]) + kStaggerStep) % 4096, Address(p[i - 1]) % 4096) << i;
      if (i < kPositions) EXPECT_NE(Address(p[i]) % 4096, Address(p[0]) % 4096) << i;  // all distinct
    }
    EXPECT_EQ(Address(p[kPositions]) % 4096, Address(p[0]) % 4096);  // back where it began
    for (void* q : p) FreeHostMemory(q);
  }
}

// Under AddressSanitizer the rest of an own mapping is poisoned: a byte past
// the end of a staggered or huge-page allocation, or before its start, is
// reported like an overflow of malloc's memory.
TEST(HostMemoryDeathTest, OverrunsOfOwnMappingsAreReported) {
#ifdef GRADOPS_ASAN
  for (HostPlacement placement : {HostPlacement{false, true}, HostPlacement{true, false}}) {
    const size_t bytes = kHugePageBytes + 100;
    volatile unsigned char* p = static_cast<unsigned char*>(AllocateHostMemory(bytes, placement));
    ASSERT_NE(p, nullptr);
    p[0] = 1;
    p[bytes - 1] = 1;
    EXPECT_DEATH(p[bytes] = 1, "AddressSanitizer");
    if (placement.staggered && Address(const_cast<unsigned char*>(p)) % 4096 != 0) {
      EXPECT_DEATH(p[-1] = 1, "AddressSanitizer");
    }
    FreeHostMemory(const_cast<unsigned char*>(p));
  }
#else
  GTEST_SKIP() << "needs an AddressSanitizer build (scripts/test.sh --sanitize)";
#endif
}

// Allocations under kStaggerMinBytes, and those not asked to be staggered,
// are placed as ever and take no staggered position.
TEST(HostMemory, OnlyLargeStaggeredAllocationsMove) {
  void* first = AllocateHostMemory(kStaggerMinBytes, HostPlacement{false, true});
  void* small = AllocateHostMemory(kStaggerMinBytes - 64, HostPlacement{false, true});
  void* plain = AllocateHostMemory(4 * kStaggerMinBytes);
  void* huge = AllocateHostMemory(2 * kHugePageBytes, HostPlacement{true, false});
  void* next = AllocateHostMemory(kStaggerMinBytes, HostPlacement{false, true});
  ASSERT_TRUE(first && small && plain && huge && next);
  EXPECT_EQ(Address(small) % 64, 0u);
  EXPECT_EQ(Address(plain) % 64, 0u);
  EXPECT_EQ(Address(huge) % kHugePageBytes, 0u);
  EXPECT_EQ((Address(next) + kStaggerStep) % 4096, Address(first) % 4096);
  for (void* p : {first, small, plain, huge, next}) FreeHostMemory(p);
}

TEST(HostMemory, LargeAllocationsOnHugePageBoundaries) {
  for (bool staggered : {false, true}) {
    for (size_t bytes : {kHugePageBytes, 3 * kHugePageBytes + 5}) {
      unsigned char* p = static_cast<unsigned char*>(AllocateHostMemory(bytes, HostPlacement{true, staggered}));
      ASSERT_NE(p, nullptr);
      // Staggered: a position within the boundary's first page.
      EXPECT_LT(Address(p) % kHugePageBytes, staggered ? 4096u : 1u);
      std::memset(p, 0xA5, bytes);  // every byte asked for is there
      EXPECT_EQ(p[bytes - 1], 0xA5);
      FreeHostMemory(p);
    }
  }
}

TEST(HostMemory, SizesPastTheAddressSpaceFail) {
  for (bool huge : {false, true}) {
    for (bool staggered : {false, true}) {
      EXPECT_EQ(AllocateHostMemory(SIZE_MAX, HostPlacement{huge, staggered}), nullptr);
      EXPECT_EQ(AllocateHostMemory(SIZE_MAX - 100, HostPlacement{huge, staggered}), nullptr);
      if (huge || staggered) {  // own mappings (malloc's refusal of such sizes is its own business)
        EXPECT_EQ(AllocateHostMemory(static_cast<size_t>(PTRDIFF_MAX) - 100, HostPlacement{huge, staggered}), nullptr);
      }
    }
  }
}

// The advice reaches the kernel for large allocations asked with huge
// pages, and only for those.
TEST(HostMemory, HugePageAdvice) {
  void* large = AllocateHostMemory(4 * kHugePageBytes, HostPlacement{true, true});
  void* plain = AllocateHostMemory(4 * kHugePageBytes, HostPlacement{false, true});
  void* small = AllocateHostMemory(kHugePageBytes / 2, HostPlacement{true, false});
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
