// LayerNormGrad (variance/epsilon form) and LayerNormGradBeta against the
// float64 reference, including the documented worked example of
// LayerNormGradBeta.
#include "ref/reference.h"
#include "test_util.h"

namespace gradops {
namespace testing {
namespace {

const DType kDTypes[3] = {DType::kFloat32, DType::kFloat16, DType::kBFloat16};

struct GradCase {
  std::vector<int64_t> shape;
  DType dtype = DType::kFloat32, gamma_dtype = DType::kFloat32, stat_dtype = DType::kFloat32;
  Arrangement in_arr = Arrangement::kContiguous, out_arr = Arrangement::kContiguous;
  int64_t mean_count = 0;
  bool true_mean = false;  // mean and variance of x itself
  uint64_t seed = 1;
};

void RunGradCase(const GradCase& c) {
  SCOPED_TRACE(std::string("dtype ") + DTypeName(c.dtype) + " gamma " + DTypeName(c.gamma_dtype) + " in " +
               ArrangementName(c.in_arr) + " out " + ArrangementName(c.out_arr) + " rank " +
               std::to_string(c.shape.size()) + " H " + std::to_string(c.shape.back()));
  std::mt19937_64 rng(c.seed);
  const std::vector<int64_t> rows(c.shape.begin(), c.shape.end() - 1);
  const int64_t H = c.shape.back(), M = Numel(rows);
  Tensor dy(c.dtype, c.shape, c.in_arr), x(c.dtype, c.shape, c.in_arr);
  Tensor variance(c.stat_dtype, rows.empty() ? std::vector<int64_t>{1} : rows, Arrangement::kOffset);
  Tensor mean(c.stat_dtype, rows.empty() ? std::vector<int64_t>{1} : rows, Arrangement::kStrided);
  Tensor gamma(c.gamma_dtype, {H});
  Tensor dx(c.dtype, c.shape, c.out_arr), res(c.dtype, c.shape, c.out_arr);
  dy.FillRandom(rng, -3, 3);
  x.FillRandom(rng, -3, 3);
  variance.FillRandom(rng, 0.05f, 4);
  mean.FillRandom(rng, -1, 1);
  gamma.FillRandom(rng, -3, 3);
  if (c.true_mean) {
    const std::vector<double> xv = x.Values();
    const ref::NormStats stats = ref::LayerNormStats(xv, M, H, 0.0);
    mean.FillValues(std::vector<float>(stats.mean.begin(), stats.mean.end()));
    variance.FillValues(std::vector<float>(stats.variance.begin(), stats.variance.end()));
  }
  LayerNormGradArgs a;
  a.dy = dy.view(); a.x = x.view(); a.variance = variance.view(); a.mean = mean.view(); a.gamma = gamma.view();
  a.epsilon = 1e-5f;
  a.mean_count = c.mean_count;
  a.dx = dx.view(); a.res_for_gamma = res.view();
  Plan plan;
  const Status s = PlanAndRun(PlanLayerNormGrad(a, &plan), plan);
  ASSERT_TRUE(s.ok()) << s.message();
  const ref::NormGrads want = ref::LayerNormGrad(a);
  EXPECT_TRUE(Near(dx.Values(), want.dx, c.dtype, "pd_x"));
  EXPECT_TRUE(Near(res.Values(), want.res_for_gamma, c.dtype, "res_for_gamma"));
  EXPECT_TRUE(dx.OnlyViewWritten());
  EXPECT_TRUE(res.OnlyViewWritten());
}

TEST(LayerNormGrad, RandomCasesAgainstReference) {
  std::mt19937_64 rng(5);
  const Arrangement ins[4] = {Arrangement::kContiguous, Arrangement::kTransposed, Arrangement::kStrided,
                              Arrangement::kBroadcast};
  const Arrangement outs[3] = {Arrangement::kContiguous, Arrangement::kTransposed, Arrangement::kStrided};
  for (int i = 0; i < 150; ++i) {
    GradCase c;
    c.shape = RandomShape(rng, 1 + i % 8, 5000);
    c.dtype = kDTypes[rng() % 3];
    c.gamma_dtype = rng() % 2 ? DType::kFloat32 : c.dtype;
    c.stat_dtype = kDTypes[rng() % 3];
    c.in_arr = ins[rng() % 4];
    c.out_arr = outs[rng() % 3];
    c.true_mean = rng() % 2;
    c.seed = rng();
    RunGradCase(c);
    if (::testing::Test::HasFailure()) return;
  }
}

// The documents' shapes [B, S, H], H from a 32-byte aligned 16 to 4096, plus
// rows zero-padded past the original length (mean_count < H).
TEST(LayerNormGrad, DocumentShapesAndPadding) {
  for (DType dtype : {DType::kFloat32, DType::kFloat16}) {
    for (int64_t h : {16, 64, 1024, 4096}) {
      GradCase c;
      c.shape = {2, 32, h};
      c.dtype = c.gamma_dtype = c.stat_dtype = dtype;
      RunGradCase(c);
      c.mean_count = h - 5;
      RunGradCase(c);
    }
  }
}

// The worked example of the LayerNormGradBeta document: [1, 8, 8], dy and
// res_for_gamma both 0..63.
TEST(LayerNormGradBeta, DocumentExample) {
  for (DType dtype : {DType::kFloat32, DType::kFloat16}) {
    Tensor dy(dtype, {1, 8, 8}), res(dtype, {1, 8, 8}), dg(dtype, {8}), db(dtype, {8});
    std::vector<float> ramp(64);
    for (int i = 0; i < 64; ++i) ramp[i] = static_cast<float>(i);
    dy.FillValues(ramp);
    res.FillValues(ramp);
    LayerNormGradBetaArgs a;
    a.res_for_gamma = res.view(); a.dy = dy.view(); a.dgamma = dg.view(); a.dbeta = db.view();
    Plan plan;
    ASSERT_TRUE(PlanAndRun(PlanLayerNormGradBeta(a, &plan), plan).ok());
    EXPECT_EQ(dg.Values(), (std::vector<double>{8960, 9416, 9888, 10376, 10880, 11400, 11936, 12488}));
    EXPECT_EQ(db.Values(), (std::vector<double>{224, 232, 240, 248, 256, 264, 272, 280}));
  }
}

// LayerNormGradBeta on random dy and res_for_gamma of `dtype` laid out as
// `arr`, both outputs of `out_dtype` (dgamma strided), against the reference.
// res_for_gamma in arrangement res_arr, dy in arr.
void CheckGradBeta(const std::vector<int64_t>& shape, DType dtype, DType out_dtype, Arrangement arr,
                   std::mt19937_64& rng, Arrangement res_arr) {
  SCOPED_TRACE(std::string(DTypeName(dtype)) + " out " + DTypeName(out_dtype) + " " + ArrangementName(arr) + " res " +
               ArrangementName(res_arr) + " N " + std::to_string(shape.back()));
  Tensor dy(dtype, shape, arr), res(dtype, shape, res_arr);
  Tensor dg(out_dtype, {shape.back()}, Arrangement::kStrided), db(out_dtype, {shape.back()});
  dy.FillRandom(rng, -3, 3);
  res.FillRandom(rng, -3, 3);
  LayerNormGradBetaArgs a;
  a.res_for_gamma = res.view(); a.dy = dy.view(); a.dgamma = dg.view(); a.dbeta = db.view();
  Plan plan;
  ASSERT_TRUE(PlanAndRun(PlanLayerNormGradBeta(a, &plan), plan).ok());
  const ref::NormGrads want = ref::LayerNormGradBeta(a);
  EXPECT_TRUE(Near(dg.Values(), want.dgamma, out_dtype, "pd_gamma"));
  EXPECT_TRUE(Near(db.Values(), want.dbeta, out_dtype, "pd_beta"));
  EXPECT_TRUE(dg.OnlyViewWritten());
}
void CheckGradBeta(const std::vector<int64_t>& shape, DType dtype, DType out_dtype, Arrangement arr,
                   std::mt19937_64& rng) {
  CheckGradBeta(shape, dtype, out_dtype, arr, rng, arr);
}

TEST(LayerNormGradBeta, RandomCasesAgainstReference) {
  std::mt19937_64 rng(9);
  const Arrangement arrs[4] = {Arrangement::kContiguous, Arrangement::kTransposed, Arrangement::kStrided,
                               Arrangement::kOffset};
  for (int i = 0; i < 120; ++i) {
    const std::vector<int64_t> shape = RandomShape(rng, 1 + i % 8, 8000);
    const DType dtype = kDTypes[rng() % 3];
    const DType out_dtype = rng() % 2 ? DType::kFloat32 : dtype;
    CheckGradBeta(shape, dtype, out_dtype, arrs[rng() % 4], rng);
    if (::testing::Test::HasFailure()) return;
  }
}

// Wide rows with few chunks: the column sums' tasks are tiles of columns
// (cpu ScheduleNorm), with tails of rows, of tiles and of split-order steps.
TEST(LayerNormGradBeta, WideRowsInColumnTiles) {
  std::mt19937_64 rng(10);
  const std::vector<std::vector<int64_t>> shapes{{300, 9000}, {2, 70001}, {257, 4100}, {3, 4, 6000}};
  for (const std::vector<int64_t>& shape : shapes) {
    for (DType dtype : kDTypes) {
      for (Arrangement arr : {Arrangement::kContiguous, Arrangement::kTransposed}) {
        CheckGradBeta(shape, dtype, DType::kFloat32, arr, rng);
        CheckGradBeta(shape, dtype, dtype, arr, rng);
      }
      // Packed rows (res strided) beside consecutive ones (dy), which the
      // tiles convert from their first column on.
      CheckGradBeta(shape, dtype, dtype, Arrangement::kContiguous, rng, Arrangement::kTransposed);
    }
  }
}

}  // namespace
}  // namespace testing
}  // namespace gradops
