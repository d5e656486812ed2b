// aclnnLayerNormBackward: every row of the documented error table, the
// documented sample, dtype mixes, strided views, masks, empty inputs and the
// executor life cycle, against the float64 reference.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <memory>

#include "aclnnop/aclnn_layer_norm_backward.h"
#include "aclnnop/aclnn_silu_backward.h"
#include "opdev/op_errno.h"
#include "ref/reference.h"
#include "test_util.h"

namespace cann_test {
namespace {

// A LayerNorm backward problem: x of `shape` normalized over its last
// `norm_rank` dims, with tensors the tests may replace or null out.
struct Problem {
  Problem(std::vector<int64_t> shape, int norm_rank, aclDataType dtype = ACL_FLOAT,
          aclDataType weight_dtype = ACL_FLOAT, aclDataType stat_dtype = ACL_FLOAT, bool with_weight = true)
      : norm_shape(shape.end() - norm_rank, shape.end()) {
    std::vector<int64_t> stat_shape(shape.begin(), shape.end() - norm_rank);
    stat_shape.insert(stat_shape.end(), norm_rank, 1);
    int64_t M = 1, N = 1;
    for (size_t d = 0; d < shape.size(); ++d) (static_cast<int>(d) < static_cast<int>(shape.size()) - norm_rank ? M : N) *= shape[d];
    dy.reset(new DeviceTensor(dtype, shape, Pattern(M * N, 5, 13, -1.5)));
    x.reset(new DeviceTensor(dtype, shape, Pattern(M * N, 7, 11, -1.25)));
    mean.reset(new DeviceTensor(stat_dtype, stat_shape, Pattern(M, 3, 5, -0.5)));
    rstd.reset(new DeviceTensor(stat_dtype, stat_shape, Pattern(M, 2, 7, 0.5)));
    if (with_weight) weight.reset(new DeviceTensor(weight_dtype, norm_shape, Pattern(N, 3, 8, -0.75)));
    bias.reset(new DeviceTensor(weight_dtype, norm_shape, Pattern(N, 1, 4, 0)));
    dx.reset(new DeviceTensor(dtype, shape));
    dgamma.reset(new DeviceTensor(weight_dtype, norm_shape));
    dbeta.reset(new DeviceTensor(weight_dtype, norm_shape));
    norm = aclCreateIntArray(norm_shape.data(), norm_shape.size());
    SetMask(true, true, true);
  }
  ~Problem() {
    aclDestroyIntArray(norm);
    aclDestroyBoolArray(mask);
  }
  void SetMask(bool a, bool b, bool c) {
    aclDestroyBoolArray(mask);
    const bool values[3] = {a, b, c};
    mask = aclCreateBoolArray(values, 3);
  }
  static aclTensor* Get(const std::unique_ptr<DeviceTensor>& t) { return t ? t->get() : nullptr; }

  aclnnStatus Plan() {
    return aclnnLayerNormBackwardGetWorkspaceSize(Get(dy), Get(x), norm, Get(mean), Get(rstd), Get(weight), Get(bias),
                                                  mask, Get(dx), Get(dgamma), Get(dbeta), &workspace_size, &executor);
  }
  // Plans, runs on `stream` and synchronizes.
  aclnnStatus PlanAndRun(aclrtStream stream) {
    aclnnStatus s = Plan();
    if (s != ACLNN_SUCCESS) return s;
    void* ws = nullptr;
    if (workspace_size > 0) {
      EXPECT_EQ(aclrtMalloc(&ws, workspace_size, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    }
    s = aclnnLayerNormBackward(ws, workspace_size, executor, stream);
    EXPECT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);
    if (ws != nullptr) aclrtFree(ws);
    return s;
  }
  gradops::ref::NormGrads Expected() const {
    gradops::LayerNormBackwardArgs a;
    a.dy = dy->View();
    a.x = x->View();
    a.normalized_rank = static_cast<int>(norm_shape.size());
    a.mean = mean->View();
    a.rstd = rstd->View();
    gradops::TensorView w;
    if (weight) w = weight->View();
    a.gamma = weight ? &w : nullptr;
    return gradops::ref::LayerNormBackward(a);
  }
  std::vector<std::vector<uint8_t>> OutputBytes() const {
    std::vector<std::vector<uint8_t>> bytes;
    for (const auto* t : {&dx, &dgamma, &dbeta}) bytes.push_back(*t ? (*t)->Bytes() : std::vector<uint8_t>());
    return bytes;
  }

  std::vector<int64_t> norm_shape;
  std::unique_ptr<DeviceTensor> dy, x, mean, rstd, weight, bias, dx, dgamma, dbeta;
  aclIntArray* norm = nullptr;
  aclBoolArray* mask = nullptr;
  uint64_t workspace_size = 12345;
  aclOpExecutor* executor = nullptr;
};

class LayerNormBackwardTest : public ::testing::Test {
 protected:
  // The call fails with `code`, writes nothing and leaves the outputs as they were.
  void ExpectRefused(Problem& p, aclnnStatus code) {
    const auto before = p.OutputBytes();
    EXPECT_EQ(p.Plan(), code) << aclGetRecentErrMsg();
    EXPECT_NE(std::string(aclGetRecentErrMsg()), "");
    EXPECT_EQ(p.workspace_size, 12345u);
    EXPECT_EQ(p.executor, nullptr);
    EXPECT_EQ(p.OutputBytes(), before);
  }
  Runtime runtime_;
};

// --- ACLNN_ERR_PARAM_NULLPTR rows ---

TEST_F(LayerNormBackwardTest, NullRequiredInputs) {
  for (int which = 0; which < 4; ++which) {
    Problem p({2, 3}, 1);
    std::unique_ptr<DeviceTensor>* tensors[4] = {&p.dy, &p.x, &p.mean, &p.rstd};
    tensors[which]->reset();
    ExpectRefused(p, ACLNN_ERR_PARAM_NULLPTR);
  }
}

TEST_F(LayerNormBackwardTest, NullNormalizedShapeOrMask) {
  Problem a({2, 3}, 1);
  aclDestroyIntArray(a.norm);
  a.norm = nullptr;
  ExpectRefused(a, ACLNN_ERR_PARAM_NULLPTR);
  Problem b({2, 3}, 1);
  aclDestroyBoolArray(b.mask);
  b.mask = nullptr;
  ExpectRefused(b, ACLNN_ERR_PARAM_NULLPTR);
}

TEST_F(LayerNormBackwardTest, NullOutputSelectedByMask) {
  for (int which = 0; which < 3; ++which) {
    Problem p({2, 3}, 1);
    std::unique_ptr<DeviceTensor>* outs[3] = {&p.dx, &p.dgamma, &p.dbeta};
    outs[which]->reset();
    ExpectRefused(p, ACLNN_ERR_PARAM_NULLPTR);
  }
}

TEST_F(LayerNormBackwardTest, NullWorkspaceSizeOrExecutor) {
  Problem p({2, 3}, 1);
  EXPECT_EQ(aclnnLayerNormBackwardGetWorkspaceSize(p.dy->get(), p.x->get(), p.norm, p.mean->get(), p.rstd->get(),
                                                   nullptr, nullptr, p.mask, p.dx->get(), p.dgamma->get(),
                                                   p.dbeta->get(), nullptr, &p.executor),
            ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnLayerNormBackwardGetWorkspaceSize(p.dy->get(), p.x->get(), p.norm, p.mean->get(), p.rstd->get(),
                                                   nullptr, nullptr, p.mask, p.dx->get(), p.dgamma->get(),
                                                   p.dbeta->get(), &p.workspace_size, nullptr),
            ACLNN_ERR_PARAM_NULLPTR);
}

// --- ACLNN_ERR_PARAM_INVALID rows ---

TEST_F(LayerNormBackwardTest, UnsupportedDTypes) {
  for (int which = 0; which < 6; ++which) {
    Problem p({2, 3}, 1);
    std::unique_ptr<DeviceTensor>* inputs[6] = {&p.dy, &p.x, &p.mean, &p.rstd, &p.weight, &p.bias};
    const std::vector<int64_t> shape = which < 2 ? std::vector<int64_t>{2, 3}
                                       : which < 4 ? std::vector<int64_t>{2, 1}
                                                   : std::vector<int64_t>{3};
    inputs[which]->reset(new DeviceTensor(which % 2 ? ACL_INT32 : ACL_DOUBLE, shape));
    ExpectRefused(p, ACLNN_ERR_PARAM_INVALID);
  }
}

TEST_F(LayerNormBackwardTest, GradOutShapeDiffersFromInput) {
  Problem p({2, 3}, 1);
  p.dy.reset(new DeviceTensor(ACL_FLOAT, {3, 2}));
  ExpectRefused(p, ACLNN_ERR_PARAM_INVALID);
}

TEST_F(LayerNormBackwardTest, EmptyNormalizedShape) {
  Problem p({2, 3}, 1);
  aclDestroyIntArray(p.norm);
  p.norm = aclCreateIntArray(nullptr, 0);
  ExpectRefused(p, ACLNN_ERR_PARAM_INVALID);
}

TEST_F(LayerNormBackwardTest, MeanOrRstdCountIsNotM) {
  Problem a({2, 3}, 1);
  a.mean.reset(new DeviceTensor(ACL_FLOAT, {3, 1}));
  a.rstd.reset(new DeviceTensor(ACL_FLOAT, {3, 1}));
  ExpectRefused(a, ACLNN_ERR_PARAM_INVALID);
  Problem b({2, 3}, 1);
  b.rstd.reset(new DeviceTensor(ACL_FLOAT, {3, 1}));
  ExpectRefused(b, ACLNN_ERR_PARAM_INVALID);
}

TEST_F(LayerNormBackwardTest, WeightOrBiasShapeIsNotNormalizedShape) {
  Problem a({2, 3}, 1);
  a.weight.reset(new DeviceTensor(ACL_FLOAT, {1, 3}));
  ExpectRefused(a, ACLNN_ERR_PARAM_INVALID);
  Problem b({2, 3}, 1);
  b.bias.reset(new DeviceTensor(ACL_FLOAT, {4}));
  ExpectRefused(b, ACLNN_ERR_PARAM_INVALID);
}

TEST_F(LayerNormBackwardTest, InputHasFewerDimsThanNormalizedShape) {
  Problem p({2, 3}, 1);
  aclDestroyIntArray(p.norm);
  const int64_t norm[3] = {1, 2, 3};
  p.norm = aclCreateIntArray(norm, 3);
  ExpectRefused(p, ACLNN_ERR_PARAM_INVALID);
}

// Stricter than CANN, whose check compares only part of the dims: input
// [2, 3, 4] with normalizedShape [4, 3] has the right element counts, and is
// refused here by the trailing-dims rule.
TEST_F(LayerNormBackwardTest, NormalizedShapeDiffersFromTrailingDims) {
  Problem p({2, 3, 4}, 2);
  aclDestroyIntArray(p.norm);
  const int64_t norm[2] = {4, 3};
  p.norm = aclCreateIntArray(norm, 2);
  p.weight.reset();
  p.bias.reset();
  p.dgamma.reset(new DeviceTensor(ACL_FLOAT, {4, 3}));
  p.dbeta.reset(new DeviceTensor(ACL_FLOAT, {4, 3}));
  ExpectRefused(p, ACLNN_ERR_PARAM_INVALID);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("trailing dims"), std::string::npos) << aclGetRecentErrMsg();
}

TEST_F(LayerNormBackwardTest, OutputMaskLengthIsNotThree) {
  Problem p({2, 3}, 1);
  aclDestroyBoolArray(p.mask);
  const bool values[2] = {true, true};
  p.mask = aclCreateBoolArray(values, 2);
  ExpectRefused(p, ACLNN_ERR_PARAM_INVALID);
}

TEST_F(LayerNormBackwardTest, RankOutsideOneToEight) {
  const int64_t dims[9] = {1, 1, 1, 1, 1, 1, 1, 1, 2}, strides[9] = {2, 2, 2, 2, 2, 2, 2, 2, 1};
  float data[2] = {};
  EXPECT_EQ(aclCreateTensor(dims, 9, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, dims, 9, data), nullptr);
  for (int which = 0; which < 3; ++which) {  // a 0-dim tensor where 1..8 dims are needed
    Problem p({2, 3}, 1);
    std::unique_ptr<DeviceTensor>* tensors[3] = {&p.mean, &p.weight, &p.dgamma};
    tensors[which]->reset(new DeviceTensor(ACL_FLOAT, {}, {1.0}));
    ExpectRefused(p, ACLNN_ERR_PARAM_INVALID);
  }
}

TEST_F(LayerNormBackwardTest, DestroyedDescriptorIsRefused) {
  Problem p({2, 3}, 1);
  aclTensor* stale = p.x->get();
  aclDestroyTensor(stale);
  EXPECT_EQ(aclnnLayerNormBackwardGetWorkspaceSize(p.dy->get(), stale, p.norm, p.mean->get(), p.rstd->get(), nullptr,
                                                   nullptr, p.mask, p.dx->get(), p.dgamma->get(), p.dbeta->get(),
                                                   &p.workspace_size, &p.executor),
            ACLNN_ERR_PARAM_INVALID);
  // The holder's own destroy of the stale descriptor is refused the same way;
  // its buffer is freed.
  p.x.reset();
}

// --- results ---

void ExpectMatches(const Problem& p, double tol) {
  const auto want = p.Expected();
  EXPECT_LE(ErrorRatio(p.dx->Read(), want.dx, tol, tol), 1.0);
  EXPECT_LE(ErrorRatio(p.dgamma->Read(), want.dgamma, tol, tol), 1.0);
  EXPECT_LE(ErrorRatio(p.dbeta->Read(), want.dbeta, tol, tol), 1.0);
}

TEST_F(LayerNormBackwardTest, DocumentedSample) {
  Problem p({2, 2}, 1);
  p.dy.reset(new DeviceTensor(ACL_FLOAT, {2, 2}, {2, 3, 4, 5}));
  p.x.reset(new DeviceTensor(ACL_FLOAT, {2, 2}, {2, 3, 4, 5}));
  p.mean.reset(new DeviceTensor(ACL_FLOAT, {2, 1}, {2, 3}));
  p.rstd.reset(new DeviceTensor(ACL_FLOAT, {2, 1}, {4, 5}));
  p.weight.reset(new DeviceTensor(ACL_FLOAT, {2}, {1, 1}));
  p.bias.reset(new DeviceTensor(ACL_FLOAT, {2}, {0, 0}));
  ASSERT_EQ(p.PlanAndRun(runtime_.stream()), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  ExpectMatches(p, 1e-6);
  EXPECT_EQ(p.dx->Read(), (std::vector<double>{-2, -94, -877.5, -1747.5}));
  EXPECT_EQ(p.dgamma->Read(), (std::vector<double>{20, 62}));
  EXPECT_EQ(p.dbeta->Read(), (std::vector<double>{6, 8}));
}

TEST_F(LayerNormBackwardTest, NullWeightIsOnes) {
  Problem p({3, 2, 5}, 2, ACL_FLOAT, ACL_FLOAT, ACL_FLOAT, /*with_weight=*/false);
  ASSERT_EQ(p.PlanAndRun(runtime_.stream()), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  ExpectMatches(p, 2e-5);
}

TEST_F(LayerNormBackwardTest, EveryDTypeMix) {
  const aclDataType dtypes[3] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
  for (aclDataType x : dtypes) {
    for (aclDataType stat : dtypes) {
      for (int w = 0; w < 3; ++w) {  // weight: x's dtype, FLOAT, absent
        SCOPED_TRACE(testing::Message() << "x " << x << " mean/rstd " << stat << " weight case " << w);
        Problem p({4, 6}, 1, x, w == 1 ? ACL_FLOAT : x, stat, w != 2);
        ASSERT_EQ(p.PlanAndRun(runtime_.stream()), ACLNN_SUCCESS) << aclGetRecentErrMsg();
        ExpectMatches(p, std::max(Tolerance(x), Tolerance(stat)) * 4);
      }
    }
  }
}

TEST_F(LayerNormBackwardTest, StridedViews) {
  Problem p({3, 4}, 1);
  // input and gradOut as transposed views of [4, 3] storage; outputs padded.
  p.x.reset(new DeviceTensor(ACL_FLOAT, {3, 4}, Pattern(12, 7, 11, -1.25), {1, 3}));
  p.dy.reset(new DeviceTensor(ACL_FLOAT, {3, 4}, Pattern(12, 5, 13, -1.5), {1, 3}, 0));
  p.mean.reset(new DeviceTensor(ACL_FLOAT, {3, 1}, Pattern(3, 3, 5, -0.5), {2, 1}, 1));
  p.dx.reset(new DeviceTensor(ACL_FLOAT, {3, 4}, {}, {6, 1}, 2));
  p.dgamma.reset(new DeviceTensor(ACL_FLOAT, {4}, {}, {2}, 1));
  ASSERT_EQ(p.PlanAndRun(runtime_.stream()), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  ExpectMatches(p, 2e-5);
  // Storage between the strided output elements is untouched.
  std::vector<uint8_t> bytes = p.dgamma->Bytes();
  float gap;
  std::memcpy(&gap, bytes.data(), sizeof(gap));
  EXPECT_EQ(gap, DeviceTensor::kFill);
}

TEST_F(LayerNormBackwardTest, AllFalseMaskDoesNothing) {
  Problem p({2, 3}, 1);
  p.SetMask(false, false, false);
  const auto before = p.OutputBytes();
  ASSERT_EQ(p.PlanAndRun(runtime_.stream()), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(p.workspace_size, 0u);
  EXPECT_EQ(p.OutputBytes(), before);
}

TEST_F(LayerNormBackwardTest, MaskSelectsOutputs) {
  Problem p({2, 3}, 1);
  p.SetMask(false, false, true);
  p.dx.reset();
  p.dgamma.reset();
  ASSERT_EQ(p.PlanAndRun(runtime_.stream()), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_LE(ErrorRatio(p.dbeta->Read(), p.Expected().dbeta, 1e-6, 1e-6), 1.0);
}

TEST_F(LayerNormBackwardTest, NoRowsZeroFillsDgammaAndDbeta) {
  Problem p({0, 4}, 1);
  ASSERT_EQ(p.PlanAndRun(runtime_.stream()), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(p.dgamma->Read(), std::vector<double>(4, 0.0));
  EXPECT_EQ(p.dbeta->Read(), std::vector<double>(4, 0.0));
}

// --- executors ---

TEST_F(LayerNormBackwardTest, ExecutorRunsOnceUnlessRepeatable) {
  Problem p({2, 3}, 1);
  ASSERT_EQ(p.PlanAndRun(runtime_.stream()), ACLNN_SUCCESS);
  EXPECT_EQ(aclnnLayerNormBackward(nullptr, 0, p.executor, runtime_.stream()), ACLNN_ERR_PARAM_INVALID);

  Problem q({2, 3}, 1);
  ASSERT_EQ(q.Plan(), ACLNN_SUCCESS);
  ASSERT_EQ(aclSetAclOpExecutorRepeatable(q.executor), ACLNN_SUCCESS);
  std::vector<uint8_t> ws(q.workspace_size + 1);
  for (int i = 0; i < 2; ++i) EXPECT_EQ(aclnnLayerNormBackward(ws.data(), q.workspace_size, q.executor, runtime_.stream()), ACLNN_SUCCESS);
  EXPECT_EQ(aclDestroyAclOpExecutor(q.executor), ACLNN_SUCCESS);
  EXPECT_EQ(aclDestroyAclOpExecutor(q.executor), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclnnLayerNormBackward(ws.data(), q.workspace_size, q.executor, runtime_.stream()), ACLNN_ERR_PARAM_INVALID);
}

TEST_F(LayerNormBackwardTest, ForeignOrNullExecutor) {
  int not_an_executor = 0;
  EXPECT_EQ(aclnnLayerNormBackward(nullptr, 0, reinterpret_cast<aclOpExecutor*>(&not_an_executor), nullptr),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclnnLayerNormBackward(nullptr, 0, nullptr, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  // An executor of another operator.
  DeviceTensor a(ACL_FLOAT, {2}, {1, 2}), b(ACL_FLOAT, {2}, {1, 2}), c(ACL_FLOAT, {2});
  uint64_t size = 0;
  aclOpExecutor* silu = nullptr;
  ASSERT_EQ(aclnnSiluBackwardGetWorkspaceSize(a, b, c, &size, &silu), ACLNN_SUCCESS);
  EXPECT_EQ(aclnnLayerNormBackward(nullptr, 0, silu, nullptr), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclDestroyAclOpExecutor(silu), ACLNN_SUCCESS);
}

TEST_F(LayerNormBackwardTest, TooLittleWorkspaceFailsCleanly) {
  Problem p({64, 32}, 1);
  ASSERT_EQ(p.Plan(), ACLNN_SUCCESS);
  ASSERT_GT(p.workspace_size, 0u);
  const auto before = p.OutputBytes();
  std::vector<uint8_t> ws(p.workspace_size);
  EXPECT_EQ(aclnnLayerNormBackward(ws.data(), p.workspace_size - 1, p.executor, runtime_.stream()), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclnnLayerNormBackward(nullptr, p.workspace_size, p.executor, runtime_.stream()), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(p.OutputBytes(), before);
  EXPECT_EQ(aclDestroyAclOpExecutor(p.executor), ACLNN_SUCCESS);
}

TEST_F(LayerNormBackwardTest, DestroyedStreamIsRefused) {
  Problem p({2, 3}, 1);
  ASSERT_EQ(p.Plan(), ACLNN_SUCCESS);
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  ASSERT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
  std::vector<uint8_t> ws(p.workspace_size + 1);
  EXPECT_EQ(aclnnLayerNormBackward(ws.data(), p.workspace_size, p.executor, stream), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclDestroyAclOpExecutor(p.executor), ACLNN_SUCCESS);
}

}  // namespace
}  // namespace cann_test
