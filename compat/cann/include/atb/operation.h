// gradops CANN compatibility: atb::Operation (atb/operation.h).
//
// Setup validates a VariantPack against the operation and reports the
// workspace it needs; Execute runs on the context's stream. CreateOperation
// has one specialisation per parameter type (see train_op_params.h). C++11.
#ifndef GRADOPS_COMPAT_ATB_OPERATION_H_
#define GRADOPS_COMPAT_ATB_OPERATION_H_

#include <cstdint>
#include <string>

#include "atb/context.h"
#include "atb/svector.h"
#include "atb/types.h"

namespace atb {

class Operation {
 public:
  Operation() = default;
  virtual ~Operation() = default;

  virtual std::string GetName() const = 0;
  virtual Status InferShape(const SVector<TensorDesc>& inTensorDescs, SVector<TensorDesc>& outTensorDescs) const = 0;
  virtual uint32_t GetInputNum() const = 0;
  virtual uint32_t GetOutputNum() const = 0;
  virtual Status Setup(const VariantPack& variantPack, uint64_t& workspaceSize, Context* context) = 0;
  virtual Status Execute(const VariantPack& variantPack, uint8_t* workspace, uint64_t workspaceSize,
                         Context* context) = 0;
};

template <typename OpParam>
Status CreateOperation(const OpParam& opParam, Operation** operation);

// Destroying null succeeds; an operation not made by CreateOperation, or
// already destroyed, gives ERROR_INVALID_OPERATION_ADDR.
Status DestroyOperation(Operation* operation);

}  // namespace atb

#endif  // GRADOPS_COMPAT_ATB_OPERATION_H_
