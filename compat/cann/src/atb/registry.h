// Live ATB contexts and operations, so that a destroyed or foreign handle
// gets an error code instead of a crash.
#pragma once

#include "atb/context.h"
#include "atb/operation.h"

namespace gradops {
namespace cann {

bool IsLiveContext(const atb::Context* context);
// Registers an operation made by CreateOperation.
void AddOperation(atb::Operation* operation);

}  // namespace cann
}  // namespace gradops
