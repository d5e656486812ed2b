// LayerNormGrad, variance/epsilon form: validation and lowering. The last
// dimension H is normalized; rstd = (variance + epsilon)^-0.5 per row.
#include "ops/norm_plan.h"
#include "ops/validate.h"

namespace gradops {

Status PlanLayerNormGrad(const LayerNormGradArgs& a, Plan* plan) {
  if (plan == nullptr) return NullPointer("plan: null");
  GRADOPS_RETURN_IF_ERROR(CheckView("dy", a.dy));
  GRADOPS_RETURN_IF_ERROR(CheckView("x", a.x));
  GRADOPS_RETURN_IF_ERROR(CheckView("variance", a.variance));
  GRADOPS_RETURN_IF_ERROR(CheckView("mean", a.mean));
  GRADOPS_RETURN_IF_ERROR(CheckView("gamma", a.gamma));
  GRADOPS_RETURN_IF_ERROR(CheckOutputView("dx", a.dx));
  GRADOPS_RETURN_IF_ERROR(CheckOutputView("res_for_gamma", a.res_for_gamma));

  GRADOPS_RETURN_IF_ERROR(CheckSameDType("dy", a.dy, "x", a.x));
  GRADOPS_RETURN_IF_ERROR(CheckGammaDType(a.gamma, a.x));
  GRADOPS_RETURN_IF_ERROR(CheckSameShape("dy", a.dy, "x", a.x));
  const int lead = a.x.rank - 1;
  const int64_t rows = MakeLayout(a.x.shape, a.x.strides, 0, lead).numel();
  const int64_t H = a.x.shape[lead];
  GRADOPS_RETURN_IF_ERROR(CheckNumel("variance", a.variance, rows, "one per row of x"));
  GRADOPS_RETURN_IF_ERROR(CheckNumel("mean", a.mean, rows, "one per row of x"));
  GRADOPS_RETURN_IF_ERROR(CheckTrailingShape("gamma", a.gamma, "x", a.x, lead));
  GRADOPS_RETURN_IF_ERROR(CheckSameShape("dx", a.dx, "x", a.x));
  GRADOPS_RETURN_IF_ERROR(CheckSameShape("res_for_gamma", a.res_for_gamma, "x", a.x));

  if (a.mean_count < 0 || a.mean_count > H) {
    return InvalidArgument("mean_count: " + std::to_string(a.mean_count) + " is outside [0, H = " +
                           std::to_string(H) + "]");
  }
  const int64_t count = a.mean_count ? a.mean_count : H;

  cpu::NormProblem p;
  p.kind = cpu::NormKind::kLayerNormGrad;
  p.M = rows;
  p.N = H;
  p.inv_n = count > 0 ? 1.0f / static_cast<float>(count) : 0.0f;
  p.dy = MatrixOf(a.dy, lead);
  p.x = MatrixOf(a.x, lead);
  p.mean = RowStatOf(a.mean);
  p.rstd = RowStatOf(a.variance);
  p.rstd_is_variance = true;
  p.epsilon = a.epsilon;
  p.has_gamma = true;
  p.gamma = VectorOf(a.gamma);
  p.want_dx = true;
  p.want_res = true;
  p.dx = MatrixOf(a.dx, lead);
  p.res = MatrixOf(a.res_for_gamma, lead);
  return MakeNormPlan("layer_norm_grad", p, plan);
}

}  // namespace gradops
