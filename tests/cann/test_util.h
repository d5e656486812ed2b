// Helpers of the CANN front-end tests: device tensors with known contents,
// reading them back, and running sample programs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnn/acl_meta.h"
#include "gradops/tensor.h"

namespace cann_test {

// A device buffer and an aclTensor viewing it. The view has `shape` and
// `strides` (row-major when empty) at `offset`; storage elements outside the
// view hold the sentinel kFill. Values are given and read in the view's
// row-major order.
class DeviceTensor {
 public:
  static constexpr double kFill = 77.0;

  DeviceTensor(aclDataType dtype, std::vector<int64_t> shape, const std::vector<double>& values = {},
               std::vector<int64_t> strides = {}, int64_t offset = 0, aclFormat format = ACL_FORMAT_ND);
  ~DeviceTensor();
  DeviceTensor(const DeviceTensor&) = delete;
  DeviceTensor& operator=(const DeviceTensor&) = delete;

  aclTensor* get() const { return tensor_; }
  operator aclTensor*() const { return tensor_; }
  int64_t numel() const;
  std::vector<double> Read() const;         // the view, row-major
  std::vector<uint8_t> Bytes() const;       // the whole storage
  gradops::TensorView View() const;          // for the float64 reference
  void* data() const { return data_; }

 private:
  int64_t StorageIndex(int64_t linear) const;

  aclDataType dtype_;
  std::vector<int64_t> shape_, strides_;
  int64_t offset_;
  int64_t storage_elements_ = 0;
  void* data_ = nullptr;
  aclTensor* tensor_ = nullptr;
};

// Row-major values 0.25 * ((i * a) % m) + b: small, varied, exact in bf16.
std::vector<double> Pattern(int64_t count, int a, int m, double b);

// Largest |actual - expected| / (atol + rtol * |expected|); <= 1 passes.
double ErrorRatio(const std::vector<double>& actual, const std::vector<double>& expected, double atol, double rtol);

// Tolerances by the lowest precision among the dtypes involved.
double Tolerance(aclDataType dtype);

// Runs a shell command; returns its exit status and fills *output with stdout.
int RunCommand(const std::string& command, std::string* output);

// The values of lines "<name>[i] = v" or "<name>[i] is: v", in index order.
std::vector<double> ParseValues(const std::string& output, const std::string& name);

// RAII for aclInit/aclFinalize and a stream, per test.
class Runtime {
 public:
  Runtime();
  ~Runtime();
  aclrtStream stream() const { return stream_; }

 private:
  aclrtStream stream_ = nullptr;
};

}  // namespace cann_test
