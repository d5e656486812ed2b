// Host memory for tensors, for the programs that allocate it themselves (the
// acl runtime's CPU device, the benchmark).
#pragma once

#include <cstddef>

namespace gradops {

// Large-page advice: streaming kernels over tensors of many MiB run faster
// on 2 MiB pages (fewer page walks, and the hardware prefetchers run on past
// each 4 KiB boundary). Measured with `gradops bench --huge-pages`;
// docs/performance.md has the numbers.
constexpr size_t kHugePageBytes = size_t{2} << 20;

// Where a large allocation starts within its first 4 KiB page. The kernels
// store one tensor's row while loading the next rows of others; when a
// stored row sits at the same position within a page as a row loaded soon
// after (same-offset tensors with rows a multiple of 4 KiB apart, or 2 KiB
// apart and 2 KiB between the tensors), the loads share the low 12 address
// bits of stores still in flight and wait for them (bfloat16 LayerNorm
// backward 4096x4096: a fifth of its time; docs/performance.md, attempt
// 23). Staggered allocations of kStaggerMinBytes or more start kStaggerStep
// bytes before the previous one's position (modulo 4 KiB), so that outputs
// allocated after their inputs sit behind them. The step is an odd multiple
// of 256 bytes: allocations one or two apart then differ by no multiple of
// 1 or 2 KiB either. Per-row and per-column vectors stay under the minimum
// on all but huge shapes, so a program's large tensors take consecutive
// positions.
constexpr size_t kStaggerMinBytes = size_t{1} << 20;
constexpr size_t kStaggerStep = 768;
constexpr size_t kStaggerPositions = 16;  // kStaggerStep * 16 is a whole number of pages

// How an allocation is placed.
struct HostPlacement {
  // An allocation of kHugePageBytes or more is a mapping of its own
  // (zero-filled), starting on a 2 MiB boundary and advised for transparent
  // huge pages before its first touch; where the kernel has them disabled
  // the advice changes nothing.
  bool huge_pages = false;
  // (Linux) An allocation of kStaggerMinBytes or more is a mapping of its
  // own (zero-filled, 256-byte aligned) starting at the next staggered
  // position past its page or 2 MiB boundary.
  bool staggered = false;
};

// `bytes` of memory, 64-byte aligned, placed as asked, or nullptr when it
// cannot be had (bytes == 0 gives a valid, unique pointer). Thread-safe.
void* AllocateHostMemory(size_t bytes, HostPlacement placement = {});

// Frees what AllocateHostMemory returned; null is ignored.
void FreeHostMemory(void* memory);

}  // namespace gradops
