// aclnnSiluBackward: the documented error table, broadcasting, dtype mixes,
// strided views and empty tensors, against the float64 reference.
#include <gtest/gtest.h>

#include "aclnnop/aclnn_silu_backward.h"
#include "opdev/op_errno.h"
#include "ref/reference.h"
#include "test_util.h"

namespace cann_test {
namespace {

class SiluBackwardTest : public ::testing::Test {
 protected:
  aclnnStatus Plan(aclTensor* dy, aclTensor* x, aclTensor* dx) {
    return aclnnSiluBackwardGetWorkspaceSize(dy, x, dx, &workspace_size_, &executor_);
  }
  aclnnStatus PlanAndRun(aclTensor* dy, aclTensor* x, aclTensor* dx) {
    aclnnStatus s = Plan(dy, x, dx);
    if (s != ACLNN_SUCCESS) return s;
    EXPECT_EQ(workspace_size_, 0u);
    s = aclnnSiluBackward(nullptr, workspace_size_, executor_, runtime_.stream());
    EXPECT_EQ(aclrtSynchronizeStream(runtime_.stream()), ACL_SUCCESS);
    return s;
  }
  void ExpectMatches(const DeviceTensor& dy, const DeviceTensor& x, const DeviceTensor& dx, double tol) {
    gradops::SiluBackwardArgs a;
    a.dy = dy.View();
    a.x = x.View();
    a.dx = dx.View();
    EXPECT_LE(ErrorRatio(dx.Read(), gradops::ref::SiluBackward(a), tol, tol), 1.0);
  }
  void ExpectRefused(aclTensor* dy, aclTensor* x, const DeviceTensor& dx, aclnnStatus code) {
    const auto before = dx.Bytes();
    EXPECT_EQ(Plan(dy, x, dx), code) << aclGetRecentErrMsg();
    EXPECT_NE(std::string(aclGetRecentErrMsg()), "");
    EXPECT_EQ(dx.Bytes(), before);
  }

  Runtime runtime_;
  uint64_t workspace_size_ = 0;
  aclOpExecutor* executor_ = nullptr;
};

TEST_F(SiluBackwardTest, NullPointers) {
  DeviceTensor dy(ACL_FLOAT, {2, 3}), x(ACL_FLOAT, {2, 3}), dx(ACL_FLOAT, {2, 3});
  ExpectRefused(nullptr, x, dx, ACLNN_ERR_PARAM_NULLPTR);
  ExpectRefused(dy, nullptr, dx, ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(Plan(dy, x, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnSiluBackwardGetWorkspaceSize(dy, x, dx, nullptr, &executor_), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnSiluBackwardGetWorkspaceSize(dy, x, dx, &workspace_size_, nullptr), ACLNN_ERR_PARAM_NULLPTR);
}

TEST_F(SiluBackwardTest, UnsupportedDType) {
  DeviceTensor f(ACL_FLOAT, {2, 3}), i(ACL_INT64, {2, 3}), dx(ACL_FLOAT, {2, 3}), di(ACL_INT32, {2, 3});
  ExpectRefused(i, f, dx, ACLNN_ERR_PARAM_INVALID);
  ExpectRefused(f, i, dx, ACLNN_ERR_PARAM_INVALID);
  ExpectRefused(f, f, di, ACLNN_ERR_PARAM_INVALID);
}

TEST_F(SiluBackwardTest, DTypesDiffer) {
  DeviceTensor h(ACL_FLOAT16, {2, 3}), f(ACL_FLOAT, {2, 3}), dh(ACL_FLOAT16, {2, 3}), db(ACL_BF16, {2, 3});
  ExpectRefused(h, f, dh, ACLNN_ERR_PARAM_INVALID);
  ExpectRefused(h, h, db, ACLNN_ERR_PARAM_INVALID);
}

TEST_F(SiluBackwardTest, ShapesDoNotBroadcast) {
  DeviceTensor dy(ACL_FLOAT, {2, 3}), x(ACL_FLOAT, {3, 2}), dx(ACL_FLOAT, {2, 3}), dx_wrong(ACL_FLOAT, {4, 3});
  ExpectRefused(dy, x, dx, ACLNN_ERR_PARAM_INVALID);
  ExpectRefused(dy, dy, dx_wrong, ACLNN_ERR_PARAM_INVALID);
}

TEST_F(SiluBackwardTest, DocumentedSample) {
  DeviceTensor dy(ACL_FLOAT, {2, 3}, {1, 1, 1, 1, 1, 1}), x(ACL_FLOAT, {2, 3}, {1, 2, 3, 4, 5, 6});
  DeviceTensor dx(ACL_FLOAT, {2, 3});
  ASSERT_EQ(PlanAndRun(dy, x, dx), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  ExpectMatches(dy, x, dx, 1e-6);
}

TEST_F(SiluBackwardTest, EveryDType) {
  for (aclDataType t : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
    DeviceTensor dy(t, {3, 5}, Pattern(15, 5, 13, -1.5)), x(t, {3, 5}, Pattern(15, 7, 11, -1.25)), dx(t, {3, 5});
    ASSERT_EQ(PlanAndRun(dy, x, dx), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    ExpectMatches(dy, x, dx, Tolerance(t));
  }
}

TEST_F(SiluBackwardTest, MixedInputsWithFloatOutput) {
  DeviceTensor dy(ACL_BF16, {4}, {1, -2, 0.5, 3}), x(ACL_FLOAT16, {4}, {-1, 0, 2, 8}), dx(ACL_FLOAT, {4});
  ASSERT_EQ(PlanAndRun(dy, x, dx), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  ExpectMatches(dy, x, dx, 1e-6);
}

TEST_F(SiluBackwardTest, Broadcasting) {
  DeviceTensor dy(ACL_FLOAT, {3, 1}, {1, 2, -1}), x(ACL_FLOAT, {4}, {-2, -0.5, 1, 3}), dx(ACL_FLOAT, {3, 4});
  ASSERT_EQ(PlanAndRun(dy, x, dx), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  ExpectMatches(dy, x, dx, 1e-6);
}

TEST_F(SiluBackwardTest, StridedViews) {
  DeviceTensor dy(ACL_FLOAT, {3, 4}, Pattern(12, 5, 13, -1.5), {1, 3});
  DeviceTensor x(ACL_FLOAT, {3, 4}, Pattern(12, 7, 11, -1.25), {8, 2}, 1);
  DeviceTensor dx(ACL_FLOAT, {3, 4}, {}, {5, 1}, 3);
  ASSERT_EQ(PlanAndRun(dy, x, dx), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  ExpectMatches(dy, x, dx, 1e-6);
}

TEST_F(SiluBackwardTest, EmptyTensorsNeedNoWorkspace) {
  DeviceTensor dy(ACL_FLOAT, {0, 3}), x(ACL_FLOAT, {0, 3}), dx(ACL_FLOAT, {0, 3});
  EXPECT_EQ(PlanAndRun(dy, x, dx), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(workspace_size_, 0u);
}

}  // namespace
}  // namespace cann_test
