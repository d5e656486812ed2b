// RMSNorm backward: the norm core with mean = 0 and no mean(g) term. gamma's
// dims are the trailing dims of x and fix the normalized rank.
#include "ops/norm_plan.h"
#include "ops/validate.h"

namespace gradops {

Status PlanRmsNormBackward(const RmsNormBackwardArgs& a, Plan* plan) {
  if (plan == nullptr) return NullPointer("plan: null");
  GRADOPS_RETURN_IF_ERROR(CheckView("dy", a.dy));
  GRADOPS_RETURN_IF_ERROR(CheckView("x", a.x));
  GRADOPS_RETURN_IF_ERROR(CheckView("rstd", a.rstd));
  GRADOPS_RETURN_IF_ERROR(CheckView("gamma", a.gamma));
  GRADOPS_RETURN_IF_ERROR(CheckOutputView("dx", a.dx));
  GRADOPS_RETURN_IF_ERROR(CheckOutputView("dgamma", a.dgamma));

  GRADOPS_RETURN_IF_ERROR(CheckSameDType("dy", a.dy, "x", a.x));
  GRADOPS_RETURN_IF_ERROR(CheckGammaDType(a.gamma, a.x));
  GRADOPS_RETURN_IF_ERROR(CheckSameShape("dy", a.dy, "x", a.x));
  if (a.gamma.rank > a.x.rank) {
    return InvalidArgument("gamma: rank " + std::to_string(a.gamma.rank) + " exceeds the rank of x (" +
                           std::to_string(a.x.rank) + ")");
  }
  const int lead = a.x.rank - a.gamma.rank;
  GRADOPS_RETURN_IF_ERROR(CheckTrailingShape("gamma", a.gamma, "x", a.x, lead));
  const int64_t M = MakeLayout(a.x.shape, a.x.strides, 0, lead).numel();
  const int64_t N = a.gamma.numel();
  GRADOPS_RETURN_IF_ERROR(CheckNumel("rstd", a.rstd, M, "one per row of x"));
  GRADOPS_RETURN_IF_ERROR(CheckSameShape("dx", a.dx, "x", a.x));
  GRADOPS_RETURN_IF_ERROR(CheckSameShape("dgamma", a.dgamma, "gamma", a.gamma));

  cpu::NormProblem p;
  p.kind = cpu::NormKind::kRmsNorm;
  p.M = M;
  p.N = N;
  p.inv_n = N > 0 ? 1.0f / static_cast<float>(N) : 0.0f;
  p.dy = MatrixOf(a.dy, lead);
  p.x = MatrixOf(a.x, lead);
  p.mean = RowStatConstant(0.0f);
  p.rstd = RowStatOf(a.rstd);
  p.has_gamma = true;
  p.gamma = VectorOf(a.gamma);
  p.want_dx = true;
  p.want_dgamma = true;
  p.dx = MatrixOf(a.dx, lead);
  p.dgamma = VectorOf(a.dgamma);
  return MakeNormPlan("rms_norm_backward", p, plan);
}

}  // namespace gradops
