// aclnnLayerNormBackward over gradops::PlanLayerNormBackward. The checks run
// in CANN's documented order (null pointers, mask length, outputs the mask
// asks for, dtypes, shapes); what the core checks itself is left to it.
//
// Stricter than CANN: normalizedShape must equal input's trailing dims (CANN
// compares only part of them), so some inputs CANN lets through return
// ACLNN_ERR_PARAM_INVALID here.
#include <string>

#include "aclnn/descriptors.h"
#include "aclnn/executor.h"
#include "aclnn/status.h"
#include "aclnn/tensor_view.h"
#include "aclnnop/aclnn_layer_norm_backward.h"
#include "common/error_message.h"
#include "opdev/op_errno.h"
#include "ops/validate.h"

namespace gradops {
namespace cann {
namespace {

constexpr const char* kOp = "aclnnLayerNormBackward";
// The core names its arguments in its own vocabulary.
constexpr const char* kGlossary =
    "dy = gradOut, x = input, gamma = weightOptional, dx = gradInputOut, dgamma = gradWeightOut, "
    "dbeta = gradBiasOut";

// normalizedShape (1..8 values, at most input's rank) as a shape-only view.
aclnnStatus NormalizedShapeView(const aclIntArray* normalized_shape, const TensorView& x, TensorView* view) {
  const std::vector<int64_t>& norm = normalized_shape->values;
  if (norm.empty() || norm.size() > static_cast<size_t>(kMaxRank) || norm.size() > static_cast<size_t>(x.rank)) {
    return Fail(ACLNN_ERR_PARAM_INVALID, "normalizedShape: " + std::to_string(norm.size()) +
                                             " dims, expected 1 to 8 and at most input's " + std::to_string(x.rank));
  }
  *view = Contiguous(nullptr, DType::kFloat32, static_cast<int>(norm.size()), norm.data());
  return ACLNN_SUCCESS;
}

// A shape rule of validate.h, as an aclnn code.
aclnnStatus ShapeRule(const Status& status) { return FromStatus(kOp, status); }

// An optional tensor's view, when the tensor is given.
aclnnStatus OptionalView(const char* name, const aclTensor* tensor, TensorView* view, bool* present) {
  *present = tensor != nullptr;
  return tensor ? ToView(name, tensor, view) : ACLNN_SUCCESS;
}

}  // namespace
}  // namespace cann
}  // namespace gradops

using namespace gradops::cann;  // NOLINT: this file implements one C entry point pair

extern "C" {

aclnnStatus aclnnLayerNormBackwardGetWorkspaceSize(const aclTensor* gradOut, const aclTensor* input,
                                                   const aclIntArray* normalizedShape, const aclTensor* mean,
                                                   const aclTensor* rstd, const aclTensor* weightOptional,
                                                   const aclTensor* biasOptional, const aclBoolArray* outputMask,
                                                   aclTensor* gradInputOut, aclTensor* gradWeightOut,
                                                   aclTensor* gradBiasOut, uint64_t* workspaceSize,
                                                   aclOpExecutor** executor) {
  GRADOPS_ACLNN_RETURN_IF_ERROR(CheckNotNull({{"workspaceSize", workspaceSize}, {"executor", executor}}));
  GRADOPS_ACLNN_RETURN_IF_ERROR(CheckNotNull({{"gradOut", gradOut},
                                              {"input", input},
                                              {"normalizedShape", normalizedShape},
                                              {"mean", mean},
                                              {"rstd", rstd},
                                              {"outputMask", outputMask}}));
  if (!IsLive(outputMask)) return Fail(ACLNN_ERR_PARAM_INVALID, "outputMask: not a live aclBoolArray");
  if (!IsLive(normalizedShape)) return Fail(ACLNN_ERR_PARAM_INVALID, "normalizedShape: not a live aclIntArray");
  if (outputMask->values.size() != 3) {
    return Fail(ACLNN_ERR_PARAM_INVALID,
                "outputMask: " + std::to_string(outputMask->values.size()) + " values, expected 3");
  }
  gradops::LayerNormBackwardArgs args;
  const char* out_names[3] = {"gradInputOut", "gradWeightOut", "gradBiasOut"};
  aclTensor* outs[3] = {gradInputOut, gradWeightOut, gradBiasOut};
  for (int i = 0; i < 3; ++i) {
    args.output_mask[i] = outputMask->values[i];
    if (args.output_mask[i] && outs[i] == nullptr) {
      return Fail(ACLNN_ERR_PARAM_NULLPTR,
                  std::string(out_names[i]) + ": null while outputMask[" + std::to_string(i) + "] is true");
    }
  }

  gradops::TensorView weight, bias;
  bool has_weight = false, has_bias = false, present = false;
  GRADOPS_ACLNN_RETURN_IF_ERROR(ToView("gradOut", gradOut, &args.dy));
  GRADOPS_ACLNN_RETURN_IF_ERROR(ToView("input", input, &args.x));
  GRADOPS_ACLNN_RETURN_IF_ERROR(ToView("mean", mean, &args.mean));
  GRADOPS_ACLNN_RETURN_IF_ERROR(ToView("rstd", rstd, &args.rstd));
  GRADOPS_ACLNN_RETURN_IF_ERROR(OptionalView("weightOptional", weightOptional, &weight, &has_weight));
  GRADOPS_ACLNN_RETURN_IF_ERROR(OptionalView("biasOptional", biasOptional, &bias, &has_bias));
  GRADOPS_ACLNN_RETURN_IF_ERROR(OptionalView("gradInputOut", gradInputOut, &args.dx, &present));
  GRADOPS_ACLNN_RETURN_IF_ERROR(OptionalView("gradWeightOut", gradWeightOut, &args.dgamma, &present));
  GRADOPS_ACLNN_RETURN_IF_ERROR(OptionalView("gradBiasOut", gradBiasOut, &args.dbeta, &present));

  gradops::TensorView norm;
  GRADOPS_ACLNN_RETURN_IF_ERROR(NormalizedShapeView(normalizedShape, args.x, &norm));
  const int lead = args.x.rank - norm.rank;
  GRADOPS_ACLNN_RETURN_IF_ERROR(ShapeRule(gradops::CheckTrailingShape("normalizedShape", norm, "input", args.x, lead)));
  if (has_weight) {
    GRADOPS_ACLNN_RETURN_IF_ERROR(ShapeRule(gradops::CheckSameShape("weightOptional", weight, "normalizedShape", norm)));
  }
  if (has_bias) {
    GRADOPS_ACLNN_RETURN_IF_ERROR(ShapeRule(gradops::CheckSameShape("biasOptional", bias, "normalizedShape", norm)));
  }
  GRADOPS_ACLNN_RETURN_IF_ERROR(ShapeRule(gradops::CheckSameShape("mean", args.mean, "rstd", args.rstd)));

  // The core checks the rest (dtype pairs, gradOut/gradInputOut shapes, row
  // and column counts, strides) and maps them to 161001/161002.
  args.normalized_rank = static_cast<int>(normalizedShape->values.size());
  args.gamma = has_weight ? &weight : nullptr;
  gradops::Plan plan;
  GRADOPS_ACLNN_RETURN_IF_ERROR(FromStatus(kOp, gradops::PlanLayerNormBackward(args, &plan), kGlossary));
  return MakeExecutor(kOp, plan, workspaceSize, executor);
}

aclnnStatus aclnnLayerNormBackward(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                   aclrtStream stream) {
  return RunExecutor(kOp, workspace, workspaceSize, executor, stream);
}

}  // extern "C"
