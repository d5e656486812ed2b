// Checks and conversions of ATB tensor descriptions shared by operations.
#pragma once

#include <string>

#include "atb/types.h"
#include "gradops/tensor.h"

namespace gradops {
namespace cann {

// dimNum in [1, 8] (else ERROR_INVALID_TENSOR_DIM_NUM) and no negative dim
// (else ERROR_INVALID_TENSOR_DIM); the message names `name`.
atb::Status CheckDesc(const std::string& name, const atb::TensorDesc& desc);

// Same dtype, format, dimNum and dims.
bool SameDesc(const atb::TensorDesc& a, const atb::TensorDesc& b);
// Same dimNum and dims.
bool SameDims(const atb::TensorDesc& a, const atb::TensorDesc& b);

// "[32, 64, 128]"
std::string DimsString(const atb::TensorDesc& desc);

// A row-major view of a checked description of a supported dtype over `data`.
TensorView ContiguousView(const atb::TensorDesc& desc, void* data);

}  // namespace cann
}  // namespace gradops
