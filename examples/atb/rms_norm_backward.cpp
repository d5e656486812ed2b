// ATB RmsNormBackward sample: a 2 x 3 x 4 float input normalized over its
// last dim. Prints the inputs and dx, dgamma as "name[i] = value".
#include <cmath>
#include <cstdio>
#include <vector>

#include "acl/acl.h"
#include "atb/operation.h"
#include "atb/train_op_params.h"
#include "atb/types.h"
#include "demo_util.h"

namespace {

void Print(const char* name, const std::vector<float>& values) {
  for (size_t i = 0; i < values.size(); ++i) std::printf("%s[%zu] = %.9g\n", name, i, values[i]);
}

int PrintDevice(const char* name, const atb::Tensor& tensor) {
  std::vector<float> host(tensor.dataSize / sizeof(float));
  CHECK_STATUS(aclrtMemcpy(host.data(), tensor.dataSize, tensor.deviceData, tensor.dataSize,
                           ACL_MEMCPY_DEVICE_TO_HOST));
  Print(name, host);
  return 0;
}

}  // namespace

int main() {
  const int64_t rows = 6, cols = 4;
  std::vector<float> x(rows * cols), dy(rows * cols), gamma = {0.5f, 1.0f, -1.5f, 2.0f}, rstd(rows);
  for (int64_t i = 0; i < rows * cols; ++i) {
    x[i] = 0.25f * static_cast<float>((i * 7) % 11) - 1.0f;
    dy[i] = 0.5f * static_cast<float>((i * 5) % 9) - 2.0f;
  }
  for (int64_t r = 0; r < rows; ++r) {  // what the forward pass saves (epsilon 1e-6)
    float sq = 0;
    for (int64_t c = 0; c < cols; ++c) sq += x[r * cols + c] * x[r * cols + c];
    rstd[r] = 1.0f / std::sqrt(sq / cols + 1e-6f);
  }
  Print("dy", dy);
  Print("x", x);
  Print("rstd", rstd);
  Print("gamma", gamma);

  atb::Context* context = nullptr;
  aclrtStream stream = nullptr;
  CHECK_STATUS(aclInit(nullptr));
  CHECK_STATUS(aclrtSetDevice(0));
  CHECK_STATUS(atb::CreateContext(&context));
  CHECK_STATUS(aclrtCreateStream(&stream));
  CHECK_STATUS(context->SetExecuteStream(stream));

  atb::train::RmsNormBackwardParam param;
  atb::Operation* op = nullptr;
  CHECK_STATUS(atb::CreateOperation(param, &op));

  atb::VariantPack pack;
  pack.inTensors.resize(4);
  CHECK_STATUS(CreateTensorFromVector(context, stream, dy, ACL_FLOAT, ACL_FORMAT_ND, {2, 3, 4}, pack.inTensors[0]));
  CHECK_STATUS(CreateTensorFromVector(context, stream, x, ACL_FLOAT, ACL_FORMAT_ND, {2, 3, 4}, pack.inTensors[1]));
  CHECK_STATUS(CreateTensorFromVector(context, stream, rstd, ACL_FLOAT, ACL_FORMAT_ND, {2, 3, 1}, pack.inTensors[2]));
  CHECK_STATUS(CreateTensorFromVector(context, stream, gamma, ACL_FLOAT, ACL_FORMAT_ND, {4}, pack.inTensors[3]));
  pack.outTensors.resize(2);
  CHECK_STATUS(CreateTensor(ACL_FLOAT, ACL_FORMAT_ND, {2, 3, 4}, pack.outTensors[0]));
  CHECK_STATUS(CreateTensor(ACL_FLOAT, ACL_FORMAT_ND, {4}, pack.outTensors[1]));

  uint64_t workspaceSize = 0;
  CHECK_STATUS(op->Setup(pack, workspaceSize, context));
  uint8_t* workspace = nullptr;
  if (workspaceSize > 0) CHECK_STATUS(aclrtMalloc(reinterpret_cast<void**>(&workspace), workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK_STATUS(op->Execute(pack, workspace, workspaceSize, context));
  CHECK_STATUS(aclrtSynchronizeStream(stream));

  CHECK_STATUS(PrintDevice("dx", pack.outTensors[0]));
  CHECK_STATUS(PrintDevice("dgamma", pack.outTensors[1]));

  for (atb::Tensor& t : pack.inTensors) CHECK_STATUS(aclrtFree(t.deviceData));
  for (atb::Tensor& t : pack.outTensors) CHECK_STATUS(aclrtFree(t.deviceData));
  if (workspace != nullptr) CHECK_STATUS(aclrtFree(workspace));
  CHECK_STATUS(atb::DestroyOperation(op));
  CHECK_STATUS(aclrtDestroyStream(stream));
  CHECK_STATUS(atb::DestroyContext(context));
  CHECK_STATUS(aclFinalize());
  return 0;
}
