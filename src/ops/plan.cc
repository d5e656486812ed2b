// Plan (a handle on a PlannedOp) and Run.
#include "ops/planned_op.h"

#include <string>

namespace gradops {

Plan::Plan() = default;
Plan::~Plan() = default;
Plan::Plan(const Plan&) = default;
Plan& Plan::operator=(const Plan&) = default;
Plan::Plan(std::shared_ptr<const internal::PlannedOp> op) : op_(std::move(op)) {}

size_t Plan::workspace_bytes() const { return op_ ? op_->workspace_bytes() : 0; }
const char* Plan::op_name() const { return op_ ? op_->name() : "none"; }
int Plan::threads() const { return op_ ? op_->threads() : 0; }

Status Run(const Plan& plan, void* workspace, size_t workspace_bytes, void* stream) {
  if (!plan.valid()) return Status(StatusCode::kInvalidPlan, "plan: empty (no successful Plan* call made it)");
  const size_t need = plan.workspace_bytes();
  if (workspace_bytes < need) {
    return Status(StatusCode::kWorkspaceTooSmall, std::string("workspace: ") + std::to_string(workspace_bytes) +
                                                      " bytes given, " + plan.op_name() + " needs " +
                                                      std::to_string(need));
  }
  if (need > 0 && workspace == nullptr) {
    return Status(StatusCode::kNullPointer, std::string("workspace: null, ") + plan.op_name() + " needs " +
                                                std::to_string(need) + " bytes");
  }
  return plan.op()->Execute(workspace, stream);
}

}  // namespace gradops
