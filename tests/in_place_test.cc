// In place: an output may be an input of the same dtype through an identical
// view (gradops/ops.h). Each operator run so gives the bits it gives into
// separate outputs, for every dtype, with row tails, and with outputs large
// enough to be stored non-temporally. The suites' names put these tests in
// the runs with each norm sweep forced (tests/CMakeLists.txt).
#include <cstring>
#include <memory>
#include <string>

#include "test_util.h"

namespace gradops {
namespace testing {
namespace {

const DType kDTypes[3] = {DType::kFloat32, DType::kFloat16, DType::kBFloat16};

// Shapes: a small one with a row tail, and one whose outputs (16 MiB and
// more in float32) are streamed.
const std::vector<std::vector<int64_t>> kShapes = {{37, 77}, {1025, 4100}};

// Tensors of one shape and dtype with equal contents: the first filled
// from the seed, the others copied from it.
void FillSame(uint64_t seed, std::initializer_list<Tensor*> tensors, float lo, float hi) {
  std::mt19937_64 rng(seed);
  Tensor* first = *tensors.begin();
  first->FillRandom(rng, lo, hi);
  for (Tensor* t : tensors) {
    if (t == first) continue;
    ASSERT_EQ(t->storage_elements(), first->storage_elements());
    std::memcpy(t->view().data, first->view().data,
                static_cast<size_t>(first->storage_elements()) * DTypeSize(first->view().dtype));
  }
}

bool SameBytes(const Tensor& a, const Tensor& b) { return a.Bytes() == b.Bytes(); }

TEST(LayerNormBackward, InPlace) {
  for (DType dtype : kDTypes) {
    for (const auto& shape : kShapes) {
      const int64_t M = shape[0], N = shape[1];
      SCOPED_TRACE(std::string(DTypeName(dtype)) + " " + std::to_string(M) + "x" + std::to_string(N));
      Tensor mean(DType::kFloat32, {M}), rstd(DType::kFloat32, {M}), gamma(DType::kFloat32, {N});
      std::mt19937_64 rng(81);
      for (Tensor* t : {&mean, &gamma}) t->FillRandom(rng, -2, 2);
      rstd.FillRandom(rng, 0.5f, 2);
      // in: 0 separate outputs, 1 dx over dy, 2 dx over x.
      Tensor dy0(dtype, shape), x0(dtype, shape), dx0(dtype, shape);
      Tensor dg0(DType::kFloat32, {N}), db0(DType::kFloat32, {N});
      Tensor dy1(dtype, shape), x1(dtype, shape), dg1(DType::kFloat32, {N}), db1(DType::kFloat32, {N});
      Tensor dy2(dtype, shape), x2(dtype, shape), dg2(DType::kFloat32, {N}), db2(DType::kFloat32, {N});
      FillSame(82, {&dy0, &dy1, &dy2}, -2, 2);
      FillSame(83, {&x0, &x1, &x2}, -2, 2);
      const auto run = [&](Tensor& dy, Tensor& x, const TensorView& dx, Tensor& dg, Tensor& db) {
        LayerNormBackwardArgs a;
        a.dy = dy.view(); a.x = x.view(); a.mean = mean.view(); a.rstd = rstd.view(); a.gamma = &gamma.view();
        a.dx = dx; a.dgamma = dg.view(); a.dbeta = db.view();
        Plan plan;
        EXPECT_TRUE(PlanAndRun(PlanLayerNormBackward(a, &plan), plan).ok());
      };
      run(dy0, x0, dx0.view(), dg0, db0);
      run(dy1, x1, dy1.view(), dg1, db1);
      run(dy2, x2, x2.view(), dg2, db2);
      EXPECT_TRUE(SameBytes(dy1, dx0) && SameBytes(dg1, dg0) && SameBytes(db1, db0)) << "dx over dy";
      EXPECT_TRUE(SameBytes(x2, dx0) && SameBytes(dg2, dg0) && SameBytes(db2, db0)) << "dx over x";
    }
  }
}

TEST(RmsNormBackward, InPlace) {
  for (DType dtype : kDTypes) {
    for (const auto& shape : kShapes) {
      const int64_t M = shape[0], N = shape[1];
      SCOPED_TRACE(std::string(DTypeName(dtype)) + " " + std::to_string(M) + "x" + std::to_string(N));
      Tensor rstd(DType::kFloat32, {M}), gamma(DType::kFloat32, {N});
      std::mt19937_64 rng(84);
      gamma.FillRandom(rng, -2, 2);
      rstd.FillRandom(rng, 0.5f, 2);
      Tensor dy0(dtype, shape), x0(dtype, shape), dx0(dtype, shape), dg0(DType::kFloat32, {N});
      Tensor dy1(dtype, shape), x1(dtype, shape), dg1(DType::kFloat32, {N});
      Tensor dy2(dtype, shape), x2(dtype, shape), dg2(DType::kFloat32, {N});
      FillSame(85, {&dy0, &dy1, &dy2}, -2, 2);
      FillSame(86, {&x0, &x1, &x2}, -2, 2);
      const auto run = [&](Tensor& dy, Tensor& x, const TensorView& dx, Tensor& dg) {
        RmsNormBackwardArgs a;
        a.dy = dy.view(); a.x = x.view(); a.rstd = rstd.view(); a.gamma = gamma.view();
        a.dx = dx; a.dgamma = dg.view();
        Plan plan;
        EXPECT_TRUE(PlanAndRun(PlanRmsNormBackward(a, &plan), plan).ok());
      };
      run(dy0, x0, dx0.view(), dg0);
      run(dy1, x1, dy1.view(), dg1);
      run(dy2, x2, x2.view(), dg2);
      EXPECT_TRUE(SameBytes(dy1, dx0) && SameBytes(dg1, dg0)) << "dx over dy";
      EXPECT_TRUE(SameBytes(x2, dx0) && SameBytes(dg2, dg0)) << "dx over x";
    }
  }
}

TEST(LayerNormGrad, InPlace) {
  for (DType dtype : kDTypes) {
    for (const auto& shape : kShapes) {
      const int64_t M = shape[0];
      SCOPED_TRACE(std::string(DTypeName(dtype)) + " " + std::to_string(M) + "x" + std::to_string(shape[1]));
      Tensor var(dtype, {M}), mean(dtype, {M}), gamma(dtype, {shape[1]});
      std::mt19937_64 rng(87);
      for (Tensor* t : {&mean, &gamma}) t->FillRandom(rng, -2, 2);
      var.FillRandom(rng, 0.5f, 2);
      // dx over dy and res_for_gamma over x, against separate outputs.
      Tensor dy0(dtype, shape), x0(dtype, shape), dx0(dtype, shape), res0(dtype, shape);
      Tensor dy1(dtype, shape), x1(dtype, shape);
      FillSame(88, {&dy0, &dy1}, -2, 2);
      FillSame(89, {&x0, &x1}, -2, 2);
      const auto run = [&](Tensor& dy, Tensor& x, const TensorView& dx, const TensorView& res) {
        LayerNormGradArgs g;
        g.dy = dy.view(); g.x = x.view(); g.variance = var.view(); g.mean = mean.view(); g.gamma = gamma.view();
        g.dx = dx; g.res_for_gamma = res;
        Plan plan;
        EXPECT_TRUE(PlanAndRun(PlanLayerNormGrad(g, &plan), plan).ok());
      };
      run(dy0, x0, dx0.view(), res0.view());
      run(dy1, x1, dy1.view(), x1.view());
      EXPECT_TRUE(SameBytes(dy1, dx0)) << "dx over dy";
      EXPECT_TRUE(SameBytes(x1, res0)) << "res_for_gamma over x";
    }
  }
}

// The outputs in place of a float32 input of the same view: dgamma over
// gamma; where there is one row (shape [N]), dgamma over x and dbeta over
// dy, or dx over gamma. Where one chunk of rows sums straight into the
// outputs (cpu/norm_driver.cc, SumsInOutputs) an output over x or dy must
// take the partials instead, and where the kernels read the caller's gamma
// (CopyGamma) an output over it must make them read a copy: each case gives
// the bits of separate outputs, with one row, a few, and a chunk of 32.
const std::vector<std::vector<int64_t>> kGradientShapes = {{77}, {4100}, {5, 77}, {32, 4100}};

// Four sets of operands with equal contents, one per case: 0 separate
// outputs, 1 dgamma over gamma, 2 dgamma over x and dbeta over dy, 3 dx
// over gamma (2 and 3: one row only).
struct GradientCases {
  using Shape = std::vector<int64_t>;
  std::vector<std::unique_ptr<Tensor>> dy, x, gamma, dx, dg, db;
  GradientCases(const Shape& shape, uint64_t seed) {
    for (int c = 0; c < 4; ++c) {
      for (auto* set : {&dy, &x, &dx}) set->push_back(std::make_unique<Tensor>(DType::kFloat32, shape));
      for (auto* set : {&gamma, &dg, &db}) {
        set->push_back(std::make_unique<Tensor>(DType::kFloat32, Shape{shape.back()}));
      }
    }
    uint64_t stream = seed;
    for (auto* set : {&dy, &x, &gamma}) {
      auto& t = *set;
      FillSame(stream++, {t[0].get(), t[1].get(), t[2].get(), t[3].get()}, -2, 2);
    }
  }
  int64_t rows() const { return dy[0]->view().rank == 1 ? 1 : dy[0]->view().shape[0]; }
  std::string name() const { return std::to_string(rows()) + "x" + std::to_string(gamma[0]->view().shape[0]); }
  int cases() const { return rows() == 1 ? 4 : 2; }
  // Case c's outputs: where each is written.
  Tensor& dx_of(int c) { return c == 3 ? *gamma[3] : *dx[c]; }
  Tensor& dgamma_of(int c) { return c == 1 ? *gamma[1] : c == 2 ? *x[2] : *dg[c]; }
  Tensor& dbeta_of(int c) { return c == 2 ? *dy[2] : *db[c]; }
  // The outputs of case c against case 0's, bit for bit.
  ::testing::AssertionResult Same(int c, bool dx_too, bool dbeta_too) {
    if (dx_too && !SameBytes(dx_of(c), *dx[0])) return ::testing::AssertionFailure() << "dx, case " << c;
    if (!SameBytes(dgamma_of(c), *dg[0])) return ::testing::AssertionFailure() << "dgamma, case " << c;
    if (dbeta_too && !SameBytes(dbeta_of(c), *db[0])) return ::testing::AssertionFailure() << "dbeta, case " << c;
    return ::testing::AssertionSuccess();
  }
};

TEST(LayerNormBackward, GradientsInPlace) {
  for (const auto& shape : kGradientShapes) {
    GradientCases t(shape, 91);
    SCOPED_TRACE(t.name());
    Tensor mean(DType::kFloat32, {t.rows()}), rstd(DType::kFloat32, {t.rows()});
    std::mt19937_64 rng(90);
    mean.FillRandom(rng, -2, 2);
    rstd.FillRandom(rng, 0.5f, 2);
    for (int c = 0; c < t.cases(); ++c) {
      LayerNormBackwardArgs a;
      a.dy = t.dy[c]->view(); a.x = t.x[c]->view(); a.mean = mean.view(); a.rstd = rstd.view();
      a.gamma = &t.gamma[c]->view();
      a.dx = t.dx_of(c).view(); a.dgamma = t.dgamma_of(c).view(); a.dbeta = t.dbeta_of(c).view();
      Plan plan;
      EXPECT_TRUE(PlanAndRun(PlanLayerNormBackward(a, &plan), plan).ok());
      if (c > 0) EXPECT_TRUE(t.Same(c, true, true));
    }
  }
}

TEST(RmsNormBackward, GradientsInPlace) {
  for (const auto& shape : kGradientShapes) {
    GradientCases t(shape, 93);
    SCOPED_TRACE(t.name());
    Tensor rstd(DType::kFloat32, {t.rows()});
    std::mt19937_64 rng(92);
    rstd.FillRandom(rng, 0.5f, 2);
    for (int c = 0; c < t.cases(); ++c) {
      RmsNormBackwardArgs a;
      a.dy = t.dy[c]->view(); a.x = t.x[c]->view(); a.rstd = rstd.view(); a.gamma = t.gamma[c]->view();
      a.dx = t.dx_of(c).view(); a.dgamma = t.dgamma_of(c).view();
      Plan plan;
      EXPECT_TRUE(PlanAndRun(PlanRmsNormBackward(a, &plan), plan).ok());
      if (c > 0) EXPECT_TRUE(t.Same(c, true, false));
    }
  }
}

TEST(LayerNormGradBeta, GradientsInPlace) {
  for (const auto& shape : kGradientShapes) {
    GradientCases t(shape, 94);  // x: res_for_gamma; no gamma read, no dx (cases 1 and 3: separate outputs)
    SCOPED_TRACE(t.name());
    for (int c = 0; c < t.cases(); ++c) {
      LayerNormGradBetaArgs a;
      a.res_for_gamma = t.x[c]->view(); a.dy = t.dy[c]->view();
      a.dgamma = t.dgamma_of(c).view(); a.dbeta = t.dbeta_of(c).view();
      Plan plan;
      EXPECT_TRUE(PlanAndRun(PlanLayerNormGradBeta(a, &plan), plan).ok());
      if (c > 0) EXPECT_TRUE(t.Same(c, false, true));
    }
  }
}

TEST(SiluBackward, InPlace) {
  for (DType dtype : kDTypes) {
    const std::vector<int64_t> shape = {(int64_t{16} << 20) / 4 + 77};
    SCOPED_TRACE(DTypeName(dtype));
    Tensor dy0(dtype, shape), x0(dtype, shape), dx0(dtype, shape), dy1(dtype, shape), x1(dtype, shape);
    Tensor dy2(dtype, shape), x2(dtype, shape);
    FillSame(90, {&dy0, &dy1, &dy2}, -4, 4);
    FillSame(91, {&x0, &x1, &x2}, -4, 4);
    const auto run = [&](Tensor& dy, Tensor& x, const TensorView& dx) {
      SiluBackwardArgs s;
      s.dy = dy.view(); s.x = x.view(); s.dx = dx;
      Plan plan;
      EXPECT_TRUE(PlanAndRun(PlanSiluBackward(s, &plan), plan).ok());
    };
    run(dy0, x0, dx0.view());
    run(dy1, x1, dy1.view());
    run(dy2, x2, x2.view());
    EXPECT_TRUE(SameBytes(dy1, dx0)) << "dx over dy";
    EXPECT_TRUE(SameBytes(x2, dx0)) << "dx over x";
  }
}

}  // namespace
}  // namespace testing
}  // namespace gradops
