// gradops public API: data types and strided tensor views.
//
// A TensorView describes memory the caller owns: a base pointer, a dtype, a
// shape of rank 1..8, strides in elements (any non-negative value, zero for a
// broadcast dimension) and an element offset from the base pointer. Element
// (i0, ..., ik) lives at data + (offset + sum_d i_d * strides[d]) elements.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>

namespace gradops {

enum class DType : int { kFloat32 = 0, kFloat16 = 1, kBFloat16 = 2 };

constexpr int kMaxRank = 8;

// Bytes per element of `dtype`.
constexpr size_t DTypeSize(DType dtype) { return dtype == DType::kFloat32 ? 4 : 2; }

// "float32", "float16" or "bfloat16".
const char* DTypeName(DType dtype);

struct TensorView {
  void* data = nullptr;
  DType dtype = DType::kFloat32;
  int rank = 0;
  int64_t shape[kMaxRank] = {};
  int64_t strides[kMaxRank] = {};
  int64_t offset = 0;

  // Number of elements: the product of the shape (1 for rank 0).
  int64_t numel() const;
};

// A row-major (contiguous) view of `shape` over `data`.
TensorView Contiguous(void* data, DType dtype, std::initializer_list<int64_t> shape);
TensorView Contiguous(void* data, DType dtype, int rank, const int64_t* shape);

}  // namespace gradops
