// gradops CANN compatibility: parameters of ATB inference operations
// (atb/infer_op_params.h). Only the types that ATB sample helpers name are
// declared; gradops provides no inference operation for them.
#ifndef GRADOPS_COMPAT_ATB_INFER_OP_PARAMS_H_
#define GRADOPS_COMPAT_ATB_INFER_OP_PARAMS_H_

#include <acl/acl.h>

#include <cstdint>

#include "atb/svector.h"

namespace atb {
namespace infer {

struct ElewiseParam {
  // Only the values ATB sample helpers name.
  enum ElewiseType {
    ELEWISE_UNDEFINED = 0,
    ELEWISE_CAST = 1,
  };
  // Fields of the quantizing and scaling variants; not read by gradops.
  struct QuantParam {
    float inputScale = 1.0f;
    int inputOffset = 0;
    bool asymmetric = false;
  };
  struct MulsParam {
    float varAttr = 0.0f;
  };
  ElewiseType elewiseType = ELEWISE_UNDEFINED;
  QuantParam quantParam;
  MulsParam mulsParam;
  aclDataType outTensorType = ACL_DT_UNDEFINED;
  uint8_t rsv[8] = {0};
};

struct TransdataParam {
  enum TransdataType { UNDEFINED = 0, FRACTAL_NZ_TO_ND, ND_TO_FRACTAL_NZ };
  TransdataType transdataType = UNDEFINED;
  SVector<int64_t> outCrops = {0, 0};
  uint8_t rsv[8] = {0};
};

}  // namespace infer
}  // namespace atb

#endif  // GRADOPS_COMPAT_ATB_INFER_OP_PARAMS_H_
