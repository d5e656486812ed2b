// Uses an installed gradops: SiLU backward of one value, checked by hand.
#include <gradops/gradops.h>

#include <cmath>
#include <cstdio>

int main() {
  float dy[2] = {2.0f, 1.0f}, x[2] = {0.0f, 1.0f}, dx[2] = {0, 0};
  gradops::SiluBackwardArgs args;
  args.dy = gradops::Contiguous(dy, gradops::DType::kFloat32, {2});
  args.x = gradops::Contiguous(x, gradops::DType::kFloat32, {2});
  args.dx = gradops::Contiguous(dx, gradops::DType::kFloat32, {2});
  gradops::Plan plan;
  gradops::Status s = gradops::PlanSiluBackward(args, &plan);
  if (s.ok()) s = gradops::Run(plan, nullptr, 0);
  const double sig = 1.0 / (1.0 + std::exp(-1.0));
  const double want1 = sig * (1.0 + 1.0 - sig);
  const bool ok = s.ok() && dx[0] == 1.0f && std::fabs(dx[1] - want1) < 1e-6;
  std::printf("consumer: %s (dx = %g %g)\n", ok ? "ok" : "FAILED", dx[0], dx[1]);
  return ok ? 0 : 1;
}
