// aclnnSiluBackward sample: float16 gradients for a 2 x 4 input, the
// gradient broadcast from one row. Prints the inputs and the result as
// "name[i] = value".
#include <vector>

#include "aclnnop/aclnn_silu_backward.h"
#include "sample_util.h"

int main() {
  aclrtStream stream = nullptr;
  SAMPLE_CHECK(InitRuntime(&stream), "runtime set-up");

  const std::vector<int64_t> dyShape = {1, 4}, xShape = {2, 4};
  const std::vector<float> dy = {1.0f, -2.0f, 0.5f, 4.0f};
  const std::vector<float> x = {-3.0f, -0.5f, 0.0f, 0.75f, 1.5f, 2.0f, -6.0f, 8.0f};
  PrintHostFloats("dy", dy);
  PrintHostFloats("x", x);
  std::vector<aclFloat16> dyHalf, xHalf;
  for (float v : dy) dyHalf.push_back(aclFloatToFloat16(v));
  for (float v : x) xHalf.push_back(aclFloatToFloat16(v));

  void *dyDev, *xDev, *dxDev;
  aclTensor *dyT, *xT, *dxT;
  SAMPLE_CHECK(MakeDeviceTensor(dyHalf, dyShape, ACL_FLOAT16, &dyDev, &dyT), "gradOutput");
  SAMPLE_CHECK(MakeDeviceTensor(xHalf, xShape, ACL_FLOAT16, &xDev, &xT), "self");
  SAMPLE_CHECK(MakeDeviceTensor(std::vector<aclFloat16>(8), xShape, ACL_FLOAT16, &dxDev, &dxT), "gradInput");

  uint64_t workspaceSize = 0;
  aclOpExecutor* executor = nullptr;
  SAMPLE_CHECK(aclnnSiluBackwardGetWorkspaceSize(dyT, xT, dxT, &workspaceSize, &executor),
               "aclnnSiluBackwardGetWorkspaceSize");
  void* workspace = nullptr;
  if (workspaceSize > 0) SAMPLE_CHECK(aclrtMalloc(&workspace, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST), "workspace");
  SAMPLE_CHECK(aclnnSiluBackward(workspace, workspaceSize, executor, stream), "aclnnSiluBackward");
  SAMPLE_CHECK(aclrtSynchronizeStream(stream), "aclrtSynchronizeStream");

  std::vector<aclFloat16> dxHalf(8);
  SAMPLE_CHECK(aclrtMemcpy(dxHalf.data(), 16, dxDev, 16, ACL_MEMCPY_DEVICE_TO_HOST), "aclrtMemcpy");
  std::vector<float> dx;
  for (aclFloat16 v : dxHalf) dx.push_back(aclFloat16ToFloat(v));
  PrintHostFloats("dx", dx);

  for (aclTensor* t : {dyT, xT, dxT}) aclDestroyTensor(t);
  for (void* p : {dyDev, xDev, dxDev}) aclrtFree(p);
  if (workspace != nullptr) aclrtFree(workspace);
  return FinalizeRuntime(stream);
}
