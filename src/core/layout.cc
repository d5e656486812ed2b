#include "core/layout.h"

namespace gradops {

Layout MakeLayout(const int64_t* shape, const int64_t* strides, int first, int last) {
  Layout layout;
  for (int d = first; d < last; ++d) {
    if (shape[d] == 0) {  // empty: one dimension of size 0
      layout.rank = 1;
      layout.size[0] = 0;
      layout.stride[0] = 1;
      return layout;
    }
    if (shape[d] == 1) continue;
    const int r = layout.rank;
    if (r > 0 && layout.stride[r - 1] == strides[d] * shape[d]) {
      layout.size[r - 1] *= shape[d];  // contiguous with the previous dimension
      layout.stride[r - 1] = strides[d];
    } else {
      layout.size[r] = shape[d];
      layout.stride[r] = strides[d];
      layout.rank = r + 1;
    }
  }
  return layout;
}

}  // namespace gradops
