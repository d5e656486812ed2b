// aclCreateTensor and the other descriptor functions: refusals with
// messages, queries, copying arrays and handle misuse.
#include <gtest/gtest.h>

#include <string>

#include "aclnn/aclnn_base.h"
#include "opdev/op_errno.h"

namespace {

const int64_t kShape[2] = {2, 3};
const int64_t kStrides[2] = {3, 1};

// Expects creation to fail with a message containing `words`.
void ExpectRefused(aclTensor* tensor, const char* words) {
  EXPECT_EQ(tensor, nullptr);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find(words), std::string::npos) << aclGetRecentErrMsg();
  aclDestroyTensor(tensor);
}

TEST(Descriptors, TensorQueries) {
  float data[16] = {};
  const int64_t storage[1] = {16};
  aclTensor* t = aclCreateTensor(kShape, 2, ACL_BF16, kStrides, 4, ACL_FORMAT_ND, storage, 1, data);
  ASSERT_NE(t, nullptr) << aclGetRecentErrMsg();
  int64_t* dims = nullptr;
  uint64_t n = 0;
  ASSERT_EQ(aclGetViewShape(t, &dims, &n), ACLNN_SUCCESS);
  EXPECT_EQ(n, 2u);
  EXPECT_EQ(dims[1], 3);
  delete[] dims;
  ASSERT_EQ(aclGetViewStrides(t, &dims, &n), ACLNN_SUCCESS);
  EXPECT_EQ(dims[0], 3);
  delete[] dims;
  ASSERT_EQ(aclGetStorageShape(t, &dims, &n), ACLNN_SUCCESS);
  EXPECT_EQ(n, 1u);
  EXPECT_EQ(dims[0], 16);
  delete[] dims;
  int64_t offset = 0;
  aclFormat format = ACL_FORMAT_UNDEFINED;
  aclDataType dtype = ACL_DT_UNDEFINED;
  void* addr = nullptr;
  EXPECT_EQ(aclGetViewOffset(t, &offset), ACLNN_SUCCESS);
  EXPECT_EQ(offset, 4);
  EXPECT_EQ(aclGetFormat(t, &format), ACLNN_SUCCESS);
  EXPECT_EQ(format, ACL_FORMAT_ND);
  EXPECT_EQ(aclGetDataType(t, &dtype), ACLNN_SUCCESS);
  EXPECT_EQ(dtype, ACL_BF16);
  EXPECT_EQ(aclGetRawTensorAddr(t, &addr), ACLNN_SUCCESS);
  EXPECT_EQ(addr, data);
  EXPECT_EQ(aclGetViewOffset(t, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclDestroyTensor(t), ACLNN_SUCCESS);
  EXPECT_EQ(aclDestroyTensor(t), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclGetViewOffset(t, &offset), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclDestroyTensor(nullptr), ACLNN_SUCCESS);
}

TEST(Descriptors, TransposedViewOfDocumentation) {
  const int64_t view[2] = {4, 2}, strides[2] = {1, 4}, storage[2] = {2, 4};
  float data[8] = {};
  aclTensor* t = aclCreateTensor(view, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, storage, 2, data);
  EXPECT_NE(t, nullptr) << aclGetRecentErrMsg();
  aclDestroyTensor(t);
}

TEST(Descriptors, RefusedTensors) {
  float data[6] = {};
  const int64_t nine[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
  ExpectRefused(aclCreateTensor(nine, 9, ACL_FLOAT, nine, 0, ACL_FORMAT_ND, nine, 1, data), "more than 8");
  const int64_t negative_stride[2] = {3, -1};
  ExpectRefused(aclCreateTensor(kShape, 2, ACL_FLOAT, negative_stride, 2, ACL_FORMAT_ND, kShape, 2, data), "negative");
  const int64_t negative_dim[2] = {2, -3};
  ExpectRefused(aclCreateTensor(negative_dim, 2, ACL_FLOAT, kStrides, 0, ACL_FORMAT_ND, kShape, 2, data), "negative");
  ExpectRefused(aclCreateTensor(kShape, 2, ACL_FLOAT, kStrides, -1, ACL_FORMAT_ND, kShape, 2, data), "offset");
  ExpectRefused(aclCreateTensor(kShape, 2, ACL_FLOAT, kStrides, 1, ACL_FORMAT_ND, kShape, 2, data), "storage");
  const int64_t wide[2] = {4, 1};
  ExpectRefused(aclCreateTensor(kShape, 2, ACL_FLOAT, wide, 0, ACL_FORMAT_ND, kShape, 2, data), "storage");
  ExpectRefused(aclCreateTensor(kShape, 2, static_cast<aclDataType>(5), kStrides, 0, ACL_FORMAT_ND, kShape, 2, data),
                "dataType");
  ExpectRefused(aclCreateTensor(kShape, 2, static_cast<aclDataType>(1000), kStrides, 0, ACL_FORMAT_ND, kShape, 2, data),
                "dataType");
  ExpectRefused(aclCreateTensor(nullptr, 2, ACL_FLOAT, kStrides, 0, ACL_FORMAT_ND, kShape, 2, data), "viewDims");
  ExpectRefused(aclCreateTensor(kShape, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, kShape, 2, data), "stride");
  const int64_t huge[2] = {INT64_MAX / 2, 4};
  ExpectRefused(aclCreateTensor(huge, 2, ACL_FLOAT, huge, 0, ACL_FORMAT_ND, huge, 2, data), "overflow");
}

TEST(Descriptors, InitTensorRedescribes) {
  float data[6] = {};
  aclTensor* t = aclCreateTensor(kShape, 2, ACL_FLOAT, kStrides, 0, ACL_FORMAT_ND, kShape, 2, data);
  ASSERT_NE(t, nullptr);
  const int64_t flat[1] = {6}, one[1] = {1};
  EXPECT_EQ(aclInitTensor(t, flat, 1, ACL_FLOAT16, one, 0, ACL_FORMAT_ND, flat, 1, data), ACLNN_SUCCESS);
  EXPECT_EQ(aclInitTensor(t, flat, 1, ACL_FLOAT16, one, 1, ACL_FORMAT_ND, flat, 1, data), ACLNN_ERR_PARAM_INVALID);
  aclDataType dtype;
  EXPECT_EQ(aclGetDataType(t, &dtype), ACLNN_SUCCESS);
  EXPECT_EQ(dtype, ACL_FLOAT16);
  aclDestroyTensor(t);
}

TEST(Descriptors, ArraysCopyTheirValues) {
  int64_t ints[3] = {4, 5, 6};
  bool bools[2] = {true, false};
  aclIntArray* a = aclCreateIntArray(ints, 3);
  aclBoolArray* b = aclCreateBoolArray(bools, 2);
  ints[0] = 99;
  uint64_t size = 0;
  EXPECT_EQ(aclGetIntArraySize(a, &size), ACLNN_SUCCESS);
  EXPECT_EQ(size, 3u);
  EXPECT_EQ(aclGetBoolArraySize(b, &size), ACLNN_SUCCESS);
  EXPECT_EQ(size, 2u);
  EXPECT_EQ(aclCreateIntArray(nullptr, 2), nullptr);
  EXPECT_EQ(aclDestroyIntArray(a), ACLNN_SUCCESS);
  EXPECT_EQ(aclDestroyIntArray(a), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclGetIntArraySize(a, &size), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclDestroyBoolArray(b), ACLNN_SUCCESS);
  EXPECT_EQ(aclnnInit(nullptr), ACLNN_SUCCESS);
  EXPECT_EQ(aclnnFinalize(), ACLNN_SUCCESS);
}

TEST(Descriptors, ExecutorHandles) {
  EXPECT_EQ(aclSetAclOpExecutorRepeatable(nullptr), ACLNN_ERR_PARAM_NULLPTR);
  int foreign = 0;
  EXPECT_EQ(aclSetAclOpExecutorRepeatable(reinterpret_cast<aclOpExecutor*>(&foreign)), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclDestroyAclOpExecutor(reinterpret_cast<aclOpExecutor*>(&foreign)), ACLNN_ERR_PARAM_INVALID);
}

}  // namespace
