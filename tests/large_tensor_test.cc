// Tensors of more than 2^31 elements: 64-bit sizes and offsets end to end.
// Inputs are broadcast views over one row, so only the output is large
// (about 4.3 GB of float16/bfloat16).
#include <cstring>

#include "layer_norm_case.h"
#include "ref/reference.h"
#include "test_util.h"

namespace gradops {
namespace testing {
namespace {

constexpr int64_t kBig = (int64_t{1} << 31) + 4099;

TEST(LargeTensor, LayerNormBackwardPast2To31Elements) {
  const int64_t N = 4096, M = kBig / N + 1;  // M * N > 2^31
  ASSERT_GT(M * N, int64_t{1} << 31);
  std::mt19937_64 rng(61);
  Tensor dy(DType::kBFloat16, {1, N}), x(DType::kBFloat16, {1, N}), gamma(DType::kBFloat16, {N});
  Tensor mean(DType::kFloat32, {1}), rstd(DType::kFloat32, {1});
  for (Tensor* t : {&dy, &x, &gamma, &mean}) t->FillRandom(rng, -2, 2);
  rstd.FillRandom(rng, 0.5f, 2);
  std::vector<uint16_t> dx(static_cast<size_t>(M * N));
  Tensor dg(DType::kFloat32, {N}), db(DType::kFloat32, {N});

  LayerNormBackwardArgs a;
  a.dy = dy.view(); a.x = x.view(); a.mean = mean.view(); a.rstd = rstd.view(); a.gamma = &gamma.view();
  for (TensorView* v : {&a.dy, &a.x}) {  // every row is row 0
    v->shape[0] = M;
    v->strides[0] = 0;
  }
  for (TensorView* v : {&a.mean, &a.rstd}) {
    v->shape[0] = M;
    v->strides[0] = 0;
  }
  a.dx = Contiguous(dx.data(), DType::kBFloat16, {M, N});
  a.dgamma = dg.view(); a.dbeta = db.view();
  Plan plan;
  ASSERT_TRUE(PlanAndRun(PlanLayerNormBackward(a, &plan), plan).ok());

  // Row 0 against the reference of one row; every other row equal to it.
  LayerNormBackwardArgs one = a;
  for (TensorView* v : {&one.dy, &one.x, &one.mean, &one.rstd}) v->shape[0] = 1;
  one.dx.shape[0] = 1;
  const ref::NormGrads want = ref::LayerNormBackward(one);
  EXPECT_TRUE(Near(ref::Read(one.dx), want.dx, DType::kBFloat16, "dx row 0"));
  for (int64_t row : {int64_t{1}, M / 2, (int64_t{1} << 31) / N, M - 1}) {
    ASSERT_EQ(std::memcmp(&dx[static_cast<size_t>(row * N)], dx.data(), N * 2), 0) << "row " << row;
  }
  std::vector<double> scaled_dg = want.dgamma, scaled_db = want.dbeta;
  for (double& v : scaled_dg) v *= static_cast<double>(M);
  for (double& v : scaled_db) v *= static_cast<double>(M);
  EXPECT_TRUE(Near(dg.Values(), scaled_dg, DType::kFloat32, "dgamma"));
  EXPECT_TRUE(Near(db.Values(), scaled_db, DType::kFloat32, "dbeta"));
}

TEST(LargeTensor, SiluBackwardPast2To31Elements) {
  std::mt19937_64 rng(62);
  Tensor dy(DType::kFloat16, {1});
  dy.FillRandom(rng, 0.5f, 2);
  std::vector<uint16_t> x_row(1);
  // x: one value repeated over kBig elements (stride 0), dy broadcast from [1].
  TensorView xv = Contiguous(x_row.data(), DType::kFloat16, {kBig});
  xv.strides[0] = 0;
  x_row[0] = 0x3E00;  // 1.5
  std::vector<uint16_t> dx(static_cast<size_t>(kBig), 0xFFFF);
  SiluBackwardArgs a;
  a.dy = dy.view(); a.x = xv; a.dx = Contiguous(dx.data(), DType::kFloat16, {kBig});
  Plan plan;
  ASSERT_TRUE(PlanAndRun(PlanSiluBackward(a, &plan), plan).ok());
  SiluBackwardArgs one = a;
  one.x.shape[0] = 1;
  one.dx.shape[0] = 1;
  const std::vector<double> want = ref::SiluBackward(one);
  EXPECT_TRUE(Near(ref::Read(one.dx), want, DType::kFloat16, "dx[0]"));
  for (int64_t i : {int64_t{1}, (int64_t{1} << 31) - 1, int64_t{1} << 31, kBig - 1}) {
    ASSERT_EQ(dx[static_cast<size_t>(i)], dx[0]) << "element " << i;
  }
}

// Outputs of 64 MiB and more are stored non-temporally: the same results.
TEST(LargeTensor, StreamedOutputsMatchReference) {
  std::mt19937_64 rng(63);
  for (DType dtype : {DType::kFloat32, DType::kBFloat16}) {
    const int64_t M = dtype == DType::kFloat32 ? 4096 : 8192, N = 4096;
    LnCase c;
    c.shape = {M, N};
    c.x_dtype = c.out_dtype = c.stat_dtype = dtype;
    c.gamma_dtype = DType::kFloat32;
    c.seed = rng();
    CheckLayerNormCase(c, RunOnCpu);
    Tensor dy(dtype, {M, N}), x(dtype, {M, N}), dx(dtype, {M, N});
    dy.FillRandom(rng, -2, 2);
    x.FillRandom(rng, -8, 8);
    SiluBackwardArgs s;
    s.dy = dy.view(); s.x = x.view(); s.dx = dx.view();
    Plan plan;
    ASSERT_TRUE(PlanAndRun(PlanSiluBackward(s, &plan), plan).ok());
    EXPECT_TRUE(Near(dx.Values(), ref::SiluBackward(s), dtype, "silu dx"));
  }
}

}  // namespace
}  // namespace testing
}  // namespace gradops
