// SiLU backward on device memory against the float64 reference: the vector
// kernel (aligned unit strides, every tail length) and the general one
// (broadcasting, strided and transposed views, mixed dtypes), in place, and
// the same bits on every run.
#include "device_tensor.h"
#include "ref/reference.h"

namespace gradops {
namespace testing {
namespace {

using SiluGpu = GpuTest;

void RunSiluCase(const std::vector<int64_t>& dy_shape, const std::vector<int64_t>& x_shape,
                 const std::vector<int64_t>& dx_shape, DType in_dtype, DType out_dtype, Arrangement in_arr,
                 Arrangement out_arr, uint64_t seed) {
  std::mt19937_64 rng(seed);
  Tensor dy(in_dtype, dy_shape, in_arr), x(in_dtype, x_shape, in_arr), dx(out_dtype, dx_shape, out_arr);
  dy.FillRandom(rng, -3, 3);
  x.FillRandom(rng, -8, 8);
  DeviceTensor d_dy(dy), d_x(x), d_dx(dx);
  SiluBackwardArgs a;
  a.dy = d_dy.view(); a.x = d_x.view(); a.dx = d_dx.view();
  Plan plan;
  ASSERT_TRUE(RunOnDevice(PlanSiluBackward(a, &plan), plan));
  d_dx.CopyBack();
  SiluBackwardArgs h;
  h.dy = dy.view(); h.x = x.view(); h.dx = dx.view();
  EXPECT_TRUE(Near(dx.Values(), ref::SiluBackward(h), out_dtype, "dx"));
  EXPECT_TRUE(dx.OnlyViewWritten());
}

TEST_F(SiluGpu, VectorPathEveryTail) {
  for (DType dtype : {DType::kFloat32, DType::kFloat16, DType::kBFloat16}) {
    for (int64_t n : {1, 2, 7, 8, 9, 31, 1000, 4097, 1 << 20, (1 << 20) + 3}) {
      SCOPED_TRACE(std::to_string(n) + " " + DTypeName(dtype));
      RunSiluCase({n}, {n}, {n}, dtype, dtype, Arrangement::kContiguous, Arrangement::kContiguous, n);
      RunSiluCase({n}, {n}, {n}, dtype, dtype, Arrangement::kOffset, Arrangement::kOffset, n + 1);  // misaligned
    }
  }
}

TEST_F(SiluGpu, GeneralPathRandomCases) {
  std::mt19937_64 rng(5);
  const DType kDTypes[3] = {DType::kFloat32, DType::kFloat16, DType::kBFloat16};
  const Arrangement kIn[5] = {Arrangement::kContiguous, Arrangement::kTransposed, Arrangement::kStrided,
                              Arrangement::kOffset, Arrangement::kBroadcast};
  const Arrangement kOut[4] = {Arrangement::kContiguous, Arrangement::kTransposed, Arrangement::kStrided,
                               Arrangement::kOffset};
  for (int i = 0; i < 200; ++i) {
    const int rank = 1 + i % 8;
    const std::vector<int64_t> shape = RandomShape(rng, rank, 5000);
    std::vector<int64_t> dy_shape = shape, x_shape = shape;
    if (i % 3 == 1) dy_shape.erase(dy_shape.begin());  // broadcast from fewer dims
    if (dy_shape.empty()) dy_shape = {1};
    if (i % 3 == 2) x_shape.back() = 1;
    const DType in = kDTypes[rng() % 3];
    const DType out = rng() % 3 == 0 ? DType::kFloat32 : in;
    SCOPED_TRACE("case " + std::to_string(i));
    RunSiluCase(dy_shape, x_shape, shape, in, out, kIn[rng() % 5], kOut[rng() % 4], rng());
    if (HasFailure()) return;
  }
}

TEST_F(SiluGpu, InPlaceAndSameBitsEveryRun) {
  std::mt19937_64 rng(9);
  Tensor dy(DType::kBFloat16, {1000, 333}), x(DType::kBFloat16, {1000, 333});
  dy.FillRandom(rng, -3, 3);
  x.FillRandom(rng, -8, 8);
  SiluBackwardArgs h;
  h.dy = dy.view(); h.x = x.view(); h.dx = dy.view();
  const std::vector<double> want = ref::SiluBackward(h);
  std::vector<unsigned char> first;
  for (int run = 0; run < 3; ++run) {
    Tensor out(DType::kBFloat16, {1000, 333});
    const std::vector<double> dy_values = dy.Values();
    out.FillValues(std::vector<float>(dy_values.begin(), dy_values.end()));
    DeviceTensor d_out(out), d_x(x);
    SiluBackwardArgs a;
    a.dy = d_out.view(); a.x = d_x.view(); a.dx = d_out.view();  // dx over dy
    Plan plan;
    ASSERT_TRUE(RunOnDevice(PlanSiluBackward(a, &plan), plan));
    d_out.CopyBack();
    EXPECT_TRUE(Near(out.Values(), want, DType::kBFloat16, "dx"));
    if (run == 0) first = out.Bytes();
    EXPECT_TRUE(out.Bytes() == first) << "run " << run;
  }
}

}  // namespace
}  // namespace testing
}  // namespace gradops
