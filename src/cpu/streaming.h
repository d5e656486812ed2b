// When the kernels store an output non-temporally. Streaming stores skip the
// read-for-ownership of the output's lines (a quarter of a backward pass's
// traffic) but leave the output out of the caches, so they are kept for
// outputs well past the last-level cache.
#pragma once

namespace gradops {
namespace cpu {

inline bool StreamOutput(double output_bytes) { return output_bytes >= 64.0 * (1 << 20); }

}  // namespace cpu
}  // namespace gradops
