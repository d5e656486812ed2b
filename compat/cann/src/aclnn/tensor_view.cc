#include "aclnn/tensor_view.h"

#include <string>

#include "aclnn/descriptors.h"
#include "common/error_message.h"
#include "opdev/op_errno.h"

namespace gradops {
namespace cann {
namespace {

// Formats whose elements sit where the view's strides say: the plain ones.
bool RowMajorFormat(aclFormat format) {
  switch (format) {
    case ACL_FORMAT_UNDEFINED:
    case ACL_FORMAT_NCHW:
    case ACL_FORMAT_NHWC:
    case ACL_FORMAT_ND:
    case ACL_FORMAT_HWCN:
    case ACL_FORMAT_NDHWC:
    case ACL_FORMAT_NCDHW:
    case ACL_FORMAT_NC:
    case ACL_FORMAT_NCL: return true;
    default: return false;
  }
}

}  // namespace

bool ToDType(aclDataType dtype, DType* out) {
  switch (dtype) {
    case ACL_FLOAT: *out = DType::kFloat32; return true;
    case ACL_FLOAT16: *out = DType::kFloat16; return true;
    case ACL_BF16: *out = DType::kBFloat16; return true;
    default: return false;
  }
}

aclnnStatus ToView(const char* name, const aclTensor* tensor, TensorView* view) {
  const std::string n = name;
  if (!IsLive(tensor)) return Fail(ACLNN_ERR_PARAM_INVALID, n + ": not a live aclTensor (destroyed, or foreign)");
  TensorView v;
  if (!ToDType(tensor->dtype, &v.dtype)) {
    return Fail(ACLNN_ERR_PARAM_INVALID,
                n + ": dtype " + std::to_string(tensor->dtype) + " is not FLOAT, FLOAT16 or BFLOAT16");
  }
  if (!RowMajorFormat(tensor->format)) {
    return Fail(ACLNN_ERR_PARAM_INVALID, n + ": format " + std::to_string(tensor->format) +
                                             " is not supported (use ND or another plain format)");
  }
  v.data = tensor->data;
  v.rank = tensor->rank;
  v.offset = tensor->offset;
  for (int d = 0; d < tensor->rank; ++d) {
    v.shape[d] = tensor->shape[d];
    v.strides[d] = tensor->strides[d];
  }
  *view = v;
  return ACLNN_SUCCESS;
}

}  // namespace cann
}  // namespace gradops
