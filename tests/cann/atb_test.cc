// ATB: contexts, operation handles, Utils, and RmsNormBackward's documented
// checks and results against the float64 reference.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "atb/atb_infer.h"
#include "demo_util.h"
#include "ref/reference.h"
#include "test_util.h"

namespace cann_test {
namespace {

atb::TensorDesc Desc(aclDataType dtype, std::vector<int64_t> dims, aclFormat format = ACL_FORMAT_ND) {
  atb::TensorDesc d;
  d.dtype = dtype;
  d.format = format;
  d.shape.dimNum = dims.size();
  for (size_t i = 0; i < dims.size() && i < atb::MAX_DIM; ++i) d.shape.dims[i] = dims[i];
  return d;
}

class RmsNormBackwardTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(atb::CreateContext(&context_), atb::NO_ERROR);
    ASSERT_EQ(context_->SetExecuteStream(runtime_.stream()), atb::NO_ERROR);
    ASSERT_EQ(atb::CreateOperation(atb::train::RmsNormBackwardParam(), &op_), atb::NO_ERROR);
  }
  void TearDown() override {
    for (atb::Tensor& t : pack_.inTensors) aclrtFree(t.deviceData);
    for (atb::Tensor& t : pack_.outTensors) aclrtFree(t.deviceData);
    EXPECT_EQ(atb::DestroyOperation(op_), atb::NO_ERROR);
    EXPECT_EQ(atb::DestroyContext(context_), atb::NO_ERROR);
  }
  // dy, x, rstd, gamma, dx, dgamma for x of `shape` with `norm_rank` trailing dims normalized.
  void MakePack(aclDataType dtype, std::vector<int64_t> shape, int norm_rank) {
    std::vector<int64_t> gamma(shape.end() - norm_rank, shape.end()), rows(shape.begin(), shape.end() - norm_rank);
    int64_t M = 1, N = 1;
    for (int64_t d : rows) M *= d;
    for (int64_t d : gamma) N *= d;
    rows.push_back(1);
    pack_.inTensors.resize(4);
    pack_.outTensors.resize(2);
    ASSERT_EQ(CreateTensorFromVector(context_, runtime_.stream(), Pattern(M * N, 5, 13, -1.5), dtype, ACL_FORMAT_ND, shape, pack_.inTensors[0]), 0);
    ASSERT_EQ(CreateTensorFromVector(context_, runtime_.stream(), Pattern(M * N, 7, 11, -1.25), dtype, ACL_FORMAT_ND, shape, pack_.inTensors[1]), 0);
    ASSERT_EQ(CreateTensorFromVector(context_, runtime_.stream(), Pattern(M, 2, 7, 0.5), ACL_FLOAT, ACL_FORMAT_ND, rows, pack_.inTensors[2]), 0);
    ASSERT_EQ(CreateTensorFromVector(context_, runtime_.stream(), Pattern(N, 3, 8, -0.75), dtype, ACL_FORMAT_ND, gamma, pack_.inTensors[3]), 0);
    ASSERT_EQ(CreateTensor(dtype, ACL_FORMAT_ND, shape, pack_.outTensors[0]), 0);
    ASSERT_EQ(CreateTensor(ACL_FLOAT, ACL_FORMAT_ND, gamma, pack_.outTensors[1]), 0);
  }
  gradops::TensorView View(const atb::Tensor& t) {
    gradops::DType dtype = t.desc.dtype == ACL_FLOAT16 ? gradops::DType::kFloat16
                           : t.desc.dtype == ACL_BF16  ? gradops::DType::kBFloat16
                                                       : gradops::DType::kFloat32;
    return gradops::Contiguous(t.deviceData, dtype, static_cast<int>(t.desc.shape.dimNum), t.desc.shape.dims);
  }
  std::vector<double> Read(const atb::Tensor& t) { return gradops::ref::Read(View(t)); }
  atb::Status RunSetup() { return op_->Setup(pack_, workspace_size_, context_); }
  atb::Status SetupAndExecute() {
    atb::Status s = RunSetup();
    if (s != atb::NO_ERROR) return s;
    workspace_.assign(workspace_size_ + 1, 0);
    s = op_->Execute(pack_, workspace_.data(), workspace_size_, context_);
    EXPECT_EQ(aclrtSynchronizeStream(runtime_.stream()), ACL_SUCCESS);
    return s;
  }
  void ExpectMatches(double tol) {
    gradops::RmsNormBackwardArgs a;
    a.dy = View(pack_.inTensors[0]);
    a.x = View(pack_.inTensors[1]);
    a.rstd = View(pack_.inTensors[2]);
    a.gamma = View(pack_.inTensors[3]);
    const auto want = gradops::ref::RmsNormBackward(a);
    EXPECT_LE(ErrorRatio(Read(pack_.outTensors[0]), want.dx, tol, tol), 1.0);
    EXPECT_LE(ErrorRatio(Read(pack_.outTensors[1]), want.dgamma, tol, tol), 1.0);
  }

  Runtime runtime_;
  atb::Context* context_ = nullptr;
  atb::Operation* op_ = nullptr;
  atb::VariantPack pack_;
  uint64_t workspace_size_ = 0;
  std::vector<uint8_t> workspace_;
};

TEST_F(RmsNormBackwardTest, Describes) {
  EXPECT_EQ(op_->GetName(), "RmsNormBackwardOperation");
  EXPECT_EQ(op_->GetInputNum(), 4u);
  EXPECT_EQ(op_->GetOutputNum(), 2u);
  atb::SVector<atb::TensorDesc> in = {Desc(ACL_BF16, {2, 3, 4}), Desc(ACL_BF16, {2, 3, 4}), Desc(ACL_FLOAT, {2, 3}),
                                      Desc(ACL_BF16, {4})};
  atb::SVector<atb::TensorDesc> out;
  ASSERT_EQ(op_->InferShape(in, out), atb::NO_ERROR);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].dtype, ACL_BF16);
  EXPECT_EQ(out[0].shape.dimNum, 3u);
  EXPECT_EQ(out[1].dtype, ACL_FLOAT);
  EXPECT_EQ(out[1].shape.dims[0], 4);
  in[3] = Desc(ACL_BF16, {1, 2, 3, 4});
  EXPECT_EQ(op_->InferShape(in, out), atb::ERROR_INVALID_TENSOR_DIM);
}

TEST_F(RmsNormBackwardTest, EveryDType) {
  for (aclDataType dtype : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
    MakePack(dtype, {3, 2, 8}, 1);
    ASSERT_EQ(SetupAndExecute(), atb::NO_ERROR) << aclGetRecentErrMsg();
    ExpectMatches(Tolerance(dtype) * 4);
    TearDown();
    pack_ = atb::VariantPack();
    SetUp();
  }
}

TEST_F(RmsNormBackwardTest, GammaOfSeveralDims) {
  MakePack(ACL_FLOAT, {4, 3, 5}, 2);
  ASSERT_EQ(SetupAndExecute(), atb::NO_ERROR) << aclGetRecentErrMsg();
  ExpectMatches(2e-5);
}

TEST_F(RmsNormBackwardTest, DocumentedDemoScenario) {
  pack_.inTensors = {CreateTensorFromVector(context_, nullptr, std::vector<float>(32 * 64 * 128, 2.0f), ACL_FLOAT, ACL_FORMAT_ND, {32, 64, 128}),
                     CreateTensorFromVector(context_, nullptr, std::vector<float>(32 * 64 * 128, 2.0f), ACL_FLOAT, ACL_FORMAT_ND, {32, 64, 128}),
                     CreateTensorFromVector(context_, nullptr, std::vector<float>(32 * 64, 2.0f), ACL_FLOAT, ACL_FORMAT_ND, {32, 64, 1}),
                     CreateTensorFromVector(context_, nullptr, std::vector<float>(128, 2.0f), ACL_FLOAT, ACL_FORMAT_ND, {128})};
  pack_.outTensors = {CreateTensor(ACL_FLOAT, ACL_FORMAT_ND, {32, 64, 128}), CreateTensor(ACL_FLOAT, ACL_FORMAT_ND, {128})};
  ASSERT_EQ(SetupAndExecute(), atb::NO_ERROR) << aclGetRecentErrMsg();
  ExpectMatches(1e-5);
}

TEST_F(RmsNormBackwardTest, SetupChecks) {
  MakePack(ACL_FLOAT, {2, 4}, 1);
  EXPECT_EQ(op_->Setup(pack_, workspace_size_, nullptr), atb::ERROR_INVALID_PARAM);
  atb::VariantPack bad = pack_;
  bad.inTensors.resize(3);
  EXPECT_EQ(op_->Setup(bad, workspace_size_, context_), atb::ERROR_INVALID_IN_TENSOR_NUM);
  bad = pack_;
  bad.outTensors.resize(1);
  EXPECT_EQ(op_->Setup(bad, workspace_size_, context_), atb::ERROR_INVALID_IN_TENSOR_NUM);

  struct Case {
    int tensor;  // 0..3 inputs, 4..5 outputs
    atb::TensorDesc desc;
    atb::Status code;
  } cases[] = {
      {2, Desc(ACL_FLOAT16, {2, 1}), atb::ERROR_INVALID_TENSOR_INI_MATCH},     // rstd not float
      {5, Desc(ACL_FLOAT16, {4}), atb::ERROR_INVALID_TENSOR_INI_MATCH},        // dgamma not float
      {0, Desc(ACL_FLOAT16, {2, 4}), atb::ERROR_INVALID_TENSOR_INI_MATCH},     // dy differs from x
      {3, Desc(ACL_BF16, {4}), atb::ERROR_INVALID_TENSOR_INI_MATCH},           // gamma differs from x
      {1, Desc(ACL_FLOAT, {2, 4}, ACL_FORMAT_FRACTAL_NZ), atb::ERROR_INVALID_TENSOR_INI_MATCH},
      {1, Desc(ACL_INT32, {2, 4}), atb::ERROR_INVALID_TENSOR_INI_MATCH},
      {3, Desc(ACL_FLOAT, {1, 2, 4}), atb::ERROR_INVALID_TENSOR_DIM},          // gamma has more dims than x
      {3, Desc(ACL_FLOAT, {2}), atb::ERROR_INVALID_TENSOR_DIM},                // gamma not x's trailing dims
      {0, Desc(ACL_FLOAT, {4, 2}), atb::ERROR_INVALID_TENSOR_DIM},             // dy differs from x
      {2, Desc(ACL_FLOAT, {3}), atb::ERROR_INVALID_TENSOR_DIM},                // rstd count
      {4, Desc(ACL_FLOAT, {2, 2, 2}), atb::ERROR_INVALID_TENSOR_DIM},          // dx differs from x
      {5, Desc(ACL_FLOAT, {1, 4}), atb::ERROR_INVALID_TENSOR_DIM},             // dgamma differs from gamma
      {1, Desc(ACL_FLOAT, {}), atb::ERROR_INVALID_TENSOR_DIM_NUM},
  };
  for (const Case& c : cases) {
    bad = pack_;
    (c.tensor < 4 ? bad.inTensors[c.tensor] : bad.outTensors[c.tensor - 4]).desc = c.desc;
    EXPECT_EQ(op_->Setup(bad, workspace_size_, context_), c.code) << "tensor " << c.tensor << ": " << aclGetRecentErrMsg();
  }
  bad = pack_;
  bad.inTensors[1].desc.shape.dimNum = 9;
  EXPECT_EQ(op_->Setup(bad, workspace_size_, context_), atb::ERROR_INVALID_TENSOR_DIM_NUM);
}

TEST_F(RmsNormBackwardTest, ExecuteChecks) {
  MakePack(ACL_FLOAT, {64, 32}, 1);
  const std::vector<uint8_t> before(static_cast<uint8_t*>(pack_.outTensors[0].deviceData),
                                    static_cast<uint8_t*>(pack_.outTensors[0].deviceData) + pack_.outTensors[0].dataSize);
  std::vector<uint8_t> ws(1 << 20);
  EXPECT_EQ(op_->Execute(pack_, ws.data(), ws.size(), context_), atb::ERROR_INVALID_PARAM);  // no Setup yet
  ASSERT_EQ(RunSetup(), atb::NO_ERROR);
  ASSERT_GT(workspace_size_, 0u);
  atb::Context* other = nullptr;
  ASSERT_EQ(atb::CreateContext(&other), atb::NO_ERROR);
  EXPECT_EQ(op_->Execute(pack_, ws.data(), workspace_size_, other), atb::ERROR_INVALID_PARAM);
  EXPECT_EQ(atb::DestroyContext(other), atb::NO_ERROR);
  EXPECT_EQ(op_->Execute(pack_, ws.data(), workspace_size_ - 1, context_), atb::ERROR_INVALID_PARAM);
  EXPECT_EQ(op_->Execute(pack_, nullptr, workspace_size_, context_), atb::ERROR_INVALID_PARAM);
  atb::VariantPack bad = pack_;
  bad.inTensors[1].dataSize -= 4;
  EXPECT_EQ(op_->Execute(bad, ws.data(), workspace_size_, context_), atb::ERROR_INVALID_PARAM);
  bad = pack_;
  bad.outTensors[0].deviceData = nullptr;
  EXPECT_EQ(op_->Execute(bad, ws.data(), workspace_size_, context_), atb::ERROR_INVALID_PARAM);
  ASSERT_EQ(context_->SetExecuteStream(nullptr), atb::NO_ERROR);
  EXPECT_EQ(op_->Execute(pack_, ws.data(), workspace_size_, context_), atb::ERROR_INVALID_PARAM);
  const std::vector<uint8_t> after(static_cast<uint8_t*>(pack_.outTensors[0].deviceData),
                                   static_cast<uint8_t*>(pack_.outTensors[0].deviceData) + pack_.outTensors[0].dataSize);
  EXPECT_EQ(before, after);
}

TEST(Atb, HandlesAndUtils) {
  atb::train::RmsNormBackwardParam param;
  EXPECT_EQ(atb::CreateOperation(param, nullptr), atb::ERROR_INVALID_PARAM);
  param.rsv[3] = 1;
  atb::Operation* op = nullptr;
  EXPECT_EQ(atb::CreateOperation(param, &op), atb::ERROR_INVALID_PARAM);
  param.rsv[3] = 0;
  ASSERT_EQ(atb::CreateOperation(param, &op), atb::NO_ERROR);
  EXPECT_EQ(atb::DestroyOperation(op), atb::NO_ERROR);
  EXPECT_EQ(atb::DestroyOperation(op), atb::ERROR_INVALID_OPERATION_ADDR);
  EXPECT_EQ(atb::DestroyOperation(nullptr), atb::NO_ERROR);

  atb::Context* context = nullptr;
  ASSERT_EQ(atb::CreateContext(&context), atb::NO_ERROR);
  EXPECT_EQ(context->GetExecuteStream(), nullptr);
  EXPECT_EQ(atb::DestroyContext(context), atb::NO_ERROR);
  EXPECT_EQ(atb::DestroyContext(context), atb::ERROR_INVALID_CONTEXT_ADDR);

  atb::Tensor t;
  EXPECT_EQ(atb::Utils::GetTensorSize(t), 0u);
  t.desc = Desc(ACL_FLOAT16, {3, 5});
  EXPECT_EQ(atb::Utils::GetTensorSize(t), 30u);
  EXPECT_EQ(atb::Utils::GetTensorNumel(t.desc), 15);
}

// CHECK_STATUS returns from functions of any return type.
atb::Operation* FailInPointerFunction() {
  CHECK_STATUS(atb::ERROR_INVALID_PARAM);
  return reinterpret_cast<atb::Operation*>(1);
}
int FailInIntFunction() {
  CHECK_STATUS(7);
  return 0;
}
std::vector<int> FailInClassFunction() {
  CHECK_STATUS(aclrtFree(nullptr));
  return {1};
}

TEST(Atb, CheckStatusReturnsAnyType) {
  EXPECT_EQ(FailInPointerFunction(), nullptr);
  EXPECT_EQ(FailInIntFunction(), 7);
  EXPECT_TRUE(FailInClassFunction().empty());
}

}  // namespace
}  // namespace cann_test
