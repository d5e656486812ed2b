#include "test_util.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <sstream>

#include "core/dtype.h"

namespace cann_test {
namespace {

gradops::DType CoreDType(aclDataType dtype) {
  switch (dtype) {
    case ACL_FLOAT16: return gradops::DType::kFloat16;
    case ACL_BF16: return gradops::DType::kBFloat16;
    default: return gradops::DType::kFloat32;
  }
}

bool Encodable(aclDataType dtype) { return dtype == ACL_FLOAT || dtype == ACL_FLOAT16 || dtype == ACL_BF16; }

}  // namespace

DeviceTensor::DeviceTensor(aclDataType dtype, std::vector<int64_t> shape, const std::vector<double>& values,
                           std::vector<int64_t> strides, int64_t offset, aclFormat format)
    : dtype_(dtype), shape_(std::move(shape)), strides_(std::move(strides)), offset_(offset) {
  if (strides_.empty()) {
    strides_.assign(shape_.size(), 1);
    for (size_t i = shape_.size(); i-- > 1;) strides_[i - 1] = strides_[i] * shape_[i];
  }
  int64_t last = offset_;
  bool empty = false;
  for (size_t d = 0; d < shape_.size(); ++d) {
    empty = empty || shape_[d] == 0;
    last += (shape_[d] - 1) * strides_[d];
  }
  storage_elements_ = empty ? 0 : last + 1;
  const size_t element = aclDataTypeSize(dtype_) ? aclDataTypeSize(dtype_) : 1;
  if (storage_elements_ > 0) {
    EXPECT_EQ(aclrtMalloc(&data_, storage_elements_ * element, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    if (Encodable(dtype_)) {
      for (int64_t i = 0; i < storage_elements_; ++i) gradops::StoreFromFloat(data_, CoreDType(dtype_), i, kFill);
      for (int64_t i = 0; i < numel() && i < static_cast<int64_t>(values.size()); ++i) {
        gradops::StoreFromFloat(data_, CoreDType(dtype_), StorageIndex(i), static_cast<float>(values[i]));
      }
    } else {
      aclrtMemset(data_, storage_elements_ * element, 0, storage_elements_ * element);
    }
  }
  const int64_t storage_dims[1] = {storage_elements_};
  tensor_ = aclCreateTensor(shape_.data(), shape_.size(), dtype_, strides_.data(), offset_, format, storage_dims, 1,
                            data_);
  EXPECT_NE(tensor_, nullptr) << aclGetRecentErrMsg();
}

DeviceTensor::~DeviceTensor() {
  aclDestroyTensor(tensor_);
  if (data_ != nullptr) aclrtFree(data_);
}

int64_t DeviceTensor::numel() const {
  int64_t n = 1;
  for (int64_t d : shape_) n *= d;
  return n;
}

int64_t DeviceTensor::StorageIndex(int64_t linear) const {
  int64_t index = offset_;
  for (size_t d = shape_.size(); d-- > 0;) {
    index += (linear % shape_[d]) * strides_[d];
    linear /= shape_[d];
  }
  return index;
}

std::vector<double> DeviceTensor::Read() const {
  std::vector<double> out;
  for (int64_t i = 0; i < numel(); ++i) out.push_back(gradops::LoadAsFloat(data_, CoreDType(dtype_), StorageIndex(i)));
  return out;
}

std::vector<uint8_t> DeviceTensor::Bytes() const {
  const uint8_t* p = static_cast<const uint8_t*>(data_);
  return p ? std::vector<uint8_t>(p, p + storage_elements_ * aclDataTypeSize(dtype_)) : std::vector<uint8_t>();
}

gradops::TensorView DeviceTensor::View() const {
  gradops::TensorView v;
  v.data = data_;
  v.dtype = CoreDType(dtype_);
  v.rank = static_cast<int>(shape_.size());
  v.offset = offset_;
  for (size_t d = 0; d < shape_.size(); ++d) {
    v.shape[d] = shape_[d];
    v.strides[d] = strides_[d];
  }
  return v;
}

std::vector<double> Pattern(int64_t count, int a, int m, double b) {
  std::vector<double> v(count);
  for (int64_t i = 0; i < count; ++i) v[i] = 0.25 * static_cast<double>((i * a) % m) + b;
  return v;
}

double ErrorRatio(const std::vector<double>& actual, const std::vector<double>& expected, double atol, double rtol) {
  if (actual.size() != expected.size()) return INFINITY;
  double worst = 0;
  for (size_t i = 0; i < actual.size(); ++i) {
    const double err = std::fabs(actual[i] - expected[i]) / (atol + rtol * std::fabs(expected[i]));
    if (!(err <= worst)) worst = err;  // NaN counts as a failure
  }
  return worst;
}

double Tolerance(aclDataType dtype) {
  switch (dtype) {
    case ACL_FLOAT16: return 4e-3;
    case ACL_BF16: return 2e-2;
    default: return 2e-5;
  }
}

int RunCommand(const std::string& command, std::string* output) {
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return -1;
  char buffer[4096];
  size_t n;
  while ((n = fread(buffer, 1, sizeof(buffer), pipe)) > 0) output->append(buffer, n);
  return pclose(pipe);
}

std::vector<double> ParseValues(const std::string& output, const std::string& name) {
  std::vector<double> values;
  std::istringstream lines(output);
  std::string line;
  const std::string prefix = name + "[";
  while (std::getline(lines, line)) {
    if (line.compare(0, prefix.size(), prefix) != 0) continue;
    size_t index = 0, end = 0;
    index = std::stoul(line.substr(prefix.size()), &end);
    const size_t value_at = line.find_first_of("=:", prefix.size() + end);
    if (value_at == std::string::npos) continue;
    if (values.size() <= index) values.resize(index + 1, NAN);
    values[index] = std::stod(line.substr(value_at + 1));
  }
  return values;
}

Runtime::Runtime() {
  EXPECT_EQ(aclInit(nullptr), ACL_SUCCESS);
  EXPECT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  EXPECT_EQ(aclrtCreateStream(&stream_), ACL_SUCCESS);
}

Runtime::~Runtime() {
  EXPECT_EQ(aclrtDestroyStream(stream_), ACL_SUCCESS);
  EXPECT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
  EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
}

}  // namespace cann_test
