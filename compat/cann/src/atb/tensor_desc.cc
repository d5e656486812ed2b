#include "atb/tensor_desc.h"

#include "aclnn/tensor_view.h"
#include "common/error_message.h"

namespace gradops {
namespace cann {

atb::Status CheckDesc(const std::string& name, const atb::TensorDesc& desc) {
  if (desc.shape.dimNum < 1 || desc.shape.dimNum > atb::MAX_DIM) {
    return Fail<atb::Status>(atb::ERROR_INVALID_TENSOR_DIM_NUM,
                             name + ": dimNum " + std::to_string(desc.shape.dimNum) + " is outside [1, 8]");
  }
  for (uint64_t d = 0; d < desc.shape.dimNum; ++d) {
    if (desc.shape.dims[d] < 0) {
      return Fail<atb::Status>(atb::ERROR_INVALID_TENSOR_DIM, name + ": dims " + DimsString(desc) + " has a negative size");
    }
  }
  return atb::NO_ERROR;
}

bool SameDims(const atb::TensorDesc& a, const atb::TensorDesc& b) {
  if (a.shape.dimNum != b.shape.dimNum) return false;
  for (uint64_t d = 0; d < a.shape.dimNum && d < atb::MAX_DIM; ++d) {
    if (a.shape.dims[d] != b.shape.dims[d]) return false;
  }
  return true;
}

bool SameDesc(const atb::TensorDesc& a, const atb::TensorDesc& b) {
  return a.dtype == b.dtype && a.format == b.format && SameDims(a, b);
}

std::string DimsString(const atb::TensorDesc& desc) {
  std::string s = "[";
  for (uint64_t d = 0; d < desc.shape.dimNum && d < atb::MAX_DIM; ++d) {
    s += (d ? ", " : "") + std::to_string(desc.shape.dims[d]);
  }
  return s + "]";
}

TensorView ContiguousView(const atb::TensorDesc& desc, void* data) {
  DType dtype = DType::kFloat32;
  ToDType(desc.dtype, &dtype);
  return Contiguous(data, dtype, static_cast<int>(desc.shape.dimNum), desc.shape.dims);
}

}  // namespace cann
}  // namespace gradops
