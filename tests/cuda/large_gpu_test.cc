// Tensors of more than 2^31 elements on the GPU: 64-bit sizes and offsets
// end to end. Inputs are broadcast views over one row, so only the output
// (about 4.3 GB of bfloat16/float16) is large.
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "cuda/cuda_backend.h"
#include "device_tensor.h"
#include "ref/reference.h"

namespace gradops {
namespace testing {
namespace {

constexpr int64_t kBig = (int64_t{1} << 31) + 4099;

using LargeGpu = GpuTest;

// The whole of a device buffer of n 16-bit values, checked row by row
// against `row` (n a multiple of its length).
::testing::AssertionResult EveryRowEquals(const uint16_t* device, int64_t rows, const std::vector<uint16_t>& row) {
  const int64_t n = static_cast<int64_t>(row.size());
  const int64_t batch = std::max<int64_t>(1, (int64_t{1} << 26) / n);
  std::vector<uint16_t> host(static_cast<size_t>(batch * n));
  for (int64_t r0 = 0; r0 < rows; r0 += batch) {
    const int64_t count = std::min(batch, rows - r0);
    if (!cuda::CopyToHost(host.data(), device + r0 * n, static_cast<size_t>(count * n) * 2)) {
      return ::testing::AssertionFailure() << "copy failed";
    }
    if (n == 1) {
      const auto it = std::find_if(host.begin(), host.begin() + count, [&](uint16_t v) { return v != row[0]; });
      if (it != host.begin() + count) {
        return ::testing::AssertionFailure() << "element " << r0 + (it - host.begin()) << " differs from element 0";
      }
      continue;
    }
    for (int64_t r = 0; r < count; ++r) {
      if (std::memcmp(&host[static_cast<size_t>(r * n)], row.data(), static_cast<size_t>(n) * 2) != 0) {
        return ::testing::AssertionFailure() << "row " << r0 + r << " differs from row 0";
      }
    }
  }
  return ::testing::AssertionSuccess();
}

TEST_F(LargeGpu, LayerNormBackwardPast2To31Elements) {
  const int64_t N = 4096, M = kBig / N + 1;
  std::mt19937_64 rng(61);
  Tensor dy(DType::kBFloat16, {1, N}), x(DType::kBFloat16, {1, N}), gamma(DType::kBFloat16, {N});
  Tensor mean(DType::kFloat32, {1}), rstd(DType::kFloat32, {1}), dg(DType::kFloat32, {N}), db(DType::kFloat32, {N});
  for (Tensor* t : {&dy, &x, &gamma, &mean}) t->FillRandom(rng, -2, 2);
  rstd.FillRandom(rng, 0.5f, 2);
  DeviceTensor d_dy(dy), d_x(x), d_gamma(gamma), d_mean(mean), d_rstd(rstd), d_dg(dg), d_db(db);
  uint16_t* dx = static_cast<uint16_t*>(cuda::DeviceAlloc(static_cast<size_t>(M * N) * 2));
  ASSERT_NE(dx, nullptr);
  LayerNormBackwardArgs a;
  a.dy = d_dy.view(); a.x = d_x.view(); a.mean = d_mean.view(); a.rstd = d_rstd.view(); a.gamma = d_gamma.pointer();
  for (TensorView* v : {&a.dy, &a.x, &a.mean, &a.rstd}) {  // every row is row 0
    v->shape[0] = M;
    v->strides[0] = 0;
  }
  a.dx = Contiguous(dx, DType::kBFloat16, {M, N});
  a.dgamma = d_dg.view(); a.dbeta = d_db.view();
  Plan plan;
  ASSERT_TRUE(RunOnDevice(PlanLayerNormBackward(a, &plan), plan));
  d_dg.CopyBack();
  d_db.CopyBack();

  LayerNormBackwardArgs one;
  one.dy = dy.view(); one.x = x.view(); one.mean = mean.view(); one.rstd = rstd.view(); one.gamma = &gamma.view();
  std::vector<uint16_t> row(static_cast<size_t>(N));
  ASSERT_TRUE(cuda::CopyToHost(row.data(), dx, static_cast<size_t>(N) * 2));
  one.dx = Contiguous(row.data(), DType::kBFloat16, {1, N});
  one.dgamma = dg.view(); one.dbeta = db.view();
  const ref::NormGrads want = ref::LayerNormBackward(one);
  EXPECT_TRUE(Near(ref::Read(one.dx), want.dx, DType::kBFloat16, "dx row 0"));
  EXPECT_TRUE(EveryRowEquals(dx, M, row));
  std::vector<double> scaled_dg = want.dgamma, scaled_db = want.dbeta;
  for (double& v : scaled_dg) v *= static_cast<double>(M);
  for (double& v : scaled_db) v *= static_cast<double>(M);
  EXPECT_TRUE(Near(dg.Values(), scaled_dg, DType::kFloat32, "dgamma"));
  EXPECT_TRUE(Near(db.Values(), scaled_db, DType::kFloat32, "dbeta"));
  cuda::DeviceFree(dx);
}

// dy and x filled with one float16 value each: 0x3C3C (1.0586) and 0x3E3E
// (1.5605); broadcast from one element (the general kernel) or full
// tensors (the vector kernel).
TEST_F(LargeGpu, SiluBackwardPast2To31Elements) {
  const size_t big_bytes = static_cast<size_t>(kBig) * 2;
  for (bool broadcast : {true, false}) {
    SCOPED_TRACE(broadcast ? "broadcast inputs (general kernel)" : "full inputs (vector kernel)");
    const size_t in_bytes = broadcast ? 2 : big_bytes;
    uint16_t* dy = static_cast<uint16_t*>(cuda::DeviceAlloc(in_bytes));
    uint16_t* x = static_cast<uint16_t*>(cuda::DeviceAlloc(in_bytes));
    uint16_t* dx = static_cast<uint16_t*>(cuda::DeviceAlloc(big_bytes));
    ASSERT_TRUE(dy != nullptr && x != nullptr && dx != nullptr);
    ASSERT_TRUE(cuda::FillOnDevice(dy, 0x3C, in_bytes));
    ASSERT_TRUE(cuda::FillOnDevice(x, 0x3E, in_bytes));
    SiluBackwardArgs a;
    a.dy = Contiguous(dy, DType::kFloat16, {kBig});
    a.x = Contiguous(x, DType::kFloat16, {kBig});
    if (broadcast) a.dy.strides[0] = a.x.strides[0] = 0;
    a.dx = Contiguous(dx, DType::kFloat16, {kBig});
    Plan plan;
    ASSERT_TRUE(RunOnDevice(PlanSiluBackward(a, &plan), plan));

    Tensor hdy(DType::kFloat16, {1}), hx(DType::kFloat16, {1}), hdx(DType::kFloat16, {1});
    hdy.FillValues({1.05859375f});
    hx.FillValues({1.560546875f});
    std::vector<uint16_t> row(1);
    ASSERT_TRUE(cuda::CopyToHost(row.data(), dx, 2));
    std::memcpy(hdx.mutable_view()->data, row.data(), 2);
    SiluBackwardArgs one;
    one.dy = hdy.view(); one.x = hx.view(); one.dx = hdx.view();
    EXPECT_TRUE(Near(hdx.Values(), ref::SiluBackward(one), DType::kFloat16, "dx[0]"));
    EXPECT_TRUE(EveryRowEquals(dx, kBig, row));
    for (void* p : {static_cast<void*>(dy), static_cast<void*>(x), static_cast<void*>(dx)}) cuda::DeviceFree(p);
  }
}

}  // namespace
}  // namespace testing
}  // namespace gradops
