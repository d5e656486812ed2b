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
  double max_error = 0.0;  // largest |got - want| / scale
  double scale = 1.0;      // largest finite |want|, at least 1
  size_t worst = 0;        // index of the first failing element, or of max_error
};

Comparison Compare(const std::vector<double>& got, const std::vector<double>& want, DType dtype);

}  // namespace ref
}  // namespace gradops
