// ge::Shape, the dimension list the host tiling functions take (also
// reachable as AscendC::TensorShape).
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <vector>

namespace ge {

using graphStatus = uint32_t;
constexpr graphStatus GRAPH_SUCCESS = 0;
constexpr graphStatus GRAPH_FAILED = 0xFFFFFFFF;

class Shape {
 public:
  Shape() = default;
  explicit Shape(const std::vector<int64_t>& dims) : dims_(dims) {}

  size_t GetDimNum() const { return dims_.size(); }
  int64_t GetDim(size_t index) const { return index < dims_.size() ? dims_[index] : 0; }
  std::vector<int64_t> GetDims() const { return dims_; }
  graphStatus SetDim(size_t index, int64_t value) {
    if (index >= dims_.size()) return GRAPH_FAILED;
    dims_[index] = value;
    return GRAPH_SUCCESS;
  }
  // The product of the dimensions: 0 for no dimensions, -1 when one is negative.
  int64_t GetShapeSize() const {
    if (dims_.empty()) return 0;
    int64_t size = 1;
    for (int64_t d : dims_) {
      if (d < 0) return -1;
      size *= d;
    }
    return size;
  }

 private:
  std::vector<int64_t> dims_;
};

}  // namespace ge
