// aclOpExecutor: what phase one hands to phase two. It holds the core Plan
// (the validated problem, with the data addresses of the descriptors) and
// the name of the operator that made it.
#pragma once

#include <cstdint>

#include "acl/acl_base.h"
#include "aclnn/acl_meta.h"
#include "gradops/ops.h"

struct aclOpExecutor {
  const char* op = "";  // e.g. "aclnnSiluBackward"
  gradops::Plan plan;
  bool repeatable = false;
};

namespace gradops {
namespace cann {

// Registers a new executor for `plan` and fills the phase-one outputs.
aclnnStatus MakeExecutor(const char* op, const Plan& plan, uint64_t* workspaceSize, aclOpExecutor** executor);

// Phase two of `op`: checks that `executor` is live and was made by `op`,
// that the workspace is large enough and the stream live, then runs it on
// the stream. A single-use executor is released once it has run.
aclnnStatus RunExecutor(const char* op, void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                        aclrtStream stream);

}  // namespace cann
}  // namespace gradops
