// The tolerances of every comparison against the float64 reference, in one
// place. An element passes when |got - want| <= atol * scale + rtol * |want|,
// scale being the largest |want| of the tensor (at least 1). They are at
// least as tight as CANN's published operator tests: LayerNorm 0.004,
// RMSNorm 0.005 (fp16/bf16) and 0.0005 (fp32), SiLU 1e-8 absolute at
// float32 resolution.
#pragma once

#include "gradops/tensor.h"

namespace gradops {
namespace ref {

struct Tolerance {
  double rtol, atol;
};

// The result's own rounding dominates: bfloat16 keeps 8 significant bits
// (relative rounding error up to 2^-8 = 0.0039), float16 11 bits (2^-11),
// float32 24 bits; float32 sums over a row add a little more.
inline Tolerance ToleranceFor(DType output) {
  switch (output) {
    case DType::kBFloat16: return {4e-3, 4e-3};
    case DType::kFloat16: return {1e-3, 1e-3};
    default: return {1e-4, 1e-5};
  }
}

}  // namespace ref
}  // namespace gradops
