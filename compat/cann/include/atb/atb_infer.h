// gradops CANN compatibility: the ATB umbrella header (atb/atb_infer.h).
#ifndef GRADOPS_COMPAT_ATB_ATB_INFER_H_
#define GRADOPS_COMPAT_ATB_ATB_INFER_H_

#include "atb/context.h"
#include "atb/infer_op_params.h"
#include "atb/operation.h"
#include "atb/svector.h"
#include "atb/train_op_params.h"
#include "atb/types.h"
#include "atb/utils.h"

#endif  // GRADOPS_COMPAT_ATB_ATB_INFER_H_
