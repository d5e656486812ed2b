// aclnnLayerNormBackward sample: a 3 x 4 float input normalized over its last
// dim, with a weight, all three gradients. Prints the inputs and the results
// as "name[i] = value".
#include <cmath>
#include <vector>

#include "aclnnop/aclnn_layer_norm_backward.h"
#include "sample_util.h"

int main() {
  aclrtStream stream = nullptr;
  SAMPLE_CHECK(InitRuntime(&stream), "runtime set-up");

  const std::vector<int64_t> xShape = {3, 4}, statShape = {3, 1}, normShape = {4};
  const std::vector<float> x = {0.5f, -1.0f, 2.0f, 3.5f, 1.0f, 1.5f, -0.5f, 0.0f, -2.0f, 4.0f, 1.0f, 0.25f};
  const std::vector<float> dy = {1.0f, -0.5f, 0.25f, 2.0f, -1.5f, 0.75f, 1.0f, -0.25f, 0.5f, 0.5f, -1.0f, 3.0f};
  const std::vector<float> weight = {1.0f, 0.5f, -2.0f, 1.5f};
  const std::vector<float> bias = {0.0f, 0.1f, 0.2f, 0.3f};
  // The statistics the forward pass would have saved (epsilon 1e-5).
  std::vector<float> mean(3), rstd(3);
  for (int r = 0; r < 3; ++r) {
    float sum = 0, sq = 0;
    for (int c = 0; c < 4; ++c) sum += x[r * 4 + c];
    mean[r] = sum / 4;
    for (int c = 0; c < 4; ++c) sq += (x[r * 4 + c] - mean[r]) * (x[r * 4 + c] - mean[r]);
    rstd[r] = 1.0f / std::sqrt(sq / 4 + 1e-5f);
  }
  PrintHostFloats("x", x);
  PrintHostFloats("dy", dy);
  PrintHostFloats("mean", mean);
  PrintHostFloats("rstd", rstd);
  PrintHostFloats("weight", weight);

  void *dyDev, *xDev, *meanDev, *rstdDev, *weightDev, *biasDev, *dxDev, *dwDev, *dbDev;
  aclTensor *dyT, *xT, *meanT, *rstdT, *weightT, *biasT, *dxT, *dwT, *dbT;
  SAMPLE_CHECK(MakeDeviceTensor(dy, xShape, ACL_FLOAT, &dyDev, &dyT), "gradOut");
  SAMPLE_CHECK(MakeDeviceTensor(x, xShape, ACL_FLOAT, &xDev, &xT), "input");
  SAMPLE_CHECK(MakeDeviceTensor(mean, statShape, ACL_FLOAT, &meanDev, &meanT), "mean");
  SAMPLE_CHECK(MakeDeviceTensor(rstd, statShape, ACL_FLOAT, &rstdDev, &rstdT), "rstd");
  SAMPLE_CHECK(MakeDeviceTensor(weight, normShape, ACL_FLOAT, &weightDev, &weightT), "weight");
  SAMPLE_CHECK(MakeDeviceTensor(bias, normShape, ACL_FLOAT, &biasDev, &biasT), "bias");
  SAMPLE_CHECK(MakeDeviceTensor(std::vector<float>(12), xShape, ACL_FLOAT, &dxDev, &dxT), "gradInputOut");
  SAMPLE_CHECK(MakeDeviceTensor(std::vector<float>(4), normShape, ACL_FLOAT, &dwDev, &dwT), "gradWeightOut");
  SAMPLE_CHECK(MakeDeviceTensor(std::vector<float>(4), normShape, ACL_FLOAT, &dbDev, &dbT), "gradBiasOut");
  aclIntArray* norm = aclCreateIntArray(normShape.data(), normShape.size());
  const bool maskValues[3] = {true, true, true};
  aclBoolArray* mask = aclCreateBoolArray(maskValues, 3);

  uint64_t workspaceSize = 0;
  aclOpExecutor* executor = nullptr;
  SAMPLE_CHECK(aclnnLayerNormBackwardGetWorkspaceSize(dyT, xT, norm, meanT, rstdT, weightT, biasT, mask, dxT, dwT,
                                                      dbT, &workspaceSize, &executor),
               "aclnnLayerNormBackwardGetWorkspaceSize");
  void* workspace = nullptr;
  if (workspaceSize > 0) SAMPLE_CHECK(aclrtMalloc(&workspace, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST), "workspace");
  SAMPLE_CHECK(aclnnLayerNormBackward(workspace, workspaceSize, executor, stream), "aclnnLayerNormBackward");
  SAMPLE_CHECK(aclrtSynchronizeStream(stream), "aclrtSynchronizeStream");

  SAMPLE_CHECK(PrintDeviceFloats("dx", dxDev, 12), "dx");
  SAMPLE_CHECK(PrintDeviceFloats("dgamma", dwDev, 4), "dgamma");
  SAMPLE_CHECK(PrintDeviceFloats("dbeta", dbDev, 4), "dbeta");

  for (aclTensor* t : {dyT, xT, meanT, rstdT, weightT, biasT, dxT, dwT, dbT}) aclDestroyTensor(t);
  aclDestroyIntArray(norm);
  aclDestroyBoolArray(mask);
  for (void* p : {dyDev, xDev, meanDev, rstdDev, weightDev, biasDev, dxDev, dwDev, dbDev}) aclrtFree(p);
  if (workspace != nullptr) aclrtFree(workspace);
  return FinalizeRuntime(stream);
}
