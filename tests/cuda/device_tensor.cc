#include "device_tensor.h"

#include <string>

#include "cuda/cuda_backend.h"

namespace gradops {
namespace testing {

DeviceTensor::DeviceTensor(Tensor& host) : host_(host), view_(host.view()) {
  bytes_ = 2 * kGuardBytes + static_cast<size_t>(host.storage_elements()) * DTypeSize(host.view().dtype);
  storage_ = static_cast<char*>(cuda::DeviceAlloc(bytes_));
  if (storage_ == nullptr) {
    ADD_FAILURE() << "cudaMalloc of " << bytes_ << " bytes failed";
    return;
  }
  const char* host_storage = static_cast<const char*>(host.view().data) - kGuardBytes;
  EXPECT_TRUE(cuda::CopyToDevice(storage_, host_storage, bytes_));
  view_.data = storage_ + kGuardBytes;
}

DeviceTensor::~DeviceTensor() { cuda::DeviceFree(storage_); }

void DeviceTensor::CopyBack() {
  char* host_storage = static_cast<char*>(host_.view().data) - kGuardBytes;
  EXPECT_TRUE(cuda::CopyToHost(host_storage, storage_, bytes_));
}

void DeviceTensor::Poison() { EXPECT_TRUE(cuda::FillOnDevice(storage_, kPoisonByte, bytes_)); }

::testing::AssertionResult RunOnDevice(const Status& planned, const Plan& plan, void* stream) {
  if (!planned.ok()) return ::testing::AssertionFailure() << "plan: " << planned.message();
  void* workspace = plan.workspace_bytes() ? cuda::DeviceAlloc(plan.workspace_bytes()) : nullptr;
  const Status run = Run(plan, workspace, plan.workspace_bytes(), stream);
  std::string error;
  const bool synced = cuda::Synchronize(&error);
  const int launch = cuda::TakeLastRunError();
  cuda::DeviceFree(workspace);
  if (!run.ok()) return ::testing::AssertionFailure() << "run: " << run.message();
  if (launch != 0) return ::testing::AssertionFailure() << "launch error " << launch;
  if (!synced) return ::testing::AssertionFailure() << "device: " << error;
  return ::testing::AssertionSuccess();
}

void GpuTest::SetUp() {
  if (cuda::DeviceCount() == 0) GTEST_SKIP() << "no CUDA device on this machine: GPU test skipped, nothing ran";
}

}  // namespace testing
}  // namespace gradops
