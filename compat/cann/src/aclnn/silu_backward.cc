// aclnnSiluBackward over gradops::PlanSiluBackward. Null pointers are checked
// here, in CANN's order; dtypes, broadcasting and empty tensors (workspace 0)
// are the core's. As on CANN's newest chips, gradOutput and self broadcast to
// gradInput, and mixed input dtypes are accepted when gradInput is FLOAT.
#include "aclnn/executor.h"
#include "aclnn/status.h"
#include "aclnn/tensor_view.h"
#include "aclnnop/aclnn_silu_backward.h"

using namespace gradops::cann;  // NOLINT: this file implements one C entry point pair

namespace {
constexpr const char* kOp = "aclnnSiluBackward";
constexpr const char* kGlossary = "dy = gradOutput, x = self, dx = gradInput";
}

extern "C" {

aclnnStatus aclnnSiluBackwardGetWorkspaceSize(const aclTensor* gradOutput, const aclTensor* self,
                                              aclTensor* gradInput, uint64_t* workspaceSize,
                                              aclOpExecutor** executor) {
  GRADOPS_ACLNN_RETURN_IF_ERROR(CheckNotNull({{"workspaceSize", workspaceSize}, {"executor", executor}}));
  GRADOPS_ACLNN_RETURN_IF_ERROR(
      CheckNotNull({{"gradOutput", gradOutput}, {"self", self}, {"gradInput", gradInput}}));
  gradops::SiluBackwardArgs args;
  GRADOPS_ACLNN_RETURN_IF_ERROR(ToView("gradOutput", gradOutput, &args.dy));
  GRADOPS_ACLNN_RETURN_IF_ERROR(ToView("self", self, &args.x));
  GRADOPS_ACLNN_RETURN_IF_ERROR(ToView("gradInput", gradInput, &args.dx));
  gradops::Plan plan;
  GRADOPS_ACLNN_RETURN_IF_ERROR(FromStatus(kOp, gradops::PlanSiluBackward(args, &plan), kGlossary));
  return MakeExecutor(kOp, plan, workspaceSize, executor);
}

aclnnStatus aclnnSiluBackward(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor, aclrtStream stream) {
  return RunExecutor(kOp, workspace, workspaceSize, executor, stream);
}

}  // extern "C"
