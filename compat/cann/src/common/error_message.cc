// The per-thread error message and aclGetRecentErrMsg.
#include "common/error_message.h"

#include "acl/acl_base.h"

namespace gradops {
namespace cann {
namespace {

std::string& ThreadMessage() {
  thread_local std::string message;
  return message;
}

}  // namespace

void SetErrorMessage(std::string message) { ThreadMessage() = std::move(message); }

const char* ErrorMessage() { return ThreadMessage().c_str(); }

}  // namespace cann
}  // namespace gradops

extern "C" const char* aclGetRecentErrMsg(void) { return gradops::cann::ErrorMessage(); }
