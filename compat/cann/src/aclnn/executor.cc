// Executors: creation, the shared phase two, and the executor C API.
#include "aclnn/executor.h"

#include <cstring>
#include <new>
#include <string>

#include "common/error_message.h"
#include "common/live_set.h"
#include "opdev/op_errno.h"
#include "runtime/runtime.h"

namespace gradops {
namespace cann {
namespace {

void Release(aclOpExecutor* executor) {
  if (Live<aclOpExecutor>().Remove(executor)) delete executor;
}

}  // namespace

aclnnStatus MakeExecutor(const char* op, const Plan& plan, uint64_t* workspaceSize, aclOpExecutor** executor) {
  aclOpExecutor* e = new (std::nothrow) aclOpExecutor();
  if (e == nullptr) return Fail(ACLNN_ERR_INNER_CREATE_EXECUTOR, std::string(op) + ": out of memory for the executor");
  e->op = op;
  e->plan = plan;
  Live<aclOpExecutor>().Add(e);
  *workspaceSize = plan.workspace_bytes();
  *executor = e;
  return ACLNN_SUCCESS;
}

aclnnStatus RunExecutor(const char* op, void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                        aclrtStream stream) {
  const std::string api = op;
  if (executor == nullptr) return Fail(ACLNN_ERR_PARAM_NULLPTR, api + ": executor is null");
  if (!Live<aclOpExecutor>().Contains(executor)) {
    return Fail(ACLNN_ERR_PARAM_INVALID,
                api + ": executor is not live (already run and released, destroyed, or foreign)");
  }
  if (std::strcmp(executor->op, op) != 0) {
    return Fail(ACLNN_ERR_PARAM_INVALID, api + ": executor was made by " + executor->op + "GetWorkspaceSize");
  }
  const uint64_t need = executor->plan.workspace_bytes();
  if (workspaceSize < need) {
    return Fail(ACLNN_ERR_PARAM_INVALID, api + ": workspaceSize " + std::to_string(workspaceSize) +
                                             " is less than the " + std::to_string(need) + " bytes planned");
  }
  if (need > 0 && workspace == nullptr) return Fail(ACLNN_ERR_PARAM_NULLPTR, api + ": workspace is null");
  runtime::Stream* s = runtime::FindStream(stream);
  if (s == nullptr) return Fail(ACLNN_ERR_PARAM_INVALID, api + ": " + ErrorMessage());

  const Plan plan = executor->plan;
  const size_t bytes = static_cast<size_t>(workspaceSize);
  s->Submit([plan, workspace, bytes](void* native) { return Run(plan, workspace, bytes, native); });
  if (!executor->repeatable) Release(executor);
  return ACLNN_SUCCESS;
}

}  // namespace cann
}  // namespace gradops

using gradops::cann::Fail;
using gradops::cann::Live;

extern "C" {

aclnnStatus aclSetAclOpExecutorRepeatable(aclOpExecutor* executor) {
  if (executor == nullptr) return Fail(ACLNN_ERR_PARAM_NULLPTR, "aclSetAclOpExecutorRepeatable: executor is null");
  if (!Live<aclOpExecutor>().Contains(executor)) {
    return Fail(ACLNN_ERR_PARAM_INVALID, "aclSetAclOpExecutorRepeatable: executor is not live");
  }
  executor->repeatable = true;
  return ACLNN_SUCCESS;
}

aclnnStatus aclDestroyAclOpExecutor(aclOpExecutor* executor) {
  if (executor == nullptr) return Fail(ACLNN_ERR_PARAM_NULLPTR, "aclDestroyAclOpExecutor: executor is null");
  if (!Live<aclOpExecutor>().Remove(executor)) {
    return Fail(ACLNN_ERR_PARAM_INVALID, "aclDestroyAclOpExecutor: executor is not live (destroyed, or already run)");
  }
  delete executor;
  return ACLNN_SUCCESS;
}

}  // extern "C"
