// The per-thread message behind aclGetRecentErrMsg, and helpers that record a
// failure and return its code in one expression.
#pragma once

#include <string>

namespace gradops {
namespace cann {

// Replaces this thread's message.
void SetErrorMessage(std::string message);

// This thread's message of the most recent failure ("" if none).
const char* ErrorMessage();

// Records `message` and returns `code`: `return Fail(CODE, "x: null");`.
template <typename Code>
Code Fail(Code code, std::string message) {
  SetErrorMessage(std::move(message));
  return code;
}

}  // namespace cann
}  // namespace gradops
