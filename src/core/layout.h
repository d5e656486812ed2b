// Strided index spaces. A Layout is the (size, stride) list of a view's
// dimensions after dropping size-1 dimensions and merging neighbours that are
// contiguous with each other; it enumerates element offsets in row-major
// order of the original view.
#pragma once

#include <cstdint>

#include "gradops/tensor.h"

namespace gradops {

struct Layout {
  int rank = 0;  // 0: a single element
  int64_t size[kMaxRank] = {};
  int64_t stride[kMaxRank] = {};

  int64_t numel() const {
    int64_t n = 1;
    for (int d = 0; d < rank; ++d) n *= size[d];
    return n;
  }
  // Offset of the element with row-major linear index `linear`.
  int64_t Offset(int64_t linear) const {
    if (rank == 1) return linear * stride[0];  // (no division: per row, for every row of a norm)
    int64_t offset = 0;
    for (int d = rank - 1; d >= 0; --d) {
      offset += (linear % size[d]) * stride[d];
      linear /= size[d];
    }
    return offset;
  }
  // True when the elements are consecutive: offset(i) == i.
  bool unit() const { return rank == 0 || (rank == 1 && stride[0] == 1); }
  // Largest offset reached (0 for an empty layout).
  int64_t max_offset() const {
    int64_t m = 0;
    for (int d = 0; d < rank; ++d) m += (size[d] - 1) * stride[d];
    return m;
  }
};

// The layout of dimensions [first, last) of `shape`/`strides`. An empty
// dimension gives a layout with numel() == 0.
Layout MakeLayout(const int64_t* shape, const int64_t* strides, int first, int last);

// Calls f(offset) for the offsets of `layout` in row-major order, from
// linear index `begin` to `end`.
template <class F>
void ForEachOffset(const Layout& layout, int64_t begin, int64_t end, F&& f) {
  if (begin >= end) return;
  if (layout.rank == 0) {
    f(int64_t{0});
    return;
  }
  const int last = layout.rank - 1;
  int64_t index[kMaxRank];
  int64_t linear = begin;
  int64_t offset = 0;
  for (int d = last; d >= 0; --d) {
    index[d] = linear % layout.size[d];
    linear /= layout.size[d];
    offset += index[d] * layout.stride[d];
  }
  for (int64_t i = begin; i < end;) {
    // Run along the innermost dimension, then carry.
    const int64_t run = layout.size[last] - index[last] < end - i ? layout.size[last] - index[last] : end - i;
    const int64_t step = layout.stride[last];
    for (int64_t k = 0; k < run; ++k) f(offset + k * step);
    i += run;
    offset += run * step;
    index[last] += run;
    for (int d = last; d > 0 && index[d] == layout.size[d]; --d) {
      offset -= index[d] * layout.stride[d];
      index[d] = 0;
      ++index[d - 1];
      offset += layout.stride[d - 1];
    }
  }
}

}  // namespace gradops
