// gradops CANN compatibility: parameters of the ATB training operations
// (atb/train_op_params.h). C++11.
#ifndef GRADOPS_COMPAT_ATB_TRAIN_OP_PARAMS_H_
#define GRADOPS_COMPAT_ATB_TRAIN_OP_PARAMS_H_

#include <acl/acl.h>

#include <cstdint>

#include "atb/operation.h"
#include "atb/svector.h"

namespace atb {
namespace train {

// RMSNorm backward. Inputs dy, x, rstd (float), gamma (the trailing dims of
// x); outputs dx (x's desc) and dgamma (gamma's dims, float):
//   x_hat = x * rstd,  dx = rstd * (dy*gamma - x_hat * mean_N(dy*gamma*x_hat)),
//   dgamma = sum over rows of dy * x_hat.
struct RmsNormBackwardParam {
  uint8_t rsv[8] = {0};
};

}  // namespace train

// ERROR_INVALID_PARAM when operation is null or a reserved byte is set.
template <>
Status CreateOperation(const train::RmsNormBackwardParam& opParam, Operation** operation);

}  // namespace atb

#endif  // GRADOPS_COMPAT_ATB_TRAIN_OP_PARAMS_H_
