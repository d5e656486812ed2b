/* Compile check: every C header of the CANN front ends, as C99. */
#include "acl/acl.h"
#include "acl/acl_base.h"
#include "acl/acl_rt.h"
#include "aclnn/acl_meta.h"
#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_layer_norm_backward.h"
#include "aclnnop/aclnn_silu_backward.h"
#include "aclnnop/aclnn_util.h"
#include "opdev/op_errno.h"

int gradops_cann_c99_check(void);
int gradops_cann_c99_check(void) {
  aclrtStream stream = NULL;
  bool mask[3] = {true, false, true};
  aclBoolArray* array = aclCreateBoolArray(mask, 3);
  aclDestroyBoolArray(array);
  return aclrtCreateStream(&stream) + (int)ACL_FORMAT_ND + ACLNN_ERR_PARAM_NULLPTR;
}
