// LayerNorm backward (mean/rstd form) against the float64 reference: random
// shapes of rank 1-8 and every normalized rank, all dtype mixes, all eight
// output masks, absent gamma, every arrangement of inputs and outputs.
#include <memory>

#include "ref/reference.h"
#include "test_util.h"

namespace gradops {
namespace testing {
namespace {

struct LnCase {
  std::vector<int64_t> shape;
  int normalized_rank = 1;
  DType x_dtype = DType::kFloat32, stat_dtype = DType::kFloat32, out_dtype = DType::kFloat32;
  bool has_gamma = true;
  DType gamma_dtype = DType::kFloat32;
  bool mask[3] = {true, true, true};
  Arrangement in_arr = Arrangement::kContiguous, out_arr = Arrangement::kContiguous;
  uint64_t seed = 1;
};

std::string Describe(const LnCase& c) {
  std::string s = "shape [";
  for (size_t i = 0; i < c.shape.size(); ++i) s += (i ? "," : "") + std::to_string(c.shape[i]);
  s += "] j=" + std::to_string(c.normalized_rank) + " x=" + DTypeName(c.x_dtype) + " stat=" +
       DTypeName(c.stat_dtype) + " dx=" + DTypeName(c.out_dtype) +
       " gamma=" + (c.has_gamma ? DTypeName(c.gamma_dtype) : "none") + " mask=" + std::to_string(c.mask[0]) +
       std::to_string(c.mask[1]) + std::to_string(c.mask[2]) + " in=" + ArrangementName(c.in_arr) +
       " out=" + ArrangementName(c.out_arr);
  return s;
}

void RunCase(const LnCase& c) {
  SCOPED_TRACE(Describe(c));
  std::mt19937_64 rng(c.seed);
  const int lead = static_cast<int>(c.shape.size()) - c.normalized_rank;
  std::vector<int64_t> stat_shape(c.shape.begin(), c.shape.begin() + lead);
  for (int d = 0; d < c.normalized_rank; ++d) stat_shape.push_back(1);
  const std::vector<int64_t> norm_shape(c.shape.begin() + lead, c.shape.end());

  Tensor dy(c.x_dtype, c.shape, c.in_arr), x(c.x_dtype, c.shape, c.in_arr);
  Tensor mean(c.stat_dtype, stat_shape, Arrangement::kStrided), rstd(c.stat_dtype, stat_shape, Arrangement::kOffset);
  const DType grad_dtype = c.has_gamma ? c.gamma_dtype : c.x_dtype;
  Tensor gamma(c.gamma_dtype, norm_shape, c.in_arr == Arrangement::kBroadcast ? Arrangement::kStrided : c.in_arr);
  Tensor dx(c.out_dtype, c.shape, c.out_arr);
  Tensor dgamma(grad_dtype, norm_shape, c.out_arr), dbeta(grad_dtype, norm_shape, c.out_arr);
  dy.FillRandom(rng, -3, 3);
  x.FillRandom(rng, -3, 3);
  mean.FillRandom(rng, -1, 1);
  rstd.FillRandom(rng, 0.1f, 3);
  gamma.FillRandom(rng, -3, 3);

  LayerNormBackwardArgs args;
  args.dy = dy.view();
  args.x = x.view();
  args.normalized_rank = c.normalized_rank;
  args.mean = mean.view();
  args.rstd = rstd.view();
  args.gamma = c.has_gamma ? &gamma.view() : nullptr;
  for (int k = 0; k < 3; ++k) args.output_mask[k] = c.mask[k];
  args.dx = dx.view();
  args.dgamma = dgamma.view();
  args.dbeta = dbeta.view();
  Plan plan;
  const Status s = PlanAndRun(PlanLayerNormBackward(args, &plan), plan);
  ASSERT_TRUE(s.ok()) << s.message();

  const ref::NormGrads want = ref::LayerNormBackward(args);
  const Tensor* outs[3] = {&dx, &dgamma, &dbeta};
  const std::vector<double>* wants[3] = {&want.dx, &want.dgamma, &want.dbeta};
  const char* names[3] = {"dx", "dgamma", "dbeta"};
  for (int k = 0; k < 3; ++k) {
    if (c.mask[k]) {
      EXPECT_TRUE(Near(outs[k]->Values(), *wants[k], outs[k]->view().dtype, names[k]));
      EXPECT_TRUE(outs[k]->OnlyViewWritten()) << names[k];
    } else {
      EXPECT_TRUE(outs[k]->Untouched()) << names[k] << " is masked off";
    }
  }
}

const DType kDTypes[3] = {DType::kFloat32, DType::kFloat16, DType::kBFloat16};
const Arrangement kInputs[5] = {Arrangement::kContiguous, Arrangement::kTransposed, Arrangement::kStrided,
                                Arrangement::kOffset, Arrangement::kBroadcast};
const Arrangement kOutputs[4] = {Arrangement::kContiguous, Arrangement::kTransposed, Arrangement::kStrided,
                                 Arrangement::kOffset};

TEST(LayerNormBackward, RandomCasesAgainstReference) {
  std::mt19937_64 rng(2026);
  for (int i = 0; i < 400; ++i) {
    LnCase c;
    const int rank = 1 + i % 8;
    c.shape = RandomShape(rng, rank, 6000);
    c.normalized_rank = 1 + static_cast<int>(rng() % rank);
    c.x_dtype = kDTypes[rng() % 3];
    c.stat_dtype = kDTypes[rng() % 3];
    c.out_dtype = rng() % 4 == 0 ? kDTypes[rng() % 3] : c.x_dtype;
    c.has_gamma = rng() % 4 != 0;
    c.gamma_dtype = rng() % 2 ? DType::kFloat32 : c.x_dtype;
    for (int k = 0; k < 3; ++k) c.mask[k] = ((i / 8) >> k) & 1 ? false : true;  // all eight masks, every rank
    c.in_arr = kInputs[rng() % 5];
    c.out_arr = kOutputs[rng() % 4];
    c.seed = rng();
    RunCase(c);
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
