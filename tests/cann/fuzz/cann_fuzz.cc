// libFuzzer target for the CANN front ends: random descriptors (ranks,
// sizes, strides, offsets, dtypes, formats, storage) go through
// aclCreateTensor, both aclnn GetWorkspaceSize functions (running the
// executor when planning succeeds) and ATB RmsNormBackward Setup. Any crash,
// sanitizer report or out-of-bounds access is a bug.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "aclnnop/aclnn_layer_norm_backward.h"
#include "aclnnop/aclnn_silu_backward.h"
#include "atb/atb_infer.h"

namespace {

class Input {
 public:
  Input(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  uint8_t Byte() { return pos_ < size_ ? data_[pos_++] : 0; }
  int64_t Small(int lo, int hi) { return lo + Byte() % (hi - lo + 1); }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

const aclDataType kDTypes[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_INT32, ACL_DOUBLE, static_cast<aclDataType>(5)};
const aclFormat kFormats[] = {ACL_FORMAT_ND, ACL_FORMAT_NCHW, ACL_FORMAT_FRACTAL_NZ};

// A tensor over a buffer of the storage it claims (so a view the
// descriptor accepts is always backed by memory).
struct FuzzTensor {
  std::vector<uint8_t> storage;
  aclTensor* tensor = nullptr;

  explicit FuzzTensor(Input& in) {
    if (in.Byte() % 16 == 0) return;  // null
    const uint64_t rank = static_cast<uint64_t>(in.Small(0, 9));
    int64_t dims[9], strides[9];
    for (uint64_t d = 0; d < rank; ++d) {
      dims[d] = in.Small(-1, 5);
      strides[d] = in.Small(-1, 12);
    }
    const int64_t offset = in.Small(-1, 6);
    const int64_t storage_dims[1] = {in.Small(0, 200)};
    const aclDataType dtype = kDTypes[in.Byte() % 6];
    const aclFormat format = kFormats[in.Byte() % 3];
    storage.resize(static_cast<size_t>(storage_dims[0]) * 8 + 8);
    tensor = aclCreateTensor(dims, rank, dtype, strides, offset, format, storage_dims, 1, storage.data());
  }
  ~FuzzTensor() { aclDestroyTensor(tensor); }
};

void RunIfPlanned(aclnnStatus status, uint64_t workspace_size, aclOpExecutor* executor,
                  aclnnStatus (*run)(void*, uint64_t, aclOpExecutor*, aclrtStream)) {
  if (status != 0) return;
  std::vector<uint8_t> workspace(workspace_size + 1);
  run(workspace.data(), workspace_size, executor, nullptr);
}

void FuzzAclnn(Input& in) {
  FuzzTensor t[9] = {FuzzTensor(in), FuzzTensor(in), FuzzTensor(in), FuzzTensor(in), FuzzTensor(in),
                     FuzzTensor(in), FuzzTensor(in), FuzzTensor(in), FuzzTensor(in)};
  int64_t norm_values[9];
  const uint64_t norm_size = static_cast<uint64_t>(in.Small(0, 9));
  for (uint64_t i = 0; i < norm_size; ++i) norm_values[i] = in.Small(0, 5);
  aclIntArray* norm = in.Byte() % 8 ? aclCreateIntArray(norm_values, norm_size) : nullptr;
  bool mask_values[4] = {in.Byte() % 2 == 0, in.Byte() % 2 == 0, in.Byte() % 2 == 0, true};
  aclBoolArray* mask = in.Byte() % 8 ? aclCreateBoolArray(mask_values, static_cast<uint64_t>(in.Small(2, 4))) : nullptr;

  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  RunIfPlanned(aclnnLayerNormBackwardGetWorkspaceSize(t[0].tensor, t[1].tensor, norm, t[2].tensor, t[3].tensor,
                                                      t[4].tensor, t[5].tensor, mask, t[6].tensor, t[7].tensor,
                                                      t[8].tensor, &workspace_size, &executor),
               workspace_size, executor, aclnnLayerNormBackward);
  RunIfPlanned(aclnnSiluBackwardGetWorkspaceSize(t[0].tensor, t[1].tensor, t[6].tensor, &workspace_size, &executor),
               workspace_size, executor, aclnnSiluBackward);
  aclDestroyIntArray(norm);
  aclDestroyBoolArray(mask);
}

void FuzzAtb(Input& in) {
  atb::Context* context = nullptr;
  atb::Operation* op = nullptr;
  atb::CreateContext(&context);
  atb::CreateOperation(atb::train::RmsNormBackwardParam(), &op);
  atb::VariantPack pack;
  pack.inTensors.resize(static_cast<size_t>(in.Small(3, 5)));
  pack.outTensors.resize(static_cast<size_t>(in.Small(1, 3)));
  auto fill = [&](atb::Tensor& t) {
    t.desc.dtype = kDTypes[in.Byte() % 6];
    t.desc.format = kFormats[in.Byte() % 3];
    t.desc.shape.dimNum = static_cast<uint64_t>(in.Small(0, 10));
    for (int64_t& d : t.desc.shape.dims) d = in.Small(-1, 6);
  };
  for (atb::Tensor& t : pack.inTensors) fill(t);
  for (atb::Tensor& t : pack.outTensors) fill(t);
  uint64_t workspace_size = 0;
  op->Setup(pack, workspace_size, in.Byte() % 8 ? context : nullptr);
  atb::SVector<atb::TensorDesc> in_descs, out_descs;
  for (const atb::Tensor& t : pack.inTensors) in_descs.push_back(t.desc);
  op->InferShape(in_descs, out_descs);
  atb::DestroyOperation(op);
  atb::DestroyContext(context);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Input in(data, size);
  if (in.Byte() % 2) {
    FuzzAclnn(in);
  } else {
    FuzzAtb(in);
  }
  return 0;
}
