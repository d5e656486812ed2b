// One test per documented error condition: the status code, a message that
// names the argument, and outputs untouched. The documents' conditions are
// those of aclnnLayerNormBackward, aclnnSiluBackward and RmsNormBackward,
// expressed in the native API.
#include "test_util.h"

namespace gradops {
namespace testing {
namespace {

// A valid LayerNorm backward problem whose arguments a test then breaks.
struct LnFixture {
  std::mt19937_64 rng{51};
  Tensor dy{DType::kFloat32, {4, 6, 8}}, x{DType::kFloat32, {4, 6, 8}};
  Tensor mean{DType::kFloat32, {4, 1, 1}}, rstd{DType::kFloat32, {4, 1, 1}};
  Tensor gamma{DType::kFloat32, {6, 8}};
  Tensor dx{DType::kFloat32, {4, 6, 8}}, dgamma{DType::kFloat32, {6, 8}}, dbeta{DType::kFloat32, {6, 8}};
  LayerNormBackwardArgs args;
  LnFixture() {
    for (Tensor* t : {&dy, &x, &mean, &rstd, &gamma}) t->FillRandom(rng, 0.5f, 2);
    args.dy = dy.view(); args.x = x.view(); args.mean = mean.view(); args.rstd = rstd.view();
    args.gamma = &gamma.view(); args.normalized_rank = 2;
    args.dx = dx.view(); args.dgamma = dgamma.view(); args.dbeta = dbeta.view();
  }
  // Plans, expects `code` and a message containing `name`, and no output written.
  void Expect(StatusCode code, const std::string& name) {
    Plan plan;
    const Status s = PlanLayerNormBackward(args, &plan);
    EXPECT_EQ(s.code(), code) << s.message();
    EXPECT_NE(s.message().find(name), std::string::npos) << s.message();
    EXPECT_FALSE(plan.valid());
    EXPECT_TRUE(dx.Untouched());
    EXPECT_TRUE(dgamma.Untouched());
    EXPECT_TRUE(dbeta.Untouched());
  }
};

TEST(LayerNormBackwardErrors, ValidFixturePlans) {
  LnFixture f;
  Plan plan;
  EXPECT_TRUE(PlanLayerNormBackward(f.args, &plan).ok());
}

TEST(LayerNormBackwardErrors, NullInputs) {
  const char* names[4] = {"dy", "x", "mean", "rstd"};
  for (int k = 0; k < 4; ++k) {
    LnFixture f;
    TensorView* views[4] = {&f.args.dy, &f.args.x, &f.args.mean, &f.args.rstd};
    views[k]->data = nullptr;
    f.Expect(StatusCode::kNullPointer, names[k]);
  }
}

TEST(LayerNormBackwardErrors, MaskedOutputNull) {
  const char* names[3] = {"dx", "dgamma", "dbeta"};
  for (int k = 0; k < 3; ++k) {
    LnFixture f;
    TensorView* views[3] = {&f.args.dx, &f.args.dgamma, &f.args.dbeta};
    views[k]->data = nullptr;
    f.Expect(StatusCode::kNullPointer, names[k]);
    // Not requested: the null output is never looked at.
    f.args.output_mask[k] = false;
    Plan plan;
    EXPECT_TRUE(PlanLayerNormBackward(f.args, &plan).ok());
  }
}

TEST(LayerNormBackwardErrors, UnsupportedDType) {
  const char* names[5] = {"dy", "x", "mean", "rstd", "gamma"};
  for (int k = 0; k < 5; ++k) {
    LnFixture f;
    TensorView gamma = *f.args.gamma;
    f.args.gamma = &gamma;
    TensorView* views[5] = {&f.args.dy, &f.args.x, &f.args.mean, &f.args.rstd, &gamma};
    views[k]->dtype = static_cast<DType>(9);
    f.Expect(StatusCode::kInvalidArgument, names[k]);
  }
}

TEST(LayerNormBackwardErrors, DyDTypeDiffersFromX) {
  LnFixture f;
  f.args.dy.dtype = DType::kFloat16;
  f.Expect(StatusCode::kInvalidArgument, "dy");
}

TEST(LayerNormBackwardErrors, GammaDTypeNeitherXNorFloat32) {
  LnFixture f;
  Tensor g16(DType::kFloat16, {6, 8}), x16(DType::kBFloat16, {4, 6, 8}), dy16(DType::kBFloat16, {4, 6, 8});
  f.args.gamma = &g16.view();
  f.args.x = x16.view();
  f.args.dy = dy16.view();
  f.Expect(StatusCode::kInvalidArgument, "gamma");
}

TEST(LayerNormBackwardErrors, DyShapeDiffersFromX) {
  LnFixture f;
  f.args.dy.shape[0] = 3;
  f.Expect(StatusCode::kInvalidArgument, "dy");
}

TEST(LayerNormBackwardErrors, NormalizedRankBelowOne) {
  LnFixture f;
  f.args.normalized_rank = 0;
  f.Expect(StatusCode::kInvalidArgument, "normalized_rank");
}

TEST(LayerNormBackwardErrors, NormalizedRankAboveInputRank) {
  LnFixture f;
  f.args.normalized_rank = 4;
  f.Expect(StatusCode::kInvalidArgument, "normalized_rank");
}

TEST(LayerNormBackwardErrors, MeanOrRstdCountNotM) {
  for (int k = 0; k < 2; ++k) {
    LnFixture f;
    TensorView* v = k ? &f.args.rstd : &f.args.mean;
    v->shape[1] = 2;  // 8 values for 4 rows
    f.Expect(StatusCode::kInvalidArgument, k ? "rstd" : "mean");
  }
}

TEST(LayerNormBackwardErrors, GammaShapeNotNormalizedShape) {
  LnFixture f;
  TensorView gamma = *f.args.gamma;
  gamma.shape[0] = 8;  // [8, 8]: right-aligned dims of x are [6, 8]
  gamma.shape[1] = 6;
  f.args.gamma = &gamma;
  f.Expect(StatusCode::kInvalidArgument, "gamma");
}

TEST(LayerNormBackwardErrors, OutputShapes) {
  {
    LnFixture f;
    f.args.dx.shape[2] = 4;
    f.Expect(StatusCode::kInvalidArgument, "dx");
  }
  {
    LnFixture f;
    f.args.dgamma.shape[0] = 5;
    f.Expect(StatusCode::kInvalidArgument, "dgamma");
  }
  {
    LnFixture f;
    f.args.dbeta.shape[1] = 1;
    f.Expect(StatusCode::kInvalidArgument, "dbeta");
  }
}

TEST(LayerNormBackwardErrors, RankOutsideOneToEight) {
  const char* names[8] = {"dy", "x", "mean", "rstd", "gamma", "dx", "dgamma", "dbeta"};
  for (int k = 0; k < 8; ++k) {
    for (int rank : {0, 9}) {
      LnFixture f;
      TensorView gamma = *f.args.gamma;
      f.args.gamma = &gamma;
      TensorView* views[8] = {&f.args.dy, &f.args.x, &f.args.mean, &f.args.rstd, &gamma,
                              &f.args.dx, &f.args.dgamma, &f.args.dbeta};
      views[k]->rank = rank;
      f.Expect(StatusCode::kInvalidArgument, names[k]);
    }
  }
}

TEST(LayerNormBackwardErrors, BadViews) {
  {
    LnFixture f;
    f.args.x.strides[1] = -1;
    f.Expect(StatusCode::kInvalidArgument, "x");
  }
  {
    LnFixture f;
    f.args.mean.offset = -2;
    f.Expect(StatusCode::kInvalidArgument, "mean");
  }
  {
    LnFixture f;
    f.args.rstd.shape[0] = -4;
    f.Expect(StatusCode::kInvalidArgument, "rstd");
  }
  {
    LnFixture f;
    f.args.x.strides[0] = int64_t{1} << 62;  // offsets overflow
    f.Expect(StatusCode::kInvalidArgument, "x");
  }
  {
    LnFixture f;
    f.args.dx.strides[0] = 0;  // would write one element several times
    f.Expect(StatusCode::kInvalidArgument, "dx");
  }
}

TEST(RunErrors, WorkspaceTooSmallOrNull) {
  LnFixture f;
  Plan plan;
  ASSERT_TRUE(PlanLayerNormBackward(f.args, &plan).ok());
  ASSERT_GT(plan.workspace_bytes(), 0u);
  std::vector<unsigned char> ws(plan.workspace_bytes());
  Status s = gradops::Run(plan, ws.data(), ws.size() - 1);
  EXPECT_EQ(s.code(), StatusCode::kWorkspaceTooSmall);
  EXPECT_NE(s.message().find("workspace"), std::string::npos);
  s = gradops::Run(plan, nullptr, ws.size());
  EXPECT_EQ(s.code(), StatusCode::kNullPointer);
  EXPECT_TRUE(f.dx.Untouched());
  EXPECT_TRUE(f.dgamma.Untouched());
  EXPECT_EQ(gradops::Run(Plan(), ws.data(), ws.size()).code(), StatusCode::kInvalidPlan);
  EXPECT_EQ(PlanLayerNormBackward(f.args, nullptr).code(), StatusCode::kNullPointer);
}

TEST(SiluBackwardErrors, Conditions) {
  std::mt19937_64 rng(52);
  Tensor dy(DType::kFloat16, {3, 4}), x(DType::kFloat16, {3, 4}), dx(DType::kFloat16, {3, 4});
  dy.FillRandom(rng, -1, 1);
  x.FillRandom(rng, -1, 1);
  auto expect = [&](SiluBackwardArgs a, StatusCode code, const char* name) {
    Plan plan;
    const Status s = PlanSiluBackward(a, &plan);
    EXPECT_EQ(s.code(), code) << s.message();
    EXPECT_NE(s.message().find(name), std::string::npos) << s.message();
    EXPECT_TRUE(dx.Untouched());
  };
  SiluBackwardArgs ok;
  ok.dy = dy.view(); ok.x = x.view(); ok.dx = dx.view();
  SiluBackwardArgs a = ok;
  a.dy.data = nullptr;
  expect(a, StatusCode::kNullPointer, "dy");
  a = ok; a.x.data = nullptr;
  expect(a, StatusCode::kNullPointer, "x");
  a = ok; a.dx.data = nullptr;
  expect(a, StatusCode::kNullPointer, "dx");
  a = ok; a.x.dtype = static_cast<DType>(5);
  expect(a, StatusCode::kInvalidArgument, "x");
  a = ok; a.dy.dtype = DType::kBFloat16;  // differs, and dx is not float32
  expect(a, StatusCode::kInvalidArgument, "dtype");
  a = ok; a.x.shape[1] = 3;  // 4 vs 3: no broadcast
  expect(a, StatusCode::kInvalidArgument, "broadcast");
  a = ok; a.dx.shape[0] = 1;  // dx is not the broadcast shape
  expect(a, StatusCode::kInvalidArgument, "broadcast");
  a = ok; a.dy.rank = 9;
  expect(a, StatusCode::kInvalidArgument, "dy");
}

TEST(RmsNormBackwardErrors, Conditions) {
  std::mt19937_64 rng(53);
  Tensor dy(DType::kFloat32, {4, 8}), x(DType::kFloat32, {4, 8}), rstd(DType::kFloat32, {4, 1});
  Tensor gamma(DType::kFloat32, {8}), dx(DType::kFloat32, {4, 8}), dg(DType::kFloat32, {8});
  for (Tensor* t : {&dy, &x, &rstd, &gamma}) t->FillRandom(rng, 0.5f, 2);
  RmsNormBackwardArgs ok;
  ok.dy = dy.view(); ok.x = x.view(); ok.rstd = rstd.view(); ok.gamma = gamma.view();
  ok.dx = dx.view(); ok.dgamma = dg.view();
  auto expect = [&](RmsNormBackwardArgs a, StatusCode code, const char* name) {
    Plan plan;
    const Status s = PlanRmsNormBackward(a, &plan);
    EXPECT_EQ(s.code(), code) << s.message();
    EXPECT_NE(s.message().find(name), std::string::npos) << s.message();
    EXPECT_TRUE(dx.Untouched());
    EXPECT_TRUE(dg.Untouched());
  };
  Plan plan;
  EXPECT_TRUE(PlanRmsNormBackward(ok, &plan).ok());
  RmsNormBackwardArgs a = ok;
  a.gamma.rank = 3; a.gamma.shape[0] = 1; a.gamma.shape[1] = 4; a.gamma.shape[2] = 8;
  expect(a, StatusCode::kInvalidArgument, "gamma");  // rank of gamma above rank of x
  a = ok; a.gamma.shape[0] = 4;
  expect(a, StatusCode::kInvalidArgument, "gamma");  // not the trailing dims
  a = ok; a.dx.shape[1] = 7;
  expect(a, StatusCode::kInvalidArgument, "dx");
  a = ok; a.dgamma.shape[0] = 9;
  expect(a, StatusCode::kInvalidArgument, "dgamma");
  a = ok; a.rstd.shape[0] = 3;
  expect(a, StatusCode::kInvalidArgument, "rstd");
  a = ok; a.dy.dtype = DType::kFloat16;
  expect(a, StatusCode::kInvalidArgument, "dy");
}

TEST(LayerNormGradErrors, Conditions) {
  std::mt19937_64 rng(54);
  Tensor dy(DType::kFloat32, {2, 3, 16}), x(DType::kFloat32, {2, 3, 16}), var(DType::kFloat32, {2, 3});
  Tensor mean(DType::kFloat32, {2, 3}), gamma(DType::kFloat32, {16}), dx(DType::kFloat32, {2, 3, 16});
  Tensor res(DType::kFloat32, {2, 3, 16});
  for (Tensor* t : {&dy, &x, &var, &mean, &gamma}) t->FillRandom(rng, 0.5f, 2);
  LayerNormGradArgs ok;
  ok.dy = dy.view(); ok.x = x.view(); ok.variance = var.view(); ok.mean = mean.view(); ok.gamma = gamma.view();
  ok.dx = dx.view(); ok.res_for_gamma = res.view();
  auto expect = [&](LayerNormGradArgs a, const char* name) {
    Plan plan;
    const Status s = PlanLayerNormGrad(a, &plan);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.message();
    EXPECT_NE(s.message().find(name), std::string::npos) << s.message();
    EXPECT_TRUE(dx.Untouched());
    EXPECT_TRUE(res.Untouched());
  };
  Plan plan;
  EXPECT_TRUE(PlanLayerNormGrad(ok, &plan).ok());
  LayerNormGradArgs a = ok;
  a.variance.shape[1] = 2;
  expect(a, "variance");
  a = ok; a.gamma.shape[0] = 8;
  expect(a, "gamma");
  a = ok; a.mean_count = 17;
  expect(a, "mean_count");
  a = ok; a.res_for_gamma.shape[0] = 1;
  expect(a, "res_for_gamma");

  LayerNormGradBetaArgs b;
  b.res_for_gamma = res.view(); b.dy = dy.view(); b.dgamma = gamma.view(); b.dbeta = var.view();
  EXPECT_EQ(PlanLayerNormGradBeta(b, &plan).code(), StatusCode::kInvalidArgument);  // dbeta is [2, 3]
}

}  // namespace
}  // namespace testing
}  // namespace gradops
