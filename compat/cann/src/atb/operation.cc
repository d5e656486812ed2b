// The operation registry and DestroyOperation.
#include "atb/operation.h"
#include "atb/registry.h"
#include "common/error_message.h"
#include "common/live_set.h"

namespace gradops {
namespace cann {

void AddOperation(atb::Operation* operation) { Live<atb::Operation>().Add(operation); }

}  // namespace cann
}  // namespace gradops

namespace atb {

Status DestroyOperation(Operation* operation) {
  if (operation == nullptr) return NO_ERROR;
  if (!gradops::cann::Live<Operation>().Remove(operation)) {
    return gradops::cann::Fail<Status>(ERROR_INVALID_OPERATION_ADDR,
                                       "DestroyOperation: not a live operation (destroyed, or not made by CreateOperation)");
  }
  delete operation;
  return NO_ERROR;
}

}  // namespace atb
