// In place: an output may be an input of the same dtype through an identical
// view (gradops/ops.h). Each operator run so gives the bits it gives into
// separate outputs, for every dtype, with row tails, and with outputs large
// enough to be stored non-temporally. The suites' names put these tests in
// the runs with each norm sweep forced (tests/CMakeLists.txt).
#include <cstring>

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
