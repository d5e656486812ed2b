// What a Plan holds: a validated, scheduled operation that Run executes.
#pragma once

#include <cstddef>

#include "gradops/ops.h"

namespace gradops {
namespace internal {

class PlannedOp {
 public:
  virtual ~PlannedOp() = default;
  virtual const char* name() const = 0;
  virtual size_t workspace_bytes() const = 0;
  virtual int threads() const = 0;
  // No validation of the arguments: they were checked when the plan was made.
  // Fails only for what planning could not know (a device's workspace or
  // launch), writing nothing then. `stream`: a device plan's cudaStream_t
  // (null: the legacy default stream); host plans ignore it.
  virtual Status Execute(void* workspace, void* stream) const = 0;
};

}  // namespace internal
}  // namespace gradops
