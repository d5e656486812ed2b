// atb::Utils: sizes of contiguous tensors.
#include "atb/utils.h"

#include <limits>

#include "acl/acl_base.h"

namespace atb {

std::string Utils::GetAtbVersion() { return "gradops-cpu"; }

int64_t Utils::GetTensorNumel(const TensorDesc& desc) {
  if (desc.shape.dimNum == 0 || desc.shape.dimNum > MAX_DIM) return 0;
  int64_t n = 1;
  for (uint64_t d = 0; d < desc.shape.dimNum; ++d) {
    const int64_t size = desc.shape.dims[d];
    if (size < 0) return 0;
    if (size > 0 && n > std::numeric_limits<int64_t>::max() / size) return 0;
    n *= size;
  }
  return n;
}

int64_t Utils::GetTensorNumel(const Tensor& tensor) { return GetTensorNumel(tensor.desc); }

uint64_t Utils::GetTensorSize(const TensorDesc& desc) {
  const uint64_t numel = static_cast<uint64_t>(GetTensorNumel(desc));
  const uint64_t element = aclDataTypeSize(desc.dtype);
  if (element != 0 && numel > std::numeric_limits<uint64_t>::max() / element) return 0;
  return numel * element;
}

uint64_t Utils::GetTensorSize(const Tensor& tensor) { return GetTensorSize(tensor.desc); }

}  // namespace atb
