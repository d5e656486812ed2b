// The rules of aclCreateTensor/aclInitTensor: ranks at most 8, sizes,
// strides and offset non-negative, a known dtype, and every element of the
// view inside the storage.
#include <limits>

#include "acl/acl_rt.h"
#include "aclnn/descriptors.h"

namespace gradops {
namespace cann {
namespace {

bool KnownDType(int32_t dtype) {
  // Only values inside the enumeration's range may become an aclDataType.
  if (dtype < ACL_DT_UNDEFINED || dtype > ACL_FLOAT4_E1M2) return false;
  return dtype == ACL_STRING || aclDataTypeSize(static_cast<aclDataType>(dtype)) > 0;
}

std::string CheckDims(const char* name, const int64_t* dims, uint64_t rank) {
  const std::string n = name;
  if (rank > static_cast<uint64_t>(kAclMaxDims)) {
    return n + ": " + std::to_string(rank) + " dims, more than " + std::to_string(kAclMaxDims);
  }
  if (rank > 0 && dims == nullptr) return n + ": null with " + std::to_string(rank) + " dims";
  for (uint64_t d = 0; d < rank; ++d) {
    if (dims[d] < 0) return n + ": size " + std::to_string(dims[d]) + " of dim " + std::to_string(d) + " is negative";
  }
  return "";
}

// Elements of a storage shape, or -1 when the product overflows int64.
int64_t StorageElements(const int64_t* dims, uint64_t rank) {
  int64_t n = 1;
  for (uint64_t d = 0; d < rank; ++d) {
    if (dims[d] == 0) return 0;
    if (n > std::numeric_limits<int64_t>::max() / dims[d]) return -1;
    n *= dims[d];
  }
  return n;
}

// The largest element index the view reaches, or -1 on int64 overflow.
// Only called for non-empty views.
int64_t LastIndex(const TensorDescription& d) {
  const int64_t kMax = std::numeric_limits<int64_t>::max();
  int64_t last = d.offset;
  for (uint64_t i = 0; i < d.view_rank; ++i) {
    const int64_t extent = d.view_dims[i] - 1;
    if (d.strides[i] != 0 && extent > (kMax - last) / d.strides[i]) return -1;
    last += extent * d.strides[i];
  }
  return last;
}

}  // namespace

std::string DescribeTensor(const TensorDescription& d, aclTensor* tensor) {
  std::string error = CheckDims("viewDims", d.view_dims, d.view_rank);
  if (error.empty()) error = CheckDims("storageDims", d.storage_dims, d.storage_rank);
  if (!error.empty()) return error;
  if (!KnownDType(d.dtype)) return "dataType: " + std::to_string(d.dtype) + " is not a known aclDataType";
  if (d.view_rank > 0 && d.strides == nullptr) return "stride: null with " + std::to_string(d.view_rank) + " dims";
  for (uint64_t i = 0; i < d.view_rank; ++i) {
    if (d.strides[i] < 0) {
      return "stride: " + std::to_string(d.strides[i]) + " of dim " + std::to_string(i) + " is negative";
    }
  }
  if (d.offset < 0) return "offset: " + std::to_string(d.offset) + " is negative";

  bool empty = false;
  for (uint64_t i = 0; i < d.view_rank; ++i) empty = empty || d.view_dims[i] == 0;
  if (!empty) {
    const int64_t storage = StorageElements(d.storage_dims, d.storage_rank);
    const int64_t last = LastIndex(d);
    if (storage < 0 || last < 0) return "view: element offsets overflow 64 bits";
    if (last >= storage) {
      return "view: reaches element " + std::to_string(last) + " (offset, strides and view dims) but the storage holds " +
             std::to_string(storage) + " elements";
    }
  }

  aclTensor t;
  t.dtype = static_cast<aclDataType>(d.dtype);  // known: checked above
  t.format = d.format;
  t.rank = static_cast<int>(d.view_rank);
  t.offset = d.offset;
  t.storage_rank = static_cast<int>(d.storage_rank);
  t.data = d.data;
  for (int i = 0; i < t.rank; ++i) {
    t.shape[i] = d.view_dims[i];
    t.strides[i] = d.strides[i];
  }
  for (int i = 0; i < t.storage_rank; ++i) t.storage_shape[i] = d.storage_dims[i];
  *tensor = t;
  return "";
}

}  // namespace cann
}  // namespace gradops
