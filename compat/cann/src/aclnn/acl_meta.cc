// The aclnn descriptor API: create, query and destroy tensors, arrays and
// executors. Every handle is registered while live; using a destroyed or
// foreign handle returns ACLNN_ERR_PARAM_INVALID.
#include <new>
#include <string>

#include "aclnn/aclnn_base.h"
#include "aclnn/descriptors.h"
#include "common/error_message.h"
#include "common/live_set.h"
#include "opdev/op_errno.h"

namespace gradops {
namespace cann {

bool IsLive(const aclTensor* tensor) { return Live<aclTensor>().Contains(tensor); }
bool IsLive(const aclIntArray* array) { return Live<aclIntArray>().Contains(array); }
bool IsLive(const aclBoolArray* array) { return Live<aclBoolArray>().Contains(array); }

namespace {

template <typename Array, typename T>
Array* CreateArray(const T* value, uint64_t size, const char* api) {
  if (size > 0 && value == nullptr) return Fail<Array*>(nullptr, std::string(api) + ": value is null");
  Array* array = new (std::nothrow) Array();
  if (array == nullptr) return Fail<Array*>(nullptr, std::string(api) + ": out of memory");
  try {
    array->values.assign(value, value + size);
  } catch (const std::bad_alloc&) {
    delete array;
    return Fail<Array*>(nullptr, std::string(api) + ": out of memory for " + std::to_string(size) + " values");
  }
  Live<Array>().Add(array);
  return array;
}

// Destroying null succeeds, as freeing null does.
template <typename T>
aclnnStatus Destroy(const T* handle, const char* api) {
  if (handle == nullptr) return ACLNN_SUCCESS;
  if (!Live<T>().Remove(handle)) {
    return Fail(ACLNN_ERR_PARAM_INVALID, std::string(api) + ": not a live handle (destroyed twice, or foreign)");
  }
  delete handle;
  return ACLNN_SUCCESS;
}

template <typename Array>
aclnnStatus ArraySize(const Array* array, uint64_t* size, const char* api) {
  if (array == nullptr || size == nullptr) return Fail(ACLNN_ERR_PARAM_NULLPTR, std::string(api) + ": null argument");
  if (!Live<Array>().Contains(array)) return Fail(ACLNN_ERR_PARAM_INVALID, std::string(api) + ": not a live array");
  *size = array->values.size();
  return ACLNN_SUCCESS;
}

// Null or dead tensors and null outputs fail with the usual codes.
aclnnStatus CheckQuery(const aclTensor* tensor, const void* out, const char* api) {
  if (tensor == nullptr || out == nullptr) return Fail(ACLNN_ERR_PARAM_NULLPTR, std::string(api) + ": null argument");
  if (!IsLive(tensor)) return Fail(ACLNN_ERR_PARAM_INVALID, std::string(api) + ": not a live aclTensor");
  return ACLNN_SUCCESS;
}

// Copies `n` values into a new[] array the caller releases with delete[].
aclnnStatus CopyOut(const int64_t* values, int n, int64_t** out, uint64_t* count) {
  int64_t* copy = new (std::nothrow) int64_t[n > 0 ? n : 1];
  if (copy == nullptr) return Fail(ACLNN_ERR_INNER, "out of memory");
  for (int i = 0; i < n; ++i) copy[i] = values[i];
  *out = copy;
  *count = static_cast<uint64_t>(n);
  return ACLNN_SUCCESS;
}

}  // namespace
}  // namespace cann
}  // namespace gradops

using namespace gradops::cann;  // NOLINT: the C API below is this file's whole purpose

extern "C" {

aclTensor* aclCreateTensor(const int64_t* viewDims, uint64_t viewDimsNum, aclDataType dataType, const int64_t* stride,
                           int64_t offset, aclFormat format, const int64_t* storageDims, uint64_t storageDimsNum,
                           void* tensorData) {
  aclTensor* tensor = new (std::nothrow) aclTensor();
  if (tensor == nullptr) return Fail<aclTensor*>(nullptr, "aclCreateTensor: out of memory");
  const TensorDescription d{viewDims, viewDimsNum, static_cast<int32_t>(dataType), stride, offset, format, storageDims, storageDimsNum,
                            tensorData};
  const std::string error = DescribeTensor(d, tensor);
  if (!error.empty()) {
    delete tensor;
    return Fail<aclTensor*>(nullptr, "aclCreateTensor: " + error);
  }
  Live<aclTensor>().Add(tensor);
  return tensor;
}

aclnnStatus aclInitTensor(aclTensor* tensor, const int64_t* viewDims, uint64_t viewDimsNum, aclDataType dataType,
                          const int64_t* stride, int64_t offset, aclFormat format, const int64_t* storageDims,
                          uint64_t storageDimsNum, void* tensorData) {
  if (tensor == nullptr) return Fail(ACLNN_ERR_PARAM_NULLPTR, "aclInitTensor: tensor is null");
  if (!IsLive(tensor)) return Fail(ACLNN_ERR_PARAM_INVALID, "aclInitTensor: not a live aclTensor");
  const TensorDescription d{viewDims, viewDimsNum, static_cast<int32_t>(dataType), stride, offset, format, storageDims, storageDimsNum,
                            tensorData};
  const std::string error = DescribeTensor(d, tensor);
  if (!error.empty()) return Fail(ACLNN_ERR_PARAM_INVALID, "aclInitTensor: " + error);
  return ACLNN_SUCCESS;
}

aclIntArray* aclCreateIntArray(const int64_t* value, uint64_t size) {
  return CreateArray<aclIntArray>(value, size, "aclCreateIntArray");
}
aclFloatArray* aclCreateFloatArray(const float* value, uint64_t size) {
  return CreateArray<aclFloatArray>(value, size, "aclCreateFloatArray");
}
aclBoolArray* aclCreateBoolArray(const bool* value, uint64_t size) {
  return CreateArray<aclBoolArray>(value, size, "aclCreateBoolArray");
}

aclnnStatus aclDestroyTensor(const aclTensor* tensor) { return Destroy(tensor, "aclDestroyTensor"); }
aclnnStatus aclDestroyIntArray(const aclIntArray* array) { return Destroy(array, "aclDestroyIntArray"); }
aclnnStatus aclDestroyFloatArray(const aclFloatArray* array) { return Destroy(array, "aclDestroyFloatArray"); }
aclnnStatus aclDestroyBoolArray(const aclBoolArray* array) { return Destroy(array, "aclDestroyBoolArray"); }

aclnnStatus aclGetIntArraySize(const aclIntArray* array, uint64_t* size) {
  return ArraySize(array, size, "aclGetIntArraySize");
}
aclnnStatus aclGetFloatArraySize(const aclFloatArray* array, uint64_t* size) {
  return ArraySize(array, size, "aclGetFloatArraySize");
}
aclnnStatus aclGetBoolArraySize(const aclBoolArray* array, uint64_t* size) {
  return ArraySize(array, size, "aclGetBoolArraySize");
}

aclnnStatus aclGetViewShape(const aclTensor* tensor, int64_t** viewDims, uint64_t* viewDimsNum) {
  aclnnStatus s = CheckQuery(tensor, viewDimsNum ? static_cast<const void*>(viewDims) : nullptr, "aclGetViewShape");
  return s != ACLNN_SUCCESS ? s : CopyOut(tensor->shape, tensor->rank, viewDims, viewDimsNum);
}

aclnnStatus aclGetStorageShape(const aclTensor* tensor, int64_t** storageDims, uint64_t* storageDimsNum) {
  aclnnStatus s =
      CheckQuery(tensor, storageDimsNum ? static_cast<const void*>(storageDims) : nullptr, "aclGetStorageShape");
  return s != ACLNN_SUCCESS ? s : CopyOut(tensor->storage_shape, tensor->storage_rank, storageDims, storageDimsNum);
}

aclnnStatus aclGetViewStrides(const aclTensor* tensor, int64_t** stridesValue, uint64_t* stridesNum) {
  aclnnStatus s = CheckQuery(tensor, stridesNum ? static_cast<const void*>(stridesValue) : nullptr, "aclGetViewStrides");
  return s != ACLNN_SUCCESS ? s : CopyOut(tensor->strides, tensor->rank, stridesValue, stridesNum);
}

aclnnStatus aclGetViewOffset(const aclTensor* tensor, int64_t* offset) {
  aclnnStatus s = CheckQuery(tensor, offset, "aclGetViewOffset");
  if (s == ACLNN_SUCCESS) *offset = tensor->offset;
  return s;
}

aclnnStatus aclGetFormat(const aclTensor* tensor, aclFormat* format) {
  aclnnStatus s = CheckQuery(tensor, format, "aclGetFormat");
  if (s == ACLNN_SUCCESS) *format = tensor->format;
  return s;
}

aclnnStatus aclGetDataType(const aclTensor* tensor, aclDataType* dataType) {
  aclnnStatus s = CheckQuery(tensor, dataType, "aclGetDataType");
  if (s == ACLNN_SUCCESS) *dataType = tensor->dtype;
  return s;
}

aclnnStatus aclSetRawTensorAddr(aclTensor* tensor, void* addr) {
  if (tensor == nullptr) return Fail(ACLNN_ERR_PARAM_NULLPTR, "aclSetRawTensorAddr: tensor is null");
  if (!IsLive(tensor)) return Fail(ACLNN_ERR_PARAM_INVALID, "aclSetRawTensorAddr: not a live aclTensor");
  tensor->data = addr;
  return ACLNN_SUCCESS;
}

aclnnStatus aclGetRawTensorAddr(const aclTensor* tensor, void** addr) {
  aclnnStatus s = CheckQuery(tensor, addr, "aclGetRawTensorAddr");
  if (s == ACLNN_SUCCESS) *addr = tensor->data;
  return s;
}

aclnnStatus aclnnInit(const char*) { return ACLNN_SUCCESS; }
aclnnStatus aclnnFinalize(void) { return ACLNN_SUCCESS; }

}  // extern "C"
