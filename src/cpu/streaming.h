// When the kernels store an output non-temporally. Streaming stores skip the
// read-for-ownership of the output's lines (a quarter of a backward pass's
// traffic) but leave the output out of the caches. They are used from 16 MiB
// of output: with the two inputs, 48 MiB or more pass through the cache, past
// the 32 MiB last-level cache that a core of current servers reaches, so a
// plainly stored output would not stay there either. (On the benchmark
// machine, bfloat16 LayerNorm backward at 16384x1024, 32 MiB of dx, went from
// 18.7 to 23.0 GB/s when the threshold came down from 64 MiB.)
#pragma once

#include <cstddef>
#include <cstdint>

namespace gradops {
namespace cpu {

inline bool StreamOutput(double output_bytes) { return output_bytes >= 16.0 * (1 << 20); }

// Elements from p to the next multiple of `alignment` bytes (0 when p is
// there), at most n; -1 when no whole number of elements reaches it. The
// kernels store these plainly and stream the rest.
inline int64_t ElementsToAlignment(const void* p, size_t alignment, size_t element_bytes, int64_t n) {
  const uintptr_t misalign = reinterpret_cast<uintptr_t>(p) % alignment;
  if (misalign % element_bytes != 0) return -1;
  const int64_t elements = static_cast<int64_t>((alignment - misalign) % alignment / element_bytes);
  return elements < n ? elements : n;
}

}  // namespace cpu
}  // namespace gradops
