// When the kernels store an output non-temporally. Streaming stores skip the
// read-for-ownership of the output's lines (a quarter of a backward pass's
// traffic) but leave the output out of the caches. They are used from 16 MiB
// of output: with the two inputs, 48 MiB or more pass through the cache, past
// the 32 MiB last-level cache that a core of current servers reaches, so a
// plainly stored output would not stay there either. (On the benchmark
// machine, bfloat16 LayerNorm backward at 16384x1024, 32 MiB of dx, went from
// 18.7 to 23.0 GB/s when the threshold came down from 64 MiB.)
#pragma once

namespace gradops {
namespace cpu {

inline bool StreamOutput(double output_bytes) { return output_bytes >= 16.0 * (1 << 20); }

}  // namespace cpu
}  // namespace gradops
