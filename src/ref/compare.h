// Comparison of a result against the float64 reference with the tolerance of
// its dtype (ref/tolerance.h). NaN matches NaN, an infinity the same infinity.
#pragma once

#include <cstddef>
#include <vector>

#include "gradops/tensor.h"

namespace gradops {
namespace ref {

struct Comparison {
  bool ok = true;
  double max_error = 0.0;   // largest |got - want| / scale
  double scale = 1.0;       // largest finite |want|, at least 1
  size_t worst = 0;         // index of the first failing element, or of max_error
  double misrounded = 0.0;  // share of elements other than RoundedTo(dtype, want)
};

Comparison Compare(const std::vector<double>& got, const std::vector<double>& want, DType dtype);

// `want` rounded once to `dtype`, to nearest, ties to even: the best result
// a kernel storing `dtype` can give. (Rounding to float32 first, then to 16
// bits, can land on the wrong side of a tie: 16-bit values go through
// float32 rounded to odd, which keeps the sticky information.)
double RoundedTo(DType dtype, double want);

}  // namespace ref
}  // namespace gradops
