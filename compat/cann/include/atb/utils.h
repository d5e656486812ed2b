// gradops CANN compatibility: ATB helpers (atb/utils.h). C++11.
#ifndef GRADOPS_COMPAT_ATB_UTILS_H_
#define GRADOPS_COMPAT_ATB_UTILS_H_

#include <cstdint>
#include <string>

#include "atb/types.h"

namespace atb {

class Utils {
 public:
  static std::string GetAtbVersion();
  // Bytes of a contiguous tensor: numel * element size, 0 when dimNum is 0
  // (or out of range, or a dim is negative).
  static uint64_t GetTensorSize(const Tensor& tensor);
  static uint64_t GetTensorSize(const TensorDesc& tensorDesc);
  static int64_t GetTensorNumel(const Tensor& tensor);
  static int64_t GetTensorNumel(const TensorDesc& tensorDesc);
};

}  // namespace atb

#endif  // GRADOPS_COMPAT_ATB_UTILS_H_
