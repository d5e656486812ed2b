// Null-pointer checks and core Status -> aclnn code mapping.
#include "aclnn/status.h"

#include <string>

#include "common/error_message.h"
#include "opdev/op_errno.h"

namespace gradops {
namespace cann {

aclnnStatus CheckNotNull(std::initializer_list<std::pair<const char*, const void*>> args) {
  for (const auto& arg : args) {
    if (arg.second == nullptr) return Fail(ACLNN_ERR_PARAM_NULLPTR, std::string(arg.first) + ": null");
  }
  return ACLNN_SUCCESS;
}

aclnnStatus FromStatus(const char* api, const Status& status, const char* glossary) {
  if (status.ok()) return ACLNN_SUCCESS;
  std::string message = std::string(api) + ": " + status.message();
  if (glossary != nullptr) message += std::string(" (") + glossary + ")";
  switch (status.code()) {
    case StatusCode::kNullPointer: return Fail(ACLNN_ERR_PARAM_NULLPTR, message);
    case StatusCode::kInvalidArgument:
    case StatusCode::kWorkspaceTooSmall: return Fail(ACLNN_ERR_PARAM_INVALID, message);
    case StatusCode::kRuntimeError: return Fail(ACLNN_ERR_RUNTIME_ERROR, message);
    default: return Fail(ACLNN_ERR_INNER, message);
  }
}

}  // namespace cann
}  // namespace gradops
