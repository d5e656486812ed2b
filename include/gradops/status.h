// gradops public API: the result of every call.
//
// A Status is a code and a message. Messages name the argument and the rule,
// for example "dy: dtype float16 differs from x (float32)".
#pragma once

#include <string>

namespace gradops {

enum class StatusCode : int {
  kOk = 0,
  kNullPointer = 1,        // a required pointer is null (CANN: 161001)
  kInvalidArgument = 2,    // dtype, shape, stride or value breaks a rule (CANN: 161002)
  kWorkspaceTooSmall = 3,  // Run was given less workspace than Plan reported
  kInvalidPlan = 4,        // Run was given a plan that was never filled in
  kRuntimeError = 5,       // a device failed while running (CANN: 361001)
};

class Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}
  static Status Ok() { return Status(); }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

}  // namespace gradops
