// SiLU's derivative for every 16-bit x: SiLU backward of a bfloat16 or
// float16 x is dx = dy * g(x), with g(x) = s * (1 + x * (1 - s)), s =
// sigmoid(x), taken from a table of g for all 65536 bit patterns of x,
// each computed in float64 and rounded once to float32.
//
// Why a table: computing g per element (an exponential, a reciprocal and a
// dozen more vector operations) bound 16-bit SiLU by its arithmetic at about
// 0.65 of the memory bandwidth; one gather per vector leaves it to the
// memory (docs/performance.md, attempt 60). It is also more accurate (g to
// half a float32 ulp) and gives the same bits on every path and layout.
#pragma once

#include "gradops/tensor.h"

namespace gradops {
namespace cpu {

// The table of `dtype` (kBFloat16 or kFloat16), indexed by x's 16 bits;
// nullptr for kFloat32. Built on first use (about a millisecond; 256 KiB
// each), then shared; thread-safe.
const float* SiluGradTable(DType dtype);

}  // namespace cpu
}  // namespace gradops
