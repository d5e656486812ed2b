/*
 * gradops CANN compatibility: aclnnLayerNormBackward.
 *
 *   x_hat = (input - mean) * rstd,  g = gradOut * weight (weight: ones if null)
 *   gradInputOut  = rstd * (g - mean_N(g) - x_hat * mean_N(g * x_hat))
 *   gradWeightOut = sum over rows of gradOut * x_hat
 *   gradBiasOut   = sum over rows of gradOut
 * N is the product of normalizedShape, the trailing dims of input. outputMask
 * (3 values) selects the outputs. Phase one validates and returns the
 * workspace size and an executor; phase two runs it on a stream.
 * Usable from C and C++11.
 */
#ifndef GRADOPS_COMPAT_ACLNNOP_ACLNN_LAYER_NORM_BACKWARD_H_
#define GRADOPS_COMPAT_ACLNNOP_ACLNN_LAYER_NORM_BACKWARD_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnLayerNormBackwardGetWorkspaceSize(
    const aclTensor* gradOut, const aclTensor* input, const aclIntArray* normalizedShape, const aclTensor* mean,
    const aclTensor* rstd, const aclTensor* weightOptional, const aclTensor* biasOptional,
    const aclBoolArray* outputMask, aclTensor* gradInputOut, aclTensor* gradWeightOut, aclTensor* gradBiasOut,
    uint64_t* workspaceSize, aclOpExecutor** executor);

ACLNN_API aclnnStatus aclnnLayerNormBackward(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                             aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* GRADOPS_COMPAT_ACLNNOP_ACLNN_LAYER_NORM_BACKWARD_H_ */
