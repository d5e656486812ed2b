/*
 * gradops CANN compatibility: aclnnSiluBackward.
 *
 *   gradInput = gradOutput * s(x) * (1 + x * (1 - s(x))),  s the sigmoid,
 * with gradOutput and self broadcast to gradInput's shape. Phase one
 * validates and returns the workspace size and an executor; phase two runs it
 * on a stream. Usable from C and C++11.
 */
#ifndef GRADOPS_COMPAT_ACLNNOP_ACLNN_SILU_BACKWARD_H_
#define GRADOPS_COMPAT_ACLNNOP_ACLNN_SILU_BACKWARD_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnSiluBackwardGetWorkspaceSize(const aclTensor* gradOutput, const aclTensor* self,
                                                        aclTensor* gradInput, uint64_t* workspaceSize,
                                                        aclOpExecutor** executor);

ACLNN_API aclnnStatus aclnnSiluBackward(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                        aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* GRADOPS_COMPAT_ACLNNOP_ACLNN_SILU_BACKWARD_H_ */
