// Argument checks shared by the Plan* functions. Each returns an error Status
// whose message names the argument and the rule, or Ok.
#pragma once

#include <string>

#include "gradops/status.h"
#include "gradops/tensor.h"

#define GRADOPS_RETURN_IF_ERROR(expr)  \
  do {                                 \
    ::gradops::Status status_ = (expr); \
    if (!status_.ok()) return status_; \
  } while (0)

namespace gradops {

Status InvalidArgument(const std::string& message);
Status NullPointer(const std::string& message);

// "[2, 3, 4]"
std::string ShapeString(const TensorView& view);

// dtype known, rank in [1, 8], sizes and strides non-negative, offset
// non-negative, data non-null unless empty, no index overflowing int64.
Status CheckView(const char* name, const TensorView& view);

// An output also may not repeat an element through a zero stride.
Status CheckOutputView(const char* name, const TensorView& view);

Status CheckSameShape(const char* name, const TensorView& view, const char* other_name,
                      const TensorView& other);
Status CheckSameDType(const char* name, const TensorView& view, const char* other_name,
                      const TensorView& other);

// gamma's dtype is float32 or x's (the documents' mixed precision).
Status CheckGammaDType(const TensorView& gamma, const TensorView& x);

// view holds exactly `count` elements.
Status CheckNumel(const char* name, const TensorView& view, int64_t count, const char* what);

// view's shape equals dims [first, first + rank) of `of`'s shape.
Status CheckTrailingShape(const char* name, const TensorView& view, const char* of_name,
                          const TensorView& of, int first);

}  // namespace gradops
