#include "gradops/tensor.h"

namespace gradops {

const char* DTypeName(DType dtype) {
  switch (dtype) {
    case DType::kFloat32: return "float32";
    case DType::kFloat16: return "float16";
    case DType::kBFloat16: return "bfloat16";
  }
  return "unknown";
}

int64_t TensorView::numel() const {
  int64_t n = 1;
  for (int d = 0; d < rank; ++d) n *= shape[d];
  return n;
}

TensorView Contiguous(void* data, DType dtype, int rank, const int64_t* shape) {
  TensorView view;
  view.data = data;
  view.dtype = dtype;
  view.rank = rank;
  if (rank < 0 || rank > kMaxRank) return view;  // rejected by every Plan* call
  int64_t stride = 1;
  for (int d = rank - 1; d >= 0; --d) {
    view.shape[d] = shape[d];
    view.strides[d] = stride;
    stride *= shape[d];
  }
  return view;
}

TensorView Contiguous(void* data, DType dtype, std::initializer_list<int64_t> shape) {
  return Contiguous(data, dtype, static_cast<int>(shape.size()), shape.begin());
}

}  // namespace gradops
