// The LayerNormGrad example kernel in half and float, with and without
// sharedTmpBuffer and isReuseSource, on several blocks, against the
// float64 reference (mean_count = originalHLength).
#include <gtest/gtest.h>

#include <tuple>

#include "layer_norm_grad_kernel.h"
#include "layer_norm_grad_tiling.h"
#include "ref/reference.h"
#include "test_util.h"

namespace {

using ascendc_test::GmArray;
using layer_norm_grad_example::Problem;

struct Case {
  uint32_t rows, h, origin_h, block_dim, tile_rows;
};

template <typename T>
void RunAndCheck(const Case& c, bool shared_tmp, bool reuse_source) {
  const size_t n = size_t{c.rows} * c.h;
  GmArray<T> dy(n), x(n), variance(c.rows), mean(c.rows), gamma(c.h), pd_x(n), res(n);
  ascendc_test::Random random(c.rows * 31 + c.h);
  for (uint32_t r = 0; r < c.rows; ++r) {
    for (uint32_t j = 0; j < c.h; ++j) {
      const bool pad = j >= c.origin_h;
      x[r * c.h + j] = pad ? T(0.0f) : T(random.Uniform(-2, 2));
      dy[r * c.h + j] = pad ? T(0.0f) : T(random.Uniform(-1, 1));
    }
    mean[r] = T(random.Uniform(-0.3f, 0.3f));
    variance[r] = T(random.Uniform(0.5f, 1.5f));
  }
  for (uint32_t j = 0; j < c.h; ++j) gamma[j] = j < c.origin_h ? T(random.Uniform(0.5f, 1.5f)) : T(0.0f);

  Problem p;
  p.rows = c.rows;
  p.h = c.h;
  p.originH = c.origin_h;
  p.typeSize = sizeof(T);
  p.blockDim = c.block_dim;
  p.tileRows = c.tile_rows;
  p.sharedTmp = shared_tmp;
  p.reuseSource = reuse_source;
  p.epsilon = 1e-3f;
  const optiling::LayerNormGradExampleTiling tiling = layer_norm_grad_example::MakeTiling(p);
  GmArray<uint8_t> tiling_gm(tiling.GetDataSize());
  tiling.SaveToBuffer(tiling_gm.data(), tiling_gm.size());

  AscendC::SetKernelMode(KernelMode::AIV_MODE);
  if (sizeof(T) == 4) {
    ICPU_RUN_KF(layer_norm_grad_float, c.block_dim, dy.gm(), x.gm(), variance.gm(), mean.gm(), gamma.gm(), pd_x.gm(),
                res.gm(), nullptr, tiling_gm.gm());
  } else {
    ICPU_RUN_KF(layer_norm_grad_half, c.block_dim, dy.gm(), x.gm(), variance.gm(), mean.gm(), gamma.gm(), pd_x.gm(),
                res.gm(), nullptr, tiling_gm.gm());
  }

  const gradops::DType dtype = ascendc_test::DTypeOf<T>();
  const int64_t rows = c.rows, h = c.h;
  gradops::LayerNormGradArgs args;
  args.dy = gradops::Contiguous(dy.data(), dtype, {rows, h});
  args.x = gradops::Contiguous(x.data(), dtype, {rows, h});
  args.variance = gradops::Contiguous(variance.data(), dtype, {rows});
  args.mean = gradops::Contiguous(mean.data(), dtype, {rows});
  args.gamma = gradops::Contiguous(gamma.data(), dtype, {h});
  args.epsilon = static_cast<float>(T(p.epsilon));  // the kernel passes epsilon as T
  args.mean_count = c.origin_h;
  const gradops::ref::NormGrads want = gradops::ref::LayerNormGrad(args);

  const double tol = sizeof(T) == 4 ? 1e-4 : 4e-3;
  EXPECT_EQ(ascendc_test::Compare(pd_x.data(), want.dx, tol, tol), "") << "pdX";
  EXPECT_EQ(ascendc_test::Compare(res.data(), want.res_for_gamma, tol, tol), "") << "resForGamma";
}

const Case kCases[] = {
    {64, 16, 16, 1, 64},    // the documented [2, 32, 16] shape
    {128, 64, 60, 4, 16},   // zero-padded rows, 4 blocks of 2 tiles
    {96, 128, 128, 3, 16},  // 3 blocks
    {64, 32, 32, 2, 32},
};

class LayerNormGradKernelTest : public ::testing::TestWithParam<std::tuple<Case, bool>> {};

TEST_P(LayerNormGradKernelTest, FloatMatchesReference) {
  RunAndCheck<float>(std::get<0>(GetParam()), std::get<1>(GetParam()), false);
}
TEST_P(LayerNormGradKernelTest, FloatReusingSourceMatchesReference) {
  RunAndCheck<float>(std::get<0>(GetParam()), std::get<1>(GetParam()), true);
}
TEST_P(LayerNormGradKernelTest, HalfMatchesReference) {
  RunAndCheck<half>(std::get<0>(GetParam()), std::get<1>(GetParam()), false);
}

INSTANTIATE_TEST_SUITE_P(Shapes, LayerNormGradKernelTest,
                         ::testing::Combine(::testing::ValuesIn(kCases), ::testing::Bool()),
                         [](const auto& info) {
                           const Case& c = std::get<0>(info.param);
                           return std::to_string(c.rows) + "x" + std::to_string(c.h) + "_" +
                                  std::to_string(c.origin_h) + "_blocks" + std::to_string(c.block_dim) +
                                  (std::get<1>(info.param) ? "_sharedTmp" : "_frameworkTmp");
                         });

}  // namespace
