// Device queries of the CUDA backend: on a machine without a GPU (or
// driver) they answer "no device" without failing, and planning on host
// memory is unchanged. With a GPU, device memory is recognized.
#include <gtest/gtest.h>

#include <vector>

#include "cuda/cuda_backend.h"
#include "gradops/ops.h"

namespace gradops {
namespace cuda {
namespace {

TEST(CudaQueries, HostPointersAreNeverDevicePointers) {
  std::vector<float> host(16, 1.0f);
  const int count = DeviceCount();
  EXPECT_GE(count, 0);
  EXPECT_EQ(DeviceCount(), count);  // cached, stable
  EXPECT_FALSE(IsDevicePointer(host.data()));
  EXPECT_FALSE(IsDevicePointer(nullptr));
  EXPECT_EQ(DeviceOf(host.data()), -1);
  EXPECT_EQ(TakeLastRunError(), 0);
}

TEST(CudaQueries, HostPlansStayOnTheCpu) {
  std::vector<float> dy(64, 0.5f), x(64, 2.0f), dx(64, 0.0f);
  SiluBackwardArgs a;
  a.dy = Contiguous(dy.data(), DType::kFloat32, {64});
  a.x = Contiguous(x.data(), DType::kFloat32, {64});
  a.dx = Contiguous(dx.data(), DType::kFloat32, {64});
  Plan plan;
  ASSERT_TRUE(PlanSiluBackward(a, &plan).ok());
  EXPECT_EQ(plan.threads(), NumThreads());
  ASSERT_TRUE(gradops::Run(plan, nullptr, 0).ok());
  EXPECT_NE(dx[0], 0.0f);
}

TEST(CudaQueries, DeviceMemoryIsRecognized) {
  if (DeviceCount() == 0) GTEST_SKIP() << "no CUDA device on this machine: device-pointer check skipped";
  void* p = DeviceAlloc(256);
  ASSERT_NE(p, nullptr);
  EXPECT_TRUE(IsDevicePointer(p));
  EXPECT_TRUE(IsDevicePointer(static_cast<char*>(p) + 100));
  EXPECT_GE(DeviceOf(p), 0);
  DeviceFree(p);
}

}  // namespace
}  // namespace cuda
}  // namespace gradops
