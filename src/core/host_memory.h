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

// `bytes` of memory, 64-byte aligned, or nullptr when it cannot be had
// (bytes == 0 gives a valid, unique pointer). With `huge_pages`, an
// allocation of kHugePageBytes or more is a mapping of its own (zero-filled),
// starting on a 2 MiB boundary and advised for transparent huge pages before
// its first touch; where the kernel has them disabled the advice changes
// nothing. Thread-safe.
void* AllocateHostMemory(size_t bytes, bool huge_pages);
// Frees what AllocateHostMemory returned; null is ignored.
void FreeHostMemory(void* memory);

}  // namespace gradops
