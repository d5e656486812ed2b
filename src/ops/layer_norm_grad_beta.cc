// LayerNormGradBeta: the column sums of the norm core, with
// x = res_for_gamma, mean = 0 and rstd = 1 so that x_hat = res_for_gamma.
#include "ops/norm_plan.h"
#include "ops/validate.h"

namespace gradops {

Status PlanLayerNormGradBeta(const LayerNormGradBetaArgs& a, Plan* plan) {
  if (plan == nullptr) return NullPointer("plan: null");
  GRADOPS_RETURN_IF_ERROR(CheckView("res_for_gamma", a.res_for_gamma));
  GRADOPS_RETURN_IF_ERROR(CheckView("dy", a.dy));
  GRADOPS_RETURN_IF_ERROR(CheckOutputView("dgamma", a.dgamma));
  GRADOPS_RETURN_IF_ERROR(CheckOutputView("dbeta", a.dbeta));
  GRADOPS_RETURN_IF_ERROR(CheckSameDType("dy", a.dy, "res_for_gamma", a.res_for_gamma));
  GRADOPS_RETURN_IF_ERROR(CheckSameShape("dy", a.dy, "res_for_gamma", a.res_for_gamma));
  const int lead = a.dy.rank - 1;
  GRADOPS_RETURN_IF_ERROR(CheckTrailingShape("dgamma", a.dgamma, "dy", a.dy, lead));
  GRADOPS_RETURN_IF_ERROR(CheckTrailingShape("dbeta", a.dbeta, "dy", a.dy, lead));

  cpu::NormProblem p;
  p.kind = cpu::NormKind::kColumnSums;
  p.M = MakeLayout(a.dy.shape, a.dy.strides, 0, lead).numel();
  p.N = a.dy.shape[lead];
  p.dy = MatrixOf(a.dy, lead);
  p.x = MatrixOf(a.res_for_gamma, lead);
  p.mean = RowStatConstant(0.0f);
  p.rstd = RowStatConstant(1.0f);
  p.want_dgamma = true;
  p.want_dbeta = true;
  p.dgamma = VectorOf(a.dgamma);
  p.dbeta = VectorOf(a.dbeta);
  return MakeNormPlan("layer_norm_grad_beta", p, plan);
}

}  // namespace gradops
