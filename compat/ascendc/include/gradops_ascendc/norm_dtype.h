// The element types the high-level normalization functions take: half and
// float, with isReuseSource allowed for float only.
#pragma once

#include <type_traits>

#include "gradops/tensor.h"
#include "gradops_ascendc/half.h"

namespace gradops {
namespace ascendc {

template <typename T, bool isReuseSource>
constexpr DType NormDType() {
  static_assert(std::is_same<T, half>::value || std::is_same<T, float>::value, "T must be half or float");
  static_assert(!(isReuseSource && std::is_same<T, half>::value), "isReuseSource is supported for float only");
  return std::is_same<T, half>::value ? DType::kFloat16 : DType::kFloat32;
}

}  // namespace ascendc
}  // namespace gradops
