// aclTensor -> gradops::TensorView, the only place the two descriptions meet.
#pragma once

#include "aclnn/acl_meta.h"
#include "gradops/tensor.h"

namespace gradops {
namespace cann {

// ACL_FLOAT -> kFloat32, ACL_FLOAT16 -> kFloat16, ACL_BF16 -> kBFloat16;
// false for every other dtype.
bool ToDType(aclDataType dtype, DType* out);

// The view of a live tensor. ACLNN_ERR_PARAM_INVALID, with a message naming
// `name`, for a dead handle, a dtype other than float32/float16/bfloat16 or a
// format whose storage is not row-major (NC1HWC0, FRACTAL_*).
aclnnStatus ToView(const char* name, const aclTensor* tensor, TensorView* view);

}  // namespace cann
}  // namespace gradops
