// Helpers for ATB sample programs: status checks and device tensors built
// from host vectors.
//
//   CHECK_STATUS(expr)            on a non-zero status, prints where and why and
//                                 returns from the enclosing function: the
//                                 status for integer/enum return types, null
//                                 for pointers, a default value otherwise.
//   CHECK_STATUS_EXPR(expr, on)   on a non-zero status, prints and runs `on`.
//   CreateTensor(dtype, format, shape[, tensor])
//   CreateTensorFromVector(context, stream, values, dtype, format, shape[, tensor])
//     The forms with a trailing atb::Tensor& return an atb::Status; the
//     shorter forms return the tensor (deviceData null on failure).
// Values are converted to the tensor's dtype on the host (float16 and
// bfloat16 round to nearest even).
#ifndef GRADOPS_EXAMPLES_ATB_DEMO_UTIL_H_
#define GRADOPS_EXAMPLES_ATB_DEMO_UTIL_H_

#include <acl/acl.h>
#include <atb/atb_infer.h>
#include <atb/operation.h>
#include <atb/types.h>

#include <cstdint>
#include <cstring>
#include <iostream>
#include <type_traits>
#include <vector>

namespace demo_util {

// A failed status, convertible to whatever the enclosing function returns.
class FailedStatus {
 public:
  explicit FailedStatus(int status) : status_(status) {}
  template <typename T, typename std::enable_if<std::is_arithmetic<T>::value || std::is_enum<T>::value, int>::type = 0>
  operator T() const {
    return static_cast<T>(status_);
  }
  template <typename T>
  operator T*() const {
    return nullptr;
  }
  template <typename T, typename std::enable_if<std::is_class<T>::value, int>::type = 0>
  operator T() const {
    return T();
  }

 private:
  int status_;
};

inline void Report(const char* file, int line, int status) {
  const char* message = aclGetRecentErrMsg();
  std::cerr << file << ":" << line << " [ErrorCode]: " << status;
  if (message != nullptr && message[0] != '\0') std::cerr << " (" << message << ")";
  std::cerr << std::endl;
}

inline uint16_t FloatToBFloat16Bits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  if ((bits & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<uint16_t>((bits >> 16) | 0x40u);  // quiet NaN
  bits += 0x7FFFu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>(bits >> 16);
}

// Appends `value` encoded as `dtype`; false for dtypes these helpers do not write.
template <typename T>
bool Encode(T value, aclDataType dtype, std::vector<uint8_t>& bytes) {
  union {
    float f32;
    uint16_t u16;
    int32_t i32;
    int64_t i64;
    double f64;
  } v;
  size_t size = 0;
  switch (dtype) {
    case ACL_FLOAT: v.f32 = static_cast<float>(value); size = 4; break;
    case ACL_FLOAT16: v.u16 = aclFloatToFloat16(static_cast<float>(value)); size = 2; break;
    case ACL_BF16: v.u16 = FloatToBFloat16Bits(static_cast<float>(value)); size = 2; break;
    case ACL_INT32: v.i32 = static_cast<int32_t>(value); size = 4; break;
    case ACL_INT64: v.i64 = static_cast<int64_t>(value); size = 8; break;
    case ACL_DOUBLE: v.f64 = static_cast<double>(value); size = 8; break;
    default: return false;
  }
  const uint8_t* p = reinterpret_cast<const uint8_t*>(&v);
  bytes.insert(bytes.end(), p, p + size);
  return true;
}

}  // namespace demo_util

#define CHECK_STATUS(status)                                  \
  do {                                                        \
    const int demo_status_ = static_cast<int>(status);        \
    if (demo_status_ != 0) {                                  \
      demo_util::Report(__FILE__, __LINE__, demo_status_);    \
      return demo_util::FailedStatus(demo_status_);           \
    }                                                         \
  } while (0)

#define CHECK_STATUS_EXPR(status, expr)                       \
  do {                                                        \
    const int demo_status_ = static_cast<int>(status);        \
    if (demo_status_ != 0) {                                  \
      demo_util::Report(__FILE__, __LINE__, demo_status_);    \
      expr;                                                   \
    }                                                         \
  } while (0)

// A contiguous device tensor of `shape`; dataSize is set from the desc.
inline atb::Status CreateTensor(const aclDataType dataType, const aclFormat format, std::vector<int64_t> shape,
                                atb::Tensor& tensor) {
  if (shape.size() > atb::MAX_DIM) return atb::ERROR_INVALID_TENSOR_DIM_NUM;
  tensor.desc.dtype = dataType;
  tensor.desc.format = format;
  tensor.desc.shape.dimNum = shape.size();
  for (size_t i = 0; i < shape.size(); ++i) tensor.desc.shape.dims[i] = shape[i];
  tensor.dataSize = atb::Utils::GetTensorSize(tensor);
  tensor.deviceData = nullptr;
  tensor.hostData = nullptr;
  if (tensor.dataSize > 0) {
    CHECK_STATUS(aclrtMalloc(&tensor.deviceData, tensor.dataSize, ACL_MEM_MALLOC_HUGE_FIRST));
  }
  return atb::NO_ERROR;
}

inline atb::Tensor CreateTensor(const aclDataType dataType, const aclFormat format, std::vector<int64_t> shape) {
  atb::Tensor tensor;
  CHECK_STATUS_EXPR(CreateTensor(dataType, format, shape, tensor), tensor.deviceData = nullptr);
  return tensor;
}

// A device tensor holding `data` converted to outTensorType. When inTensorType
// equals outTensorType, the values are already encoded and copied as they are.
template <typename T>
atb::Status CreateTensorFromVector(atb::Context* contextPtr, aclrtStream stream, std::vector<T> data,
                                   const aclDataType outTensorType, const aclFormat format, std::vector<int64_t> shape,
                                   atb::Tensor& outTensor, const aclDataType inTensorType = ACL_DT_UNDEFINED) {
  (void)contextPtr;  // conversions happen on the host: no operation, no stream work
  (void)stream;
  std::vector<uint8_t> bytes;
  if (inTensorType != ACL_DT_UNDEFINED && inTensorType == outTensorType) {
    const uint8_t* p = reinterpret_cast<const uint8_t*>(data.data());
    bytes.assign(p, p + data.size() * sizeof(T));
  } else {
    for (const T& value : data) {
      if (!demo_util::Encode(value, outTensorType, bytes)) return atb::ERROR_INVALID_TENSOR_DTYPE;
    }
  }
  CHECK_STATUS(CreateTensor(outTensorType, format, shape, outTensor));
  if (bytes.size() != outTensor.dataSize) {
    std::cerr << "CreateTensorFromVector: " << data.size() << " values do not fill the tensor" << std::endl;
    aclrtFree(outTensor.deviceData);
    outTensor.deviceData = nullptr;
    return atb::ERROR_INVALID_TENSOR_SIZE;
  }
  if (!bytes.empty()) {
    CHECK_STATUS(aclrtMemcpy(outTensor.deviceData, outTensor.dataSize, bytes.data(), bytes.size(),
                             ACL_MEMCPY_HOST_TO_DEVICE));
  }
  return atb::NO_ERROR;
}

template <typename T>
atb::Tensor CreateTensorFromVector(atb::Context* contextPtr, aclrtStream stream, std::vector<T> data,
                                   const aclDataType outTensorType, const aclFormat format,
                                   std::vector<int64_t> shape) {
  atb::Tensor tensor;
  CHECK_STATUS_EXPR(CreateTensorFromVector(contextPtr, stream, data, outTensorType, format, shape, tensor),
                    tensor.deviceData = nullptr);
  return tensor;
}

#endif  // GRADOPS_EXAMPLES_ATB_DEMO_UTIL_H_
