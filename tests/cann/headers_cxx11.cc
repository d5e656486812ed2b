// Compile check: every CANN front-end header and the ATB sample helpers, as C++11.
#include "acl/acl.h"
#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_layer_norm_backward.h"
#include "aclnnop/aclnn_silu_backward.h"
#include "atb/atb_infer.h"
#include "atb/context.h"
#include "atb/infer_op_params.h"
#include "atb/operation.h"
#include "atb/svector.h"
#include "atb/train_op_params.h"
#include "atb/types.h"
#include "atb/utils.h"
#include "opdev/op_errno.h"

int GradopsCannCxx11Check();
int GradopsCannCxx11Check() {
  atb::SVector<int64_t> v = {1, 2, 3};
  v.push_back(aclDataType::ACL_FLOAT);
  atb::VariantPack pack;
  pack.inTensors.resize(4);
  return static_cast<int>(v.size() + pack.inTensors.size()) + aclrtMemMallocPolicy::ACL_MEM_MALLOC_HUGE_FIRST + OK;
}
