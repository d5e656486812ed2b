// ATB RmsNormBackwardOperation over gradops::PlanRmsNormBackward.
//
// Setup checks the VariantPack in ATB's order (tensor counts, dims, the
// dtype/format table, shapes) and reports the workspace; Execute checks the
// context, stream, workspace and data, then runs on the context's stream.
// Tensors are contiguous; gamma's dims are the trailing dims of x. dgamma is
// deterministic (ATB's own kernel accumulates it with atomics).
#include <new>

#include "aclnn/tensor_view.h"
#include "atb/registry.h"
#include "atb/tensor_desc.h"
#include "atb/train_op_params.h"
#include "atb/utils.h"
#include "common/error_message.h"
#include "gradops/ops.h"
#include "runtime/runtime.h"

namespace gradops {
namespace cann {
namespace {

using atb::Status;
using atb::TensorDesc;

enum Input { kDy, kX, kRstd, kGamma, kInputs };
enum Output { kDx, kDgamma, kOutputs };
const char* const kInputNames[kInputs] = {"dy", "x", "rstd", "gamma"};
const char* const kOutputNames[kOutputs] = {"dx", "dgamma"};

Status Error(Status code, const std::string& message) {
  return Fail<Status>(code, "RmsNormBackwardOperation: " + message);
}

bool Supported(aclDataType dtype) {
  DType unused;
  return ToDType(dtype, &unused);
}

// The rules on descriptions, in ATB's order. `out` may be null (InferShape).
Status CheckDescs(const atb::SVector<TensorDesc>& in, const atb::SVector<TensorDesc>* out) {
  if (in.size() != kInputs || (out && out->size() != kOutputs)) {
    return Error(atb::ERROR_INVALID_IN_TENSOR_NUM,
                 std::to_string(in.size()) + " inputs and " + std::to_string(out ? out->size() : 0) +
                     " outputs given, expected 4 (dy, x, rstd, gamma) and 2 (dx, dgamma)");
  }
  for (int i = 0; i < kInputs; ++i) {
    const Status s = CheckDesc(kInputNames[i], in[i]);
    if (s != atb::NO_ERROR) return s;
  }
  for (int i = 0; out && i < kOutputs; ++i) {
    const Status s = CheckDesc(kOutputNames[i], (*out)[i]);
    if (s != atb::NO_ERROR) return s;
  }
  // The supported table: dy, x, gamma (and dx) one of float/float16/bf16,
  // rstd and dgamma float, every format ND.
  const aclDataType dtype = in[kX].dtype;
  bool table = Supported(dtype) && in[kDy].dtype == dtype && in[kGamma].dtype == dtype && in[kRstd].dtype == ACL_FLOAT;
  if (out) table = table && (*out)[kDx].dtype == dtype && (*out)[kDgamma].dtype == ACL_FLOAT;
  for (int i = 0; i < kInputs; ++i) table = table && in[i].format == ACL_FORMAT_ND;
  for (int i = 0; out && i < kOutputs; ++i) table = table && (*out)[i].format == ACL_FORMAT_ND;
  if (!table) {
    return Error(atb::ERROR_INVALID_TENSOR_INI_MATCH,
                 "dtypes/formats are not a supported combination: dy, x, gamma, dx all FLOAT, FLOAT16 or BF16, "
                 "rstd and dgamma FLOAT, every format ND");
  }
  const TensorDesc& x = in[kX];
  const TensorDesc& gamma = in[kGamma];
  if (gamma.shape.dimNum > x.shape.dimNum) {
    return Error(atb::ERROR_INVALID_TENSOR_DIM, "gamma " + DimsString(gamma) + " has more dims than x " + DimsString(x));
  }
  const uint64_t lead = x.shape.dimNum - gamma.shape.dimNum;
  TensorDesc leading = x;  // x's leading dims: one rstd value each
  leading.shape.dimNum = lead;
  const int64_t rows = lead == 0 ? 1 : atb::Utils::GetTensorNumel(leading);
  for (uint64_t d = lead; d < x.shape.dimNum; ++d) {
    if (gamma.shape.dims[d - lead] != x.shape.dims[d]) {
      return Error(atb::ERROR_INVALID_TENSOR_DIM, "gamma " + DimsString(gamma) + " is not the trailing dims of x " + DimsString(x));
    }
  }
  if (!SameDims(in[kDy], x)) {
    return Error(atb::ERROR_INVALID_TENSOR_DIM, "dy " + DimsString(in[kDy]) + " differs from x " + DimsString(x));
  }
  if (atb::Utils::GetTensorNumel(in[kRstd]) != rows) {
    return Error(atb::ERROR_INVALID_TENSOR_DIM, "rstd " + DimsString(in[kRstd]) + " must hold one value per row of x (" +
                                                   std::to_string(rows) + ")");
  }
  if (out && !SameDims((*out)[kDx], x)) {
    return Error(atb::ERROR_INVALID_TENSOR_DIM, "dx " + DimsString((*out)[kDx]) + " differs from x " + DimsString(x));
  }
  if (out && !SameDims((*out)[kDgamma], gamma)) {
    return Error(atb::ERROR_INVALID_TENSOR_DIM,
                 "dgamma " + DimsString((*out)[kDgamma]) + " differs from gamma " + DimsString(gamma));
  }
  return atb::NO_ERROR;
}

void Descs(const atb::SVector<atb::Tensor>& tensors, atb::SVector<TensorDesc>* descs) {
  descs->clear();
  for (const atb::Tensor& t : tensors) descs->push_back(t.desc);
}

// Execute's data rules: every tensor has data and dataSize = GetTensorSize.
Status CheckData(const atb::SVector<atb::Tensor>& tensors, const char* const* names) {
  for (size_t i = 0; i < tensors.size(); ++i) {
    const atb::Tensor& t = tensors[i];
    const uint64_t size = atb::Utils::GetTensorSize(t.desc);
    if (t.dataSize != size) {
      return Error(atb::ERROR_INVALID_PARAM, std::string(names[i]) + ": dataSize " + std::to_string(t.dataSize) +
                                                 " differs from the " + std::to_string(size) + " bytes of its desc");
    }
    if (t.deviceData == nullptr && size > 0) return Error(atb::ERROR_INVALID_PARAM, std::string(names[i]) + ": deviceData is null");
  }
  return atb::NO_ERROR;
}

// Plans a checked pack. Setup plans before data may be attached: a tensor
// without deviceData then gets a stand-in address, and the plan serves only
// to size the workspace.
Status PlanPack(const atb::VariantPack& pack, Plan* plan) {
  static char stand_in;
  auto view = [](const atb::Tensor& t) { return ContiguousView(t.desc, t.deviceData ? t.deviceData : &stand_in); };
  RmsNormBackwardArgs args;
  args.dy = view(pack.inTensors[kDy]);
  args.x = view(pack.inTensors[kX]);
  args.rstd = view(pack.inTensors[kRstd]);
  args.gamma = view(pack.inTensors[kGamma]);
  args.dx = view(pack.outTensors[kDx]);
  args.dgamma = view(pack.outTensors[kDgamma]);
  const gradops::Status s = PlanRmsNormBackward(args, plan);
  if (!s.ok()) return Error(atb::ERROR_INVALID_PARAM, s.message());
  return atb::NO_ERROR;
}

class RmsNormBackwardOperation final : public atb::Operation {
 public:
  std::string GetName() const override { return "RmsNormBackwardOperation"; }
  uint32_t GetInputNum() const override { return kInputs; }
  uint32_t GetOutputNum() const override { return kOutputs; }

  // dx takes x's desc; dgamma takes gamma's with dtype FLOAT.
  Status InferShape(const atb::SVector<TensorDesc>& in, atb::SVector<TensorDesc>& out) const override {
    const Status s = CheckDescs(in, nullptr);
    if (s != atb::NO_ERROR) return s;
    TensorDesc dgamma = in[kGamma];
    dgamma.dtype = ACL_FLOAT;
    out = {in[kX], dgamma};
    return atb::NO_ERROR;
  }

  Status Setup(const atb::VariantPack& pack, uint64_t& workspaceSize, atb::Context* context) override {
    set_up_ = false;
    if (context == nullptr) return Error(atb::ERROR_INVALID_PARAM, "Setup: context is null");
    if (!IsLiveContext(context)) return Error(atb::ERROR_INVALID_CONTEXT_ADDR, "Setup: context is not live");
    atb::SVector<TensorDesc> in, out;
    Descs(pack.inTensors, &in);
    Descs(pack.outTensors, &out);
    Status s = CheckDescs(in, &out);
    Plan plan;
    if (s == atb::NO_ERROR) s = PlanPack(pack, &plan);
    if (s != atb::NO_ERROR) return s;
    workspaceSize = plan.workspace_bytes();
    set_up_ = true;
    context_ = context;
    workspace_bytes_ = workspaceSize;
    in_ = in;
    out_ = out;
    return atb::NO_ERROR;
  }

  Status Execute(const atb::VariantPack& pack, uint8_t* workspace, uint64_t workspaceSize,
                 atb::Context* context) override {
    if (!set_up_) return Error(atb::ERROR_INVALID_PARAM, "Execute: no successful Setup before it");
    if (context == nullptr || context != context_) {
      return Error(atb::ERROR_INVALID_PARAM, "Execute: context differs from the one given to Setup");
    }
    if (!IsLiveContext(context)) return Error(atb::ERROR_INVALID_CONTEXT_ADDR, "Execute: context is not live");
    aclrtStream handle = context->GetExecuteStream();
    if (handle == nullptr) return Error(atb::ERROR_INVALID_PARAM, "Execute: the context has no execute stream");
    runtime::Stream* stream = runtime::FindStream(handle);
    if (stream == nullptr) return Error(atb::ERROR_INVALID_STREAM, "Execute: the context's stream is not live");
    if (!SamePack(pack)) {
      return Error(atb::ERROR_INVALID_PARAM, "Execute: tensor descs differ from those given to Setup (call Setup again)");
    }
    if (workspaceSize < workspace_bytes_) {
      return Error(atb::ERROR_INVALID_PARAM, "Execute: workspaceSize " + std::to_string(workspaceSize) +
                                                 " is less than the " + std::to_string(workspace_bytes_) +
                                                 " bytes Setup reported");
    }
    if (workspace == nullptr && workspaceSize > 0) return Error(atb::ERROR_INVALID_PARAM, "Execute: workspace is null");
    Status s = CheckData(pack.inTensors, kInputNames);
    if (s == atb::NO_ERROR) s = CheckData(pack.outTensors, kOutputNames);
    Plan plan;
    if (s == atb::NO_ERROR) s = PlanPack(pack, &plan);
    if (s != atb::NO_ERROR) return s;
    const size_t bytes = static_cast<size_t>(workspaceSize);
    stream->Submit([plan, workspace, bytes](void* native) { return Run(plan, workspace, bytes, native); });
    return atb::NO_ERROR;
  }

 private:
  bool SamePack(const atb::VariantPack& pack) const {
    if (pack.inTensors.size() != in_.size() || pack.outTensors.size() != out_.size()) return false;
    for (size_t i = 0; i < in_.size(); ++i) {
      if (!SameDesc(pack.inTensors[i].desc, in_[i])) return false;
    }
    for (size_t i = 0; i < out_.size(); ++i) {
      if (!SameDesc(pack.outTensors[i].desc, out_[i])) return false;
    }
    return true;
  }

  bool set_up_ = false;
  const atb::Context* context_ = nullptr;
  uint64_t workspace_bytes_ = 0;
  atb::SVector<TensorDesc> in_, out_;
};

}  // namespace
}  // namespace cann
}  // namespace gradops

namespace atb {

template <>
Status CreateOperation(const train::RmsNormBackwardParam& opParam, Operation** operation) {
  using gradops::cann::Fail;
  if (operation == nullptr) return Fail<Status>(ERROR_INVALID_PARAM, "CreateOperation: operation is null");
  for (uint8_t byte : opParam.rsv) {
    if (byte != 0) return Fail<Status>(ERROR_INVALID_PARAM, "CreateOperation: RmsNormBackwardParam.rsv must be zero");
  }
  Operation* op = new (std::nothrow) gradops::cann::RmsNormBackwardOperation();
  if (op == nullptr) return Fail<Status>(ERROR_OUT_OF_HOST_MEMORY, "CreateOperation: out of memory");
  gradops::cann::AddOperation(op);
  *operation = op;
  return NO_ERROR;
}

}  // namespace atb
