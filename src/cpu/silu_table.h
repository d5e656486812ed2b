// SiLU's derivative for every 16-bit x: SiLU backward of a bfloat16 or
// float16 x is dx = dy * g(x), with g(x) = s * (1 + x * (1 - s)), s =
// sigmoid(x), and a 16-bit x has only 65536 values: a table holds g for all
// of them, computed once by the SIMD code that computes g per element
// (SiluSlopes), so looking g up and computing it give the same bits on a
// given machine and target (g's last bits depend on the target's FMA and
// reciprocal estimate, as any float32 arithmetic of theirs does, and on
// whether 1 / (1 + e) is divided: a table for each way).
//
// Where gathers are fast (Intel CPUs on AVX-512), the SIMD span looks g up
// for contiguous x: one gather per vector instead of an exponential, a
// reciprocal and about 15 more vector operations, which bound 16-bit SiLU by
// its arithmetic at about 0.65 of the memory bandwidth there
// (docs/performance.md, attempt 60). Elsewhere it computes g (attempt 65).
// The generic path (strided, mixed dtypes into a 16-bit dx) always looks it
// up.
#pragma once

#include "gradops/tensor.h"

namespace gradops {
namespace cpu {

// The table of `dtype` (kBFloat16 or kFloat16), indexed by x's 16 bits, of
// g computed with or without division (`divide`, silu.h: SiluDivides);
// nullptr for kFloat32. Built on first use (well under a millisecond; 256
// KiB each), then shared; thread-safe.
const float* SiluSlopeTable(DType dtype, bool divide);

}  // namespace cpu
}  // namespace gradops
