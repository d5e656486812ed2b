#include "core/dtype.h"
#include "ref/reference.h"

namespace gradops {
namespace ref {

std::vector<double> Read(const TensorView& view) {
  const int64_t n = view.numel();
  std::vector<double> out(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    int64_t linear = i, offset = view.offset;
    for (int d = view.rank - 1; d >= 0; --d) {
      offset += (linear % view.shape[d]) * view.strides[d];
      linear /= view.shape[d];
    }
    out[static_cast<size_t>(i)] = LoadAsFloat(view.data, view.dtype, offset);
  }
  return out;
}

}  // namespace ref
}  // namespace gradops
