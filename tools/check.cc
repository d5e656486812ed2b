// `gradops check`: every operator in every dtype on a few realistic shapes,
// against the float64 reference. Prints a table; returns false on any failure.
#include <cstdio>
#include <vector>

#include "commands.h"
#include "problems.h"

namespace gradops {
namespace tool {

bool RunCheck() {
  struct Case {
    Op op;
    std::vector<int64_t> shape;
  };
  const Case cases[] = {
      {Op::kLayerNormBackward, {256, 768}},   {Op::kLayerNormBackward, {16, 8192}},
      {Op::kLayerNormBackward, {1000, 33}},   {Op::kRmsNormBackward, {256, 1024}},
      {Op::kRmsNormBackward, {8, 16384}},     {Op::kLayerNormGrad, {64, 1024}},
      {Op::kLayerNormGrad, {256, 16}},        {Op::kLayerNormGradBeta, {512, 1024}},
      {Op::kSiluBackward, {1 << 20}},         {Op::kSiluBackward, {1000003}},
  };
  const DType dtypes[3] = {DType::kFloat32, DType::kFloat16, DType::kBFloat16};
  std::printf("%-22s %-9s %-11s %-36s %s\n", "operator", "dtype", "shape", "max error / scale", "result");
  bool all_ok = true;
  uint64_t seed = 1;
  for (const Case& c : cases) {
    for (DType dtype : dtypes) {
      Problem problem(c.op, dtype, c.shape, seed++);
      Plan plan;
      Status s = problem.MakePlan(&plan);
      std::vector<unsigned char> workspace(plan.workspace_bytes());
      if (s.ok()) s = Run(plan, workspace.data(), workspace.size());
      std::vector<std::pair<std::string, ref::Comparison>> errors;
      const bool ok = s.ok() && problem.Check(&errors);
      all_ok = all_ok && ok;
      std::string detail;
      for (const auto& e : errors) {
        char buf[64];
        std::snprintf(buf, sizeof(buf), "%s %.1e ", e.first.c_str(), e.second.max_error);
        detail += buf;
      }
      if (!s.ok()) detail = s.message();
      std::printf("%-22s %-9s %-11s %-36s %s\n", OpName(c.op), DTypeName(dtype), ShapeString(c.shape).c_str(),
                  detail.c_str(), ok ? "pass" : "FAIL");
    }
  }
  std::printf("%s\n", all_ok ? "all checks passed" : "SOME CHECKS FAILED");
  return all_ok;
}

}  // namespace tool
}  // namespace gradops
