// The host tiling functions against the documented formulas, for several
// shapes and type sizes, both tiling overloads, and bad arguments (logged,
// outputs untouched).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <tuple>
#include <vector>

#include "tiling/tiling_api.h"
#include "kernel_operator.h"

namespace {

struct Shape4 {
  uint32_t b, s, h, origin_h;
};
const Shape4 kShapes[] = {{2, 32, 16, 16}, {2, 16, 64, 64}, {1, 1, 64, 60}, {4, 7, 128, 100}, {1, 3, 8, 8}};

uint32_t Bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

class LayerNormGradTilingTest : public ::testing::TestWithParam<std::tuple<Shape4, uint32_t, bool>> {};

TEST_P(LayerNormGradTilingTest, FollowsTheDocumentedFormulas) {
  const auto [sh, type_size, reuse] = GetParam();
  const ge::Shape shape({sh.b, sh.s, sh.h, sh.origin_h});
  uint32_t max = 0, min = 0;
  AscendC::GetLayerNormGradMaxMinTmpSize(shape, type_size, reuse, max, min);
  const uint32_t bsh = sh.b * sh.s * sh.h, hh = sh.h * sh.h;
  const uint32_t buffers = type_size == 2 ? 9 : (reuse ? 4 : 6);
  EXPECT_EQ(max, buffers * std::max(bsh, hh) * type_size);
  EXPECT_EQ(min, buffers * std::min(bsh, hh) * type_size);

  for (uint32_t stack : {min, max}) {
    AscendC::tiling::LayerNormGradTiling t;
    AscendC::GetLayerNormGradNDTilingInfo(shape, stack, type_size, reuse, t);
    uint32_t one = stack / 4 / buffers / sh.h * sh.h;
    if (one == 0) continue;  // too small for a row: see RejectsBadArguments
    const uint32_t align = type_size == 4 ? 8 : 16;
    const uint32_t noh = (one / sh.h + align - 1) / align * align;
    one = noh * sh.h;
    EXPECT_EQ(t.stackBufferSize, stack);
    EXPECT_EQ(t.bLength, sh.b);
    EXPECT_EQ(t.sLength, sh.s);
    EXPECT_EQ(t.hLength, sh.h);
    EXPECT_EQ(t.originalHLength, sh.origin_h);
    EXPECT_EQ(t.oneCalSize, one);
    EXPECT_EQ(t.nohCalSize, noh);
    EXPECT_EQ(t.loopNum, bsh / one);
    EXPECT_EQ(t.tailSize, bsh % one);
    EXPECT_EQ(t.nohTailSize, bsh % one / sh.h);
    EXPECT_EQ(t.tmpTensorBSHPos, 0u);
    EXPECT_EQ(t.pdVarTensorPos, one);
    EXPECT_EQ(t.pdMeanTensorPos, 2 * one);
    const bool skip_x12 = reuse && type_size == 4;
    EXPECT_EQ(t.x1TensorPos, skip_x12 ? 0 : 3 * one);
    EXPECT_EQ(t.x2TensorPos, skip_x12 ? 0 : 4 * one);
    EXPECT_EQ(t.x3TensorPos, skip_x12 ? 3 * one : 5 * one);
    EXPECT_EQ(t.tmpTensorPos, type_size == 2 ? 6 * one : 0);
    EXPECT_EQ(t.tmpTensor1Pos, type_size == 2 ? 7 * one : 0);
    EXPECT_EQ(t.tmpTensor2Pos, type_size == 2 ? 8 * one : 0);
    for (uint32_t size : {t.tmpTensorBSHSize, t.pdVarTensorSize, t.pdMeanTensorSize, t.x1TensorSize, t.x2TensorSize,
                          t.x3TensorSize, t.tmpTensorSize, t.tmpTensor1Size, t.tmpTensor2Size}) {
      EXPECT_EQ(size, one);
    }
    EXPECT_EQ(t.lastDimValueBack, Bits(1.0f / sh.origin_h));
    EXPECT_EQ(t.lastDimValueBackMulTwo, Bits(2.0f / sh.origin_h));

    // The optiling overload fills the same bytes, seen through set_/get_.
    optiling::LayerNormGradTiling o;
    AscendC::GetLayerNormGradNDTilingInfo(shape, stack, type_size, reuse, o);
    AscendC::tiling::LayerNormGradTiling saved;
    o.SaveToBuffer(&saved, sizeof(saved));
    EXPECT_EQ(std::memcmp(&saved, &t, sizeof(t)), 0);
    EXPECT_EQ(o.get_oneCalSize(), one);
  }
}

class LayerNormGradBetaTilingTest : public ::testing::TestWithParam<std::tuple<Shape4, uint32_t, bool>> {};

TEST_P(LayerNormGradBetaTilingTest, FollowsTheDocumentedFormulas) {
  const auto [sh, type_size, reuse] = GetParam();
  const ge::Shape shape({sh.b, sh.s, sh.h, sh.origin_h});
  uint32_t max = 0, min = 0;
  AscendC::GetLayerNormGradBetaMaxMinTmpSize(shape, type_size, reuse, max, min);
  const uint32_t bsh = sh.b * sh.s * sh.h, buffers = type_size == 2 ? 4 : 2;
  EXPECT_EQ(max, buffers * bsh * 4);
  EXPECT_EQ(min, buffers * sh.h * 4);

  for (uint32_t stack : {min, max, max + 100}) {
    AscendC::tiling::LayerNormGradBetaTiling t;
    AscendC::GetLayerNormGradBetaNDTilingInfo(shape, stack, type_size, reuse, t);
    const uint32_t elements = stack / 4;
    uint32_t one = type_size == 2 ? (elements - 2 * sh.h) / 2 : elements;
    one = std::min(one / sh.h * sh.h, bsh);
    EXPECT_EQ(t.stackBufferSize, elements);
    EXPECT_EQ(t.bLength, sh.b);
    EXPECT_EQ(t.sLength, sh.s);
    EXPECT_EQ(t.hLength, sh.h);
    EXPECT_EQ(t.originalHLength, sh.origin_h);
    EXPECT_EQ(t.bshLength, bsh);
    EXPECT_EQ(t.bsLength, sh.b * sh.s);
    EXPECT_EQ(t.oneCalSize, one);
    EXPECT_EQ(t.numberOfTmpBuf, type_size == 2 ? 2u : 1u);
    EXPECT_EQ(t.loopRound, bsh / one);
    EXPECT_EQ(t.inputTailSize, bsh % one);
    EXPECT_EQ(t.inputTailPos, bsh - bsh % one);
    EXPECT_EQ(t.bsTailSize, bsh % one / sh.h);
    EXPECT_EQ(t.bshCurLength, one);
    EXPECT_EQ(t.bsCurLength, one / sh.h);
    EXPECT_EQ(t.gammaTempTensorPos, 0u);
    EXPECT_EQ(t.betaTempTensorPos, type_size == 2 ? sh.h : 0);
    EXPECT_EQ(t.inputDyTmpTensorPos, type_size == 2 ? 2 * sh.h : 0);
    EXPECT_EQ(t.resForGammaTmpTensorPos, type_size == 2 ? 2 * sh.h + one : 0);
    EXPECT_EQ(t.reserved, 0u);

    optiling::LayerNormGradBetaTiling o;
    AscendC::GetLayerNormGradBetaNDTilingInfo(shape, stack, type_size, reuse, o);
    EXPECT_EQ(std::memcmp(static_cast<AscendC::tiling::LayerNormGradBetaTiling*>(&o), &t, sizeof(t)), 0);
    EXPECT_EQ(o.get_bsCurLength(), one / sh.h);
  }
}

const auto kCases = ::testing::Combine(::testing::ValuesIn(kShapes), ::testing::Values(2u, 4u), ::testing::Bool());
INSTANTIATE_TEST_SUITE_P(Shapes, LayerNormGradTilingTest, kCases);
INSTANTIATE_TEST_SUITE_P(Shapes, LayerNormGradBetaTilingTest, kCases);

TEST(AscendCTiling, RejectsBadArgumentsLeavingOutputsUntouched) {
  uint32_t max = 7, min = 7;
  AscendC::GetLayerNormGradMaxMinTmpSize(ge::Shape({2, 16, 64}), 4, false, max, min);  // 3-D
  AscendC::GetLayerNormGradMaxMinTmpSize(ge::Shape({2, 16, 64, 64}), 8, false, max, min);  // typeSize
  AscendC::GetLayerNormGradBetaMaxMinTmpSize(ge::Shape({0, 16, 64, 64}), 4, false, max, min);  // empty
  EXPECT_EQ(max, 7u);
  EXPECT_EQ(min, 7u);

  AscendC::tiling::LayerNormGradTiling t;
  t.bLength = 99;
  AscendC::GetLayerNormGradNDTilingInfo(ge::Shape({2, 16, 64, 64}), 16, 4, false, t);  // stack too small
  EXPECT_EQ(t.bLength, 99u);
  AscendC::tiling::LayerNormGradBetaTiling b;
  b.bLength = 99;
  AscendC::GetLayerNormGradBetaNDTilingInfo(ge::Shape({2, 16, 64, 64}), 64 * 4, 4, false, b);  // < 2H floats
  EXPECT_EQ(b.bLength, 99u);
}

}  // namespace

// A tiling class with a nested tiling struct and a float saves the bytes of
// the plain struct a kernel declares with the same fields.
namespace optiling {
BEGIN_TILING_DATA_DEF(TestVecTiling)
  TILING_DATA_FIELD_DEF_STRUCT(LayerNormGradTiling, layernormGradTilingData);
  TILING_DATA_FIELD_DEF(float, epsilon);
  TILING_DATA_FIELD_DEF_ARR(uint32_t, 3, extra);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(TestOp, TestVecTiling)
}  // namespace optiling

struct KernelVecTiling {
  LayerNormGradTiling layernormGradTilingData;
  float epsilon;
  uint32_t extra[3];
};

namespace {

TEST(AscendCTiling, TilingClassesSaveThePlainLayout) {
  optiling::TestVecTiling host;
  AscendC::GetLayerNormGradNDTilingInfo(ge::Shape({2, 32, 16, 16}), 6144, 4, false, host.layernormGradTilingData);
  host.set_epsilon(0.25f);
  const uint32_t extra[3] = {1, 2, 3};
  host.set_extra(extra);
  ASSERT_EQ(host.GetDataSize(), sizeof(KernelVecTiling));
  KernelVecTiling kernel;
  host.SaveToBuffer(&kernel, sizeof(kernel));
  EXPECT_EQ(kernel.layernormGradTilingData.bLength, 2u);
  EXPECT_EQ(kernel.layernormGradTilingData.oneCalSize, 256u);
  EXPECT_EQ(kernel.epsilon, 0.25f);
  EXPECT_EQ(kernel.extra[2], 3u);
  static_assert(std::is_same<LayerNormGradTiling, AscendC::tiling::LayerNormGradTiling>::value, "one type");
  static_assert(std::is_same<LayerNormGradBetaTiling, AscendC::tiling::LayerNormGradBetaTiling>::value, "one type");
  static_assert(std::is_same<AscendC::TensorShape, ge::Shape>::value, "one type");
}

}  // namespace
