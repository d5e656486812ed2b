// LayerNorm backward (mean/rstd form) against the float64 reference: random
// shapes of rank 1-8 and every normalized rank, all dtype mixes, all eight
// output masks, absent gamma, every arrangement of inputs and outputs.
#include <memory>

#include "layer_norm_case.h"
#include "ref/reference.h"
#include "test_util.h"

namespace gradops {
namespace testing {
namespace {

void RunCase(const LnCase& c) { CheckLayerNormCase(c, RunOnCpu); }

const DType kDTypes[3] = {DType::kFloat32, DType::kFloat16, DType::kBFloat16};

TEST(LayerNormBackward, RandomCasesAgainstReference) {
  std::mt19937_64 rng(2026);
  for (int i = 0; i < 400; ++i) {
    RunCase(RandomLnCase(rng, 1 + i % 8, i / 8));  // every rank with all eight masks
    if (::testing::Test::HasFailure()) return;
  }
}

// Rows long enough for several SIMD vectors, blocks of rows and chunks, with
// tails of every length.
TEST(LayerNormBackward, LongRowsAndManyRows) {
  std::mt19937_64 rng(7);
  for (int64_t n : {1, 3, 15, 16, 17, 31, 33, 63, 64, 65, 255, 257, 1000, 4099}) {
    for (DType dtype : kDTypes) {
      LnCase c;
      c.shape = {n > 500 ? 37 : 1100, n};
      c.x_dtype = c.out_dtype = c.gamma_dtype = dtype;
      c.seed = rng();
      RunCase(c);
      c.in_arr = Arrangement::kTransposed;
      RunCase(c);
    }
  }
}

TEST(LayerNormBackward, WideRow) {
  LnCase c;
  c.shape = {3, 70001};
  c.x_dtype = c.out_dtype = DType::kBFloat16;
  RunCase(c);
}

// mean and rstd may have any shape holding M values.
TEST(LayerNormBackward, StatisticsOfAnyShape) {
  std::mt19937_64 rng(3);
  Tensor dy(DType::kFloat32, {4, 6, 10}), x(DType::kFloat32, {4, 6, 10});
  Tensor mean(DType::kFloat32, {24}), rstd(DType::kFloat32, {2, 3, 4});
  Tensor dx(DType::kFloat32, {4, 6, 10}), dg(DType::kFloat32, {10}), db(DType::kFloat32, {10});
  for (Tensor* t : {&dy, &x, &mean}) t->FillRandom(rng, -2, 2);
  rstd.FillRandom(rng, 0.5f, 2);
  LayerNormBackwardArgs a;
  a.dy = dy.view(); a.x = x.view(); a.mean = mean.view(); a.rstd = rstd.view();
  a.dx = dx.view(); a.dgamma = dg.view(); a.dbeta = db.view();
  Plan plan;
  ASSERT_TRUE(PlanAndRun(PlanLayerNormBackward(a, &plan), plan).ok());
  const ref::NormGrads want = ref::LayerNormBackward(a);
  EXPECT_TRUE(Near(dx.Values(), want.dx, DType::kFloat32, "dx"));
  EXPECT_TRUE(Near(dg.Values(), want.dgamma, DType::kFloat32, "dgamma"));
}

// M = 0: dgamma and dbeta are zero-filled, dx (empty) untouched.
TEST(LayerNormBackward, NoRowsZeroFillsGradients) {
  for (DType dtype : kDTypes) {
    Tensor dy(dtype, {0, 8}), x(dtype, {0, 8}), mean(dtype, {0}), rstd(dtype, {0}), dx(dtype, {0, 8});
    Tensor dg(dtype, {8}), db(dtype, {8});
    LayerNormBackwardArgs a;
    a.dy = dy.view(); a.x = x.view(); a.mean = mean.view(); a.rstd = rstd.view();
    a.dx = dx.view(); a.dgamma = dg.view(); a.dbeta = db.view();
    Plan plan;
    ASSERT_TRUE(PlanAndRun(PlanLayerNormBackward(a, &plan), plan).ok());
    EXPECT_EQ(dg.Values(), std::vector<double>(8, 0.0));
    EXPECT_EQ(db.Values(), std::vector<double>(8, 0.0));
    EXPECT_TRUE(dg.OnlyViewWritten());
  }
}

// NaN and Inf in the data propagate as in the reference.
TEST(LayerNormBackward, NonFiniteInputs) {
  std::mt19937_64 rng(11);
  for (DType dtype : kDTypes) {
    Tensor dy(dtype, {5, 40}), x(dtype, {5, 40}), mean(DType::kFloat32, {5}), rstd(DType::kFloat32, {5});
    Tensor gamma(dtype, {40}), dx(dtype, {5, 40}), dg(dtype, {40}), db(dtype, {40});
    for (Tensor* t : {&dy, &x, &mean, &gamma}) t->FillRandom(rng, -2, 2);
    rstd.FillRandom(rng, 0.5f, 2);
    std::vector<double> xv = x.Values();
    std::vector<float> xf(xv.begin(), xv.end());
    xf[3] = std::numeric_limits<float>::quiet_NaN();               // row 0: NaN
    xf[40 + 7] = std::numeric_limits<float>::infinity();           // row 1: Inf
    xf[80 + 39] = -std::numeric_limits<float>::infinity();         // row 2: -Inf in the tail
    x.FillValues(xf);
    LayerNormBackwardArgs a;
    a.dy = dy.view(); a.x = x.view(); a.mean = mean.view(); a.rstd = rstd.view(); a.gamma = &gamma.view();
    a.dx = dx.view(); a.dgamma = dg.view(); a.dbeta = db.view();
    Plan plan;
    ASSERT_TRUE(PlanAndRun(PlanLayerNormBackward(a, &plan), plan).ok());
    const ref::NormGrads want = ref::LayerNormBackward(a);
    EXPECT_TRUE(Near(dx.Values(), want.dx, dtype, "dx"));
    EXPECT_TRUE(Near(dg.Values(), want.dgamma, dtype, "dgamma"));
    EXPECT_TRUE(Near(db.Values(), want.dbeta, dtype, "dbeta"));
  }
}

}  // namespace
}  // namespace testing
}  // namespace gradops
