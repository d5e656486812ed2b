// LayerNorm backward, mean/rstd form: validation and lowering.
#include "ops/norm_plan.h"
#include "ops/validate.h"

namespace gradops {

Status PlanLayerNormBackward(const LayerNormBackwardArgs& a, Plan* plan) {
  if (plan == nullptr) return NullPointer("plan: null");
  const bool* mask = a.output_mask;
  GRADOPS_RETURN_IF_ERROR(CheckView("dy", a.dy));
  GRADOPS_RETURN_IF_ERROR(CheckView("x", a.x));
  GRADOPS_RETURN_IF_ERROR(CheckView("mean", a.mean));
  GRADOPS_RETURN_IF_ERROR(CheckView("rstd", a.rstd));
  if (a.gamma) GRADOPS_RETURN_IF_ERROR(CheckView("gamma", *a.gamma));
  if (mask[0]) GRADOPS_RETURN_IF_ERROR(CheckOutputView("dx", a.dx));
  if (mask[1]) GRADOPS_RETURN_IF_ERROR(CheckOutputView("dgamma", a.dgamma));
  if (mask[2]) GRADOPS_RETURN_IF_ERROR(CheckOutputView("dbeta", a.dbeta));

  const int j = a.normalized_rank;
  if (j < 1 || j > a.x.rank) {
    return InvalidArgument("normalized_rank: " + std::to_string(j) + " is outside [1, rank of x = " +
                           std::to_string(a.x.rank) + "]");
  }
  GRADOPS_RETURN_IF_ERROR(CheckSameDType("dy", a.dy, "x", a.x));
  if (a.gamma) GRADOPS_RETURN_IF_ERROR(CheckGammaDType(*a.gamma, a.x));
  GRADOPS_RETURN_IF_ERROR(CheckSameShape("dy", a.dy, "x", a.x));
  const int lead = a.x.rank - j;
  const int64_t M = MakeLayout(a.x.shape, a.x.strides, 0, lead).numel();
  const int64_t N = MakeLayout(a.x.shape, a.x.strides, lead, a.x.rank).numel();
  GRADOPS_RETURN_IF_ERROR(CheckNumel("mean", a.mean, M, "one per row of x"));
  GRADOPS_RETURN_IF_ERROR(CheckNumel("rstd", a.rstd, M, "one per row of x"));
  if (a.gamma) GRADOPS_RETURN_IF_ERROR(CheckTrailingShape("gamma", *a.gamma, "x", a.x, lead));
  if (mask[0]) GRADOPS_RETURN_IF_ERROR(CheckSameShape("dx", a.dx, "x", a.x));
  if (mask[1]) GRADOPS_RETURN_IF_ERROR(CheckNumel("dgamma", a.dgamma, N, "the normalized shape"));
  if (mask[2]) GRADOPS_RETURN_IF_ERROR(CheckNumel("dbeta", a.dbeta, N, "the normalized shape"));

  cpu::NormProblem p;
  p.kind = cpu::NormKind::kLayerNorm;
  p.M = M;
  p.N = N;
  p.inv_n = N > 0 ? 1.0f / static_cast<float>(N) : 0.0f;
  p.dy = MatrixOf(a.dy, lead);
  p.x = MatrixOf(a.x, lead);
  p.mean = RowStatOf(a.mean);
  p.rstd = RowStatOf(a.rstd);
  p.has_gamma = a.gamma != nullptr;
  if (a.gamma) p.gamma = VectorOf(*a.gamma);
  p.want_dx = mask[0];
  p.want_dgamma = mask[1];
  p.want_dbeta = mask[2];
  if (mask[0]) p.dx = MatrixOf(a.dx, lead);
  if (mask[1]) p.dgamma = VectorOf(a.dgamma);
  if (mask[2]) p.dbeta = VectorOf(a.dbeta);
  return MakeNormPlan("layer_norm_backward", p, plan);
}

}  // namespace gradops
