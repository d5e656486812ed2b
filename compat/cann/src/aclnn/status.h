// aclnn return codes for the phase-one checks: the null-pointer checks that
// come first in every operator, and the mapping of a core Status.
#pragma once

#include <initializer_list>
#include <utility>

#include "aclnn/acl_meta.h"
#include "gradops/status.h"

namespace gradops {
namespace cann {

// ACLNN_ERR_PARAM_NULLPTR naming the first null pointer of `args` (in order),
// or ACLNN_SUCCESS.
aclnnStatus CheckNotNull(std::initializer_list<std::pair<const char*, const void*>> args);

// kOk -> 0, kNullPointer -> 161001, kInvalidArgument -> 161002, anything
// else -> 561000. The message goes to aclGetRecentErrMsg with `api` before
// it and, when given, a glossary of the core's argument names after it.
aclnnStatus FromStatus(const char* api, const Status& status, const char* glossary = nullptr);

}  // namespace cann
}  // namespace gradops

// Returns from the calling function when `expr` is not ACLNN_SUCCESS.
#define GRADOPS_ACLNN_RETURN_IF_ERROR(expr)        \
  do {                                             \
    const aclnnStatus aclnn_status_ = (expr);      \
    if (aclnn_status_ != 0) return aclnn_status_;  \
  } while (0)
