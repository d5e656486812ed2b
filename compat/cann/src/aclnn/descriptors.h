// The objects behind the opaque aclnn handles (aclTensor, aclIntArray, ...)
// and their liveness checks. Descriptors own copies of their shapes and
// values; a tensor references its data.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "aclnn/acl_meta.h"

constexpr int kAclMaxDims = 8;

struct aclTensor {
  aclDataType dtype = ACL_DT_UNDEFINED;
  aclFormat format = ACL_FORMAT_ND;
  int rank = 0;
  int64_t shape[kAclMaxDims] = {};
  int64_t strides[kAclMaxDims] = {};
  int64_t offset = 0;
  int storage_rank = 0;
  int64_t storage_shape[kAclMaxDims] = {};
  void* data = nullptr;
};

struct aclIntArray {
  std::vector<int64_t> values;
};
struct aclFloatArray {
  std::vector<float> values;
};
struct aclBoolArray {
  std::vector<bool> values;
};

namespace gradops {
namespace cann {

// The arguments of aclCreateTensor.
struct TensorDescription {
  const int64_t* view_dims;
  uint64_t view_rank;
  int32_t dtype;  // as an integer until checked: a caller may pass any value
  const int64_t* strides;
  int64_t offset;
  aclFormat format;
  const int64_t* storage_dims;
  uint64_t storage_rank;
  void* data;
};

// Fills *tensor from `d`, or returns a message naming the broken rule (and
// leaves *tensor unchanged).
std::string DescribeTensor(const TensorDescription& d, aclTensor* tensor);

// True for a handle made by aclCreate* and not yet destroyed.
bool IsLive(const aclTensor* tensor);
bool IsLive(const aclIntArray* array);
bool IsLive(const aclBoolArray* array);

}  // namespace cann
}  // namespace gradops
