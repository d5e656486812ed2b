// The LayerNormGradBeta example kernel: the documented 1x8x8 example, and
// half and float, with and without sharedTmpBuffer and isReuseSource, on
// several blocks, each block's partial sums against the float64 reference
// over that block's rows.
#include <gtest/gtest.h>

#include <tuple>

#include "layer_norm_grad_beta_kernel.h"
#include "layer_norm_grad_beta_tiling.h"
#include "ref/reference.h"
#include "test_util.h"

namespace {

using ascendc_test::GmArray;
using layer_norm_grad_beta_example::Problem;

template <typename T>
struct Outputs {
  GmArray<T> pd_gamma, pd_beta;
  Outputs(uint32_t blocks, uint32_t h) : pd_gamma(size_t{blocks} * h), pd_beta(size_t{blocks} * h) {}
};

template <typename T>
void Launch(const Problem& p, GmArray<T>& res, GmArray<T>& dy, Outputs<T>& out) {
  const optiling::LayerNormGradBetaExampleTiling tiling = layer_norm_grad_beta_example::MakeTiling(p);
  GmArray<uint8_t> tiling_gm(tiling.GetDataSize());
  tiling.SaveToBuffer(tiling_gm.data(), tiling_gm.size());
  AscendC::SetKernelMode(KernelMode::AIV_MODE);
  if (sizeof(T) == 4) {
    ICPU_RUN_KF(layer_norm_grad_beta_float, p.blockDim, res.gm(), dy.gm(), out.pd_gamma.gm(), out.pd_beta.gm(),
                tiling_gm.gm());
  } else {
    ICPU_RUN_KF(layer_norm_grad_beta_half, p.blockDim, res.gm(), dy.gm(), out.pd_gamma.gm(), out.pd_beta.gm(),
                tiling_gm.gm());
  }
}

TEST(AscendCLayerNormGradBeta, DocumentedExample) {
  for (uint32_t blocks : {1u, 2u, 4u}) {
    GmArray<float> res(64), dy(64);
    for (int i = 0; i < 64; ++i) res[i] = dy[i] = static_cast<float>(i);
    Problem p;
    p.rows = 8;
    p.h = 8;
    p.blockDim = blocks;
    Outputs<float> out(blocks, 8);
    Launch(p, res, dy, out);
    const float gamma[8] = {8960, 9416, 9888, 10376, 10880, 11400, 11936, 12488};
    const float beta[8] = {224, 232, 240, 248, 256, 264, 272, 280};
    for (int j = 0; j < 8; ++j) {
      float g = 0, b = 0;
      for (uint32_t k = 0; k < blocks; ++k) {
        g += out.pd_gamma[k * 8 + j];
        b += out.pd_beta[k * 8 + j];
      }
      EXPECT_EQ(g, gamma[j]) << "column " << j << ", " << blocks << " blocks";
      EXPECT_EQ(b, beta[j]) << "column " << j << ", " << blocks << " blocks";
    }
  }
}

struct Case {
  uint32_t rows, h, block_dim;
};

template <typename T>
void RunAndCheck(const Case& c, bool shared_tmp, bool reuse_source) {
  const size_t n = size_t{c.rows} * c.h;
  GmArray<T> res(n), dy(n);
  ascendc_test::Random random(c.rows + 7 * c.h);
  for (size_t i = 0; i < n; ++i) {
    res[i] = T(random.Uniform(-2, 2));
    dy[i] = T(random.Uniform(-1, 1));
  }
  Problem p;
  p.rows = c.rows;
  p.h = c.h;
  p.typeSize = sizeof(T);
  p.blockDim = c.block_dim;
  p.sharedTmp = shared_tmp;
  p.reuseSource = reuse_source;
  Outputs<T> out(c.block_dim, c.h);
  Launch(p, res, dy, out);

  const gradops::DType dtype = ascendc_test::DTypeOf<T>();
  const int64_t block_rows = c.rows / c.block_dim, h = c.h;
  const double tol = sizeof(T) == 4 ? 1e-5 : 2e-3;
  for (uint32_t k = 0; k < c.block_dim; ++k) {
    gradops::LayerNormGradBetaArgs args;
    args.res_for_gamma = gradops::Contiguous(res.data() + k * block_rows * h, dtype, {block_rows, h});
    args.dy = gradops::Contiguous(dy.data() + k * block_rows * h, dtype, {block_rows, h});
    const gradops::ref::NormGrads want = gradops::ref::LayerNormGradBeta(args);
    EXPECT_EQ(ascendc_test::Compare(out.pd_gamma.data() + k * h, want.dgamma, tol, tol), "") << "block " << k;
    EXPECT_EQ(ascendc_test::Compare(out.pd_beta.data() + k * h, want.dbeta, tol, tol), "") << "block " << k;
  }
}

const Case kCases[] = {{64, 16, 1}, {128, 64, 4}, {96, 32, 3}, {256, 128, 2}};

class LayerNormGradBetaKernelTest : public ::testing::TestWithParam<std::tuple<Case, bool>> {};

TEST_P(LayerNormGradBetaKernelTest, FloatMatchesReference) {
  RunAndCheck<float>(std::get<0>(GetParam()), std::get<1>(GetParam()), false);
}
TEST_P(LayerNormGradBetaKernelTest, FloatReusingSourceMatchesReference) {
  RunAndCheck<float>(std::get<0>(GetParam()), std::get<1>(GetParam()), true);
}
TEST_P(LayerNormGradBetaKernelTest, HalfMatchesReference) {
  RunAndCheck<half>(std::get<0>(GetParam()), std::get<1>(GetParam()), false);
}

INSTANTIATE_TEST_SUITE_P(Shapes, LayerNormGradBetaKernelTest,
                         ::testing::Combine(::testing::ValuesIn(kCases), ::testing::Bool()),
                         [](const auto& info) {
                           const Case& c = std::get<0>(info.param);
                           return std::to_string(c.rows) + "x" + std::to_string(c.h) + "_blocks" +
                                  std::to_string(c.block_dim) +
                                  (std::get<1>(info.param) ? "_sharedTmp" : "_frameworkTmp");
                         });

}  // namespace
