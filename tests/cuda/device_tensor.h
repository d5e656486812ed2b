// GPU test support: a device copy of a test Tensor's whole storage (guard
// bytes and poison included) with the same view, so that after a device Run
// the host Tensor's checks (Values, OnlyViewWritten, Untouched) apply
// unchanged once the storage is copied back. And the fixture that skips
// every GPU test, visibly, on a machine without a CUDA device.
#pragma once

#include <gtest/gtest.h>

#include <cstddef>

#include "test_util.h"

namespace gradops {
namespace testing {

class DeviceTensor {
 public:
  explicit DeviceTensor(Tensor& host);
  ~DeviceTensor();
  DeviceTensor(const DeviceTensor&) = delete;
  DeviceTensor& operator=(const DeviceTensor&) = delete;

  const TensorView& view() const { return view_; }
  const TensorView* pointer() const { return &view_; }
  void CopyBack();  // device storage -> the host Tensor's storage
  void Poison();    // every device storage byte back to kPoisonByte

 private:
  Tensor& host_;
  size_t bytes_ = 0;
  char* storage_ = nullptr;
  TensorView view_;
};

// Runs `plan` with a device workspace on `stream` (null: the legacy default
// stream), waits, and returns the first error.
::testing::AssertionResult RunOnDevice(const Status& planned, const Plan& plan, void* stream = nullptr);

class GpuTest : public ::testing::Test {
 protected:
  void SetUp() override;
};

}  // namespace testing
}  // namespace gradops
